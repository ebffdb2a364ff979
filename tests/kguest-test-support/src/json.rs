//! JSON values compared as upstream's round-trip test compares decoded Go
//! objects: a member whose value is empty (`null`, `""`, `0`, `false`,
//! `[]`, `{}`) is the same as an absent one, because protobuf writes Go's
//! non-pointer zero values while JSON's `omitempty` drops them.

use serde_json::Value;

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

/// `null`, `""`, `0`, `false`, `[]` or `{}`.
pub fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

static NULL: Value = Value::Null;

/// The first path (`.spec.containers[0].name`, below `path`) where `a` and
/// `b` differ, with the two values there; a member one side lacks is
/// `null` on that side. Arrays of different lengths differ as a whole.
pub fn first_difference<'v>(
    path: &str,
    a: &'v Value,
    b: &'v Value,
) -> Option<(String, &'v Value, &'v Value)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.keys().chain(y.keys()).find_map(|key| {
            first_difference(
                &format!("{path}.{key}"),
                x.get(key).unwrap_or(&NULL),
                y.get(key).unwrap_or(&NULL),
            )
        }),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (a, b))| first_difference(&format!("{path}[{i}]"), a, b)),
        _ if a == b => None,
        _ => Some((path.to_string(), a, b)),
    }
}
