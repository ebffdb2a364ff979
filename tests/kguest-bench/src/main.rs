//! Quick runner: times every case with a short in-process loop and prints
//! `id<TAB>nanoseconds per call` (median of batches), for
//! `cargo xtask bench --quick`.
//!
//! `cargo run --release -p kguest-bench [-- FILTER]`; with `--sizes`, prints
//! `object<TAB>protobuf bytes<TAB>JSON bytes` for each input instead.

use std::hint::black_box;
use std::time::{Duration, Instant};

const BATCHES: usize = 21;
const BATCH_TIME: Duration = Duration::from_millis(4);

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let inputs = kguest_bench::Inputs::load();
    if filter == "--sizes" {
        for o in [&inputs.upstream_pod, &inputs.pod, &inputs.node] {
            println!("{}\t{}\t{}", o.label, o.protobuf.len(), o.json_bytes.len());
        }
        return;
    }
    for mut case in kguest_bench::all_cases(&inputs) {
        if !case.id.contains(&filter) {
            continue;
        }
        println!("{}\t{:.1}", case.id, median_ns(&mut case.run));
    }
}

/// Median per-call time over `BATCHES` batches of about `BATCH_TIME`.
fn median_ns(run: &mut dyn FnMut()) -> f64 {
    // Warm-up, and the batch size.
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < BATCH_TIME * 3 {
        run();
        calls += 1;
    }
    let per_batch = (calls / 3).max(1);
    let mut samples: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_batch {
                run();
            }
            black_box(start.elapsed()).as_nanos() as f64 / per_batch as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[BATCHES / 2]
}
