//! Builds the `kernels-gpu` crate to PTX, once per arch, with rustc's own NVPTX backend.
//!
//! The recipe (see `shared/notes/toolchain.md` and docs/DESIGN.md, "Build pipeline"):
//! `cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core` in its own target dir
//! per arch, flags through `CARGO_ENCODED_RUSTFLAGS` (so the rebuilt `core` gets them too), fat
//! LTO so the module is self-contained, and `--emit=asm=<file>.ptx -Clinker=true` in place of the
//! linker this target lacks here. A PTX that still declares `.extern .func` is rejected.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The GPU architectures ferroflash ships a PTX module for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Ampere: `mma.sync`, `cp.async`.
    Sm80,
    /// Hopper with arch-specific features: adds `wgmma`, fp8 `mma`/`cvt`.
    Sm90a,
    /// Blackwell with arch-specific features: adds `tcgen05` (compile-checked only).
    Sm100a,
}

impl Arch {
    /// Every arch, oldest first.
    pub const ALL: [Arch; 3] = [Arch::Sm80, Arch::Sm90a, Arch::Sm100a];

    /// Name as used by `-Ctarget-cpu` and `ptxas -arch`.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm_80",
            Arch::Sm90a => "sm_90a",
            Arch::Sm100a => "sm_100a",
        }
    }

    /// PTX ISA version feature: the oldest that carries the arch's instructions.
    pub const fn ptx_feature(self) -> &'static str {
        match self {
            Arch::Sm80 => "+ptx80",
            // mma.sync with e4m3 operands needs PTX ISA 8.4.
            Arch::Sm90a => "+ptx84",
            Arch::Sm100a => "+ptx86",
        }
    }

    /// Parse `sm_80`, `sm_90a`, `sm_100a` (also without the `sm_` prefix).
    pub fn parse(s: &str) -> Option<Arch> {
        let s = s.strip_prefix("sm_").unwrap_or(s);
        match s {
            "80" => Some(Arch::Sm80),
            "90a" => Some(Arch::Sm90a),
            "100a" => Some(Arch::Sm100a),
            _ => None,
        }
    }
}

/// Where the PTX of `arch` lands under `target_root` (`<target>/ptx/<arch>.ptx`).
pub fn ptx_path(target_root: &Path, arch: Arch) -> PathBuf {
    target_root.join("ptx").join(format!("{}.ptx", arch.name()))
}

/// The `kernels-gpu` crate directory inside the workspace root.
pub fn kernels_dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join("kernels-gpu")
}

/// `FF_TILE_STAMPS=1`: compile the kernels with `--cfg ff_tile_stamps`, a diagnostic build whose
/// decode CTAs stamp every tile's end into the `ferroflash bench --timeline` records.
pub fn tile_stamps() -> bool {
    std::env::var("FF_TILE_STAMPS").is_ok_and(|v| v == "1")
}

/// `FF_CUBIN=1`: also assemble the sm_90a module to a cubin with ptxas at build time and embed
/// it, so a Hopper GPU loads every kernel at once without the driver's JIT (See Note [one module
/// per entry] in docs/DESIGN.md). `cargo xtask bundle` sets it.
pub fn cubin_wanted() -> bool {
    std::env::var("FF_CUBIN").is_ok_and(|v| v == "1")
}

/// The ptxas to use: `$PTXAS`, else the one `setup.sh` installs under `<workspace>/.tools/`, else
/// `ptxas` on the PATH.
pub fn ptxas(workspace_root: &Path) -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("PTXAS") {
        return Ok(PathBuf::from(p));
    }
    let local = workspace_root.join(".tools/py/nvidia/cu13/bin/ptxas");
    if local.exists() {
        return Ok(local);
    }
    if Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Ok(PathBuf::from("ptxas"));
    }
    Err(
        "ptxas not found: run ./setup.sh (pip nvidia-cuda-nvcc==13.0.88 into .tools/) or set PTXAS"
            .into(),
    )
}

