//! The example plugins end to end: built for wasm32 (`cargo xtask examples`
//! puts them in `target/plugins/`, or `$KGUEST_PLUGIN_DIR`), loaded by the
//! wasmtime host through `kguest run`, deciding on our sample objects as
//! kube-scheduler would. Plus the ABI check: every import and export of every
//! plugin is in kube-scheduler-wasm-extension's table.

use kguest_test_support::built::plugin;
use kguest_test_support::{vendor, workspace};
use serde_json::Value;

use super::{assert_fails, kguest};

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
    let nodes = data("nodes.yaml");
    let mut args = vec![
        plugin.to_str().expect("utf8"),
        "--pod",
        pod,
        "--nodes",
        &nodes,
    ];
    args.extend_from_slice(extra);
    run_json(&args)
        .iter()
        .map(|row| {
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

/// What `kubectl get pod,node -o json` prints: one List holding the Pod
/// and the Nodes, given as both --pod and --nodes.
#[test]
fn a_kubectl_list_of_pod_and_nodes_is_both_inputs() {
    let yaml = |name: &str| -> Value {
        let text = std::fs::read_to_string(data(name)).expect("read");
        serde_norway::from_str(&text).expect("YAML")
    };
    let mut items = vec![yaml("pod.yaml")];
    items.extend(
        yaml("nodes.yaml")["items"]
            .as_array()
            .expect("items")
            .clone(),
    );
    let list = serde_json::json!({
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": items,
    });
    let file = temp("kubectl-list.json", list.to_string().as_bytes());
    let plugin = plugin("nodename");
    let out = kguest(
        &[
            "run",
            plugin.to_str().expect("utf8"),
            "--pod",
            &file,
            "--nodes",
            &file,
            "--json",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let separate = kguest(
        &[
            "run",
            plugin.to_str().expect("utf8"),
            "--pod",
            &data("pod.yaml"),
            "--nodes",
            &data("nodes.yaml"),
            "--json",
        ],
        b"",
    );
    assert!(separate.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    assert_eq!(out.stdout, separate.stdout);
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
        &["--guest-config", config.to_str().expect("utf8")],
    );
    let plain: Vec<Option<i64>> = plain.iter().map(|r| r.3).collect();
    let reversed: Vec<Option<i64>> = reversed.iter().map(|r| r.3).collect();
    // The pod's name ends in 3: node-3 scores high, the others low; reversed swaps it.
    assert_eq!(plain, [Some(0), Some(0), Some(10)]);
    assert_eq!(reversed, [Some(10), Some(10), Some(0)]);
}

/// nodenumber is a `kguest::Load` plugin: a config it refuses stops the
/// load, and `kguest run` says why on one line (exit 1).
#[test]
fn nodenumber_refuses_a_bad_config_at_load() {
    let dir = std::env::temp_dir().join(format!("kguest-run-refuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let config = dir.join("config.json");
    std::fs::write(&config, br#"{"reverse": "yes"}"#).expect("write");
    let nodenumber = plugin("nodenumber");
    let (pod, nodes) = (data("pod.yaml"), data("nodes.yaml"));
    let out = kguest(
        &[
            "run",
            nodenumber.to_str().expect("utf8"),
            "--pod",
            &pod,
            "--nodes",
            &nodes,
            "--guest-config",
            config.to_str().expect("utf8"),
        ],
        b"",
    );
    assert_fails(
        &out,
        1,
        "nodenumber.wasm: wasm: instantiate error: decode arg into NodeNumberArgs: reverse is not a bool",
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("backtrace"));
}

#[test]
fn run_rejects_bad_input() {
    let nodename = plugin("nodename");
    let nodename = nodename.to_str().expect("utf8");
    let nodes = data("nodes.yaml");
    assert_fails(
        &kguest(&["run", nodename, "--pod", &nodes, "--nodes", &nodes], b""),
        1,
        "no Pod in the input (only Node)",
    );
    let pod = data("pod.yaml");
    assert_fails(
        &kguest(&["run", nodename, "--pod", &pod, "--nodes", &pod], b""),
        1,
        "no Node in the input (only Pod)",
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
    let twice = temp(
        "twice.yaml",
        b"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n",
    );
    assert_fails(
        &kguest(&["run", nodename, "--pod", &pod, "--nodes", &twice], b""),
        1,
        "1 node(s) repeat another node's name",
    );
    let unnamed = temp(
        "unnamed.yaml",
        b"apiVersion: v1\nkind: Node\nmetadata: {labels: {a: b}}\n",
    );
    assert_fails(
        &kguest(&["run", nodename, "--pod", &pod, "--nodes", &unnamed], b""),
        1,
        "a Node without metadata.name",
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
    // KSW's host instantiates WASI for a guest that imports it; a
    // `kguest::Load` plugin writes why it refuses its config to stderr.
    ("wasi_snapshot_preview1", "fd_write", "iiii", "i"),
];

/// Its exports: (name, results); all take no parameters.
const EXPORTS: &[(&str, &str)] = &[
    // Run when the guest is instantiated (a `kguest::Load` plugin's).
    ("_start", ""),
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

    use kguest_host::{Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot};

    let encode = |yaml: String| {
        let json: Value = serde_norway::from_str(&yaml).expect("yaml");
        kguest_k8s_io::json::object_from_json(&json)
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
    let node = |name: &str| {
        encode(format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n"
        ))
    };
    let snapshot = Arc::new(Snapshot::from_nodes([node("node-a"), node("node-b")]).expect("nodes"));

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
        let cycle = Cycle::new(pod_on(bound_to).into(), Arc::clone(&snapshot)).expect("pod");
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

// ---------------------------------------------------------------------------
// `kguest run` on kube-scheduler-wasm-extension's own guests and on small
// WAT guests: guest args, PreFilter node names, failed scores, timing, bad
// guests.

/// kube-scheduler-wasm-extension's material: `$KGUEST_KSW_DIR`, else
/// `proto-vendor/ksw` (`cargo xtask vendor`).
fn ksw(rel: &str) -> String {
    vendor::ksw_file(rel).to_string_lossy().into_owned()
}

/// A file in a fresh temp dir for this test process.
fn temp(name: &str, contents: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("kguest-run-ksw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write");
    path.to_string_lossy().into_owned()
}

/// Upstream's `PodSmall` (bound to good-node) and two nodes.
fn small_objects() -> (String, String) {
    let pod = temp(
        "pod-small.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: good-pod, namespace: test, uid: 384900cd-dc7b-41ec-837e-9c4c1762363e}\nspec: {nodeName: good-node}\n",
    );
    let nodes = temp(
        "nodes-small.yaml",
        b"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: good-node}}\n- {apiVersion: v1, kind: Node, metadata: {name: bad-node}}\n",
    );
    (pod, nodes)
}

fn run_json(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = kguest(&all, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

fn column<'a>(rows: &'a [Value], key: &str) -> Vec<&'a str> {
    rows.iter().map(|r| r[key].as_str().unwrap_or("")).collect()
}

#[test]
fn guest_args_choose_an_upstream_test_guests_behaviour() {
    let (pod, nodes) = small_objects();
    let filter = ksw("guest/testdata/filter/main.wasm");
    // No args: upstream's noop plugin accepts every node.
    let rows = run_json(&[&filter, "--pod", &pod, "--nodes", &nodes]);
    assert_eq!(column(&rows, "filter"), ["Success", "Success"]);
    // argv = [PLUGIN, "filter"]: os.Args[1] picks the node-name filter.
    let rows = run_json(&[&filter, "--arg", "filter", "--pod", &pod, "--nodes", &nodes]);
    assert_eq!(column(&rows, "filter"), ["Success", "Unschedulable"]);
    assert_eq!(column(&rows, "reason"), ["", "good-node != bad-node"]);
}

#[test]
fn prefilter_node_names_restrict_the_candidates() {
    let (pod, nodes) = small_objects();
    let filter = ksw("guest/testdata/filter/main.wasm");
    let rows = run_json(&[
        &filter,
        "--arg",
        "preFilter",
        "--pod",
        &pod,
        "--nodes",
        &nodes,
    ]);
    assert_eq!(
        column(&rows, "filter"),
        ["Success", "UnschedulableAndUnresolvable"]
    );
    assert!(column(&rows, "reason")[1].contains("PreFilter"), "{rows:?}");
    // The table says which nodes PreFilter kept.
    let out = kguest(
        &[
            "run",
            &filter,
            "--arg",
            "preFilter",
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ],
        b"",
    );
    let table = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        table.contains("PreFilter: only nodes [good-node]"),
        "{table}"
    );
}

/// Score returns Error with a reason on node `bad-node`, 7 elsewhere.
fn failing_score_guest() -> String {
    let wasm = wat::parse_str(
        r#"(module
          (import "k8s.io/scheduler" "currentNodeName" (func $name (param i32 i32) (result i32)))
          (import "k8s.io/scheduler" "result.status_reason" (func $reason (param i32 i32)))
          (memory (export "memory") 1)
          (data (i32.const 100) "no room")
          (func (export "score") (result i64)
            (drop (call $name (i32.const 0) (i32.const 64)))
            (if (result i64) (i32.eq (i32.load8_u (i32.const 0)) (i32.const 98))
              (then (call $reason (i32.const 100) (i32.const 7)) (i64.const 1))
              (else (i64.const 30064771072)))))"#,
    )
    .expect("wat");
    temp("failing-score.wasm", &wasm)
}

#[test]
fn a_failed_score_is_shown() {
    let (pod, nodes) = small_objects();
    let plugin = failing_score_guest();
    let rows = run_json(&[&plugin, "--pod", &pod, "--nodes", &nodes]);
    assert_eq!(rows[0]["score"], 7);
    assert_eq!(rows[0]["score_status"], "Success");
    assert_eq!(rows[1]["score"], Value::Null);
    assert_eq!(rows[1]["score_status"], "Error");
    assert_eq!(rows[1]["score_reason"], "no room");
    let out = kguest(&["run", &plugin, "--pod", &pod, "--nodes", &nodes], b"");
    let table = String::from_utf8(out.stdout).expect("utf8");
    let bad = table
        .lines()
        .find(|l| l.starts_with("bad-node"))
        .expect("row");
    assert!(bad.ends_with("Error: no room"), "{table}");
    // Below the table, the error as the scheduler reports it, the file's
    // name standing for the plugin's.
    assert!(
        table.ends_with(
            "scheduler: running Score plugins: plugin \"failing-score\" failed with: no room\n"
        ),
        "{table}"
    );
}

#[test]
fn timing_names_the_hook_it_timed() {
    let (pod, nodes) = small_objects();
    let score_only = failing_score_guest();
    let with_filter = ksw("guest/testdata/filter/main.wasm");
    for (plugin, hook) in [(&score_only, "score"), (&with_filter, "filter")] {
        let out = kguest(
            &["run", plugin, "--pod", &pod, "--nodes", &nodes, "--timing"],
            b"",
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).expect("utf8");
        let line = stdout.lines().last().expect("timing line");
        assert!(
            line.starts_with(&format!("timing ({hook}): "))
                && line.contains("us per call in a fresh cycle")
                && line.contains("us per call on the next node"),
            "{line}"
        );
    }
}

#[test]
fn upstream_nodenumber_logs_and_records_events_on_stderr() {
    let out = kguest(
        &[
            "run",
            &ksw("examples/nodenumber/main.wasm"),
            "--pod",
            &data("pod.yaml"),
            "--nodes",
            &data("nodes.yaml"),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).expect("utf8");
    assert!(
        stderr.contains("[guest INFO] execute PreScore on NodeNumber plugin pod="),
        "{stderr}"
    );
    assert!(
        stderr.contains("[guest event] PreScore not match lastNumber Skip Pod "),
        "{stderr}"
    );
}

#[test]
fn run_help_prints_the_usage() {
    let out = kguest(&["run", "--help"], b"");
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        stdout
            .contains("\nUsage: kguest run [OPTIONS] --pod <FILE> --nodes <FILE> [PLUGIN.wasm]\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  kguest run --scheduler-config SCHED-CONFIG.yaml"),
        "{stdout}"
    );
    assert!(stdout.contains("--arg <VALUE>"), "{stdout}");
    assert!(stdout.contains("--guest-config <FILE>"), "{stdout}");
    assert!(stdout.contains("--sort-nodes"), "{stdout}");
    // The old spelling works but is not advertised.
    assert!(!stdout.contains("--config <FILE>"), "{stdout}");
}

#[test]
fn bad_guests_get_one_line_naming_the_plugin_and_the_cause() {
    let (pod, nodes) = small_objects();
    let exits_in_start = temp(
        "exits-in-start.wasm",
        &wat::parse_str(
            r#"(module
              (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
              (memory (export "memory") 1)
              (func (export "_start") (call $exit (i32.const 0)))
              (func (export "filter") (result i32) (i32.const 0)))"#,
        )
        .expect("wat"),
    );
    let cases = [
        (
            ksw("scheduler/test/testdata/error/panic_on_filter.wasm"),
            "wasm: filter error: panic! wasm trap: wasm `unreachable`",
        ),
        (
            ksw("scheduler/test/testdata/error/panic_on_start.wasm"),
            "panic_on_start.wasm: wasm: instantiate error: panic!\n",
        ),
        (exits_in_start, "proc_exit(0)"),
        (
            ksw("scheduler/test/testdata/error/prescore_without_score.wasm"),
            "filter, score, reserve, permit or bind must be exported",
        ),
        (
            ksw("scheduler/test/testdata/error/not_plugin.wasm"),
            "guest does not export any plugin functions",
        ),
    ];
    for (plugin, cause) in cases {
        let out = kguest(&["run", &plugin, "--pod", &pod, "--nodes", &nodes], b"");
        assert_fails(&out, 1, &format!("{plugin}: "));
        assert_fails(&out, 1, cause);
    }
}

#[test]
fn a_guest_url_names_the_plugin_as_ksw_guest_url_does() {
    let (pod, nodes) = small_objects();
    let url = format!("file://{}", ksw("guest/testdata/filter/main.wasm"));
    let rows = run_json(&[&url, "--arg", "filter", "--pod", &pod, "--nodes", &nodes]);
    assert_eq!(column(&rows, "filter"), ["Success", "Unschedulable"]);
    // Unreadable URLs: one clear line, exit code 1, no panic.
    for (url, says) in [
        ("file:///no/such/plugin.wasm", "open /no/such/plugin.wasm: "),
        (
            "https://127.0.0.1:1/p.wasm",
            "get \"https://127.0.0.1:1/p.wasm\": ",
        ),
        ("ldap://foo/bar.wasm", "unsupported URL scheme: ldap"),
        (
            "http://127.0.0.1:1/p.wasm",
            "get \"http://127.0.0.1:1/p.wasm\": ",
        ),
    ] {
        let out = kguest(&["run", url, "--pod", &pod, "--nodes", &nodes], b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{url}: {stderr}");
        assert!(stderr.contains(says), "{url}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// The pod of `pod.yaml` renamed `checkout-3` (nodenumber favours node-3).
fn pod_ending_in_3() -> String {
    let text = std::fs::read_to_string(data("pod.yaml"))
        .expect("pod")
        .replace(
            "  name: checkout-7d9f8b6c5d-x2k4q\n",
            "  name: checkout-3\n",
        );
    temp("pod-3.yaml", text.as_bytes())
}

fn file_url(name: &str) -> String {
    format!("file://{}", plugin(name).display())
}

/// A plugin without `filter` shows `not run` in the FILTER column, never
/// `Success` (JSON: `"filter": null`).
#[test]
fn a_plugin_without_filter_shows_not_run() {
    let pod = pod_ending_in_3();
    let nn = plugin("nodenumber");
    let out = kguest(
        &[
            "run",
            nn.to_str().expect("utf8"),
            "--pod",
            &pod,
            "--nodes",
            &data("nodes.yaml"),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    let rows: Vec<&str> = text.lines().skip(1).take(3).collect();
    assert!(
        rows.iter()
            .all(|r| r.contains("not run") && !r.contains("Success")),
        "{text}"
    );
    let rows = run_json(&[
        nn.to_str().expect("utf8"),
        "--pod",
        &pod,
        "--nodes",
        &data("nodes.yaml"),
    ]);
    assert!(rows.iter().all(|r| r["filter"].is_null()), "{rows:?}");
}

/// docs/deploy.md's KubeSchedulerConfiguration, word for word but for the
/// guestURLs, which point at the examples of the same file names.
#[test]
fn the_deploy_md_scheduler_configuration_runs_as_a_profile() {
    let doc = std::fs::read_to_string(workspace().join("docs/deploy.md")).expect("deploy.md");
    let block = doc
        .split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("kind: KubeSchedulerConfiguration"))
        .expect("a KubeSchedulerConfiguration block");
    let mut config = block.to_string();
    for name in ["nodenumber", "taints", "imagelocality", "fit"] {
        let url = format!("file:///etc/kubernetes/wasm/{name}.wasm");
        assert!(config.contains(&url), "{block}");
        config = config.replace(&url, &file_url(name));
    }
    let config = temp("sched-config.yaml", config.as_bytes());
    let pod = pod_ending_in_3();
    let nodes = data("nodes.yaml");
    let run = |profile: &str| {
        run_json(&[
            "--scheduler-config",
            &config,
            "--profile",
            profile,
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ])
    };
    // kguest-scheduler: nodenumber (weight 2), taints, imagelocality.
    let rows = run("kguest-scheduler");
    assert_eq!(rows.len(), 4, "{rows:?}");
    let names: Vec<&str> = rows[0]["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plugin"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["nodenumber", "taints", "imagelocality"]);
    // node-1 holds the pod's images (imagelocality alone scores it); node-2's
    // gpu taint is not tolerated; node-3 ends in the pod's digit: 10 x 2.
    let node1 = &rows[0]["plugins"];
    assert_eq!(node1[0]["weighted"], 0);
    assert!(node1[2]["weighted"].as_i64().unwrap() > 0, "{node1}");
    assert_eq!(rows[0]["total"], node1[2]["weighted"]);
    assert_eq!(
        rows[1]["plugins"][1]["filter"],
        "UnschedulableAndUnresolvable"
    );
    assert_eq!(rows[2]["plugins"][0]["weighted"], 20);
    assert_eq!(rows[2]["total"], 20);
    assert_eq!(rows[3]["chosen"], "node-3");
    assert_eq!(rows[3]["outcome"]["bound"], "node-3");
    // kguest-reverse: fit rejects node-3 (400m CPU); the reversed score
    // ties node-1 and node-2 at 10.
    let rows = run("kguest-reverse");
    assert_eq!(rows[2]["plugins"][0]["filter"], "Unschedulable");
    assert_eq!(rows[0]["total"], 10);
    assert_eq!(rows[1]["total"], 10);
    assert_eq!(rows[3]["chosen"], "node-1");
    assert_eq!(rows[3]["tied"], 2);
    // The table says the same, with the reason.
    let out = kguest(
        &[
            "run",
            "--scheduler-config",
            &config,
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.contains(
            "profile `kguest-scheduler`: nodenumber (weight 2), taints (weight 1), imagelocality (weight 1)"
        ),
        "{text}"
    );
    assert!(
        text.contains("chosen: node-3: highest total 20 (next: node-1 with"),
        "{text}"
    );
}

/// taints rejects node-2; nodenumber (no filter) and imagelocality score
/// the others only; the weights decide between node-1 (images) and
/// node-3 (nodenumber).
#[test]
fn a_profile_filters_with_every_plugin_before_scoring_and_weighs() {
    let pod = pod_ending_in_3();
    let config = |nn_weight: u32, il_weight: u32| {
        let text = format!(
            "apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: other
- schedulerName: kguest
  plugins:
    multiPoint:
      enabled:
      - name: taints
      - name: NodeResourcesFit
      - name: nodenumber
        weight: {nn_weight}
      - name: imagelocality
        weight: {il_weight}
  pluginConfig:
  - name: taints
    args: {{guestURL: \"{}\"}}
  - name: nodenumber
    args: {{guestURL: \"{}\", guestConfig: '{{\"reverse\": false}}'}}
  - name: imagelocality
    args: {{guestURL: \"{}\"}}
",
            file_url("taints"),
            file_url("nodenumber"),
            file_url("imagelocality")
        );
        temp(
            &format!("profile-{nn_weight}-{il_weight}.yaml"),
            text.as_bytes(),
        )
    };
    let run = |nn: u32, il: u32| {
        run_json(&[
            "--scheduler-config",
            &config(nn, il),
            "--profile",
            "kguest",
            "--pod",
            &pod,
            "--nodes",
            &data("nodes.yaml"),
        ])
    };
    let rows = run(100, 1);
    assert_eq!(rows.len(), 4, "{rows:?}");
    // node-2: rejected by taints, so nodenumber's and imagelocality's
    // Filter and Score never ran on it.
    assert_eq!(rows[1]["status"], "UnschedulableAndUnresolvable");
    for p in 0..3 {
        assert!(rows[1]["plugins"][p]["score"].is_null(), "{}", rows[1]);
    }
    assert!(rows[1]["total"].is_null());
    // nodenumber and imagelocality export no filter: not run, not Success.
    for row in &rows[..3] {
        assert!(row["plugins"][1]["filter"].is_null(), "{row}");
        assert!(row["plugins"][2]["filter"].is_null(), "{row}");
    }
    // Totals are the weighted sums.
    for row in [&rows[0], &rows[2]] {
        let sum: i64 = (0..3)
            .filter_map(|p| row["plugins"][p]["weighted"].as_i64())
            .sum();
        assert_eq!(row["total"].as_i64(), Some(sum), "{row}");
    }
    assert_eq!(rows[2]["plugins"][1]["weighted"], 1000);
    assert_eq!(rows[3]["chosen"], "node-3");
    // node-1 holds the pod's images (imagelocality > 0 there, 0 on node-3).
    let rows = run(1, 100);
    assert!(
        rows[0]["plugins"][2]["score"].as_i64() > Some(0),
        "{}",
        rows[0]
    );
    assert_eq!(rows[3]["chosen"], "node-1");
}

#[test]
fn a_scheduler_configuration_with_problems_is_one_clear_line() {
    let pod = pod_ending_in_3();
    let nodes = data("nodes.yaml");
    let missing = temp(
        "sched-missing.yaml",
        b"kind: KubeSchedulerConfiguration\nprofiles:\n- plugins: {multiPoint: {enabled: [{name: w}]}}\n  pluginConfig: [{name: w, args: {guestURL: 'file:///nonexistent/w.wasm'}}]\n",
    );
    let out = kguest(
        &[
            "run",
            "--scheduler-config",
            &missing,
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ],
        b"",
    );
    assert_fails(
        &out,
        1,
        "plugin `w`: wasm: error reading guestURL file:///nonexistent/w.wasm",
    );
    let none = temp(
        "sched-none.yaml",
        b"kind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: s\n",
    );
    let out = kguest(
        &[
            "run",
            "--scheduler-config",
            &none,
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ],
        b"",
    );
    assert_fails(
        &out,
        1,
        "profile `s` enables no wasm plugin under multiPoint",
    );
    let out = kguest(
        &[
            "run",
            "--scheduler-config",
            &none,
            "--profile",
            "x",
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ],
        b"",
    );
    assert_fails(&out, 1, "no profile with schedulerName `x` (profiles: s)");
    let nn = plugin("nodenumber");
    let out = kguest(
        &[
            "run",
            nn.to_str().expect("utf8"),
            "--scheduler-config",
            &none,
            "--pod",
            &pod,
            "--nodes",
            &nodes,
        ],
        b"",
    );
    assert_fails(&out, 2, "give no PLUGIN.wasm");
}

/// `--plugin` gives the same profile on the command line: the same rows as
/// the KubeSchedulerConfiguration form.
#[test]
fn plugins_on_the_command_line_are_the_same_profile() {
    let pod = pod_ending_in_3();
    let nodes = data("nodes.yaml");
    let config = temp("nn-reverse.json", br#"{"reverse": true}"#);
    let sched = temp(
        "sched-cli.yaml",
        format!(
            "kind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: taints\n      - {{name: nodenumber, weight: 3}}\n  pluginConfig:\n  - {{name: taints, args: {{guestURL: \"{}\"}}}}\n  - {{name: nodenumber, args: {{guestURL: \"{}\", guestConfig: '{{\"reverse\": true}}'}}}}\n",
            file_url("taints"),
            file_url("nodenumber")
        )
        .as_bytes(),
    );
    let from_config = run_json(&[
        "--scheduler-config",
        &sched,
        "--pod",
        &pod,
        "--nodes",
        &nodes,
    ]);
    let taints = format!("taints={}", plugin("taints").display());
    let nn = format!(
        "nodenumber={},weight=3,config={config}",
        plugin("nodenumber").display()
    );
    let from_flags = run_json(&[
        "--plugin", &taints, "--plugin", &nn, "--pod", &pod, "--nodes", &nodes,
    ]);
    assert_eq!(from_config, from_flags);
    // reversed nodenumber: node-1 scores 10 (weighted 30), node-2 is tainted.
    assert_eq!(from_flags[0]["total"], 30);
    assert_eq!(from_flags[3]["chosen"], "node-1");
    let out = kguest(
        &["run", "--plugin", "x", "--pod", &pod, "--nodes", &nodes],
        b"",
    );
    assert_fails(&out, 2, "expected NAME=PLUGIN.wasm");
}

/// `--fail-on`: the outcome as the exit status (3), after the usual output;
/// a profile's Filter error worded as kube-scheduler's framework words it.
#[test]
fn fail_on_makes_the_outcome_the_exit_status() {
    let requests: String = (1..=17)
        .map(|i| format!("example.com/r{i}: \"1\", "))
        .collect();
    let greedy = temp(
        "pod-greedy.yaml",
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: greedy, namespace: test, uid: u1}}\n\
             spec: {{containers: [{{name: c, image: nginx, resources: {{requests: {{{requests}}}}}}}]}}\n"
        )
        .as_bytes(),
    );
    let (bound_pod, nodes) = small_objects();
    let fit = format!("fit={}", plugin("fit").display());
    let profile = |pod: &str, extra: &[&str]| {
        let mut args = vec!["run", "--plugin", &fit, "--pod", pod, "--nodes", &nodes];
        args.extend_from_slice(extra);
        kguest(&args, b"")
    };
    // Without the flag: the decision, exit 0.
    let out = profile(&greedy, &[]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(r#"running "fit" filter plugin: pod requests too many resources"#),
        "{stdout}"
    );
    let out = profile(&greedy, &["--fail-on", "error"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#"the cycle failed at fit's filter: running "fit" filter plugin: "#),
        "{stderr}"
    );
    // A pod fit binds: 0 either way.
    for when in ["error", "unbound"] {
        let out = profile(&bound_pod, &["--fail-on", when]);
        assert!(out.status.success(), "{when}: {out:?}");
    }
    // nodename on a pod bound to a node not given: no node passes Filter,
    // which is no error.
    let lost = temp(
        "pod-lost.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: lost, namespace: test, uid: u2}\nspec: {nodeName: elsewhere}\n",
    );
    let nodename = plugin("nodename");
    let single = |when: &str| {
        kguest(
            &[
                "run",
                nodename.to_str().expect("utf8"),
                "--pod",
                &lost,
                "--nodes",
                &nodes,
                "--fail-on",
                when,
            ],
            b"",
        )
    };
    assert!(single("error").status.success());
    let out = single("unbound");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no node passed Filter"));
    let out = kguest(
        &[
            "run",
            "--plugin",
            &fit,
            "--pod",
            &greedy,
            "--nodes",
            &nodes,
            "--fail-on",
            "never",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
}

/// `--guest-config` is a guest config, `--scheduler-config` a
/// KubeSchedulerConfiguration; each refuses the other's file in one line,
/// and the old `--config` still reads either with a warning naming the new
/// flag.
#[test]
fn each_config_flag_means_one_thing() {
    let pod = pod_ending_in_3();
    let nodes = data("nodes.yaml");
    let nn = plugin("nodenumber");
    let nn = nn.to_str().expect("utf8");
    let guest = temp("flags-guest.json", br#"{"reverse": true}"#);
    let sched = temp(
        "flags-sched.yaml",
        format!(
            "kind: KubeSchedulerConfiguration\nprofiles:\n- plugins: {{multiPoint: {{enabled: [{{name: nn}}]}}}}\n  pluginConfig: [{{name: nn, args: {{guestURL: \"{}\"}}}}]\n",
            file_url("nodenumber")
        )
        .as_bytes(),
    );
    let base = ["--pod", pod.as_str(), "--nodes", nodes.as_str()];
    let with = |args: &[&str]| {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        all.extend_from_slice(&base);
        kguest(&all, b"")
    };
    assert_fails(
        &with(&[nn, "--guest-config", &sched]),
        2,
        "is a KubeSchedulerConfiguration: give it as --scheduler-config",
    );
    assert_fails(
        &with(&["--scheduler-config", &guest]),
        1,
        "flags-guest.json: not a KubeSchedulerConfiguration (for a guest config, use --guest-config)",
    );
    assert_fails(
        &with(&["--scheduler-config", &sched, "--guest-config", &guest]),
        2,
        "no --guest-config or --arg",
    );
    assert_fails(
        &with(&[nn, "--config", &guest, "--guest-config", &guest]),
        2,
        "give only the new flags",
    );

    // The old spelling: the same rows as the new flags, and a warning.
    let mut args = vec![nn, "--guest-config", &guest];
    args.extend_from_slice(&base);
    let new = run_json(&args);
    let old = with(&[nn, "--config", &guest, "--json"]);
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert!(old.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: --config is deprecated: ")
            && stderr.contains("was read as a guest config; write --guest-config "),
        "{stderr}"
    );
    let old_rows: Vec<Value> = String::from_utf8_lossy(&old.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(old_rows, new);
    let old = with(&["--config", &sched]);
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert!(old.status.success(), "{stderr}");
    assert!(
        stderr.contains("was read as a KubeSchedulerConfiguration; write --scheduler-config "),
        "{stderr}"
    );
}

/// Nodes are visited in the order the file gives them; `--sort-nodes`
/// visits them by name.
#[test]
fn nodes_run_in_the_order_given_or_sorted() {
    let text = std::fs::read_to_string(data("nodes.yaml")).expect("nodes");
    let (head, items) = text.split_once("items:\n").expect("a List");
    let mut nodes: Vec<String> = items
        .split("- apiVersion: v1\n")
        .filter(|n| !n.trim().is_empty())
        .map(|n| format!("- apiVersion: v1\n{n}"))
        .collect();
    assert_eq!(nodes.len(), 3);
    nodes.rotate_left(1); // node-2, node-3, node-1
    let shuffled = temp(
        "nodes-rotated.yaml",
        format!("{head}items:\n{}", nodes.concat()).as_bytes(),
    );
    let pod = data("pod.yaml");
    let nodename = plugin("nodename");
    let order = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            nodename.to_str().expect("utf8"),
            "--pod",
            pod.as_str(),
            "--nodes",
            shuffled.as_str(),
        ];
        args.extend_from_slice(extra);
        run_json(&args)
            .iter()
            .map(|r| r["node"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(order(&[]), ["node-2", "node-3", "node-1"]);
    assert_eq!(order(&["--sort-nodes"]), ["node-1", "node-2", "node-3"]);
}
