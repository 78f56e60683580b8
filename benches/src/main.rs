//! `ferroflash`: decode demo, benchmark and check.
//!
//! - `ferroflash bench [--workloads W1,W2] [--workload-file F] [--jsonl PATH] [--env-json PATH]`
//!   times the decode kernels on the workloads (W1-W6 built in) and prints a table; on a machine
//!   without a GPU it runs the CPU reference on a reduced workload instead and says so.
//! - `ferroflash check [...]` checks the kernels on the workloads against the float64 CPU
//!   reference (a sample of requests), without timing, under the same plan and kernel choices
//!   as `bench` (`--splits`, `--kv-pairs`, `--kv-layout`, `--graph-plan`, ...).

mod gpu;
mod workloads;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "ferroflash",
    about = "ferroflash decode attention: benchmark and check"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args, Clone)]
pub struct Common {
    /// Comma-separated workload names (full, or the part before the first `-`).
    #[arg(long)]
    workloads: Option<String>,
    /// Workload file in the format of shared/bench/workloads.toml (default: built-in W1-W6).
    #[arg(long)]
    workload_file: Option<String>,
}

/// The plan and kernel choices of `bench` and `check` (`--splits`, `--m-tiles`, `--kv-pairs`,
/// ...): each `auto` by default, the library's own choice.
#[derive(clap::Args, Clone)]
pub struct Choices {
    /// KV splits per request: `auto` (planner) or a number.
    #[arg(long, default_value = "auto")]
    splits: String,
    /// 16-row query tiles per CTA: `auto` (planner), 1, 2 or 4 (2 and 4 need head_dim <=
    /// 128, 4 the row-split consumers).
    #[arg(long, default_value = "auto")]
    m_tiles: String,
    /// Row-split consumers for 32 and 64 rows per CTA (`_w32` / `_w64`): `auto` (the
    /// library's choice: on), `on` or `off` (the `_m32` kernels).
    #[arg(long, default_value = "auto")]
    row_split: String,
    /// The wgmma consumer (`_g64`) for 64-row CTAs over 16-bit K/V at head dim 128 on
    /// sm_90a: `auto` (the library's choice: on), `on` or `off` (the `_w64` kernels).
    #[arg(long, default_value = "auto")]
    wgmma: String,
    /// K/V tiles by TMA tensor maps on sm_90a where the page size and layout allow it:
    /// `auto` (the library's choice: on), `on` or `off` (every tile by `cp.async`).
    #[arg(long, default_value = "auto")]
    tma: String,
    /// Next-wave prefetch (the library's `DecodeConfig::next_wave_prefetch`): on grids of
    /// more than one wave, each CTA brings the page-table entries and first K/V tile of the
    /// CTA one wave later into L2. `auto` (the library's choice: on), `on` or `off`.
    #[arg(long, default_value = "auto")]
    prefetch: String,
    /// Experimental tail split `PERCENT:CHUNK_TILES` (e.g. `25:4`): the last PERCENT of every
    /// split block's tiles in chunks of CHUNK_TILES, taken by the SMs that finish first.
    #[arg(long)]
    tail: Option<String>,
    /// Balanced plans (the library's `Balance`): `auto` (the split model chooses), `on`
    /// (wherever one can be built) or `off` (uniform chunks only).
    #[arg(long, default_value = "auto")]
    balance: String,
    /// Merge split-KV partials inside thread-block clusters where the plan allows it
    /// (`on`, the default) or always with the combine kernel (`off`).
    #[arg(long, default_value = "on")]
    cluster: String,
    /// Largest cluster (splits per block) of cluster-merge mode, 2 to 8.
    #[arg(long, default_value_t = 8)]
    cluster_max: u32,
    /// Combine CTAs per split block (`auto`, or a power of two up to head_dim / 16).
    #[arg(long, default_value = "auto")]
    combine_parts: String,
    /// Narrow (8-row, swapped-operand) kernels where no kv head has more than 8 packed
    /// rows: `auto` (the library's choice: fp8 K/V only), `on` or `off`.
    #[arg(long, default_value = "auto")]
    narrow: String,
    /// Paired fp8 tiles (`_m8p`, two CTAs per SM) where a narrow fp8 head-dim-128 kernel
    /// runs: `auto` (the library's choice: where the batch's blocks fill at most
    /// 0.8 of the four-CTA wave), `on` or `off`.
    #[arg(long, default_value = "auto")]
    paired: String,
    /// Kv-head pairs over NHD pages (two adjacent kv heads read as one row of twice the
    /// head dim): `auto` (the library's choice: rows not a multiple of 128 bytes whose
    /// pair's packed rows fit one CTA), `on` (wherever a kernel exists) or `off`.
    #[arg(long, default_value = "auto")]
    kv_pairs: String,
    /// Early K/V tiles (`DecodeConfig::early_kv`): `on` (the library's default) copies the
    /// K/V tiles before each request's new tokens before the dependency on the previous
    /// call, `off` reads no K/V before it.
    #[arg(long, default_value = "on")]
    early_kv: String,
    /// Axis order inside a K/V page: `nhd` (`[pages, page_size, kv_heads, head_dim]`, the
    /// peers' layout, default) or `hnd` (`[pages, kv_heads, page_size, head_dim]`).
    #[arg(long, default_value = "nhd")]
    kv_layout: String,
    /// Graph-mode plans (`DecodePlan::for_graphs` + `update`, what an engine replaying a
    /// captured graph runs) with a capacity of N times each batch (requests and page
    /// entries): the fixed grid, launched in clusters where the capacity's own batch
    /// would merge in them (`--graph-cluster`), else the combine kernel;
    /// paired fp8 tiles by the capacity's blocks.
    #[arg(long, value_name = "N")]
    graph_plan: Option<u32>,
    /// Graph plans' cluster size (`DecodeConfig::graph_cluster`): `auto` (the library's
    /// choice), `off`, or N (2-8: clusters of N, in which batches split into a divisor of
    /// N merge).
    #[arg(long, default_value = "auto")]
    graph_cluster: String,
}

