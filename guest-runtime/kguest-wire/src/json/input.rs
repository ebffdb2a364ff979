//! JSON → protobuf, byte-exact with Kubernetes' Go marshaller.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value as Json;

use super::JsonError;
use crate::encode::{
    FIXED32, FIXED64, LEN, VARINT, put_bytes, put_key, put_varint, zigzag32, zigzag64,
};
use crate::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};
use crate::{quantity, timefmt};

/// Encodes `json` (one object of type `schema`) the way Kubernetes' Go
/// marshaller would encode the same object.
pub fn from_json(schema: &MessageSchema, json: &Json) -> Result<Vec<u8>, JsonError> {
    let mut out = Vec::new();
    let mut path = Path::default();
    message(schema, json, &mut out, &mut path)?;
    Ok(out)
}

/// The field path of the value being encoded, for error messages. Parts
/// borrow from the schema and the JSON, so tracking it costs no allocation.
#[derive(Default)]
struct Path<'j>(Vec<Part<'j>>);

#[derive(Clone, Copy)]
enum Part<'j> {
    /// A schema field (`.name`).
    Name(&'static str),
    /// A JSON member that may not be a field (`.name`).
    Member(&'j str),
    /// An array element (`[3]`).
    Index(usize),
    /// A map entry (`["key"]`).
    Key(&'j str),
}

impl<'j> Path<'j> {
    fn invalid(&self, reason: impl ToString) -> JsonError {
        JsonError::Invalid {
            path: self.render(),
            reason: reason.to_string(),
        }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Name(name) | Part::Member(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Part::Index(i) => out.push_str(&format!("[{i}]")),
                Part::Key(key) => out.push_str(&format!("[{key:?}]")),
            }
        }
        if out.is_empty() { ".".into() } else { out }
    }

    fn with<T>(&mut self, part: Part<'j>, f: impl FnOnce(&mut Self) -> T) -> T {
        self.0.push(part);
        let result = f(self);
        self.0.pop();
        result
    }
}

fn type_name(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn message<'j>(
    schema: &MessageSchema,
    json: &'j Json,
    out: &mut Vec<u8>,
    path: &mut Path<'j>,
) -> Result<(), JsonError> {
    match schema.json {
        JsonForm::Object => object(schema, json, out, path),
        JsonForm::Timestamp { frac_digits } => {
            let text = match json {
                Json::Null => return Ok(()),
                Json::String(text) => text,
                other => {
                    return Err(path.invalid(format!(
                        "expected an RFC 3339 time, found {}",
                        type_name(other)
                    )));
                }
            };
            let (seconds, nanos) = timefmt::parse_rfc3339(text.as_bytes())
                .ok_or_else(|| path.invalid(format!("`{text}` is not an RFC 3339 time")))?;
            // Kubernetes keeps seconds for Time and microseconds for MicroTime.
            let nanos = match frac_digits {
                0 => 0,
                6 => nanos - nanos % 1_000,
                _ => nanos,
            };
            // Go's zero time marshals as an empty message, like `null`.
            if seconds == timefmt::MIN_SECONDS && nanos == 0 {
                return Ok(());
            }
            put_key(out, 1, VARINT);
            put_varint(out, seconds as u64);
            put_key(out, 2, VARINT);
            put_varint(out, i64::from(nanos) as u64);
            Ok(())
        }
        JsonForm::EmbeddedString => {
            let text = match json {
                Json::Null => "",
                Json::String(text) => text,
                other => {
                    return Err(
                        path.invalid(format!("expected a string, found {}", type_name(other)))
                    );
                }
            };
            put_bytes(out, 1, text.as_bytes());
            Ok(())
        }
        JsonForm::Quantity => {
            let text = match json {
                Json::Null => String::from("0"),
                Json::String(text) => canonical_quantity(text, path)?,
                // Go accepts a bare JSON number for a quantity.
                Json::Number(n) => canonical_quantity(&n.to_string(), path)?,
                other => {
                    return Err(
                        path.invalid(format!("expected a quantity, found {}", type_name(other)))
                    );
                }
            };
            put_bytes(out, 1, text.as_bytes());
            Ok(())
        }
        JsonForm::IntOrString => {
            let (kind, int, text) = match json {
                Json::Null => (0, 0, ""),
                Json::Number(_) => (
                    0,
                    int_value(json, i64::from(i32::MIN), i64::from(i32::MAX), path)?,
                    "",
                ),
                Json::String(text) => (1, 0, text.as_str()),
                other => {
                    return Err(path.invalid(format!(
                        "expected a number or a string, found {}",
                        type_name(other)
                    )));
                }
            };
            put_key(out, 1, VARINT);
            put_varint(out, kind);
            put_key(out, 2, VARINT);
            put_varint(out, int as u64);
            put_bytes(out, 3, text.as_bytes());
            Ok(())
        }
        JsonForm::RawJson => {
            if !json.is_null() {
                let raw = serde_json::to_vec(json).map_err(|err| path.invalid(err))?;
                put_bytes(out, 1, &raw);
            }
            Ok(())
        }
        JsonForm::BareArray => match (json, schema.fields.first()) {
            (Json::Null, _) | (_, None) => Ok(()),
            (Json::Array(items), Some(field)) => {
                for (i, item) in items.iter().enumerate() {
                    path.with(Part::Index(i), |path| scalar(field, item, out, path))?;
                }
                Ok(())
            }
            (other, _) => {
                Err(path.invalid(format!("expected an array, found {}", type_name(other))))
            }
        },
        JsonForm::Duration => {
            let nanos = match json {
                Json::Null => 0,
                Json::String(text) => timefmt::parse_go_duration(text.as_bytes())
                    .ok_or_else(|| path.invalid(format!("`{text}` is not a duration")))?,
                other => {
                    return Err(path.invalid(format!(
                        "expected a duration string, found {}",
                        type_name(other)
                    )));
                }
            };
            put_key(out, 1, VARINT);
            put_varint(out, nanos as u64);
            Ok(())
        }
    }
}

fn canonical_quantity(text: &str, path: &Path<'_>) -> Result<String, JsonError> {
    let mut buf = [0u8; 64];
    quantity::reserialize(text.as_bytes(), &mut buf)
        .map(String::from)
        .map_err(|err| path.invalid(format!("`{text}` is not a quantity ({})", err.as_str())))
}

fn object<'j>(
    schema: &MessageSchema,
    json: &'j Json,
    out: &mut Vec<u8>,
    path: &mut Path<'j>,
) -> Result<(), JsonError> {
    let members = match json {
        Json::Object(members) => members,
        Json::Null => return members_into(schema, None, out, path),
        other => {
            return Err(path.invalid(format!("expected an object, found {}", type_name(other))));
        }
    };
    if let Some(key) = members.keys().find(|key| !knows(schema, key)) {
        return Err(path.with(Part::Member(key), |path| path.invalid("unknown field")));
    }
    members_into(schema, Some(members), out, path)
}

