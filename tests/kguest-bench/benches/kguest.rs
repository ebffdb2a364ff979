//! Criterion benchmarks: every case of `kguest_bench::all_cases`, one
//! criterion id per case (read back by `cargo xtask bench`).
//!
//! `cargo bench -p kguest-bench --bench kguest [-- <criterion filter>]`
//! (build the guests first: `cargo xtask bench` does both).

use std::time::Duration;

use criterion::Criterion;

fn main() {
    let inputs = kguest_bench::Inputs::load();
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
        .configure_from_args();
    for mut case in kguest_bench::all_cases(&inputs) {
        criterion.bench_function(&case.id, |b| b.iter(&mut case.run));
    }
    criterion.final_summary();
}
