//! `kguest run`: one scheduling cycle of a plugin over a Pod and some Nodes,
//! in the order kube-scheduler calls the hooks: PreFilter, Filter on every
//! candidate node, then PreScore and Score on the feasible ones.

use std::collections::BTreeMap;
use std::sync::Arc;

use kguest_host::{
    Code, Cycle, Hook, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot, SnapshotNode, Status,
};
use kguest_k8s::api::core::v1::Node;
use kguest_k8s::json::object_from_json;
use serde_json::{Value, json};

use crate::objects::{self, Document};
use crate::{Failure, read_input};

pub const USAGE: &str = "\
usage: kguest run PLUGIN.wasm --pod POD --nodes NODES [--config FILE] [--json] [--timing]

One scheduling cycle of a kube-scheduler-wasm-extension plugin through the
wasmtime host, in kube-scheduler's order: PreFilter, Filter on every node,
then PreScore and Score on the feasible ones. POD and NODES are JSON or YAML
files (one object, a multi-document stream or a List). --config passes the
file's bytes as the plugin's guestConfig; --json prints one JSON object per
node; --timing adds the mean time of one Filter call.
";

/// One node's outcome.
pub struct Decision {
    pub node: String,
    pub filter: Status,
    pub score: Option<i32>,
}

pub fn run(args: &[String]) -> Result<(), Failure> {
    let mut wasm = None;
    let mut pod = None;
    let mut nodes = None;
    let mut config = None;
    let mut as_json = false;
    let mut timing = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .map(String::as_str)
                .ok_or_else(|| Failure::Usage(format!("{flag} needs a file")))
        };
        match arg.as_str() {
            "--pod" => pod = Some(value("--pod")?),
            "--nodes" => nodes = Some(value("--nodes")?),
            "--config" => config = Some(value("--config")?),
            "--json" => as_json = true,
            "--timing" => timing = true,
            flag if flag.starts_with('-') => {
                return Err(Failure::Usage(format!("run: unknown option `{flag}`")));
            }
            path => {
                if wasm.replace(path).is_some() {
                    return Err(Failure::Usage("run takes one plugin file".into()));
                }
            }
        }
    }
    let wasm = wasm.ok_or_else(|| Failure::Usage("run: missing PLUGIN.wasm".into()))?;
    let pod = pod.ok_or_else(|| Failure::Usage("run: missing --pod FILE".into()))?;
    let nodes = nodes.ok_or_else(|| Failure::Usage("run: missing --nodes FILE".into()))?;

    let (_, wasm_bytes) = read_input(Some(wasm))?;
    if !wasm_bytes.starts_with(b"\0asm") {
        return Err(Failure::Input(format!(
            "{wasm}: not a WebAssembly module (no `\\0asm` header)"
        )));
    }
    let guest_config = match config {
        Some(path) => read_input(Some(path))?.1,
        None => Vec::new(),
    };
    let pod_bytes = encode_objects(pod, "Pod")?;
    let [pod_bytes] = <[Vec<u8>; 1]>::try_from(pod_bytes).map_err(|found| {
        Failure::Input(format!("{pod}: expected one Pod, found {}", found.len()))
    })?;
    let node_bytes = encode_objects(nodes, "Node")?;

    let runtime = Runtime::new(RuntimeConfig::default())
        .map_err(|err| Failure::Input(format!("starting wasmtime: {err}")))?;
    let plugin_config = PluginConfig {
        guest_config: guest_config.into(),
        ..PluginConfig::default()
    };
    let plugin = Plugin::load(&runtime, &wasm_bytes, plugin_config)
        .map_err(|err| Failure::Input(format!("{wasm}: {}", one_line(&err.to_string()))))?;

    let cycle = build_cycle(pod_bytes, node_bytes);
    let decisions = schedule(&plugin, &cycle)
        .map_err(|err| Failure::Input(format!("{wasm}: {}", one_line(&err.to_string()))))?;
    let mut out = if as_json {
        json_lines(&decisions)
    } else {
        table(&decisions)
    };
    if timing {
        let per_call = time_filter(&plugin, &cycle, &decisions)
            .map_err(|err| Failure::Input(format!("{wasm}: {}", one_line(&err.to_string()))))?;
        out.push_str(&format!(
            "filter: {:.2} us per call (one reused instance)\n",
            per_call * 1e6
        ));
    }
    crate::write_stdout(out.as_bytes())
}

/// Error text from wasmtime can span lines; the CLI reports one.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads FILE's objects, checks their kind, encodes them to protobuf.
fn encode_objects(path: &str, kind: &str) -> Result<Vec<Vec<u8>>, Failure> {
    let (name, bytes) = read_input(Some(path))?;
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::Input(format!("{name}: not UTF-8 text")))?;
    let documents: Vec<Document> = objects::parse(&name, &text).map_err(Failure::Input)?;
    documents
        .iter()
        .map(|doc| {
            let found = doc.json.get("kind").and_then(Value::as_str).unwrap_or("");
            if found != kind {
                return Err(Failure::Input(format!(
                    "{}: expected a {kind}, found `{found}`",
                    doc.origin
                )));
            }
            object_from_json(&doc.json)
                .map(|o| o.raw)
                .map_err(|err| Failure::Input(format!("{}: {err}", doc.origin)))
        })
        .collect()
}

