//! The benchmark cases shared by the criterion bench (`benches/kguest.rs`)
//! and the quick runner (`src/main.rs`), both driven by `cargo xtask bench`.
//!
//! Every case is a named closure; ids are `group/name` and stay stable, since
//! `cargo xtask bench` reads criterion's estimates back by id.
//!
//! * `filter/<plugin>/cycle`: one hook call in a fresh scheduling cycle
//!   (a new `Cycle` per iteration, so every plugin pulls and decodes the Pod;
//!   the host first runs `prefilter` on guests that export it, and
//!   `prescore` before `score` where exported).
//! * `filter/<plugin>/node`: the next node in the same cycle (SDK plugins keep
//!   the Pod; the baselines pull and decode it again).
//! * `filter/<plugin>/bound`: the next node as `node`, through
//!   `Plugin::cycle_calls` (one instance held for the cycle's node loop, as
//!   `Plugin::schedule` and `Profile` call Filter and Score).
//! * `encode/<object>/<encoder>` and `encode/node/cached`: host-side encoding.
//! * `decode/<what>/<decoder>`: native views vs prost.
//!
//! * `filter/tinygo-*/...`: kube-scheduler-wasm-extension's TinyGo guests
//!   ([`TINYGO_PLUGINS`]) in the same host on the same inputs, when its
//!   material is found (`$KGUEST_KSW_DIR`, else `proto-vendor/ksw`).
//!
//! Inputs: `tests/data/{pod,node}.yaml` and the upstream Pod fixture
//! `core.v1.Pod.json` from `$KGUEST_VENDOR_DIR` (default `proto-vendor/`)
//! `/testdata`. Guests come from `$KGUEST_BENCH_WASM_DIR` (default
//! `target/wasm32-unknown-unknown/guest`); build them first
//! (`cargo xtask bench` does).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use k8s_openapi::api::core::v1 as openapi;
use k8s_pb::api::core::v1 as pb;
use kguest_host::{
    Cycle, NodeCache, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot, SnapshotNode,
};
use kguest_k8s_encode::Encode;
use kguest_test_support::built::target_dir;
use kguest_test_support::vendor;
pub use kguest_test_support::walk::Walk;
use kguest_wire::reflect::Reflect;
use prost::Message;
use serde_json::Value;

/// Guests measured through the host: (label, wasm package, pod encoding).
pub const PLUGINS: &[(&str, &str, PodForm)] = &[
    ("kguest nodename", "nodename", PodForm::Protobuf),
    ("kguest nodename-view", "nodename-view", PodForm::Protobuf),
    ("kguest nodenumber", "nodenumber", PodForm::Protobuf),
    ("kguest wasm-runtime", "wasm-runtime", PodForm::Protobuf),
    ("kguest taints", "taints", PodForm::Protobuf),
    ("kguest fit", "fit", PodForm::Protobuf),
    ("kguest imagelocality", "imagelocality", PodForm::Protobuf),
    ("(a) prost", "baseline-prost", PodForm::Protobuf),
    ("(b) json", "baseline-json", PodForm::Json),
    ("(c) scan floor", "baseline-scan", PodForm::Protobuf),
    (
        "(d) empty (call floor)",
        "baseline-empty",
        PodForm::Protobuf,
    ),
    ("(e) copy floor", "baseline-copy", PodForm::Protobuf),
];

/// kube-scheduler-wasm-extension's TinyGo guests measured in the same host
/// on the same inputs: (case name, file in its material, guest args as
/// `PluginConfig.Args`, argv[0] first). The filter test guest with arg
/// `filter` is upstream's nodeName match (the seed's 19 µs anchor).
pub const TINYGO_PLUGINS: &[(&str, &str, &[&str])] = &[
    (
        "tinygo-filter",
        "guest/testdata/filter/main.wasm",
        &["main.wasm", "filter"],
    ),
    ("tinygo-nodenumber", "examples/nodenumber/main.wasm", &[]),
];

/// How the Pod is handed to a guest through `currentPod`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodForm {
    Protobuf,
    Json,
}

/// One measured operation.
pub struct Case {
    /// `group/name/...`, stable.
    pub id: String,
    pub run: Box<dyn FnMut()>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id)
    }
}

fn case(id: impl Into<String>, run: impl FnMut() + 'static) -> Case {
    Case {
        id: id.into(),
        run: Box::new(run),
    }
}

