//! The example plugins end to end: built for wasm32 (`cargo xtask examples`
//! puts them in `target/plugins/`, or `$KGUEST_PLUGIN_DIR`), loaded by the
//! wasmtime host through `kguest run`, deciding on our sample objects as
//! kube-scheduler would. Plus the ABI check: every import and export of every
//! plugin is in kube-scheduler-wasm-extension's table.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{assert_fails, kguest};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn plugin(name: &str) -> PathBuf {
    let dir = std::env::var_os("KGUEST_PLUGIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| workspace().join("target"), PathBuf::from)
                .join("plugins")
        });
    let path = dir.join(format!("{name}.wasm"));
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask examples` first",
        path.display()
    );
    path
}

fn data(name: &str) -> String {
    workspace()
        .join("tests/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `kguest run --json`, as (node, filter, reason, score) rows.
fn run(plugin_name: &str, pod: &str, extra: &[&str]) -> Vec<(String, String, String, Option<i64>)> {
    let plugin = plugin(plugin_name);
    let mut args = vec![
        "run",
        plugin.to_str().expect("utf8"),
        "--pod",
        pod,
        "--nodes",
    ];
    let nodes = data("nodes.yaml");
    args.push(&nodes);
    args.extend_from_slice(extra);
    args.push("--json");
    let out = kguest(&args, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).expect("one JSON object per line");
            (
                row["node"].as_str().unwrap_or_default().to_string(),
                row["filter"].as_str().unwrap_or_default().to_string(),
                row["reason"].as_str().unwrap_or_default().to_string(),
                row["score"].as_i64(),
            )
        })
        .collect()
}

fn filters(rows: &[(String, String, String, Option<i64>)]) -> Vec<(&str, &str)> {
    rows.iter()
        .map(|(n, f, _, _)| (n.as_str(), f.as_str()))
        .collect()
}

#[test]
fn nodename_sends_a_bound_pod_only_to_its_node() {
    let dir = std::env::temp_dir().join(format!("kguest-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let pod = dir.join("bound.yaml");
    let text = std::fs::read_to_string(data("pod.yaml"))
        .expect("pod")
        .replace(
            "  serviceAccountName:",
            "  nodeName: node-2\n  serviceAccountName:",
        );
    std::fs::write(&pod, text).expect("write");
    let rows = run("nodename", pod.to_str().expect("utf8"), &[]);
    assert_eq!(
        filters(&rows),
        [
            ("node-1", "UnschedulableAndUnresolvable"),
            ("node-2", "Success"),
            ("node-3", "UnschedulableAndUnresolvable")
        ]
    );
    // An unbound pod fits everywhere.
    let rows = run("nodename", &data("pod.yaml"), &[]);
    assert!(rows.iter().all(|r| r.1 == "Success"));
}

#[test]
fn taints_need_tolerations() {
    // The pod tolerates dedicated=shop:NoSchedule but not gpu=true.
    let rows = run("taints", &data("pod.yaml"), &[]);
    assert_eq!(
        filters(&rows),
        [
            ("node-1", "Success"),
            ("node-2", "UnschedulableAndUnresolvable"),
            ("node-3", "Success")
        ]
    );
    assert!(
        rows[1].2.contains("gpu"),
        "reason names the taint: {}",
        rows[1].2
    );
}

#[test]
fn fit_compares_requests_with_allocatable() {
    // Requests: max(init 100m, 500m + 50m) = 550m CPU; node-3 has 400m.
    let rows = run("fit", &data("pod.yaml"), &[]);
    assert_eq!(
        filters(&rows),
        [
            ("node-1", "Success"),
            ("node-2", "Success"),
            ("node-3", "Unschedulable")
        ]
    );
    assert!(rows[2].2.contains("cpu"), "{}", rows[2].2);
}

#[test]
fn imagelocality_prefers_nodes_with_the_images() {
    let rows = run("imagelocality", &data("pod.yaml"), &[]);
    let scores: Vec<Option<i64>> = rows.iter().map(|r| r.3).collect();
    assert!(scores[0] > scores[1] && scores[1] > scores[2], "{scores:?}");
    assert_eq!(scores[2], Some(0));
}

#[test]
fn wasm_runtime_keeps_wasm_pods_on_wasm_nodes() {
    let rows = run("wasm-runtime", &data("wasm-pod.yaml"), &[]);
    assert_eq!(
        filters(&rows),
        [
            ("node-1", "Success"),
            ("node-2", "UnschedulableAndUnresolvable"),
            ("node-3", "UnschedulableAndUnresolvable")
        ]
    );
    // Ordinary pods are not restricted.
    assert!(
        run("wasm-runtime", &data("pod.yaml"), &[])
            .iter()
            .all(|r| r.1 == "Success")
    );
}

#[test]
fn nodenumber_scores_and_reads_its_config() {
    let dir = std::env::temp_dir().join(format!("kguest-run-nn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let pod = dir.join("pod.yaml");
    // Upstream's NodeNumber reads the last digit of the pod's name.
    let text = std::fs::read_to_string(data("pod.yaml"))
        .expect("pod")
        .replace(
            "  name: checkout-7d9f8b6c5d-x2k4q\n",
            "  name: checkout-3\n",
        );
    std::fs::write(&pod, text).expect("write");
    let plain = run("nodenumber", pod.to_str().expect("utf8"), &[]);
    let config = dir.join("config.json");
    std::fs::write(&config, br#"{"reverse": true}"#).expect("write");
    let reversed = run(
        "nodenumber",
        pod.to_str().expect("utf8"),
        &["--config", config.to_str().expect("utf8")],
    );
    let plain: Vec<Option<i64>> = plain.iter().map(|r| r.3).collect();
    let reversed: Vec<Option<i64>> = reversed.iter().map(|r| r.3).collect();
    // The pod's name ends in 3: node-3 scores high, the others low; reversed swaps it.
    assert_eq!(plain, [Some(0), Some(0), Some(10)]);
    assert_eq!(reversed, [Some(10), Some(10), Some(0)]);
}

#[test]
fn run_rejects_bad_input() {
    let nodename = plugin("nodename");
    let nodename = nodename.to_str().expect("utf8");
    let nodes = data("nodes.yaml");
    assert_fails(
        &kguest(&["run", nodename, "--pod", &nodes, "--nodes", &nodes], b""),
        1,
        "expected a Pod, found `Node`",
    );
    let pod = data("pod.yaml");
    assert_fails(
        &kguest(&["run", nodename, "--pod", &pod, "--nodes", &pod], b""),
        1,
        "expected a Node, found `Pod`",
    );
    let not_wasm = data("pod.yaml");
    assert_fails(
        &kguest(&["run", &not_wasm, "--pod", &pod, "--nodes", &nodes], b""),
        1,
        "pod.yaml",
    );
    assert_fails(
        &kguest(&["run", nodename, "--pod", &pod], b""),
        2,
        "missing --nodes",
    );
}

/// kube-scheduler-wasm-extension's imports: (module, name, params, results).
const IMPORTS: &[(&str, &str, &str, &str)] = &[
    ("k8s.io/api", "node", "iiii", "i"),
    ("k8s.io/api", "nodeList", "ii", "i"),
    ("k8s.io/klog", "log", "iii", ""),
    ("k8s.io/klog", "logs", "iiiii", ""),
    ("k8s.io/klog", "severity", "", "i"),
    ("k8s.io/scheduler", "currentPod", "ii", "i"),
    ("k8s.io/scheduler", "targetPod", "ii", "i"),
    ("k8s.io/scheduler", "currentNodeName", "ii", "i"),
    ("k8s.io/scheduler", "get_config", "ii", "i"),
    ("k8s.io/scheduler", "filteredNodeList", "ii", "i"),
    ("k8s.io/scheduler", "nodeScoreList", "ii", "i"),
    ("k8s.io/scheduler", "nodeToStatusMap", "ii", "i"),
    ("k8s.io/scheduler", "nodeImageStates", "iiii", "i"),
    ("k8s.io/scheduler", "result.status_reason", "ii", ""),
    ("k8s.io/scheduler", "result.node_names", "ii", ""),
    ("k8s.io/scheduler", "result.cluster_events", "ii", ""),
    ("k8s.io/scheduler", "result.nominated_node_name", "ii", ""),
    ("k8s.io/scheduler", "result.normalized_score_list", "ii", ""),
    ("k8s.io/scheduler", "handle.eventrecorder.eventf", "ii", ""),
    ("k8s.io/scheduler", "handle.reject_waiting_pod", "iiii", ""),
    ("k8s.io/scheduler", "handle.get_waiting_pod", "iiii", ""),
];

/// Its exports: (name, results); all take no parameters.
const EXPORTS: &[(&str, &str)] = &[
    ("enqueue", ""),
    ("prefilter", "i"),
    ("filter", "i"),
    ("postfilter", "I"),
    ("prescore", "i"),
    ("score", "I"),
    ("normalizescore", "i"),
    ("reserve", "i"),
    ("unreserve", ""),
    ("permit", "I"),
    ("prebind", "i"),
    ("bind", "i"),
    ("postbind", ""),
    ("addpod", "i"),
    ("removepod", "i"),
];

/// The sets of main hooks ({filter, score, reserve, permit, bind}) that the
/// upstream host's registration (`scheduler/plugin/mask.go`) accepts, as
/// flags in that order.
const ACCEPTED: &[&str] = &[
    "F", "FS", "FSB", "R", "P", "B", "FR", "FP", "FB", "S", "SR", "SP", "SB", "RB", "PB", "FSR",
    "FSP", "FSRB", "FSPB", "SRB", "SPB", "RPB", "FSRPB",
];

fn val(t: wasmparser::ValType) -> char {
    match t {
        wasmparser::ValType::I32 => 'i',
        wasmparser::ValType::I64 => 'I',
        _ => '?',
    }
}

#[test]
fn every_example_speaks_the_upstream_abi() {
    for name in [
        "nodename",
        "nodenumber",
        "wasm-runtime",
        "taints",
        "fit",
        "imagelocality",
    ] {
        let bytes = std::fs::read(plugin(name)).expect("plugin");
        let mut types = Vec::new();
        let mut func_types = Vec::new();
        let mut imports = Vec::new();
        let mut exports = Vec::new();
        for payload in wasmparser::Parser::new(0).parse_all(&bytes) {
            match payload.expect("valid wasm") {
                wasmparser::Payload::TypeSection(reader) => {
                    for ty in reader.into_iter_err_on_gc_types() {
                        let ty = ty.expect("func type");
                        let params: String = ty.params().iter().copied().map(val).collect();
                        let results: String = ty.results().iter().copied().map(val).collect();
                        types.push((params, results));
                    }
                }
                wasmparser::Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        let import = import.expect("import");
                        if let wasmparser::TypeRef::Func(index) = import.ty {
                            imports.push((
                                import.module.to_string(),
                                import.name.to_string(),
                                index,
                            ));
                            func_types.push(index);
                        } else {
                            panic!(
                                "{name}: imports a non-function {}.{}",
                                import.module, import.name
                            );
                        }
                    }
                }
                wasmparser::Payload::FunctionSection(reader) => {
                    for f in reader {
                        func_types.push(f.expect("function"));
                    }
                }
                wasmparser::Payload::ExportSection(reader) => {
                    for export in reader {
                        let export = export.expect("export");
                        exports.push((export.name.to_string(), export.kind, export.index));
                    }
                }
                _ => {}
            }
        }
        for (module, field, ty) in &imports {
            let (params, results) = &types[*ty as usize];
            assert!(
                IMPORTS.contains(&(
                    module.as_str(),
                    field.as_str(),
                    params.as_str(),
                    results.as_str()
                )),
                "{name}: import {module}.{field} ({params}) -> ({results}) is not in the upstream table"
            );
        }
        let mut main = String::new();
        for (export, kind, index) in &exports {
            match (export.as_str(), kind) {
                ("memory", wasmparser::ExternalKind::Memory) => continue,
                // Linker-made data-layout globals; the upstream host ignores them.
                ("__data_end" | "__heap_base", wasmparser::ExternalKind::Global) => continue,
                (_, wasmparser::ExternalKind::Func) => {}
                (other, _) => panic!("{name}: unexpected export {other}"),
            }
            let (params, results) = &types[func_types[*index as usize] as usize];
            assert!(
                params.is_empty() && EXPORTS.contains(&(export.as_str(), results.as_str())),
                "{name}: export {export} ({params}) -> ({results}) is not in the upstream table"
            );
            for (hook, flag) in [
                ("filter", 'F'),
                ("score", 'S'),
                ("reserve", 'R'),
                ("permit", 'P'),
                ("bind", 'B'),
            ] {
                if export == hook {
                    main.push(flag);
                }
            }
        }
        assert!(
            exports.iter().any(|e| e.0 == "memory"),
            "{name}: no memory export"
        );
        let mut sorted: Vec<char> = main.chars().collect();
        sorted.sort_by_key(|c| "FSRPB".find(*c));
        let main: String = sorted.into_iter().collect();
        assert!(
            ACCEPTED.contains(&main.as_str()),
            "{name}: hook set {main} is not one the upstream host accepts"
        );
    }
}

/// Several pods, one after another, through one plugin instance: the Pod
/// the SDK caches for a scheduling cycle never leaks into the next cycle.
#[test]
fn pods_in_sequence_through_one_instance_do_not_share_state() {
    use std::sync::Arc;

    use kguest_host::{
        Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot, SnapshotNode,
    };

    let encode = |yaml: String| {
        let json: Value = serde_norway::from_str(&yaml).expect("yaml");
        kguest_k8s::json::object_from_json(&json)
            .expect("encode")
            .raw
    };
    let pod_on = |node: &str| {
        let binding = if node.is_empty() {
            String::new()
        } else {
            format!("  nodeName: {node}\n")
        };
        encode(format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n{binding}  containers: [{{name: c}}]\n"
        ))
    };
    let node = |name: &str| SnapshotNode {
        name: name.into(),
        resource_version: "1".into(),
        node: encode(format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n"
        ))
        .into(),
        image_states: Arc::from(&[][..]),
    };
    let mut snapshot = Snapshot::new();
    snapshot.insert(node("node-a"));
    snapshot.insert(node("node-b"));
    let snapshot = Arc::new(snapshot);

    let runtime = Runtime::new(RuntimeConfig::default()).expect("runtime");
    let wasm = std::fs::read(plugin("nodename")).expect("plugin");
    let config = PluginConfig {
        pool_size: 1,
        ..PluginConfig::default()
    };
    let plugin = Plugin::load(&runtime, &wasm, config).expect("load");

    for (bound_to, expected) in [
        ("node-a", [true, false]),
        ("node-b", [false, true]),
        ("", [true, true]),
        ("node-a", [true, false]),
    ] {
        let cycle = Cycle::new(pod_on(bound_to).into(), Arc::clone(&snapshot));
        plugin.prefilter(&cycle).expect("prefilter");
        let fits: Vec<bool> = ["node-a", "node-b"]
            .iter()
            .map(|n| plugin.filter(&cycle, n).expect("filter").is_success())
            .collect();
        assert_eq!(fits, expected, "pod bound to {bound_to:?}");
    }
    assert_eq!(
        plugin.idle_instances(),
        1,
        "one instance served every cycle"
    );
}
