//! Wire predicates for the documented differences between kguest and
//! prost-reflect, so a differential check can tell them from a bug:
//!
//! - groups: kguest supports none (proto2 groups are deprecated and no
//!   Kubernetes message has one), prost-reflect skips an unknown one;
//! - prost-reflect 0.16 reads a map record of any wire type as a length and
//!   an entry, where `validate()` reports a wire type mismatch;
//! - a singular message split over several records: protobuf merges them,
//!   a view reads the last one.

use std::collections::BTreeSet;

use kguest_wire::schema::{FieldSchema, Kind, Label, MessageSchema};
use kguest_wire::wire::{Value, next_field, read_varint};

/// True when the key at `offset` has wire type 3 (start group).
pub fn group_key_at(bytes: &[u8], offset: usize) -> bool {
    let mut rest = bytes.get(offset..).unwrap_or_default();
    read_varint(&mut rest).is_ok_and(|key| key & 7 == 3)
}

/// The field whose record starts at `offset` of `bytes` (a message of type
/// `schema`), looking into nested messages.
pub fn field_at(
    schema: &'static MessageSchema,
    bytes: &[u8],
    offset: usize,
) -> Option<&'static FieldSchema> {
    let mut rest = bytes;
    loop {
        let start = bytes.len() - rest.len();
        let (number, value) = next_field(&mut rest).ok()??;
        let field = schema.field(number);
        if start == offset {
            return field;
        }
        if let (
            Some(FieldSchema {
                kind: Kind::Message(inner),
                ..
            }),
            Value::Len(body),
        ) = (field, value)
        {
            let body_start = bytes.len() - rest.len() - body.len();
            if (body_start..body_start + body.len()).contains(&offset) {
                return field_at(inner, body, offset - body_start);
            }
        }
    }
}

/// True when the record at `offset` is a map field with a wire type other
/// than length-delimited.
pub fn map_with_wrong_wire_type_at(
    schema: &'static MessageSchema,
    bytes: &[u8],
    offset: usize,
) -> bool {
    let mut rest = bytes.get(offset..).unwrap_or_default();
    let wire_ok = read_varint(&mut rest).is_ok_and(|key| key & 7 == 2);
    !wire_ok && field_at(schema, bytes, offset).is_some_and(|f| f.label == Label::Map)
}

/// True when a singular message field occurs more than once, here or in a
/// nested message: prost-reflect merges the occurrences, a view reads the
/// last one. Call only on input that validates (it recurses as deep as the
/// input).
pub fn has_split_message(schema: &MessageSchema, bytes: &[u8]) -> bool {
    let mut seen = BTreeSet::new();
    let mut rest = bytes;
    while let Ok(Some((number, value))) = next_field(&mut rest) {
        let Some(field) = schema.field(number) else {
            continue;
        };
        if let (Kind::Message(inner), Value::Len(body)) = (field.kind, value) {
            if field.label == Label::Singular && !seen.insert(number) {
                return true;
            }
            if has_split_message(inner, body) {
                return true;
            }
        }
    }
    false
}