/// Image states as KSW serves them (`nodeImageStates`): image name → size
/// and the number of nodes that have it.
fn image_states(nodes: &[Vec<u8>]) -> Vec<Arc<[u8]>> {
    let mut spread: BTreeMap<String, u64> = BTreeMap::new();
    let images = |raw: &Vec<u8>| -> Vec<(String, i64)> {
        let node = Node::from_bytes(raw);
        let Some(status) = node.status() else {
            return Vec::new();
        };
        status
            .images()
            .flat_map(|image| {
                let size = image.size_bytes().unwrap_or(0);
                image
                    .names()
                    .map(move |name| (name.to_string(), size))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    for raw in nodes {
        for (name, _) in images(raw) {
            *spread.entry(name).or_default() += 1;
        }
    }
    nodes
        .iter()
        .map(|raw| {
            let states: serde_json::Map<String, Value> = images(raw)
                .into_iter()
                .map(|(name, size)| {
                    let count = spread.get(&name).copied().unwrap_or(1);
                    (name, json!({ "Size": size, "NumNodes": count }))
                })
                .collect();
            if states.is_empty() {
                Arc::from(&[][..])
            } else {
                Arc::from(Value::Object(states).to_string().into_bytes())
            }
        })
        .collect()
}

/// The cycle's inputs: the Pod and a snapshot of the Nodes.
pub fn build_cycle(pod: Vec<u8>, nodes: Vec<Vec<u8>>) -> Cycle {
    let states = image_states(&nodes);
    let mut snapshot = Snapshot::new();
    for (raw, image_states) in nodes.into_iter().zip(states) {
        let view = Node::from_bytes(&raw);
        let meta = view.metadata();
        let name = meta.and_then(|m| m.name()).unwrap_or("").to_string();
        let resource_version = meta
            .and_then(|m| m.resource_version())
            .unwrap_or("")
            .to_string();
        snapshot.insert(SnapshotNode {
            name: name.into(),
            resource_version: resource_version.into(),
            node: raw.into(),
            image_states,
        });
    }
    Cycle::new(pod.into(), Arc::new(snapshot))
}

/// One scheduling cycle, as kube-scheduler orders the hooks.
pub fn schedule(plugin: &Plugin, cycle: &Cycle) -> Result<Vec<Decision>, kguest_host::CallError> {
    let snapshot = cycle.snapshot();
    let hooks = plugin.hooks();

    let prefilter = plugin.prefilter(cycle)?;
    let allowed = prefilter.node_names.as_ref();
    let mut decisions = Vec::new();
    for node in snapshot.nodes() {
        let name = node.name.to_string();
        let filter = if !prefilter.status.is_success() {
            prefilter.status.clone()
        } else if allowed.is_some_and(|names| !names.contains(&name)) {
            Status {
                code: Code::UNSCHEDULABLE_AND_UNRESOLVABLE,
                reason: Some("excluded by PreFilter".into()),
            }
        } else if hooks.contains(Hook::Filter) {
            plugin.filter(cycle, &name)?
        } else {
            Status::success()
        };
        decisions.push(Decision {
            node: name,
            filter,
            score: None,
        });
    }
    if hooks.contains(Hook::Score) {
        let feasible: Vec<&str> = decisions
            .iter()
            .filter(|d| d.filter.is_success())
            .map(|d| d.node.as_str())
            .collect();
        let prescore_ok = if hooks.contains(Hook::PreScore) {
            let list: Arc<[u8]> = Arc::from(serde_json::to_vec(&feasible).unwrap_or_default());
            plugin.prescore(cycle, list)?.is_success()
        } else {
            true
        };
        if prescore_ok {
            for decision in decisions.iter_mut().filter(|d| d.filter.is_success()) {
                let (score, status) = plugin.score(cycle, &decision.node)?;
                decision.score = status.is_success().then_some(score);
            }
        }
    }
    Ok(decisions)
}

/// The mean wall time of one Filter call, over a few thousand calls spread
/// over the nodes, after a warm-up (the Pod is fetched once per cycle, as in
/// the scheduler).
fn time_filter(
    plugin: &Plugin,
    cycle: &Cycle,
    decisions: &[Decision],
) -> Result<f64, kguest_host::CallError> {
    if !plugin.hooks().contains(Hook::Filter) || decisions.is_empty() {
        return Ok(0.0);
    }
    const CALLS: usize = 20_000;
    for d in decisions.iter().cycle().take(1_000) {
        plugin.filter(cycle, &d.node)?;
    }
    let start = std::time::Instant::now();
    for d in decisions.iter().cycle().take(CALLS) {
        plugin.filter(cycle, &d.node)?;
    }
    Ok(start.elapsed().as_secs_f64() / CALLS as f64)
}

/// kube-scheduler's name for a status code (`Code(42)` for unknown ones).
pub fn status_name(code: Code) -> String {
    code.name()
        .map_or_else(|| format!("Code({})", code.0), str::to_string)
}

fn json_lines(decisions: &[Decision]) -> String {
    decisions
        .iter()
        .map(|d| {
            json!({
                "node": d.node,
                "filter": status_name(d.filter.code),
                "reason": d.filter.reason.clone().unwrap_or_default(),
                "score": d.score,
            })
            .to_string()
                + "\n"
        })
        .collect()
}

fn table(decisions: &[Decision]) -> String {
    let rows: Vec<[String; 4]> = decisions
        .iter()
        .map(|d| {
            [
                d.node.clone(),
                status_name(d.filter.code),
                d.filter.reason.clone().unwrap_or_default(),
                d.score.map_or_else(|| "-".into(), |s| s.to_string()),
            ]
        })
        .collect();
    let header = [
        "NODE".to_string(),
        "FILTER".into(),
        "REASON".into(),
        "SCORE".into(),
    ];
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 4]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == 3 {
                out.push_str(&format!("{cell:>w$}"));
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    std::iter::once(&header).chain(&rows).map(line).collect()
}