/// True when `key` is a JSON member of `schema`, directly or through an
/// inlined field.
fn knows(schema: &MessageSchema, key: &str) -> bool {
    schema
        .fields
        .iter()
        .any(|field| match (field.inline, field.kind) {
            (true, Kind::Message(inner)) => knows(inner, key),
            _ => field.json_name() == key,
        })
}

/// Writes the fields of `schema` found in `members`, in field-number order.
/// `None` stands for an empty object (`null`).
fn members_into<'j>(
    schema: &MessageSchema,
    members: Option<&'j serde_json::Map<String, Json>>,
    out: &mut Vec<u8>,
    path: &mut Path<'j>,
) -> Result<(), JsonError> {
    for field in schema.fields {
        if let (true, Kind::Message(inner)) = (field.inline, field.kind) {
            // An embedded Go struct reads its members from this same object.
            if field.always || members.is_some_and(|m| m.keys().any(|key| knows(inner, key))) {
                nested(out, field.number, |out| {
                    members_into(inner, members, out, path)
                })?;
            }
            continue;
        }
        let value = members
            .and_then(|m| m.get(field.json_name()))
            .filter(|v| !v.is_null());
        path.with(Part::Name(field.json_name()), |path| {
            match (field.label, value) {
                (Label::Singular, Some(value)) => scalar(field, value, out, path),
                (Label::Singular, None) if field.always => scalar(field, &Json::Null, out, path),
                (Label::Singular, None) | (Label::Repeated | Label::Map, None) => Ok(()),
                (Label::Repeated, Some(Json::Array(items))) => {
                    for (i, item) in items.iter().enumerate() {
                        path.with(Part::Index(i), |path| scalar(field, item, out, path))?;
                    }
                    Ok(())
                }
                (Label::Repeated, Some(other)) => {
                    Err(path.invalid(format!("expected an array, found {}", type_name(other))))
                }
                (Label::Map, Some(Json::Object(entries))) => map(field, entries, out, path),
                (Label::Map, Some(other)) => {
                    Err(path.invalid(format!("expected an object, found {}", type_name(other))))
                }
            }
        })?;
    }
    Ok(())
}