/// Run `ptxas -v` for `arch` on the PTX at `ptx`, writing `cubin`; returns ptxas's log (its
/// per-entry resource lines, which it writes to both streams, merged in order by the shell).
pub fn assemble_verbose(
    workspace_root: &Path,
    arch: Arch,
    ptx: &Path,
    cubin: &Path,
) -> Result<String, String> {
    let cmd = format!(
        "'{}' -v -arch={} '{}' -o '{}' 2>&1",
        ptxas(workspace_root)?.display(),
        arch.name(),
        ptx.display(),
        cubin.display()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&cmd)
        .output()
        .map_err(|e| format!("running ptxas: {e}"))?;
    let log = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        return Err(format!("ptxas rejected {}:\n{log}", ptx.display()));
    }
    Ok(log)
}

/// Assemble the PTX at `ptx` for `arch` into `<arch>.embed.cubin` next to it and return that
/// path (not `<arch>.cubin`, which `cargo xtask report` rewrites: the embedding build would
/// rebuild after every report). ptxas's `-v` log goes to `<arch>.embed.log` under a first line
/// that names the PTX (its hash) and the ptxas, so the report can take the resources from it
/// instead of assembling the same module again ([`embed_log_for`]), and a later embedding build
/// of the same PTX reuses the cubin.
pub fn assemble(workspace_root: &Path, arch: Arch, ptx: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let header = embed_log_header(workspace_root, &text)?;
    // The same PTX and ptxas as the last embedding build: its cubin stands.
    if let Some((_, cubin)) = saved_embed_log(ptx, &header) {
        return Ok(cubin);
    }
    let cubin = ptx.with_extension("embed.cubin");
    // The log vouches for the cubin: gone while ptxas rewrites it.
    let _ = std::fs::remove_file(ptx.with_extension("embed.log"));
    let log = assemble_verbose(workspace_root, arch, ptx, &cubin)?;
    std::fs::write(ptx.with_extension("embed.log"), format!("{header}\n{log}"))
        .map_err(|e| format!("writing the ptxas log: {e}"))?;
    Ok(cubin)
}

/// The `-v` log of the embedding build's ptxas run on exactly this PTX `text` (at `ptx`) with
/// the same ptxas, and its cubin's path; `None` when there is none or it is of other PTX.
pub fn embed_log_for(workspace_root: &Path, ptx: &Path, text: &str) -> Option<(String, PathBuf)> {
    saved_embed_log(ptx, &embed_log_header(workspace_root, text).ok()?)
}

/// The saved log beside `ptx` and its cubin, if its first line is `header`.
fn saved_embed_log(ptx: &Path, header: &str) -> Option<(String, PathBuf)> {
    let cubin = ptx.with_extension("embed.cubin");
    let saved = std::fs::read_to_string(ptx.with_extension("embed.log")).ok()?;
    let (first, log) = saved.split_once('\n')?;
    (first == header && cubin.exists()).then(|| (log.to_string(), cubin))
}

fn embed_log_header(workspace_root: &Path, text: &str) -> Result<String, String> {
    Ok(format!(
        "ptx fnv1a64 {:016x}, ptxas {}",
        fnv1a64(text.as_bytes()),
        ptxas(workspace_root)?.display()
    ))
}

