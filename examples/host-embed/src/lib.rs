//! A host embedding kguest-host, in the fewest lines that do the job:
//! load a plugin, build the cluster snapshot from Node objects, schedule a
//! Pod through every hook in kube-scheduler's order, print the decisions.
//!
//! Objects come as files holding either what the API server sends in
//! protobuf (`k8s\0` + runtime.Unknown, e.g. from `kguest encode`), which
//! kguest-host unwraps without a copy, or one Kubernetes JSON object, which
//! is encoded to the same bytes the API server writes.

use std::error::Error;
use std::fmt::Write as _;
use std::sync::Arc;

use kguest_host::{
    Cycle, Event, LogRecord, Plugin, PluginConfig, Runtime, RuntimeConfig, SchedulerHandle, Score,
    Snapshot,
};

/// Prints what the guest logs and records.
struct PrintingHandle;

impl SchedulerHandle for PrintingHandle {
    fn log(&self, record: &LogRecord<'_>) {
        eprintln!("guest {}: {}", record.severity_name(), record.to_line());
    }

    fn event(&self, json: &[u8]) {
        match Event::from_json(json) {
            Ok(event) => eprintln!("guest event: {event}"),
            Err(err) => eprintln!("guest event: {err}"),
        }
    }
}

/// Protobuf bytes of the object in `file`: kept as they are when they are
/// the API server's envelope, else `file` is read as one JSON object.
pub fn object_bytes(file: &[u8]) -> Result<Vec<u8>, Box<dyn Error>> {
    if kguest_k8s::envelope::has_magic(file) {
        return Ok(file.to_vec());
    }
    let json: serde_json::Value = serde_json::from_slice(file)?;
    Ok(kguest_k8s_io::json::object_from_json(&json)?.raw)
}

/// Schedules `pod` over `nodes` with the plugin `wasm`; returns one line
/// per node: `<node> <filter code> <score or ->`.
pub fn schedule(wasm: &[u8], pod: &[u8], nodes: &[Vec<u8>]) -> Result<String, Box<dyn Error>> {
    // Once per process: the engine, its instance pool and the host functions.
    let runtime = Runtime::new(RuntimeConfig::default())?;
    // Once per plugin: compile, validate against the ABI, start an instance.
    let config = PluginConfig {
        handle: Arc::new(PrintingHandle),
        ..PluginConfig::default()
    };
    let plugin = Plugin::load(&runtime, wasm, config)?;

    // Per scheduling cycle: the nodes (image states computed as the
    // scheduler's cache does) and the pod. Enveloped bytes are unwrapped;
    // an envelope of the wrong kind is an error, never an empty object.
    let snapshot = Snapshot::from_nodes(
        nodes
            .iter()
            .map(|n| object_bytes(n))
            .collect::<Result<Vec<_>, _>>()?,
    )?;
    let cycle = Cycle::new(object_bytes(pod)?.into(), Arc::new(snapshot))?;

    let report = plugin.schedule(&cycle)?;
    let mut out = String::new();
    for node in &report.nodes {
        let score = match &node.score {
            Score::Value(v) => v.to_string(),
            Score::Failed(status) => format!("failed: {:?}", status.reason),
            Score::NotRun => "-".to_string(),
        };
        writeln!(out, "{} {} {score}", node.node, node.filter.code)?;
    }
    Ok(out)
}