/// Where the built guests are.
pub fn wasm_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KGUEST_BENCH_WASM_DIR") {
        return PathBuf::from(dir);
    }
    target_dir().join("wasm32-unknown-unknown").join("guest")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn yaml(path: &Path) -> Value {
    let text = String::from_utf8(read(path)).expect("UTF-8 YAML");
    serde_norway::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// One benchmark object in all its forms.
pub struct Object {
    pub label: &'static str,
    pub json: Value,
    /// Go protobuf bytes (kguest JSON front-end).
    pub protobuf: Vec<u8>,
    /// Compact JSON bytes.
    pub json_bytes: Vec<u8>,
}

impl Object {
    fn new(label: &'static str, json: Value) -> Object {
        let protobuf = kguest_k8s_io::json::object_from_json(&json)
            .unwrap_or_else(|err| panic!("{label}: {err:?}"))
            .raw;
        let json_bytes = serde_json::to_vec(&json).expect("JSON");
        Object {
            label,
            json,
            protobuf,
            json_bytes,
        }
    }
}

/// The benchmark inputs.
pub struct Inputs {
    pub pod: Object,
    pub node: Object,
    pub upstream_pod: Object,
}

impl Inputs {
    pub fn load() -> Inputs {
        let data = kguest_test_support::workspace().join("tests/data");
        let upstream = vendor::testdata_dir().join("core.v1.Pod.json");
        let upstream: Value =
            serde_json::from_slice(&read(&upstream)).expect("upstream Pod fixture");
        Inputs {
            pod: Object::new("pod", yaml(&data.join("pod.yaml"))),
            node: Object::new("node", yaml(&data.join("node.yaml"))),
            upstream_pod: Object::new("upstream-pod", upstream),
        }
    }

    /// `metadata.name` of the node.
    pub fn node_name(&self) -> String {
        self.node.json["metadata"]["name"]
            .as_str()
            .unwrap_or("node")
            .to_string()
    }
}

/// `filter/...` cases: every plugin of [`PLUGINS`] whose wasm exists, in
/// both scenarios. Missing guests are reported on stderr and skipped.
pub fn filter_cases(inputs: &Inputs) -> Vec<Case> {
    let runtime = Runtime::new(RuntimeConfig::default()).expect("wasmtime runtime");
    let node_name: Arc<str> = inputs.node_name().into();
    let mut snapshot = Snapshot::new();
    // The snapshot computes the node's image states.
    snapshot.insert(
        SnapshotNode::with_name(&node_name, "1", inputs.node.protobuf.clone().into())
            .expect("node"),
    );
    let snapshot = Arc::new(snapshot);
    let pod_pb: Arc<[u8]> = inputs.pod.protobuf.clone().into();
    let pod_json: Arc<[u8]> = inputs.pod.json_bytes.clone().into();
    let dir = wasm_dir();
    // (case name, wasm, pod form, guest args)
    let mut guests = Vec::new();
    for &(_, package, form) in PLUGINS {
        let path = dir.join(format!("{}.wasm", package.replace('-', "_")));
        match std::fs::read(&path) {
            Ok(wasm) => guests.push((package, wasm, form, Vec::new())),
            Err(_) => eprintln!("skipping {package}: {} not built", path.display()),
        }
    }
    match vendor::ksw_dir_if_present() {
        Some(ksw) => {
            for &(name, file, args) in TINYGO_PLUGINS {
                let path = ksw.join(file);
                match std::fs::read(&path) {
                    Ok(wasm) => {
                        let args = args.iter().map(|a| a.to_string()).collect();
                        guests.push((name, wasm, PodForm::Protobuf, args));
                    }
                    Err(err) => eprintln!("skipping {name}: {}: {err}", path.display()),
                }
            }
        }
        None => eprintln!(
            "skipping the TinyGo guests: set KGUEST_KSW_DIR or run `cargo xtask vendor ksw`"
        ),
    }
    let mut cases = Vec::new();
    for (package, wasm, form, args) in guests {
        let config = PluginConfig {
            args,
            ..PluginConfig::default()
        };
        let plugin = Arc::new(
            Plugin::load(&runtime, &wasm, config).unwrap_or_else(|err| panic!("{package}: {err}")),
        );
        let score = !plugin.hooks().contains(kguest_host::Hook::Filter);
        // A new cycle runs PreScore before Score where exported, as the
        // scheduler does (upstream's nodenumber does its pod work there).
        let prescore = score && plugin.hooks().contains(kguest_host::Hook::PreScore);
        let pod = match form {
            PodForm::Protobuf => pod_pb.clone(),
            PodForm::Json => pod_json.clone(),
        };
        // Check once that the call works (and pulls the node when asked).
        let cycle = Cycle::new(pod.clone(), snapshot.clone()).expect("cycle");
        call(&plugin, &cycle, &node_name, score);

        let (p, pod1, snap1, name1) = (
            plugin.clone(),
            pod.clone(),
            snapshot.clone(),
            node_name.clone(),
        );
        cases.push(case(format!("filter/{package}/cycle"), move || {
            let cycle = Cycle::new(pod1.clone(), snap1.clone()).expect("cycle");
            if prescore {
                black_box(p.prescore(&cycle, &[&*name1]).expect("prescore"));
            }
            call(&p, &cycle, &name1, score);
        }));
        let (p, name2) = (plugin.clone(), node_name.clone());
        let cycle = Cycle::new(pod.clone(), snapshot.clone()).expect("cycle");
        cases.push(case(format!("filter/{package}/node"), move || {
            call(&p, &cycle, &name2, score);
        }));
        let cycle = Cycle::new(pod, snapshot.clone()).expect("cycle");
        let mut calls = plugin.cycle_calls(&cycle);
        let name3 = node_name.clone();
        cases.push(case(format!("filter/{package}/bound"), move || {
            if score {
                black_box(calls.score(&name3).expect("score"));
            } else {
                black_box(calls.filter(&name3).expect("filter"));
            }
        }));
        if package == "baseline-empty" {
            cases.push(raw_wasmtime_case(&runtime, &wasm));
        }
    }
    cases
}

/// The floor under every host call: the empty guest's `filter` export
/// called as a bare `TypedFunc` on one kept instance, on the host's own
/// engine (same compilation settings, epoch interruption on) but without
/// kguest-host: no pool, no cycle, no inputs, no deadline per call.
fn raw_wasmtime_case(runtime: &Runtime, wasm: &[u8]) -> Case {
    let engine = runtime.engine();
    let module = wasmtime::Module::new(engine, wasm).expect("the empty guest compiles");
    let mut linker = wasmtime::Linker::new(engine);
    linker
        .define_unknown_imports_as_traps(&module)
        .expect("trapping imports");
    let mut store = wasmtime::Store::new(engine, ());
    store.set_epoch_deadline(u64::MAX / 2);
    let instance = linker
        .instantiate(&mut store, &module)
        .expect("the empty guest instantiates");
    let filter = instance
        .get_typed_func::<(), i32>(&mut store, "filter")
        .expect("the empty guest exports filter");
    case("filter/raw-wasmtime/call", move || {
        black_box(filter.call(&mut store, ()).expect("filter"));
    })
}

fn call(plugin: &Plugin, cycle: &Cycle, node: &str, score: bool) {
    if score {
        black_box(plugin.score(cycle, node).expect("score"));
    } else {
        black_box(plugin.filter(cycle, node).expect("filter"));
    }
}

/// `encode/...` cases: each object through every encoder, plus the cached
/// path (`NodeCache` hit, bytes reused across nodes and cycles).
pub fn encode_cases(inputs: &Inputs) -> Vec<Case> {
    let mut cases = Vec::new();
    for object in [&inputs.upstream_pod, &inputs.pod, &inputs.node] {
        let label = object.label;
        let json = object.json.clone();
        cases.push(case(format!("encode/{label}/kguest-json"), move || {
            black_box(kguest_k8s_io::json::object_from_json(black_box(&json)).expect("encode"));
        }));
        if label == "node" {
            let typed: openapi::Node =
                serde_json::from_value(object.json.clone()).expect("k8s-openapi Node");
            check_same(label, &typed.encode_to_vec(), &object.protobuf);
            let pbv = pb::Node::decode(&object.protobuf[..]).expect("k8s-pb Node");
            push_typed(&mut cases, label, typed, pbv);
        } else {
            let typed: openapi::Pod =
                serde_json::from_value(object.json.clone()).expect("k8s-openapi Pod");
            check_same(label, &typed.encode_to_vec(), &object.protobuf);
            let pbv = pb::Pod::decode(&object.protobuf[..]).expect("k8s-pb Pod");
            push_typed(&mut cases, label, typed, pbv);
        }
    }
    // The closure only runs on a miss; it holds the object behind an `Arc`
    // so cloning it per lookup costs nothing.
    let node = Arc::new(inputs.node.json.clone());
    let mut cache = NodeCache::new();
    let name = inputs.node_name();
    let rv = inputs.node.json["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or("1")
        .to_string();
    let encode = move || {
        kguest_k8s_io::json::object_from_json(&node)
            .expect("encode")
            .raw
    };
    cache.node_bytes(&name, &rv, encode.clone()).expect("node");
    cases.push(case("encode/node/cached", move || {
        black_box(cache.node_bytes(&name, &rv, encode.clone()).expect("node"));
    }));
    cases
}

fn check_same(label: &str, a: &[u8], b: &[u8]) {
    if a != b {
        eprintln!(
            "note: {label}: k8s-openapi Encode and the JSON front-end differ ({} vs {} bytes)",
            a.len(),
            b.len()
        );
    }
}

fn push_typed<T, P>(cases: &mut Vec<Case>, label: &str, typed: T, pbv: P)
where
    T: Encode + serde::Serialize + Clone + 'static,
    P: Message + 'static,
{
    let t1 = typed.clone();
    cases.push(case(format!("encode/{label}/kguest-openapi"), move || {
        black_box(black_box(&t1).encode_to_vec());
    }));
    cases.push(case(format!("encode/{label}/prost"), move || {
        black_box(black_box(&pbv).encode_to_vec());
    }));
    cases.push(case(format!("encode/{label}/serde_json"), move || {
        black_box(serde_json::to_vec(black_box(&typed)).expect("JSON"));
    }));
}

/// Walks every field of a Pod through the views, one pass per message.
pub fn walk_pod(bytes: &[u8]) -> Walk {
    let mut walk = Walk::counting(false);
    kguest_k8s::api::core::v1::Pod::from_bytes(bytes).reflect(&mut walk);
    walk
}

/// Walks every field of a Pod through every accessor of the views.
pub fn walk_pod_accessors(bytes: &[u8]) -> Walk {
    let mut walk = Walk::counting(true);
    kguest_k8s::api::core::v1::Pod::from_bytes(bytes).reflect_accessors(&mut walk);
    walk
}

/// `decode/...` cases: `spec.nodeName` and every field, views (one pass and
/// through the accessors) vs prost.
pub fn decode_cases(inputs: &Inputs) -> Vec<Case> {
    let mut cases = Vec::new();
    for object in [&inputs.pod, &inputs.upstream_pod] {
        let label = object.label;
        let b1 = object.protobuf.clone();
        cases.push(case(format!("decode/{label}/nodename/views"), move || {
            let pod = kguest_k8s::api::core::v1::Pod::from_bytes(black_box(&b1));
            black_box(pod.spec().and_then(|s| s.node_name_bytes()));
        }));
        let b2 = object.protobuf.clone();
        cases.push(case(format!("decode/{label}/nodename/prost"), move || {
            let pod = pb::Pod::decode(black_box(&b2[..])).expect("decode");
            black_box(pod.spec.and_then(|s| s.node_name));
        }));
        let b5 = object.protobuf.clone();
        cases.push(case(format!("decode/{label}/nodename/scan"), move || {
            black_box(baseline_scan::decide(black_box(&b5), b"node-a"));
        }));
        let b3 = object.protobuf.clone();
        cases.push(case(format!("decode/{label}/all/views"), move || {
            black_box(walk_pod(black_box(&b3)).items);
        }));
        let b6 = object.protobuf.clone();
        cases.push(case(format!("decode/{label}/all/accessors"), move || {
            black_box(walk_pod_accessors(black_box(&b6)).items);
        }));
        let b4 = object.protobuf.clone();
        cases.push(case(format!("decode/{label}/all/prost"), move || {
            black_box(pb::Pod::decode(black_box(&b4[..])).expect("decode"));
        }));
    }
    cases
}

/// `json/...` cases: JSON text → protobuf (kguest's one-pass encoder, an
/// encoder reused across calls as a host would, against `serde_json` into a
/// k8s-openapi value then kguest's `Encode`), and protobuf → JSON text
/// (kguest's writer from the bytes, against `serde_json::to_vec` of the
/// k8s-openapi value).
pub fn json_cases(inputs: &Inputs) -> Vec<Case> {
    let mut cases = Vec::new();
    for object in [&inputs.upstream_pod, &inputs.pod, &inputs.node] {
        let label = object.label;
        let text = String::from_utf8(object.json_bytes.clone()).expect("UTF-8");
        let mut encoder = kguest_json::Encoder::new();
        let mut out = Vec::new();
        kguest_k8s_io::json::encode_object_text(&mut encoder, &text, &mut out).expect("encode");
        assert_eq!(out, object.protobuf, "{label}: one-pass encoder");
        let t1 = text.clone();
        cases.push(case(
            format!("json/{label}/to-protobuf/kguest"),
            move || {
                out.clear();
                kguest_k8s_io::json::encode_object_text(&mut encoder, black_box(&t1), &mut out)
                    .expect("encode");
                black_box(&out);
            },
        ));
        // The parse-only floor: the same text through serde_json, every
        // value checked and dropped.
        let floor = object.json_bytes.clone();
        cases.push(case(
            format!("json/{label}/to-protobuf/parse-floor"),
            move || {
                black_box(
                    serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&floor))
                        .expect("JSON"),
                );
            },
        ));
        let bytes = object.json_bytes.clone();
        if label == "node" {
            cases.push(case(
                format!("json/{label}/to-protobuf/serde-openapi"),
                move || {
                    let node: openapi::Node =
                        serde_json::from_slice(black_box(&bytes)).expect("Node");
                    black_box(node.encode_to_vec());
                },
            ));
        } else {
            cases.push(case(
                format!("json/{label}/to-protobuf/serde-openapi"),
                move || {
                    let pod: openapi::Pod = serde_json::from_slice(black_box(&bytes)).expect("Pod");
                    black_box(pod.encode_to_vec());
                },
            ));
        }
    }
    let pod = &inputs.pod;
    let schema = <kguest_k8s::api::core::v1::Pod as kguest_wire::View>::SCHEMA;
    let pb = pod.protobuf.clone();
    let mut out = Vec::new();
    cases.push(case("json/pod/to-json/kguest", move || {
        out.clear();
        kguest_k8s_io::json::write_object(
            "v1",
            "Pod",
            schema,
            black_box(&pb),
            kguest_json::Style::Compact,
            &mut out,
        )
        .expect("to JSON");
        black_box(&out);
    }));
    // The output floor: as many bytes as kguest writes, copied into the
    // same reused buffer.
    let mut written = Vec::new();
    kguest_k8s_io::json::write_object(
        "v1",
        "Pod",
        schema,
        &pod.protobuf,
        kguest_json::Style::Compact,
        &mut written,
    )
    .expect("to JSON");
    let mut out = Vec::new();
    cases.push(case("json/pod/to-json/write-floor", move || {
        out.clear();
        out.extend_from_slice(black_box(&written));
        black_box(&out);
    }));
    let typed: openapi::Pod = serde_json::from_value(pod.json.clone()).expect("k8s-openapi Pod");
    cases.push(case("json/pod/to-json/serde_json", move || {
        black_box(serde_json::to_vec(black_box(&typed)).expect("JSON"));
    }));
    cases
}