/// 64-bit FNV-1a: names a PTX text in the embedding build's log.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Compile `kernels-gpu` for `arch` and return the path of its PTX.
///
/// `cargo` is the cargo binary to run (build scripts pass `$CARGO`). The nested build uses
/// `<target_root>/kernels/<arch>` as its target dir, so host builds and `cargo xtask` share it.
pub fn build(
    cargo: &Path,
    workspace_root: &Path,
    target_root: &Path,
    arch: Arch,
) -> Result<PathBuf, String> {
    let out = ptx_path(target_root, arch);
    std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
    let target_dir = target_root.join("kernels").join(arch.name());
    // rustc's PTX goes where cargo looks for the crate's output (the `true` linker writes
    // nothing), so cargo sees the build fresh and skips it when nothing changed; before, it
    // missed that file and recompiled the kernels (~35 s per arch) on every build.
    let raw = target_dir.join("nvptx64-nvidia-cuda/release/deps/ferroflash_kernels_gpu.ptx");
    let flags = [
        format!("-Ctarget-cpu={}", arch.name()),
        format!("-Ctarget-feature={}", arch.ptx_feature()),
        // Kernels index register fragments with loop counters: those loops must unroll fully,
        // or the fragments go to local memory. LLVM's default threshold is too low for them.
        "-Cllvm-args=-unroll-threshold=4000".to_string(),
    ]
    .into_iter()
    .chain(tile_stamps().then(|| "--cfg=ff_tile_stamps".to_string()))
    .collect::<Vec<_>>()
    .join("\x1f");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(kernels_dir(workspace_root))
        .args([
            "rustc",
            "--release",
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
            "--target-dir",
        ])
        .arg(&target_dir)
        .arg("--")
        .arg(format!("--emit=asm={}", raw.display()))
        .arg("-Clinker=true");
    // A nested cargo must not inherit the outer build's flags, wrapper or cfg.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().to_string();
        if k.starts_with("CARGO_CFG_")
            || k == "RUSTC_WORKSPACE_WRAPPER"
            || k == "RUSTC_WRAPPER"
            || k == "RUSTFLAGS"
        {
            cmd.env_remove(&k);
        }
    }
    cmd.env("CARGO_ENCODED_RUSTFLAGS", flags);
    let status = cmd
        .status()
        .map_err(|e| format!("running {}: {e}", cargo.display()))?;
    if !status.success() {
        return Err(format!(
            "kernels-gpu build for {} failed ({status})",
            arch.name()
        ));
    }
    // The module is rustc's PTX with this crate's edits; `out` is rewritten only when that
    // changes, so what depends on it (the host's build script) stays fresh.
    let tmp = out.with_extension("ptx.tmp");
    std::fs::copy(&raw, &tmp).map_err(|e| format!("{}: {e}", raw.display()))?;
    check_self_contained(&tmp)?;
    apply_register_caps(&tmp)?;
    apply_param_alignment(&tmp)?;
    let same = std::fs::read(&out).ok() == std::fs::read(&tmp).ok();
    if same {
        std::fs::remove_file(&tmp).map_err(|e| e.to_string())?;
    } else {
        std::fs::rename(&tmp, &out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Declare every decode entry's parameter block (`DecodeParams`, by value) `.align 64`
/// (`ferroflash_contract::params::PARAMS_ALIGN`): its K/V tensor maps sit on 64-byte offsets and
/// the TMA unit reads them in place, but rustc's nvptx calling convention stops at 16-byte
/// parameter alignment. Idempotent.
pub fn apply_param_alignment(ptx: &Path) -> Result<(), String> {
    use ferroflash_contract::names::decode::VARIANTS;
    use ferroflash_contract::params::PARAMS_ALIGN;
    let mut text = std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let mut changed = false;
    for v in VARIANTS {
        let param = format!(" .b8 {}_param_0[", v.name);
        let Some(at) = text.find(&param) else {
            continue;
        };
        let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let decl = &text[line..at];
        let want = format!(".param .align {PARAMS_ALIGN}");
        if decl.trim_start() == want {
            continue;
        }
        if !decl.trim_start().starts_with(".param .align ") {
            return Err(format!(
                "{}: unexpected parameter of {}: {decl}",
                ptx.display(),
                v.name
            ));
        }
        let indent = &decl[..decl.len() - decl.trim_start().len()];
        text.replace_range(line..at, &format!("{indent}{want}"));
        changed = true;
    }
    if changed {
        std::fs::write(ptx, text).map_err(|e| format!("{}: {e}", ptx.display()))?;
    }
    Ok(())
}

/// Insert `.maxnreg N` after the parameter list of every decode entry the contract caps
/// (`ferroflash_contract::decode::max_registers`): rustc has no launch-bounds attribute for
/// nvptx, and the PTX performance-tuning directive is per entry. Idempotent.
pub fn apply_register_caps(ptx: &Path) -> Result<(), String> {
    use ferroflash_contract::decode::max_registers;
    use ferroflash_contract::names::decode::VARIANTS;
    let mut text = std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let mut changed = false;
    for v in VARIANTS {
        let Some(cap) = max_registers(
            v.kv.bytes(),
            v.head_dim,
            v.m_tiles,
            v.row_groups,
            v.narrow,
            v.paired,
        ) else {
            continue;
        };
        let head = format!(".entry {}(", v.name);
        let Some(at) = text.find(&head) else { continue };
        let body = text[at..]
            .find("\n{")
            .map(|i| at + i)
            .ok_or_else(|| format!("{}: no body after {}", ptx.display(), v.name))?;
        if text[at..body].contains(".maxnreg") {
            continue;
        }
        text.insert_str(body, &format!("\n.maxnreg {cap}"));
        changed = true;
    }
    if changed {
        std::fs::write(ptx, text).map_err(|e| format!("{}: {e}", ptx.display()))?;
    }
    Ok(())
}

/// Reject a PTX module that still references external functions (fat LTO did not pull
/// everything in), naming them.
pub fn check_self_contained(ptx: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let externs: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(".extern .func"))
        .collect();
    if externs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} keeps unresolved externs:\n{}",
            ptx.display(),
            externs.join("\n")
        ))
    }
}

