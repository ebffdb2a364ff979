//! Reading Kubernetes objects from JSON or YAML files: one object, a
//! multi-document YAML stream, or a `List` whose items are the objects.

use serde::Deserialize;
use serde_json::Value;

/// One object and where it came from, for error messages.
pub struct Document {
    /// `FILE` or `FILE, document 2` or `FILE, item 3`.
    pub origin: String,
    pub json: Value,
}

/// Parses `text` (JSON is YAML too) into its objects; `List`s are expanded.
pub fn parse(name: &str, text: &str) -> Result<Vec<Document>, String> {
    let mut values = Vec::new();
    for (i, doc) in serde_norway::Deserializer::from_str(text).enumerate() {
        let value = Value::deserialize(doc).map_err(|err| {
            let err = err.to_string();
            format!(
                "{name}: document {}: invalid YAML/JSON: {}",
                i + 1,
                err.lines().next().unwrap_or("")
            )
        })?;
        if !value.is_null() {
            values.push(value);
        }
    }
    let count = values.len();
    let mut out = Vec::new();
    for (i, value) in values.into_iter().enumerate() {
        let origin = if count == 1 {
            name.to_string()
        } else {
            format!("{name}, document {}", i + 1)
        };
        expand(origin, value, &mut out)?;
    }
    if out.is_empty() {
        return Err(format!("{name}: no objects in the input"));
    }
    Ok(out)
}

/// A `List` (or `*List` with `items` of typed objects) becomes its items.
fn expand(origin: String, value: Value, out: &mut Vec<Document>) -> Result<(), String> {
    if !value.is_object() {
        return Err(format!(
            "{origin}: expected an object, found {}",
            kind_of(&value)
        ));
    }
    let is_list = value.get("kind").and_then(Value::as_str) == Some("List");
    if !is_list {
        out.push(Document {
            origin,
            json: value,
        });
        return Ok(());
    }
    let Some(Value::Array(items)) = value.get("items") else {
        return Err(format!("{origin}: a List without `items`"));
    };
    for (i, item) in items.iter().enumerate() {
        expand(format!("{origin}, item {}", i + 1), item.clone(), out)?;
    }
    Ok(())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Kubernetes' protobuf stream framing: each object preceded by its length
/// as 4 big-endian bytes (what watch streams use).
pub fn frame(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for object in objects {
        out.extend_from_slice(&(object.len() as u32).to_be_bytes());
        out.extend_from_slice(object);
    }
    out
}

/// Splits a framed stream; `None` when `bytes` is not one.
pub fn unframe(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut rest = bytes;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_be_bytes(*len) as usize;
        let (object, tail) = tail.split_at_checked(len)?;
        if !object.starts_with(b"k8s\0") {
            return None;
        }
        out.push(object);
        rest = tail;
    }
    (!out.is_empty()).then_some(out)
}
