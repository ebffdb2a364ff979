//! Protobuf → JSON.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map as JsonMap, Number, Value as Json};

use super::JsonError;
use crate::rt;
use crate::schema::{self, FieldSchema, JsonForm, Kind, Label, MessageSchema};
use crate::timefmt;
use crate::wire::{Value, next_field, read_fixed32, read_fixed64, read_varint, zigzag32, zigzag64};

fn last_value(bytes: &[u8], number: u32) -> Option<Value<'_>> {
    rt::last(bytes, number).and_then(|raw| raw.value())
}

/// Writes the message `bytes` of type `schema` as a JSON value.
pub fn to_json(schema: &MessageSchema, bytes: &[u8]) -> Result<Json, JsonError> {
    schema::validate(schema, bytes)?;
    let mut path = Vec::new();
    message(schema, bytes, &mut path)
}

type Path = Vec<&'static str>;

fn unrepresentable(path: &Path, reason: impl ToString) -> JsonError {
    JsonError::Unrepresentable {
        path: super::path_string(path),
        reason: reason.to_string(),
    }
}

fn message(schema: &MessageSchema, bytes: &[u8], path: &mut Path) -> Result<Json, JsonError> {
    let varint_field = |n| match last_value(bytes, n) {
        Some(Value::Varint(v)) => v,
        _ => 0,
    };
    let json = match schema.json {
        JsonForm::Object => {
            let mut object = JsonMap::new();
            for field in schema.fields {
                path.push(field.json_name());
                let value = field_value(field, bytes, path)?;
                path.pop();
                match value {
                    // An embedded Go struct: its members join this object.
                    Some(Json::Object(members)) if field.inline => object.extend(members),
                    Some(value) => {
                        object.insert(field.json_name().to_string(), value);
                    }
                    None => {}
                }
            }
            Json::Object(object)
        }
        JsonForm::Timestamp { frac_digits } => {
            let seconds = varint_field(1) as i64;
            let nanos = varint_field(2) as i32;
            // Go writes its zero time as an empty message; older writers used
            // the zero time's Unix seconds.
            if bytes.is_empty() || (seconds == timefmt::MIN_SECONDS && nanos == 0) {
                return Ok(Json::Null);
            }
            let mut buf = [0u8; 40];
            match timefmt::format_rfc3339(seconds, nanos, frac_digits, &mut buf) {
                Some(text) => Json::String(text.to_string()),
                None => return Err(unrepresentable(path, "time outside years 1 to 9999")),
            }
        }
        JsonForm::EmbeddedString => Json::String(
            rt::get::<crate::codec::Str>(bytes, 1)
                .unwrap_or("")
                .to_string(),
        ),
        JsonForm::Quantity => {
            let text = rt::get::<crate::codec::Bytes>(bytes, 1).unwrap_or(b"");
            if text.is_empty() {
                Json::String("0".to_string())
            } else {
                let mut buf = [0u8; 64];
                let canonical = crate::quantity::reserialize(text, &mut buf).map_err(|err| {
                    unrepresentable(
                        path,
                        format_args!(
                            "quantity `{}`: {}",
                            String::from_utf8_lossy(text),
                            err.as_str()
                        ),
                    )
                })?;
                Json::String(canonical.to_string())
            }
        }
        JsonForm::IntOrString => {
            if varint_field(1) == 1 {
                Json::String(
                    rt::get::<crate::codec::Str>(bytes, 3)
                        .unwrap_or("")
                        .to_string(),
                )
            } else {
                Json::from(varint_field(2) as i32)
            }
        }
        JsonForm::RawJson => match rt::get::<crate::codec::Bytes>(bytes, 1) {
            None | Some([]) => Json::Null,
            Some(raw) => serde_json::from_slice(raw)
                .map_err(|err| unrepresentable(path, format_args!("embedded JSON: {err}")))?,
        },
        JsonForm::BareArray => match schema.fields.first() {
            Some(field) => {
                path.push(field.json_name());
                let items = repeated(field, bytes, path)?;
                path.pop();
                Json::Array(items)
            }
            None => Json::Array(Vec::new()),
        },
        JsonForm::Duration => {
            let mut buf = [0u8; 40];
            Json::String(timefmt::format_go_duration(varint_field(1) as i64, &mut buf).to_string())
        }
    };
    Ok(json)
}

fn field_value(
    field: &FieldSchema,
    bytes: &[u8],
    path: &mut Path,
) -> Result<Option<Json>, JsonError> {
    match field.label {
        Label::Singular => match last_value(bytes, field.number) {
            Some(value) => scalar(field.kind, value, path).map(Some),
            None => Ok(None),
        },
        Label::Repeated => {
            let items = repeated(field, bytes, path)?;
            Ok((!items.is_empty()).then_some(Json::Array(items)))
        }
        Label::Map => {
            let Kind::Message(entry) = field.kind else {
                return Ok(None);
            };
            let mut object = alloc::collections::BTreeMap::new();
            for_each_occurrence(bytes, field.number, |value| {
                let Value::Len(entry_bytes) = value else {
                    return Ok(());
                };
                let key = map_key(entry, entry_bytes);
                let value = match (entry.field(2), last_value(entry_bytes, 2)) {
                    (Some(value_field), Some(value)) => scalar(value_field.kind, value, path)?,
                    (Some(value_field), None) => default_json(value_field.kind, path)?,
                    (None, _) => Json::Null,
                };
                object.insert(key, value);
                Ok(())
            })?;
            Ok((!object.is_empty()).then(|| Json::Object(object.into_iter().collect())))
        }
    }
}

