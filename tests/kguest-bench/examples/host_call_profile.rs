//! One guest's `filter` called N times through kguest-host on the benchmark
//! inputs, for profilers (`perf record`): what the host itself costs per
//! call, without the compile and setup the bench runner also does.
//!
//! `cargo run --release -p kguest-bench --example host_call_profile -- WASM SCENARIO N`
//!
//! WASM: a guest file (e.g. `target/wasm32-unknown-unknown/guest/baseline_empty.wasm`);
//! SCENARIO: `cycle` (a new `Cycle` per call, so PreFilter runs first),
//! `node` (the next node of one cycle) or `bound` (the next node through
//! `Plugin::cycle_calls`); N calls (default 10,000,000).
//! Prints the mean time per call.

use std::sync::Arc;
use std::time::Instant;

use kguest_host::{Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot, SnapshotNode};

fn main() {
    let mut args = std::env::args().skip(1);
    let wasm_path = args
        .next()
        .expect("usage: host_call_profile WASM [cycle|node] [N]");
    let scenario = args.next().unwrap_or_else(|| "node".into());
    let n: u64 = args
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000_000);
    let inputs = kguest_bench::Inputs::load();
    let name = inputs.node_name();
    let mut snapshot = Snapshot::new();
    snapshot.insert(
        SnapshotNode::with_name(&name, "1", inputs.node.protobuf.clone().into()).expect("node"),
    );
    let snapshot = Arc::new(snapshot);
    let pod: Arc<[u8]> = inputs.pod.protobuf.clone().into();
    let runtime = Runtime::new(RuntimeConfig::default()).expect("runtime");
    let wasm = std::fs::read(&wasm_path).unwrap_or_else(|e| panic!("{wasm_path}: {e}"));
    let plugin = Plugin::load(&runtime, &wasm, PluginConfig::default()).expect("load");
    let cycle = Cycle::new(pod.clone(), snapshot.clone()).expect("cycle");
    let mut calls = plugin.cycle_calls(&cycle);
    // The scenario is chosen once, outside the timed loops.
    let start = Instant::now();
    match scenario.as_str() {
        "cycle" => {
            for _ in 0..n {
                let cycle = Cycle::new(pod.clone(), snapshot.clone()).expect("cycle");
                std::hint::black_box(plugin.filter(&cycle, &name).expect("filter"));
            }
        }
        "bound" => {
            for _ in 0..n {
                std::hint::black_box(calls.filter(&name).expect("filter"));
            }
        }
        _ => {
            for _ in 0..n {
                std::hint::black_box(plugin.filter(&cycle, &name).expect("filter"));
            }
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    println!("{scenario}: {ns:.1} ns per call ({n} calls)");
}