/// Every case, in report order.
pub fn all_cases(inputs: &Inputs) -> Vec<Case> {
    let mut cases = filter_cases(inputs);
    cases.extend(encode_cases(inputs));
    cases.extend(decode_cases(inputs));
    cases.extend(json_cases(inputs));
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_encode_and_walk() {
        let inputs = Inputs::load();
        let sizes = [inputs.pod.protobuf.len(), inputs.node.protobuf.len()];
        assert!(sizes[0] > 2000 && sizes[1] > 2000, "{sizes:?}");
        let walk = walk_pod(&inputs.pod.protobuf);
        assert!(walk.items > 100, "{}", walk.items);
        let accessors = walk_pod_accessors(&inputs.pod.protobuf);
        assert_eq!((accessors.items, accessors.bytes), (walk.items, walk.bytes));
        let decoded = pb::Pod::decode(&inputs.pod.protobuf[..]).unwrap();
        assert_eq!(
            decoded.metadata.and_then(|m| m.name).as_deref(),
            inputs.pod.json["metadata"]["name"].as_str()
        );
    }

    #[test]
    fn every_encode_and_decode_case_runs() {
        let inputs = Inputs::load();
        let mut cases = encode_cases(&inputs);
        cases.extend(decode_cases(&inputs));
        cases.extend(json_cases(&inputs));
        assert!(cases.len() >= 28);
        for case in &mut cases {
            (case.run)();
        }
    }
}
