//! `kguest-extender predict`: what the extender would answer for a Pod and
//! Nodes, printed as JSON: filter's verdicts, prioritize's 0–10 priorities
//! over the nodes that passed, and the node kube-scheduler would pick if
//! the extender's priorities were the only scores (the highest; ties go to
//! the first in `--nodes` order, where kube-scheduler picks at random).

use kguest_json::FieldValidation;
use kguest_k8s_io::load::Loader;
use serde_json::{Value, json};

use crate::decide;
use kguest_host::{Cycle, Profile, Snapshot};
use std::sync::Arc;

/// Protobuf objects of `kind` in the YAML/JSON file `path`.
pub fn load_objects(path: &str, kind: &str) -> Result<Vec<Vec<u8>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    for object in Loader::new(path, &text).field_validation(FieldValidation::Warn) {
        let object = object.map_err(|e| e.to_string())?;
        for w in &object.warnings {
            eprintln!("warning: {}: {w}", object.origin);
        }
        if object.kind == kind {
            out.push(object.raw);
        }
    }
    if out.is_empty() {
        return Err(format!("{path}: no {kind}"));
    }
    Ok(out)
}

/// The prediction for `pod` (protobuf) over `nodes` (protobuf, in order).
pub fn predict(profile: &Profile, pod: Vec<u8>, nodes: Vec<Vec<u8>>) -> Result<Value, String> {
    let snapshot = Arc::new(Snapshot::from_nodes(nodes).map_err(|e| e.to_string())?);
    let names: Vec<String> = snapshot
        .nodes()
        .iter()
        .map(|n| n.name().to_string())
        .collect();
    let cycle = Cycle::new(pod.clone().into(), snapshot.clone()).map_err(|e| e.to_string())?;
    let (filtered, fcalls) = decide::filter(profile, &cycle, &names);
    // A fresh cycle, as a prioritize request is.
    let cycle = Cycle::new(pod.into(), snapshot).map_err(|e| e.to_string())?;
    let (priorities, pcalls) = decide::prioritize(profile, &cycle, &filtered.passed);
    let chosen = priorities
        .priorities
        .iter()
        .fold(None::<&(String, i64)>, |best, p| match best {
            Some(b) if b.1 >= p.1 => Some(b),
            _ => Some(p),
        })
        .map(|(n, _)| n.clone());
    let errors: Vec<&String> = fcalls.errors.iter().chain(&pcalls.errors).collect();
    Ok(json!({
        "filter": {
            "passed": filtered.passed,
            "failedNodes": filtered.failed,
            "failedAndUnresolvableNodes": filtered.unresolvable,
        },
        "prioritize": priorities.priorities.iter().map(|(n, s)| json!({"Host": n, "Score": s})).collect::<Vec<_>>(),
        "totals": priorities.totals.iter().map(|(n, t)| json!({"node": n, "total": t})).collect::<Vec<_>>(),
        "weightSum": priorities.weight_sum,
        "chosen": chosen,
        "pluginErrors": errors,
    }))
}
