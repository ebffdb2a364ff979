//! The checks `schema::validate` makes, repeated cheaply where the writer
//! skips or reads ahead of what it writes.

use super::scan::next_field;
use kguest_wire::schema::{self, FieldSchema, Kind, Label, MessageSchema};
use kguest_wire::wire::{Value, read_fixed32, read_fixed64, read_varint};

/// Whether `value` has the wire type `field` is read with: its own, or a
/// packed run for a repeated scalar (whose contents are read later).
pub(super) fn wire_fits(field: &FieldSchema, value: &Value<'_>) -> bool {
    match (field.kind, value) {
        (Kind::String | Kind::Bytes | Kind::Message(_), Value::Len(_)) => true,
        (Kind::String | Kind::Bytes | Kind::Message(_), _) => false,
        (Kind::Fixed32 | Kind::Sfixed32 | Kind::Float, Value::Fixed32(_)) => true,
        (Kind::Fixed64 | Kind::Sfixed64 | Kind::Double, Value::Fixed64(_)) => true,
        (Kind::Fixed32 | Kind::Sfixed32 | Kind::Float, _)
        | (Kind::Fixed64 | Kind::Sfixed64 | Kind::Double, _) => {
            matches!(value, Value::Len(_)) && field.label == Label::Repeated
        }
        (_, Value::Varint(_)) => true,
        (_, Value::Len(_)) => field.label == Label::Repeated,
        _ => false,
    }
}

/// True when [`schema::validate`] accepts `bytes` as a message of type
/// `schema` nested `depth` deep (the same checks, without the details).
pub(super) fn valid(schema: &MessageSchema, bytes: &[u8], depth: u32) -> bool {
    if depth > schema::MAX_DEPTH {
        return false;
    }
    let mut rest = bytes;
    loop {
        match next_field(&mut rest) {
            Ok(Some((number, value))) => {
                if let Some(field) = schema.field(number)
                    && !value_valid(field, value, depth)
                {
                    return false;
                }
            }
            Ok(None) => return true,
            Err(_) => return false,
        }
    }
}

/// One occurrence of `field` checked as `schema::validate` checks it.
pub(super) fn value_valid(field: &FieldSchema, value: Value<'_>, depth: u32) -> bool {
    if !wire_fits(field, &value) {
        return false;
    }
    match (field.kind, value) {
        (Kind::String, Value::Len(text)) => core::str::from_utf8(text).is_ok(),
        (Kind::Message(inner), Value::Len(body)) => valid(inner, body, depth + 1),
        (Kind::Bytes, _) => true,
        (kind, Value::Len(mut run)) => {
            while !run.is_empty() {
                let read = match kind {
                    Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => read_fixed32(&mut run).is_ok(),
                    Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => read_fixed64(&mut run).is_ok(),
                    _ => read_varint(&mut run).is_ok(),
                };
                if !read {
                    return false;
                }
            }
            true
        }
        _ => true,
    }
}
