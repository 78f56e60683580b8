//! The GPU test suite: named cases, each PASS, FAIL (with a reason) or SKIP (with a reason).
//!
//! The same cases run from `cargo test` (the `gpu` test, which skips visibly without a GPU) and
//! from the `gpu-tests` binary in the GPU bundle (`cargo xtask bundle`).

pub mod bench;
pub mod decode;
pub mod primitives;

use ferroflash::{Device, Error};
use std::time::Instant;

/// What one case concluded.
pub enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

/// A case's result type: `Err` fails it; `Ok(Outcome::Skip)` skips it.
pub type CaseResult = Result<Outcome, String>;

/// One named GPU test.
pub struct Case {
    pub name: &'static str,
    pub run: fn(&Device) -> CaseResult,
}

/// Every case of the suite, in run order.
pub fn all_cases() -> Vec<Case> {
    let mut v = primitives::cases();
    v.extend(decode::cases());
    v.extend(bench::cases());
    v
}

/// Tally of a run.
#[derive(Default, Debug)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

/// Map a ferroflash error met inside a case to its outcome: an arch without the kernel skips.
pub fn skip_or_fail(e: Error) -> CaseResult {
    match e {
        Error::KernelNotInArch { .. } => Ok(Outcome::Skip(e.to_string())),
        e => Err(e.to_string()),
    }
}

/// Run the cases whose name contains `filter` (all when `None`), printing one line each and a
/// closing `N passed, N failed, N skipped` line.
pub fn run(filter: Option<&str>) -> Summary {
    let cases: Vec<Case> = all_cases()
        .into_iter()
        .filter(|c| filter.is_none_or(|f| c.name.contains(f)))
        .collect();
    let mut s = Summary::default();
    let dev = match Device::new(0) {
        Ok(d) => {
            println!(
                "device: {} (sm_{}{}, {} SMs), module {} ({})",
                d.caps().name,
                d.caps().compute_capability.0,
                d.caps().compute_capability.1,
                d.caps().sm_count,
                d.arch().name(),
                d.kernel_source()
            );
            Some(d)
        }
        Err(e) => {
            println!("no GPU: {e}");
            None
        }
    };
    for c in &cases {
        let t0 = Instant::now();
        let outcome = match &dev {
            None => Outcome::Skip("no CUDA GPU on this machine".into()),
            // Long-running cases run only when the filter names them.
            Some(_)
                if c.name.starts_with("soak/") && !filter.is_some_and(|f| f.contains("soak")) =>
            {
                Outcome::Skip("long-running: run with `gpu-tests soak` (or `run.sh soak`)".into())
            }
            Some(d) => {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (c.run)(d))) {
                    Ok(Ok(o)) => o,
                    Ok(Err(msg)) => Outcome::Fail(msg),
                    Err(_) => Outcome::Fail("panicked".into()),
                }
            }
        };
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        match outcome {
            Outcome::Pass => {
                s.passed += 1;
                println!("PASS {} ({ms:.0} ms)", c.name)
            }
            Outcome::Fail(m) => {
                s.failed += 1;
                println!("FAIL {}: {m}", c.name)
            }
            Outcome::Skip(m) => {
                s.skipped += 1;
                println!("SKIP {}: {m}", c.name)
            }
        }
    }
    println!(
        "{} passed, {} failed, {} skipped",
        s.passed, s.failed, s.skipped
    );
    s
}

/// The deterministic generator of the test inputs.
pub use ferroflash_reference::gen::SplitMix64 as Rng;
