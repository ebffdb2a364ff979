//! kguest's `nodenumber` against upstream's TinyGo build of the same
//! example: identical scores and events over pods × node sets × configs.

use kguest_host::{ActionType, ClusterEvent, Code, Cycle, EventResource, Plugin};
use serde_json::{Value, json};

use crate::util::{self, Recorder};

fn pod(name: Option<&str>, namespace: &str) -> Value {
    let mut meta = json!({"namespace": namespace, "uid": "uid-1", "resourceVersion": "42"});
    if let Some(n) = name {
        meta["name"] = json!(n);
    }
    json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}
    })
}

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
}

/// What a plugin decided in one cycle: PreScore's code, each node's score
/// and code, the events it recorded.
#[derive(Debug, PartialEq)]
struct Decision {
    prescore: Option<Code>,
    scores: Vec<(String, i32, Code)>,
    events: Vec<String>,
}

/// One scheduling cycle: (PreScore if asked), then Score on every node.
fn decide(
    plugin: &Plugin,
    recorder: &Recorder,
    cycle: &Cycle,
    nodes: &[&str],
    prescore: bool,
) -> Decision {
    recorder.take();
    let prescore = prescore.then(|| plugin.prescore(cycle, nodes).expect("prescore").code);
    let scores = nodes
        .iter()
        .map(|n| {
            let (score, status) = plugin.score(cycle, n).expect("score");
            (n.to_string(), score, status.code)
        })
        .collect();
    Decision {
        prescore,
        scores,
        events: recorder.take().0,
    }
}

/// Each config costs a compilation of upstream's 1 MB guest (slow in a
/// debug build), so the list is short: no config, the documented one, and
/// two that exercise Go's decoding (case-insensitive keys, `null`, other
/// keys ignored).
const CONFIGS: &[Option<&str>] = &[
    None,
    Some(r#"{"reverse": true}"#),
    Some(r#"{"REVERSE": true, "reverse": null}"#),
    Some(r#" {"other": [1, {"a": "b"}], "Reverse": false} "#),
];

const PODS: &[(Option<&str>, &str)] = &[
    (Some("pod1"), "default"),
    (Some("pod"), "default"),
    (Some("web-7"), "prod"),
    (Some("x0"), ""),
    (Some("p<&>\"\\\u{8}\u{c}\n\u{1}\u{2028}é9"), "odd ns"),
    (Some(""), "default"),
    (None, "default"),
];

const NODE_SETS: &[&[&str]] = &[
    &["node1", "node2", "node11", "node", "n7", "x0", "node-9"],
    &["only"],
    &["a1", "b1"],
];

#[test]
fn nodenumber_decides_as_upstreams_tinygo_build() {
    let runtime = util::runtime();
    let ours = util::example("nodenumber");
    let theirs = util::ksw("examples/nodenumber/main.wasm");
    let mut cases = 0;
    for config in CONFIGS {
        let (a, a_rec) = util::load(&runtime, &ours, *config).expect("kguest nodenumber");
        let (b, b_rec) = util::load(&runtime, &theirs, *config).expect("upstream nodenumber");
        // Both register Node/Add.
        let node_add = vec![ClusterEvent {
            resource: EventResource::NODE,
            action: ActionType::ADD,
        }];
        assert_eq!(a.events_to_register().unwrap(), node_add);
        assert_eq!(b.events_to_register().unwrap(), node_add);
        // Both log that a config was applied, when there is one (upstream
        // while loading, kguest on its first call).
        let first = util::cycle(&pod(Some("p"), "d"), &[node("n1")]);
        a.score(&first, "n1").unwrap();
        for rec in [&a_rec, &b_rec] {
            let logs = rec.take().1;
            let applied = logs
                .iter()
                .any(|(sev, msg, _)| *sev == 0 && msg == "NodeNumberArgs is successfully applied");
            assert_eq!(applied, config.is_some(), "config {config:?}: {logs:?}");
        }
        for nodes in NODE_SETS {
            let node_values: Vec<Value> = nodes.iter().map(|n| node(n)).collect();
            for (name, ns) in PODS {
                for prescore in [true, false] {
                    let p = pod(*name, ns);
                    let cycle_a = util::cycle(&p, &node_values);
                    let cycle_b = util::cycle(&p, &node_values);
                    let got = decide(&a, &a_rec, &cycle_a, nodes, prescore);
                    let want = decide(&b, &b_rec, &cycle_b, nodes, prescore);
                    assert_eq!(
                        got, want,
                        "config {config:?}, pod {name:?} in {ns:?}, nodes {nodes:?}, prescore {prescore}"
                    );
                    cases += 1;
                }
            }
        }
    }
    eprintln!("nodenumber: {cases} cycles identical to upstream's TinyGo build");
}

/// A config Go's decoder refuses: upstream's guest panics while loading,
/// kguest's refuses in `_start` (`kguest::Load`); each host error carries
/// the guest's reason on its first line.
#[test]
fn refused_configs_are_refused_by_both() {
    let runtime = util::runtime();
    let theirs = util::ksw("examples/nodenumber/main.wasm");
    for (i, config) in [
        r#"{"reverse": "yes"}"#,
        "not json",
        r#"{"reverse": 1}"#,
        "[]",
        r#"{reverse: true}"#,
    ]
    .into_iter()
    .enumerate()
    {
        // Two of them through upstream (each load compiles its 1 MB guest).
        if i < 2 {
            let err = util::load(&runtime, &theirs, Some(config))
                .err()
                .unwrap_or_else(|| panic!("upstream loaded with {config}"));
            assert!(err.contains("NodeNumberArgs"), "{config}: {err}");
        }
        let err = util::load(&runtime, &util::example("nodenumber"), Some(config))
            .err()
            .unwrap_or_else(|| panic!("kguest's nodenumber loaded with {config}"));
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("wasm: instantiate error: decode arg into NodeNumberArgs: "),
            "{config}: {err}"
        );
    }
}
