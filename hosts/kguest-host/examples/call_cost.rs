//! Rough per-call cost of `Plugin::filter` on one thread (build with
//! `--release`). Not a benchmark harness: one warm-up, then a timed loop.
//!
//! `cargo run --release -p kguest-host --example call_cost`

use std::sync::Arc;
use std::time::Instant;

use kguest_host::{Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot, SnapshotNode};

const GUEST: &str = r#"(module
  (import "k8s.io/scheduler" "currentNodeName" (func $name (param i32 i32) (result i32)))
  (import "k8s.io/api" "node" (func $node (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "filter") (result i32)
    (local $n i32)
    (local.set $n (call $name (i32.const 0) (i32.const 256)))
    (drop (call $node (i32.const 0) (local.get $n) (i32.const 1024) (i32.const 65536)))
    (i32.const 0))
  (func (export "score") (result i64) (i64.const 0)))"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = Runtime::new(RuntimeConfig::default())?;
    let wasm = wat::parse_str(GUEST)?;
    let plugin = Plugin::load(&runtime, &wasm, PluginConfig::default())?;
    for size in [1usize, 1024, 8192] {
        let mut snap = Snapshot::new();
        snap.insert(SnapshotNode::with_name(
            "node-a",
            "1",
            vec![7u8; size].into(),
        )?);
        let cycle = Cycle::new(Arc::from(&b"pod"[..]), Arc::new(snap))?;
        plugin.filter(&cycle, "node-a")?;
        let n = 200_000u32;
        let start = Instant::now();
        for _ in 0..n {
            plugin.filter(&cycle, "node-a")?;
        }
        let per = start.elapsed() / n;
        println!("filter with a {size}-byte node: {per:?} per call");
    }
    Ok(())
}