/// Entry names (`.entry NAME(`) declared in a PTX text.
pub fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| entry_name(l).map(str::to_string))
        .collect()
}

/// The name a line declares when it opens an entry (`[.visible] .entry NAME(`).
fn entry_name(line: &str) -> Option<&str> {
    let l = line.trim_start();
    let rest = l
        .strip_prefix(".visible .entry ")
        .or_else(|| l.strip_prefix(".entry "))?;
    Some(rest.split('(').next()?.trim())
}

/// One PTX module cut into one module per entry (See Note [one module per entry] in
/// docs/DESIGN.md): the text before the first entry (version, target, `.func` declarations,
/// the `.extern .shared` window), the entry, and the text after the last entry (the `.func`
/// definitions), so each piece is a whole module the driver JIT-compiles on its own.
#[derive(Clone, Debug)]
pub struct EntrySplit<'a> {
    text: &'a str,
    /// Byte ranges of the entries, in module order, with their names.
    entries: Vec<(&'a str, std::ops::Range<usize>)>,
}

impl<'a> EntrySplit<'a> {
    /// Index `ptx`'s entries. Each entry runs from its `.entry` line to the `}` that closes its
    /// body (braces counted outside `//` comments; inline-asm blocks are balanced within the
    /// body). Refused where text other than blank lines and comments lies between two entries
    /// (it would be lost from every piece) or an entry's body does not close.
    pub fn new(ptx: &'a str) -> Result<EntrySplit<'a>, String> {
        let mut entries = Vec::new();
        let mut open: Option<(&'a str, usize, i64, bool)> = None;
        let mut last_end = None;
        let mut at = 0usize;
        for line in ptx.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let code = line.split("//").next().unwrap_or("");
            if open.is_none() {
                if let Some(name) = entry_name(line) {
                    if let Some(end) = last_end {
                        let gap: &str = &ptx[end..start];
                        if gap
                            .lines()
                            .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
                        {
                            return Err(format!(
                                "text between entries before {name}: {:?}",
                                gap.trim()
                            ));
                        }
                    }
                    open = Some((name, start, 0, false));
                } else {
                    continue;
                }
            }
            if let Some((name, s, depth, seen)) = open.as_mut() {
                let opens = code.matches('{').count() as i64;
                *depth += opens - code.matches('}').count() as i64;
                *seen |= opens > 0;
                if *seen && *depth == 0 {
                    entries.push((*name, *s..at));
                    last_end = Some(at);
                    open = None;
                }
            }
        }
        if let Some((name, ..)) = open {
            return Err(format!("entry {name} does not close"));
        }
        Ok(EntrySplit { text: ptx, entries })
    }

    /// Entry names, in module order.
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|(n, _)| *n)
    }

    /// The one-entry module of `entry`, or `None` if the module has no such entry.
    pub fn module_of(&self, entry: &str) -> Option<String> {
        let r = self.entries.iter().find(|(n, _)| *n == entry)?.1.clone();
        let head = self.entries.first().map_or(0, |(_, f)| f.start);
        let tail = self.entries.last().map_or(self.text.len(), |(_, l)| l.end);
        Some([&self.text[..head], &self.text[r], &self.text[tail..]].concat())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a's published test vectors: the log's header tells PTX texts apart.
    #[test]
    fn fnv1a64_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn parse_names() {
        for a in Arch::ALL {
            assert_eq!(Arch::parse(a.name()), Some(a));
        }
        assert_eq!(Arch::parse("sm_90"), None);
    }
    #[test]
    fn entry_split_keeps_prelude_and_tail() {
        let t = ".version 8.4\n.func f\n()\n.noreturn;\n\n\t// .globl a\n.visible .entry a(\n\t.param .u64 x\n)\n.maxnreg 96\n{\n\t{ .reg .pred p; setp.eq.u32 p, 1, 1; }\n\tret;\n}\n\t// .globl b\n.visible .entry b(\n)\n{\n\tret;\n// } in a comment\n}\n.func f()\n.noreturn\n{\n\ttrap;\n}\n";
        let s = EntrySplit::new(t).unwrap();
        assert_eq!(s.names().collect::<Vec<_>>(), vec!["a", "b"]);
        let a = s.module_of("a").unwrap();
        assert!(a.starts_with(".version 8.4\n.func f\n"));
        assert!(a.contains(".maxnreg 96") && a.contains("setp.eq") && !a.contains("entry b"));
        assert!(a.ends_with(".func f()\n.noreturn\n{\n\ttrap;\n}\n"));
        let b = s.module_of("b").unwrap();
        assert!(b.contains("// } in a comment") && !b.contains("entry a"));
        assert!(s.module_of("c").is_none());
        assert!(EntrySplit::new(".visible .entry a(\n)\n{\n").is_err());
        assert!(EntrySplit::new(
            ".visible .entry a(\n)\n{\n}\n.global .u32 g;\n.visible .entry b(\n)\n{\n}\n"
        )
        .is_err());
    }
    #[test]
    fn entry_names() {
        let t = ".visible .entry ff_a(\n.param .u64 x\n)\n.visible .entry ff_b(\n";
        assert_eq!(entries(t), vec!["ff_a", "ff_b"]);
    }

    /// `pass` applied twice to a PTX file holding `text` (the passes must be idempotent); the
    /// file's text afterwards.
    fn twice(tag: &str, text: &str, pass: fn(&Path) -> Result<(), String>) -> String {
        let dir = std::env::temp_dir().join(format!("ff-ptxbuild-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.ptx");
        std::fs::write(&f, text).unwrap();
        pass(&f).unwrap();
        pass(&f).unwrap();
        let out = std::fs::read_to_string(&f).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        out
    }

    #[test]
    fn register_caps_go_after_the_parameters_once() {
        let t = ".visible .entry ff_decode_e4m3_d128_m16(\n.param .u64 x\n)\n{\nret;\n}\n.visible .entry ff_decode_bf16_d128_m16(\n.param .u64 x\n)\n{\nret;\n}\n";
        let out = twice("caps", t, apply_register_caps);
        assert_eq!(out.matches(".maxnreg 128").count(), 1);
        assert!(out.contains(".param .u64 x\n)\n.maxnreg 128\n{"));
    }

    #[test]
    fn decode_parameters_get_align_64_once() {
        let t = ".visible .entry ff_decode_bf16_d128_g64(\n\t.param .align 16 .b8 ff_decode_bf16_d128_g64_param_0[512]\n)\n{\nret;\n}\n.visible .entry ff_decode_combine_bf16(\n\t.param .align 8 .b8 ff_decode_combine_bf16_param_0[512]\n)\n{\nret;\n}\n";
        let out = twice("align", t, apply_param_alignment);
        assert!(out.contains("\t.param .align 64 .b8 ff_decode_bf16_d128_g64_param_0[512]"));
        // Not a decode variant: untouched.
        assert!(out.contains("\t.param .align 8 .b8 ff_decode_combine_bf16_param_0[512]"));
    }
}