/// A map: entries sorted by key (Go sorts), key and value always written.
fn map<'j>(
    field: &FieldSchema,
    entries: &'j serde_json::Map<String, Json>,
    out: &mut Vec<u8>,
    path: &mut Path<'j>,
) -> Result<(), JsonError> {
    let Kind::Message(entry) = field.kind else {
        return Err(path.invalid("schema error: a map field without an entry message"));
    };
    let (Some(key_field), Some(value_field)) = (entry.field(1), entry.field(2)) else {
        return Err(path.invalid("schema error: a map entry without key or value"));
    };
    let sorted: BTreeMap<&str, &Json> = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut body = Vec::new();
    for (key, value) in sorted {
        body.clear();
        path.with(Part::Key(key), |path| {
            write_map_key(key_field, key, &mut body, path)?;
            scalar(value_field, value, &mut body, path)
        })?;
        put_bytes(out, field.number, &body);
    }
    Ok(())
}

/// Writes a length-delimited field whose body `write` appends to `out`
/// directly: a one-byte length is reserved and widened afterwards if the
/// body is longer, so nested messages need no buffer of their own.
fn nested(
    out: &mut Vec<u8>,
    number: u32,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), JsonError>,
) -> Result<(), JsonError> {
    put_key(out, number, LEN);
    let at = out.len();
    out.push(0);
    write(out)?;
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(5);
        put_varint(&mut prefix, len as u64);
        out.splice(at..=at, prefix);
    }
    Ok(())
}

/// Writes a JSON object key as the map entry's key field.
fn write_map_key(
    field: &FieldSchema,
    key: &str,
    out: &mut Vec<u8>,
    path: &Path<'_>,
) -> Result<(), JsonError> {
    if let Kind::String = field.kind {
        put_bytes(out, field.number, key.as_bytes());
        return Ok(());
    }
    let value = match field.kind {
        Kind::Bool => Json::Bool(key == "true"),
        _ => Json::Number(
            key.parse()
                .map_err(|_| path.invalid(format!("map key `{key}` is not a number")))?,
        ),
    };
    scalar(field, &value, out, &mut Path::default())
}

