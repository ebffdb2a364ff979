use std::sync::{Arc, OnceLock};
use std::time::Duration;

use kguest_host::{Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot, SnapshotNode};

/// Every host import, bound to `$name` (module-qualified names are unique).
pub const IMPORTS: &str = r#"
  (import "k8s.io/api" "node" (func $node (param i32 i32 i32 i32) (result i32)))
  (import "k8s.io/api" "nodeList" (func $nodeList (param i32 i32) (result i32)))
  (import "k8s.io/klog" "log" (func $log (param i32 i32 i32)))
  (import "k8s.io/klog" "logs" (func $logs (param i32 i32 i32 i32 i32)))
  (import "k8s.io/klog" "severity" (func $severity (result i32)))
  (import "k8s.io/scheduler" "get_config" (func $get_config (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "currentPod" (func $currentPod (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "targetPod" (func $targetPod (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "currentNodeName" (func $currentNodeName (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "filteredNodeList" (func $filteredNodeList (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "nodeImageStates" (func $nodeImageStates (param i32 i32 i32 i32) (result i32)))
  (import "k8s.io/scheduler" "nodeToStatusMap" (func $nodeToStatusMap (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "nodeScoreList" (func $nodeScoreList (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "result.status_reason" (func $reason (param i32 i32)))
  (import "k8s.io/scheduler" "result.cluster_events" (func $cluster_events (param i32 i32)))
  (import "k8s.io/scheduler" "result.node_names" (func $node_names (param i32 i32)))
  (import "k8s.io/scheduler" "result.nominated_node_name" (func $nominated (param i32 i32)))
  (import "k8s.io/scheduler" "result.normalized_score_list" (func $normalized (param i32 i32)))
  (import "k8s.io/scheduler" "handle.eventrecorder.eventf" (func $eventf (param i32 i32)))
  (import "k8s.io/scheduler" "handle.reject_waiting_pod" (func $reject (param i32 i32 i32 i32)))
  (import "k8s.io/scheduler" "handle.get_waiting_pod" (func $waiting (param i32 i32 i32 i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
"#;

/// A module with all imports, a 2-page memory and `body`.
pub fn guest(body: &str) -> Vec<u8> {
    let src = format!("(module {IMPORTS} (memory (export \"memory\") 2) {body})");
    wat::parse_str(&src).unwrap_or_else(|e| panic!("bad test WAT: {e}\n{src}"))
}

pub fn wat(src: &str) -> Vec<u8> {
    wat::parse_str(src).unwrap_or_else(|e| panic!("bad test WAT: {e}\n{src}"))
}

/// The runtime shared by most tests (one engine, one ticker).
pub fn rt() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeConfig {
            max_instances: 512,
            epoch_tick: Duration::from_millis(2),
            ..RuntimeConfig::default()
        })
        .unwrap()
    })
}

pub fn config() -> PluginConfig {
    PluginConfig {
        call_timeout: Duration::from_millis(200),
        start_timeout: Duration::from_millis(500),
        pool_size: 4,
        ..PluginConfig::default()
    }
}

pub fn load(wasm: &[u8]) -> Plugin {
    Plugin::load(rt(), wasm, config()).unwrap()
}

pub fn bytes(b: &[u8]) -> Arc<[u8]> {
    Arc::from(b)
}

/// A node named `name` whose bytes are `body` (served as they are).
pub fn node(name: &str, body: &[u8]) -> SnapshotNode {
    SnapshotNode::with_name(name, "1", bytes(body)).unwrap()
}

/// A protobuf Node named `name` listing `images` as (names, size).
pub fn real_node(name: &str, images: &[(&[&str], i64)]) -> Vec<u8> {
    let images: Vec<serde_json::Value> = images
        .iter()
        .map(|(names, size)| serde_json::json!({"names": names, "sizeBytes": size}))
        .collect();
    let json = serde_json::json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "resourceVersion": "7"},
        "status": {"images": images},
    });
    kguest_k8s_io::json::object_from_json(&json).unwrap().raw
}

/// A cycle with `pod` (served as it is) and protobuf nodes `node-a` (with
/// the image `img`) and `node-b`.
pub fn cycle(pod: &[u8]) -> Cycle {
    let nodes = [
        real_node("node-a", &[(&["img"], 1)]),
        real_node("node-b", &[]),
    ];
    let snap = Snapshot::from_nodes(nodes).unwrap();
    Cycle::new(bytes(pod), Arc::new(snap)).unwrap()
}

pub use kguest_test_support::recorder::Recorder;
