//! Reading Kubernetes objects from JSON or YAML files into `serde_json`
//! values, for `kguest run` (`encode` uses `kguest_k8s::load`, which
//! encodes straight from the text).

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
