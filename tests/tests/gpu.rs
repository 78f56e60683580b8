//! `cargo test` entry for the GPU suite (harness = false): every case prints PASS/FAIL/SKIP;
//! without a GPU every case prints SKIP with the reason. Fails when any case fails.
fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let s = ferroflash_tests::run(filter.as_deref());
    if s.failed > 0 {
        std::process::exit(1);
    }
}
