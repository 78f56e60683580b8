//! Workload files in the format of `shared/bench/workloads.toml` (W1-W6 built in), extended with
//! ragged `kv_lens` and the fp8 dtypes of the peers' harness.

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
            _ => Err(format!("{}: give `kv_lens` or `batch` + `kv_len`", self.name)),
        }
    }
    /// Short name (`W3` for `W3-b64-4k`).
    pub fn short(&self) -> &str {
        self.name.split('-').next().unwrap_or(&self.name)
    }
}

/// Parse a workload file.
pub fn parse(text: &str) -> Result<Vec<Spec>, String> {
    toml::from_str::<File>(text).map(|f| f.workload).map_err(|e| e.to_string())
}

/// Keep the workloads named in `names` (full or short name), all when `None`.
pub fn select(all: Vec<Spec>, names: Option<&str>) -> Result<Vec<Spec>, String> {
    let Some(names) = names else { return Ok(all) };
    let mut out = Vec::new();
    for n in names.split(',').filter(|n| !n.is_empty()) {
        let hit: Vec<_> = all.iter().filter(|s| s.name == n || s.short() == n).cloned().collect();
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
        assert_eq!(super::select(w, Some("W2,W4")).unwrap().len(), 2);
    }
}

#[cfg(test)]
mod extra_tests {
    #[test]
    fn extra_file_parses() {
        let w = super::parse(include_str!("../workloads-extra.toml")).unwrap();
        assert_eq!(w.len(), 5);
        assert_eq!(w[0].lens().unwrap(), vec![45000, 4800, 3100, 1200]);
        assert!(w.iter().all(|s| s.lens().is_ok()));
    }
}