// Parsed once per process: the size of the largest variant (the bench knobs) does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Cmd {
    /// Time the decode kernels (CPU reference fallback without a GPU).
    Bench {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        choices: Choices,
        /// Append one JSON object per measurement (peers' schema) to this file.
        #[arg(long)]
        jsonl: Option<String>,
        /// Ceilings from the peers' env.json (default: $OUT/env.json if it exists).
        #[arg(long)]
        env_json: Option<String>,
        /// Rotated KV working set per case, GiB (> 2x L2 so L2 never holds it); 0 = one set of
        /// pages reused by every call (a diagnostic).
        #[arg(long, default_value_t = 2.0)]
        rot_gib: f64,
        /// Also record per-CTA timestamps of one call (after timing) into DIR/timeline-*.json
        /// and print where the call's time goes.
        #[arg(long, value_name = "DIR")]
        timeline: Option<String>,
        /// Time the paged read probe instead of decode: the same CTAs (the plan's work list)
        /// read the same K/V rows through the same page table and do nothing else (a
        /// diagnostic: what any paged decode of this plan's cut could reach; NHD only).
        /// `kv-head`: the plan's cut; `token`: each CTA's range read for every kv head of its
        /// tokens (whole pages), in as many CTAs.
        #[arg(long, value_name = "CUT", num_args = 0..=1, default_missing_value = "kv-head")]
        paged_probe: Option<String>,
        /// Print each case's plan on this GPU (variant, CTAs, splits, merge, model estimate)
        /// without checking or timing it; one set of pages (`--rot-gib` ignored).
        #[arg(long)]
        plan_only: bool,
    },
    /// The streaming-read ceiling against the bytes one kernel reads (short-kernel ramp).
    Probe {
        /// Launch shapes to measure, `CTAS_PER_SMxTHREADS`, comma-separated (8x512 is the
        /// shape of the benchmark's ceiling).
        #[arg(long, default_value = "8x512")]
        configs: String,
    },
    /// Check the kernels on the workloads against the CPU reference.
    Check {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        choices: Choices,
    },
}

/// `--tail PERCENT:CHUNK_TILES`.
fn parse_tail(s: &str) -> Result<ferroflash::TailSplit, String> {
    let bad = || format!("--tail {s}: PERCENT:CHUNK_TILES, e.g. 25:4");
    let (p, c) = s.split_once(':').ok_or_else(bad)?;
    Ok(ferroflash::TailSplit {
        percent: p.trim().parse().map_err(|_| bad())?,
        chunk_tiles: c.trim().parse().map_err(|_| bad())?,
    })
}

fn load(c: &Common) -> Result<Vec<workloads::Spec>, String> {
    let text = match &c.workload_file {
        Some(f) => std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?,
        None => workloads::BUILTIN.to_string(),
    };
    workloads::select(workloads::parse(&text)?, c.workloads.as_deref())
}

