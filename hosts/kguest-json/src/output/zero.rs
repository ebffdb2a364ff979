//! Zero values: Go's zero-value tests (`omitempty`, `omitzero`) and the
//! protobuf value of an absent field.

use super::scan::{last_value, next_field};
use kguest_wire::rt;
use kguest_wire::schema::{JsonForm, Kind, Label, MessageSchema};
use kguest_wire::timefmt;
use kguest_wire::wire::Value;

pub(super) fn zero_value(kind: Kind) -> Value<'static> {
    match kind {
        Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => Value::Fixed32(0),
        Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => Value::Fixed64(0),
        Kind::String | Kind::Bytes | Kind::Message(_) => Value::Len(&[]),
        _ => Value::Varint(0),
    }
}

pub(super) fn scalar_is_zero(kind: Kind, value: Value<'_>) -> bool {
    match (kind, value) {
        (Kind::Int32 | Kind::Enum | Kind::Sint32, Value::Varint(v)) => v as u32 == 0,
        (_, Value::Varint(v)) => v == 0,
        (Kind::Float, Value::Fixed32(v)) => f32::from_bits(v) == 0.0,
        (_, Value::Fixed32(v)) => v == 0,
        (Kind::Double, Value::Fixed64(v)) => f64::from_bits(v) == 0.0,
        (_, Value::Fixed64(v)) => v == 0,
        (_, Value::Len(b)) => b.is_empty(),
    }
}

pub(super) fn bare_array_is_empty(schema: &MessageSchema, bytes: &[u8]) -> bool {
    let Some(field) = schema.fields.first() else {
        return true;
    };
    let mut rest = bytes;
    while let Ok(Some((number, _))) = next_field(&mut rest) {
        if number == field.number {
            return false;
        }
    }
    true
}

/// Go's zero value test for a struct (`omitzero`): the type's `IsZero`
/// method where it has one (times, quantities), else every field zero.
pub fn is_zero(schema: &MessageSchema, bytes: &[u8]) -> bool {
    let varint_field = |n| match last_value(bytes, n) {
        Some(Value::Varint(v)) => v,
        _ => 0,
    };
    match schema.json {
        JsonForm::Timestamp { .. } => {
            let (seconds, nanos) = (varint_field(1) as i64, varint_field(2));
            bytes.is_empty() || (seconds == timefmt::MIN_SECONDS && nanos == 0)
        }
        JsonForm::Quantity => {
            let text = rt::get::<kguest_wire::codec::Bytes>(bytes, 1).unwrap_or(b"");
            let mut buf = [0u8; 64];
            text.is_empty()
                || kguest_wire::quantity::reserialize(text, &mut buf).is_ok_and(|c| c == "0")
        }
        JsonForm::IntOrString => {
            varint_field(1) == 0
                && varint_field(2) == 0
                && rt::get::<kguest_wire::codec::Bytes>(bytes, 3)
                    .unwrap_or(b"")
                    .is_empty()
        }
        JsonForm::Duration => varint_field(1) == 0,
        JsonForm::EmbeddedString | JsonForm::RawJson => {
            rt::get::<kguest_wire::codec::Bytes>(bytes, 1)
                .unwrap_or(b"")
                .is_empty()
        }
        JsonForm::BareArray => bare_array_is_empty(schema, bytes),
        JsonForm::Object => schema.fields.iter().all(|field| match field.label {
            Label::Repeated | Label::Map => last_value(bytes, field.number).is_none(),
            Label::Singular => match (last_value(bytes, field.number), field.kind) {
                (None, _) => true,
                (Some(_), _) if !field.always => false,
                (Some(Value::Len(body)), Kind::Message(inner)) => is_zero(inner, body),
                (Some(_), Kind::Bytes) => false,
                (Some(value), kind) => scalar_is_zero(kind, value),
            },
        }),
    }
}
