//! What `kguest run` reads: the cycle's objects, a KubeSchedulerConfiguration,
//! plugins; and where guest logs and events go.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use kguest_host::{Cycle, Event, LogRecord, SchedulerHandle, Snapshot, SnapshotNode};
use serde_json::Value;

use super::Options;
use crate::{Failure, read_input};
use kguest_json::FieldValidation;
use kguest_k8s_io::load::Loader;

/// The Pod and Nodes of `--pod` and `--nodes`, as one cycle.
pub(super) fn load_cycle(opts: &Options<'_>) -> Result<(Arc<[u8]>, Cycle), Failure> {
    let [pod_bytes] =
        <[Vec<u8>; 1]>::try_from(load_objects(opts.pod, "Pod")?).map_err(|found| {
            Failure::Input(format!(
                "{}: expected one Pod, found {}",
                opts.pod,
                found.len()
            ))
        })?;
    let node_bytes = load_objects(opts.nodes, "Node")?;
    let given = node_bytes.len();
    let mut nodes = node_bytes
        .into_iter()
        .map(|bytes| SnapshotNode::from_node(bytes.into()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| Failure::Input(format!("{}: {err}", opts.nodes)))?;
    // The order given is the order visited (rows, ties); `--sort-nodes`
    // makes it independent of how the file lists them.
    if opts.sort_nodes {
        nodes.sort_by(|a, b| a.name().cmp(b.name()));
    }
    let mut snapshot = Snapshot::new();
    for node in nodes {
        snapshot.insert(node);
    }
    if snapshot.len() != given {
        return Err(Failure::Input(format!(
            "{}: {} node(s) repeat another node's name (names are unique in a cluster)",
            opts.nodes,
            given - snapshot.len()
        )));
    }
    let pod_bytes: Arc<[u8]> = pod_bytes.into();
    let cycle = Cycle::new(pod_bytes.clone(), Arc::new(snapshot))
        .map_err(|err| Failure::Input(format!("{}: {err}", opts.pod)))?;
    Ok((pod_bytes, cycle))
}

/// `bytes` as a KubeSchedulerConfiguration, if it is one (YAML or JSON
/// with `kind: KubeSchedulerConfiguration`); `None` for a guest config.
pub(super) fn as_scheduler_config(name: &str, bytes: &[u8]) -> Result<Option<Value>, Failure> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(None);
    };
    let value: Option<Value> = serde_json::from_str(text)
        .ok()
        .or_else(|| serde_norway::from_str::<Value>(text).ok());
    match value {
        Some(v) if v.get("kind").and_then(Value::as_str) == Some("KubeSchedulerConfiguration") => {
            Ok(Some(v))
        }
        Some(v)
            if v.get("apiVersion")
                .and_then(Value::as_str)
                .is_some_and(|a| a.starts_with("kubescheduler.config.k8s.io/")) =>
        {
            Err(Failure::Input(format!(
                "{name}: a kubescheduler.config.k8s.io object that is not a KubeSchedulerConfiguration"
            )))
        }
        _ => Ok(None),
    }
}

/// A plugin's bytes: a guest URL as KSW's `guestURL` names one, or a path.
pub(super) fn read_wasm(wasm: &str) -> Result<Vec<u8>, Failure> {
    let bytes = if wasm.contains("://") {
        kguest_host::guest_url::fetch(wasm)
            .map_err(|err| Failure::Input(format!("{wasm}: {err}")))?
    } else {
        read_input(Some(wasm))?.1
    };
    if !bytes.starts_with(b"\0asm") {
        return Err(Failure::Input(format!(
            "{wasm}: not a WebAssembly module (no `\\0asm` header)"
        )));
    }
    Ok(bytes)
}

/// FILE's objects of `kind`, encoded to protobuf. The one place that turns
/// YAML/JSON files into objects.
fn load_objects(path: &str, kind: &str) -> Result<Vec<Vec<u8>>, Failure> {
    let (name, bytes) = read_input(Some(path))?;
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::Input(format!("{name}: not UTF-8 text")))?;
    let mut wanted = Vec::new();
    // Objects of other kinds are skipped, so one `kubectl get pod,node -o
    // yaml` List can be both --pod and --nodes; they are named if nothing
    // of `kind` is found.
    let mut others: Vec<String> = Vec::new();
    // A cluster one release ahead must not stop a run: unknown fields are
    // dropped, each named on stderr.
    for object in Loader::new(&name, &text).field_validation(FieldValidation::Warn) {
        let object = object.map_err(|err| Failure::Input(err.to_string()))?;
        for warning in &object.warnings {
            eprintln!("warning: {}: {warning}", object.origin);
        }
        if object.kind == kind {
            wanted.push(object.raw);
        } else if !others.contains(&object.kind) {
            others.push(object.kind);
        }
    }
    if wanted.is_empty() {
        let found = if others.is_empty() {
            "no objects".to_string()
        } else {
            format!("only {}", others.join(", "))
        };
        return Err(Failure::Input(format!(
            "{name}: no {kind} in the input ({found})"
        )));
    }
    Ok(wanted)
}

/// Prints guest klog lines and events on stderr (unless quiet).
#[derive(Default)]
pub(super) struct CliHandle {
    pub(super) quiet: AtomicBool,
}

impl SchedulerHandle for CliHandle {
    fn log(&self, record: &LogRecord<'_>) {
        if !self.quiet.load(Ordering::Relaxed) {
            eprintln!("[guest {}] {}", record.severity_name(), record.to_line());
        }
    }

    fn event(&self, event_json: &[u8]) {
        if self.quiet.load(Ordering::Relaxed) {
            return;
        }
        match Event::from_json(event_json) {
            Ok(event) => eprintln!("[guest event] {event}"),
            Err(_) => eprintln!(
                "[guest event] (not KSW's EventMessage) {}",
                String::from_utf8_lossy(event_json)
            ),
        }
    }
}
