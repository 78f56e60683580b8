//! Runs the GPU test suite: `gpu-tests [FILTER]`. Exit code 1 when any case fails.
fn main() {
    let filter = std::env::args().nth(1);
    let s = ferroflash_tests::run(filter.as_deref());
    std::process::exit(if s.failed > 0 { 1 } else { 0 });
}