impl Choices {
    /// The choices as the benchmark's plan overrides (no probe, plan-only or timeline).
    fn knobs(&self) -> Result<gpu::Knobs, String> {
        let splits = match self.splits.as_str() {
            "auto" => ferroflash::Splits::Auto,
            n => n
                .parse()
                .map(ferroflash::Splits::Fixed)
                .map_err(|_| format!("--splits {n}: auto or a number"))?,
        };
        let tail = match self.tail.as_deref().map(parse_tail) {
            None => None,
            Some(t) => Some(t?),
        };
        let balance = match self.balance.as_str() {
            "auto" => ferroflash::Balance::Auto,
            "on" => ferroflash::Balance::On,
            "off" => ferroflash::Balance::Off,
            v => return Err(format!("--balance {v}: auto, on or off")),
        };
        let graph_cluster = match self.graph_cluster.as_str() {
            "off" => Some(0),
            v => auto_or_number("--graph-cluster", v, "auto, off or a number")?,
        };
        let kv_layout = match self.kv_layout.as_str() {
            "nhd" => ferroflash::KvLayout::Nhd,
            "hnd" => ferroflash::KvLayout::Hnd,
            v => return Err(format!("--kv-layout {v}: nhd or hnd")),
        };
        Ok(gpu::Knobs {
            splits,
            m_tiles: auto_or_number("--m-tiles", &self.m_tiles, "auto, 1, 2 or 4")?,
            row_split: auto_on_off("--row-split", &self.row_split)?,
            wgmma: auto_on_off("--wgmma", &self.wgmma)?,
            tma: auto_on_off("--tma", &self.tma)?,
            next_wave_prefetch: auto_on_off("--prefetch", &self.prefetch)?,
            tail,
            balance,
            cluster_merge: on_off("--cluster", &self.cluster, "on or off")?,
            max_cluster_splits: self.cluster_max,
            combine_parts: auto_or_number(
                "--combine-parts",
                &self.combine_parts,
                "auto or a number",
            )?,
            narrow_rows: auto_on_off("--narrow", &self.narrow)?,
            paired_tiles: auto_on_off("--paired", &self.paired)?,
            kv_head_pairs: auto_on_off("--kv-pairs", &self.kv_pairs)?,
            early_kv: on_off("--early-kv", &self.early_kv, "on or off")?,
            kv_layout,
            paged_probe: None,
            plan_only: false,
            graph_plan: self.graph_plan.filter(|&n| n > 0),
            graph_cluster,
        })
    }
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Bench {
            common,
            choices,
            jsonl,
            env_json,
            rot_gib,
            timeline,
            paged_probe,
            plan_only,
        } => {
            let paged_probe = match paged_probe.as_deref() {
                None => Ok(None),
                Some("kv-head") => Ok(Some(ferroflash::bench::ProbeCut::KvHead)),
                Some("token") => Ok(Some(ferroflash::bench::ProbeCut::Token)),
                Some(v) => Err(format!("--paged-probe {v}: kv-head or token")),
            };
            choices.knobs().and_then(|knobs| {
                let knobs = gpu::Knobs {
                    paged_probe: paged_probe?,
                    plan_only,
                    ..knobs
                };
                load(&common).and_then(|w| {
                    gpu::bench(
                        &w,
                        jsonl.as_deref(),
                        env_json.as_deref(),
                        if plan_only { 0.0 } else { rot_gib },
                        knobs,
                        timeline.as_deref(),
                    )
                })
            })
        }
        Cmd::Probe { configs } => gpu::probe(&configs),
        Cmd::Check { common, choices } => choices
            .knobs()
            .and_then(|knobs| load(&common).and_then(|w| gpu::check(&w, knobs))),
    };
    if let Err(e) = r {
        eprintln!("ferroflash: {e}");
        std::process::exit(1);
    }
}

/// A flag that takes `on` or `off`; `takes` names the accepted values in the error.
fn on_off(flag: &str, value: &str, takes: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        v => Err(format!("{flag} {v}: {takes}")),
    }
}

/// `auto` as `None`, `on` / `off` as `Some`; otherwise an error naming the flag.
fn auto_on_off(flag: &str, value: &str) -> Result<Option<bool>, String> {
    match value {
        "auto" => Ok(None),
        v => on_off(flag, v, "auto, on or off").map(Some),
    }
}

/// `auto` as `None`, a number as `Some`; otherwise an error naming the flag and what it takes.
fn auto_or_number(flag: &str, value: &str, takes: &str) -> Result<Option<u32>, String> {
    match value {
        "auto" => Ok(None),
        n => n
            .parse()
            .map(Some)
            .map_err(|_| format!("{flag} {n}: {takes}")),
    }
}
