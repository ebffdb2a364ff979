//! Loading plugins and upstream material, building cycles, recording what
//! guests send back.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use kguest_host::{Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot};
use serde_json::{Value, json};

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// A built example plugin (`cargo xtask examples`).
pub fn example(name: &str) -> Vec<u8> {
    read(&kguest_test_support::built::plugin(name))
}

/// A file of kube-scheduler-wasm-extension's test material.
pub fn ksw(relative: &str) -> Vec<u8> {
    read(&kguest_test_support::vendor::ksw_file(relative))
}

pub use kguest_test_support::recorder::Recorder;

pub fn runtime() -> Runtime {
    Runtime::new(RuntimeConfig::default()).expect("wasmtime runtime")
}

/// Loads `wasm` with `config` as its guest config, recording into a new
/// [`Recorder`].
pub fn load(
    runtime: &Runtime,
    wasm: &[u8],
    config: Option<&str>,
) -> Result<(Plugin, Arc<Recorder>), String> {
    let recorder = Arc::new(Recorder::default());
    let config = PluginConfig {
        guest_config: config.unwrap_or("").as_bytes().into(),
        handle: recorder.clone(),
        ..PluginConfig::default()
    };
    Plugin::load(runtime, wasm, config)
        .map(|p| (p, recorder))
        .map_err(|err| err.to_string())
}

/// Kubernetes JSON -> the protobuf the API server sends.
pub fn protobuf(object: &Value) -> Vec<u8> {
    kguest_k8s_io::json::object_from_json(object)
        .unwrap_or_else(|err| panic!("{object}: {err}"))
        .raw
}

/// `nodeImageStates` JSON for every node, as the scheduler's cache computes
/// it (per name in `status.images[].names`: the size of the first node
/// listing it, the number of nodes listing it) and Go marshals it (keys
/// sorted, `"Nodes": null`).
pub fn image_states(nodes: &[Value]) -> Vec<String> {
    let names = |node: &Value| -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for image in node["status"]["images"].as_array().into_iter().flatten() {
            let size = image["sizeBytes"].as_i64().unwrap_or(0);
            for name in image["names"].as_array().into_iter().flatten() {
                out.push((name.as_str().unwrap_or_default().to_string(), size));
            }
        }
        out
    };
    let mut global: BTreeMap<String, (i64, Vec<usize>)> = BTreeMap::new();
    for (i, node) in nodes.iter().enumerate() {
        for (name, size) in names(node) {
            let entry = global.entry(name).or_insert((size, Vec::new()));
            if !entry.1.contains(&i) {
                entry.1.push(i);
            }
        }
    }
    nodes
        .iter()
        .map(|node| {
            let mut mine = serde_json::Map::new();
            let mut sorted: Vec<String> = names(node).into_iter().map(|(n, _)| n).collect();
            sorted.sort();
            for name in sorted {
                let (size, on) = &global[&name];
                mine.insert(
                    name,
                    json!({"Size": size, "NumNodes": on.len(), "Nodes": null}),
                );
            }
            Value::Object(mine).to_string()
        })
        .collect()
}

/// A cycle for `pod` over `nodes` (JSON objects). The host computes the
/// image states; they must equal this file's reading of the scheduler's
/// cache ([`image_states`]).
pub fn cycle(pod: &Value, nodes: &[Value]) -> Cycle {
    let snapshot = Snapshot::from_nodes(nodes.iter().map(protobuf)).expect("valid nodes");
    for (node, want) in nodes.iter().zip(image_states(nodes)) {
        let got = snapshot
            .image_states(node_name(node))
            .expect("node in snapshot");
        assert_eq!(
            String::from_utf8_lossy(got),
            want,
            "image states of {}",
            node_name(node)
        );
    }
    Cycle::new(protobuf(pod).into(), Arc::new(snapshot)).expect("valid pod")
}

pub fn node_name(node: &Value) -> &str {
    node["metadata"]["name"].as_str().unwrap_or_default()
}

/// A tiny deterministic generator (xorshift64*), so the matrix is the same
/// on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 0..n
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}