/// Writes `value` (a singular field's value or one element of a repeated
/// field) as field `field.number`; null means the zero value.
fn scalar<'j>(
    field: &FieldSchema,
    value: &'j Json,
    out: &mut Vec<u8>,
    path: &mut Path<'j>,
) -> Result<(), JsonError> {
    let number = field.number;
    match field.kind {
        Kind::Message(inner) => nested(out, number, |out| message(inner, value, out, path))?,
        Kind::String => {
            let text = match value {
                Json::Null => "",
                Json::String(text) => text,
                other => {
                    return Err(
                        path.invalid(format!("expected a string, found {}", type_name(other)))
                    );
                }
            };
            put_bytes(out, number, text.as_bytes());
        }
        Kind::Bytes => {
            let bytes = match value {
                Json::Null => Vec::new(),
                Json::String(text) => base64_decode(text)
                    .ok_or_else(|| path.invalid("expected base64 (standard alphabet, padded)"))?,
                other => {
                    return Err(path.invalid(format!(
                        "expected a base64 string, found {}",
                        type_name(other)
                    )));
                }
            };
            put_bytes(out, number, &bytes);
        }
        Kind::Bool => {
            let flag = match value {
                Json::Null => false,
                Json::Bool(flag) => *flag,
                other => {
                    return Err(
                        path.invalid(format!("expected a boolean, found {}", type_name(other)))
                    );
                }
            };
            put_key(out, number, VARINT);
            put_varint(out, u64::from(flag));
        }
        Kind::Int32 | Kind::Enum => {
            let v = int_value(value, i64::from(i32::MIN), i64::from(i32::MAX), path)?;
            put_key(out, number, VARINT);
            put_varint(out, v as u64);
        }
        Kind::Int64 => {
            let v = int_value(value, i64::MIN, i64::MAX, path)?;
            put_key(out, number, VARINT);
            put_varint(out, v as u64);
        }
        Kind::Sint32 => {
            let v = int_value(value, i64::from(i32::MIN), i64::from(i32::MAX), path)?;
            put_key(out, number, VARINT);
            put_varint(out, zigzag32(v as i32));
        }
        Kind::Sint64 => {
            let v = int_value(value, i64::MIN, i64::MAX, path)?;
            put_key(out, number, VARINT);
            put_varint(out, zigzag64(v));
        }
        Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => {
            let max = if matches!(field.kind, Kind::Uint32 | Kind::Fixed32) {
                u64::from(u32::MAX)
            } else {
                u64::MAX
            };
            let v = match value {
                Json::Null => 0,
                Json::Number(n) => n
                    .as_u64()
                    .filter(|v| *v <= max)
                    .ok_or_else(|| path.invalid(format!("{n} is out of range")))?,
                other => {
                    return Err(
                        path.invalid(format!("expected a number, found {}", type_name(other)))
                    );
                }
            };
            match field.kind {
                Kind::Fixed32 => {
                    put_key(out, number, FIXED32);
                    out.extend_from_slice(&(v as u32).to_le_bytes());
                }
                Kind::Fixed64 => {
                    put_key(out, number, FIXED64);
                    out.extend_from_slice(&v.to_le_bytes());
                }
                _ => {
                    put_key(out, number, VARINT);
                    put_varint(out, v);
                }
            }
        }
        Kind::Sfixed32 => {
            let v = int_value(value, i64::from(i32::MIN), i64::from(i32::MAX), path)?;
            put_key(out, number, FIXED32);
            out.extend_from_slice(&(v as i32).to_le_bytes());
        }
        Kind::Sfixed64 => {
            let v = int_value(value, i64::MIN, i64::MAX, path)?;
            put_key(out, number, FIXED64);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Kind::Float | Kind::Double => {
            let v = match value {
                Json::Null => 0.0,
                Json::Number(n) => n.as_f64().unwrap_or(0.0),
                other => {
                    return Err(
                        path.invalid(format!("expected a number, found {}", type_name(other)))
                    );
                }
            };
            if matches!(field.kind, Kind::Float) {
                put_key(out, number, FIXED32);
                out.extend_from_slice(&(v as f32).to_le_bytes());
            } else {
                put_key(out, number, FIXED64);
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    Ok(())
}

fn int_value(value: &Json, min: i64, max: i64, path: &Path<'_>) -> Result<i64, JsonError> {
    match value {
        Json::Null => Ok(0),
        Json::Number(n) => n
            .as_i64()
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| path.invalid(format!("{n} is not an integer in {min}..={max}"))),
        other => Err(path.invalid(format!("expected an integer, found {}", type_name(other)))),
    }
}

/// Decodes standard, padded base64 (what Go's `encoding/json` writes for
/// `[]byte`); `None` on anything else.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let last = i + 1 == bytes.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = (n << 6) | sextet(c)?;
        }
        n <<= 6 * pad as u32;
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for input in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let encoded = super::super::base64(input.as_bytes());
            assert_eq!(base64_decode(&encoded).as_deref(), Some(input.as_bytes()));
        }
        for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "Zg==Zg=="] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }
}
