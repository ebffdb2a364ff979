//! Every upstream fixture's `.pb`, decoded through the views and written as
//! JSON, equals the fixture's `.json`.
//!
//! Equality is semantic, as upstream's round-trip test compares decoded Go
//! objects: a member whose value is empty (`null`, `""`, `0`, `false`, `[]`,
//! `{}`) is the same as an absent one, because protobuf writes Go's
//! non-pointer zero values while JSON's `omitempty` drops them.

use kguest_k8s::envelope;
use kguest_k8s_io::json::object_to_json;
use serde_json::Value;

use crate::fixtures;

/// Drops empty members recursively; keeps array positions.
pub fn without_empty(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), without_empty(v)))
                .filter(|(_, v)| !is_empty(v))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_empty).collect()),
        other => other.clone(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// The first path where two JSON values differ, for a readable failure.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                let (va, vb) = (
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                );
                if let Some(diff) = first_difference(&format!("{path}.{key}"), va, vb) {
                    return Some(diff);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}[{i}]"), va, vb)),
        _ if a == b => None,
        _ => Some(format!("{path}: views give {a}, fixture has {b}")),
    }
}

#[test]
fn every_fixture_decodes_to_its_json() {
    fixtures::check_every(
        "views -> JSON conformance",
        "equal their upstream .json",
        |fixture| {
            let env = envelope::unwrap(&fixture.pb).map_err(|e| e.as_str().to_string())?;
            let ours = object_to_json(env.api_version, env.kind, fixture.schema(), env.raw)
                .map_err(|e| e.to_string())?;
            let (ours, theirs) = (without_empty(&ours), without_empty(&fixture.json));
            match first_difference("", &ours, &theirs) {
                None => Ok(()),
                Some(diff) => Err(diff),
            }
        },
    );
}