fn map_key(entry: &MessageSchema, bytes: &[u8]) -> String {
    let kind = entry.field(1).map(|f| f.kind);
    match (kind, last_value(bytes, 1)) {
        (_, None) => match kind {
            Some(Kind::String) | None => String::new(),
            Some(Kind::Bool) => "false".to_string(),
            Some(_) => "0".to_string(),
        },
        (Some(kind), Some(value)) => int_or_scalar_key(kind, value).unwrap_or_default(),
        (None, Some(_)) => String::new(),
    }
}

fn int_or_scalar_key(kind: Kind, value: Value<'_>) -> Option<String> {
    match scalar_leaf(kind, value)? {
        Json::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// The JSON of an absent map value: protobuf reads it as the default.
fn default_json(kind: Kind, path: &mut Path) -> Result<Json, JsonError> {
    match kind {
        Kind::Message(inner) => message(inner, &[], path),
        Kind::String | Kind::Bytes => Ok(Json::String(String::new())),
        Kind::Bool => Ok(Json::Bool(false)),
        _ => Ok(Json::from(0)),
    }
}

fn for_each_occurrence<'a>(
    bytes: &'a [u8],
    number: u32,
    mut f: impl FnMut(Value<'a>) -> Result<(), JsonError>,
) -> Result<(), JsonError> {
    let mut rest = bytes;
    while let Ok(Some((n, value))) = next_field(&mut rest) {
        if n == number {
            f(value)?;
        }
    }
    Ok(())
}

fn repeated(field: &FieldSchema, bytes: &[u8], path: &mut Path) -> Result<Vec<Json>, JsonError> {
    let mut items = Vec::new();
    for_each_occurrence(bytes, field.number, |value| {
        match (field.kind, value) {
            (Kind::String | Kind::Bytes | Kind::Message(_), _) | (_, Value::Varint(_)) => {
                items.push(scalar(field.kind, value, path)?);
            }
            (_, Value::Fixed32(_) | Value::Fixed64(_)) => {
                items.push(scalar(field.kind, value, path)?)
            }
            (kind, Value::Len(mut run)) => {
                while !run.is_empty() {
                    let element = match kind {
                        Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => {
                            read_fixed32(&mut run).map(Value::Fixed32)
                        }
                        Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => {
                            read_fixed64(&mut run).map(Value::Fixed64)
                        }
                        _ => read_varint(&mut run).map(Value::Varint),
                    };
                    match element {
                        Ok(element) => items.push(scalar(kind, element, path)?),
                        Err(_) => break,
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(items)
}

fn scalar(kind: Kind, value: Value<'_>, path: &mut Path) -> Result<Json, JsonError> {
    if let (Kind::Message(inner), Value::Len(body)) = (kind, value) {
        return message(inner, body, path);
    }
    Ok(scalar_leaf(kind, value).unwrap_or(Json::Null))
}

fn scalar_leaf(kind: Kind, value: Value<'_>) -> Option<Json> {
    let json = match (kind, value) {
        (Kind::Int32 | Kind::Enum, Value::Varint(v)) => Json::from(v as i32),
        (Kind::Int64, Value::Varint(v)) => Json::from(v as i64),
        (Kind::Uint32, Value::Varint(v)) => Json::from(v as u32),
        (Kind::Uint64, Value::Varint(v)) => Json::from(v),
        (Kind::Sint32, Value::Varint(v)) => Json::from(zigzag32(v)),
        (Kind::Sint64, Value::Varint(v)) => Json::from(zigzag64(v)),
        (Kind::Bool, Value::Varint(v)) => Json::Bool(v != 0),
        (Kind::Fixed32, Value::Fixed32(v)) => Json::from(v),
        (Kind::Sfixed32, Value::Fixed32(v)) => Json::from(v as i32),
        (Kind::Float, Value::Fixed32(v)) => float(f64::from(f32::from_bits(v))),
        (Kind::Fixed64, Value::Fixed64(v)) => Json::from(v),
        (Kind::Sfixed64, Value::Fixed64(v)) => Json::from(v as i64),
        (Kind::Double, Value::Fixed64(v)) => float(f64::from_bits(v)),
        (Kind::String, Value::Len(b)) => Json::String(String::from_utf8_lossy(b).into_owned()),
        (Kind::Bytes, Value::Len(b)) => Json::String(base64(b)),
        _ => return None,
    };
    Some(json)
}

fn float(v: f64) -> Json {
    Number::from_f64(v).map_or(Json::Null, Json::Number)
}

/// Standard base64 with padding, as Go's `encoding/json` writes `[]byte`.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want);
        }
    }
}
