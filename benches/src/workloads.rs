//! Workload files in the format of `shared/bench/workloads.toml` (W1-W6 built in), extended with
//! ragged `kv_lens` and the fp8 dtypes of the peers' harness.

use ferroflash_reference::DType;
use serde::Deserialize;

/// Built-in W1-W6 (a copy of shared/bench/workloads.toml).
pub const BUILTIN: &str = include_str!("../workloads.toml");

#[derive(Deserialize)]
struct File {
    workload: Vec<Spec>,
}

/// One `[[workload]]` table.
#[derive(Clone, Debug, Deserialize)]
pub struct Spec {
    pub name: String,
    pub batch: Option<usize>,
    #[serde(default = "one")]
    pub q_len: u32,
    pub q_heads: u32,
    pub kv_heads: u32,
    #[serde(default = "d128")]
    pub head_dim: u32,
    pub kv_len: Option<u32>,
    pub kv_lens: Option<Vec<u32>>,
    pub page_sizes: Vec<u32>,
    #[serde(default = "bf16")]
    pub dtype: String,
}

fn one() -> u32 {
    1
}
fn d128() -> u32 {
    128
}
fn bf16() -> String {
    "bf16".into()
}

impl Spec {
    /// Per-request KV lengths.
    pub fn lens(&self) -> Result<Vec<u32>, String> {
        match (&self.kv_lens, self.batch, self.kv_len) {
            (Some(v), _, _) => Ok(v.clone()),
            (None, Some(b), Some(l)) => Ok(vec![l; b]),
            _ => Err(format!(
                "{}: give `kv_lens` or `batch` + `kv_len`",
                self.name
            )),
        }
    }
    /// (Q, K/V) dtypes: `bf16`, `f16`, `bf16-q/e4m3-kv`, `bf16-q/e5m2-kv`, `f16-q/e4m3-kv`,
    /// `f16-q/e5m2-kv` (the peers' names), or `e4m3` / `e5m2` (all-FP8 Q/K/V, bf16 output).
    pub fn dtypes(&self) -> Result<(DType, DType), String> {
        let one = |s: &str| match s {
            "bf16" => Ok(DType::Bf16),
            "f16" => Ok(DType::F16),
            "e4m3" => Ok(DType::E4m3),
            "e5m2" => Ok(DType::E5m2),
            _ => Err(format!("{}: unknown dtype `{}`", self.name, self.dtype)),
        };
        match self.dtype.split_once('/') {
            Some((q, kv)) => {
                let (q, kv) = (
                    one(q.trim_end_matches("-q"))?,
                    one(kv.trim_end_matches("-kv"))?,
                );
                if q.is_fp8() || !kv.is_fp8() {
                    return Err(format!(
                        "{}: `{}`: a 16-bit Q over an fp8 KV cache is expected",
                        self.name, self.dtype
                    ));
                }
                Ok((q, kv))
            }
            None => one(&self.dtype).map(|d| (d, d)),
        }
    }
    /// Short name (`W3` for `W3-b64-4k`).
    pub fn short(&self) -> &str {
        self.name.split('-').next().unwrap_or(&self.name)
    }
}

/// Parse a workload file.
pub fn parse(text: &str) -> Result<Vec<Spec>, String> {
    toml::from_str::<File>(text)
        .map(|f| f.workload)
        .map_err(|e| e.to_string())
}

/// Keep the workloads named in `names` (full or short name), all when `None`.
pub fn select(all: Vec<Spec>, names: Option<&str>) -> Result<Vec<Spec>, String> {
    let Some(names) = names else { return Ok(all) };
    let mut out = Vec::new();
    for n in names.split(',').filter(|n| !n.is_empty()) {
        let hit: Vec<_> = all
            .iter()
            .filter(|s| s.name == n || s.short() == n)
            .cloned()
            .collect();
        if hit.is_empty() {
            return Err(format!("no workload named {n}"));
        }
        out.extend(hit);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn builtin_parses() {
        let w = super::parse(super::BUILTIN).unwrap();
        assert_eq!(w.len(), 6);
        assert_eq!(w[3].page_sizes, vec![1, 16, 64]);
        assert_eq!(w[5].q_len, 4);
        assert_eq!(
            w[4].dtypes().unwrap(),
            (
                ferroflash_reference::DType::Bf16,
                ferroflash_reference::DType::E4m3
            )
        );
        let mut bad = super::parse(super::BUILTIN).unwrap().remove(4);
        bad.dtype = "e4m3-q/bf16-kv".into();
        assert!(bad.dtypes().is_err());
        assert_eq!(super::select(w, Some("W2,W4")).unwrap().len(), 2);
    }
}

#[cfg(test)]
mod extra_tests {
    #[test]
    fn extra_file_parses() {
        let w = super::parse(include_str!("../workloads-extra.toml")).unwrap();
        assert_eq!(w.len(), 15);
        assert_eq!(w[0].lens().unwrap(), vec![45000, 4800, 3100, 1200]);
        assert!(w.iter().all(|s| s.lens().is_ok() && s.dtypes().is_ok()));
        use ferroflash_reference::DType;
        assert_eq!(w[6].dtypes().unwrap(), (DType::E4m3, DType::E4m3));
        // X8/X9: 8:1 GQA with 4 new tokens (32 packed rows per kv head).
        assert_eq!((w[8].q_heads / w[8].kv_heads) * w[8].q_len, 32);
        assert_eq!(w[9].dtypes().unwrap(), (DType::Bf16, DType::E4m3));
        // X10 (X3 over e4m3, 128 rows) and X11 (4:1 with 12 new tokens, 48 rows): the row-split
        // `_w64` consumers.
        assert_eq!((w[10].q_heads / w[10].kv_heads) * w[10].q_len, 128);
        assert_eq!((w[11].q_heads / w[11].kv_heads) * w[11].q_len, 48);
        // X12: X11 over an e4m3 cache.
        assert_eq!((w[12].q_heads / w[12].kv_heads) * w[12].q_len, 48);
        assert_eq!(w[12].dtypes().unwrap(), (DType::Bf16, DType::E4m3));
    }
}

#[cfg(test)]
mod sweep_tests {
    /// `text` holds `n` valid workloads with unique names.
    fn assert_valid_and_unique(text: &str, n: usize) {
        let w = super::parse(text).unwrap();
        assert_eq!(w.len(), n);
        assert!(w.iter().all(|s| s.lens().is_ok() && s.dtypes().is_ok()));
        let mut names: Vec<_> = w.iter().map(|s| s.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    /// The session 21 sweep: 32 shapes outside the W and X sets.
    #[test]
    fn sweep_file_parses() {
        assert_valid_and_unique(include_str!("../workloads-sweep.toml"), 32);
    }

    /// The session 25 random sweep and head-dim-256 shapes: 44.
    #[test]
    fn random_file_parses() {
        assert_valid_and_unique(include_str!("../workloads-random.toml"), 44);
    }

    /// The short and under-filled batches of sessions 26-28: 25.
    #[test]
    fn short_file_parses() {
        assert_valid_and_unique(include_str!("../workloads-short.toml"), 25);
    }

    /// Head dim 256 with many rows per kv head, sessions 28-30: 19.
    #[test]
    fn d256_file_parses() {
        assert_valid_and_unique(include_str!("../workloads-d256.toml"), 19);
    }
}
