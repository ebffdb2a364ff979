//! Static descriptions of message types.
//!
//! The generator emits one [`MessageSchema`] static per message. Views do not
//! need them to read fields; [`validate`] and the JSON serializer walk them.
//! Field and message names are kept only with the `names` feature, so a guest
//! that validates does not carry every name of the API.

use crate::wire::{Value, next_field, read_fixed32, read_fixed64, read_varint};
use crate::{DecodeError, ErrorKind};

/// How deep [`validate`] follows nested messages before giving up.
pub const MAX_DEPTH: u32 = 100;

/// One message type.
#[derive(Debug)]
pub struct MessageSchema {
    #[cfg(feature = "names")]
    name: &'static str,
    /// Known fields, sorted by number.
    pub fields: &'static [FieldSchema],
    /// How the message is written as JSON.
    pub json: JsonForm,
    /// The order JSON writes the fields in (indexes into `fields`: Go's
    /// struct field order); empty when it is their number order.
    pub json_order: &'static [u16],
}

impl MessageSchema {
    /// `name` is the fully qualified protobuf name; it is dropped unless the
    /// `names` feature is on.
    pub const fn new(name: &'static str, json: JsonForm, fields: &'static [FieldSchema]) -> Self {
        #[cfg(not(feature = "names"))]
        let _ = name;
        MessageSchema {
            #[cfg(feature = "names")]
            name,
            fields,
            json,
            json_order: &[],
        }
    }

    /// The schema with its fields written to JSON in `order` (indexes into
    /// `fields`, each once).
    pub const fn with_json_order(mut self, order: &'static [u16]) -> Self {
        self.json_order = order;
        self
    }

    /// The fully qualified protobuf name, e.g. `k8s.io.api.core.v1.Pod`.
    #[cfg(feature = "names")]
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The field with this number, if the schema knows it.
    pub fn field(&self, number: u32) -> Option<&'static FieldSchema> {
        let fields = self.fields;
        fields
            .binary_search_by_key(&number, |f| f.number)
            .ok()
            .and_then(|i| fields.get(i))
    }
}

/// One field of a message.
#[derive(Debug)]
pub struct FieldSchema {
    pub number: u32,
    pub label: Label,
    pub kind: Kind,
    /// A singular field that an encoder writes even when it holds its zero
    /// value, as Go's marshaller does for non-pointer struct fields. Readers
    /// ignore it.
    pub always: bool,
    /// A message field whose members Kubernetes JSON writes into the parent
    /// object (a Go struct embedded with `json:",inline"`).
    pub inline: bool,
    /// JSON output writes the field even when it is empty, as Go's
    /// `encoding/json` does for a field whose tag lacks `omitempty`: the zero
    /// value of a non-pointer field, `null` for an unset pointer, slice or map.
    /// Without it an empty field is left out.
    pub emit_empty: bool,
    /// JSON output leaves the field out when its value is zero, as Go does
    /// for a tag with `omitzero` (which also drops zero structs).
    pub omit_zero: bool,
    #[cfg(feature = "names")]
    name: &'static str,
    #[cfg(feature = "names")]
    json_name: Option<&'static str>,
}

impl FieldSchema {
    /// `name` is the protobuf field name (which Kubernetes also uses as the
    /// JSON name); it is dropped unless the `names` feature is on.
    pub const fn new(number: u32, name: &'static str, label: Label, kind: Kind) -> Self {
        #[cfg(not(feature = "names"))]
        let _ = name;
        FieldSchema {
            number,
            label,
            kind,
            always: false,
            inline: false,
            emit_empty: false,
            omit_zero: false,
            #[cfg(feature = "names")]
            name,
            #[cfg(feature = "names")]
            json_name: None,
        }
    }

    /// Marks the field as written even when zero (see [`FieldSchema::always`]).
    pub const fn always(mut self) -> Self {
        self.always = true;
        self
    }

    /// Marks a message field as inlined into its parent's JSON object.
    pub const fn inline(mut self) -> Self {
        self.inline = true;
        self
    }

    /// Marks the field as written to JSON even when empty (see
    /// [`FieldSchema::emit_empty`]).
    pub const fn emit_empty(mut self) -> Self {
        self.emit_empty = true;
        self
    }

    /// Marks the field as left out of JSON when zero (see
    /// [`FieldSchema::omit_zero`]).
    pub const fn omit_zero(mut self) -> Self {
        self.omit_zero = true;
        self
    }

    /// Gives the field a JSON name other than its protobuf name (Kubernetes
    /// has a few: `Webhooks` is `webhooks` in JSON, `uID` is `uid`).
    #[cfg(feature = "names")]
    pub const fn with_json_name(mut self, json_name: &'static str) -> Self {
        self.json_name = Some(json_name);
        self
    }

    /// Without the `names` feature JSON names are not kept.
    #[cfg(not(feature = "names"))]
    pub const fn with_json_name(self, _json_name: &'static str) -> Self {
        self
    }

    /// The protobuf field name.
    #[cfg(feature = "names")]
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The field's name in Kubernetes JSON.
    #[cfg(feature = "names")]
    pub const fn json_name(&self) -> &'static str {
        match self.json_name {
            Some(name) => name,
            None => self.name,
        }
    }
}

/// Cardinality of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// `optional` (or a proto3 singular field).
    Singular,
    /// `repeated`.
    Repeated,
    /// `map<K, V>`: a repeated entry message, whose schema is the field's
    /// [`Kind::Message`], with the key as field 1 and the value as field 2.
    Map,
}

/// The declared type of a field.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Bool,
    Enum,
    Fixed32,
    Sfixed32,
    Float,
    Fixed64,
    Sfixed64,
    Double,
    String,
    Bytes,
    Message(&'static MessageSchema),
}

/// Messages whose JSON form is not an object of their fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonForm {
    /// An object with one member per present field.
    Object,
    /// `seconds` (1) and `nanos` (2) as an RFC 3339 string in UTC with
    /// `frac_digits` fractional digits (0 drops the nanoseconds).
    Timestamp { frac_digits: u8 },
    /// Field 1, a string, stands for the whole message.
    EmbeddedString,
    /// Like `EmbeddedString`, holding a Kubernetes `resource.Quantity`, which
    /// Kubernetes rewrites in canonical form (`0.5` → `500m`) both ways.
    Quantity,
    /// `type` (1), `intVal` (2), `strVal` (3): a JSON number or string.
    IntOrString,
    /// Field 1 holds JSON text, embedded as is.
    RawJson,
    /// Field 1, repeated, is the JSON array for the whole message.
    BareArray,
    /// Field 1 is an `int64` count of nanoseconds, written as a Go duration.
    Duration,
}

#[derive(Clone, Copy)]
enum Wire {
    Varint,
    Fixed32,
    Fixed64,
    Len,
}

impl Kind {
    fn wire(self) -> Wire {
        match self {
            Kind::Int32
            | Kind::Int64
            | Kind::Uint32
            | Kind::Uint64
            | Kind::Sint32
            | Kind::Sint64
            | Kind::Bool
            | Kind::Enum => Wire::Varint,
            Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => Wire::Fixed32,
            Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => Wire::Fixed64,
            Kind::String | Kind::Bytes | Kind::Message(_) => Wire::Len,
        }
    }
}

/// Checks that `bytes` is a well-formed encoding of `schema`, recursively.
pub fn validate(schema: &MessageSchema, bytes: &[u8]) -> Result<(), DecodeError> {
    check_message(schema, bytes, 0, 0)
}

fn check_message(
    schema: &MessageSchema,
    bytes: &[u8],
    base: usize,
    depth: u32,
) -> Result<(), DecodeError> {
    if depth > MAX_DEPTH {
        return Err(DecodeError {
            kind: ErrorKind::TooDeep,
            offset: base,
            field: 0,
        });
    }
    let mut rest = bytes;
    loop {
        let offset = base.saturating_add(bytes.len() - rest.len());
        let (number, value) = match next_field(&mut rest) {
            Ok(Some(field)) => field,
            Ok(None) => return Ok(()),
            Err(kind) => {
                let field = read_varint(&mut { rest }).map_or(0, |key| (key >> 3) as u32);
                return Err(DecodeError {
                    kind,
                    offset,
                    field,
                });
            }
        };
        let Some(field) = schema.field(number) else {
            continue;
        };
        let fail = |kind| DecodeError {
            kind,
            offset,
            field: number,
        };
        match (field.kind.wire(), value) {
            (Wire::Varint, Value::Varint(_))
            | (Wire::Fixed32, Value::Fixed32(_))
            | (Wire::Fixed64, Value::Fixed64(_)) => {}
            (wire, Value::Len(run)) if !matches!(wire, Wire::Len) => {
                if field.label != Label::Repeated || !packed_ok(wire, run) {
                    return Err(fail(ErrorKind::WireTypeMismatch));
                }
            }
            (Wire::Len, Value::Len(body)) => match field.kind {
                Kind::String if crate::utf8::to_str(body).is_none() => {
                    return Err(fail(ErrorKind::InvalidUtf8));
                }
                Kind::Message(inner) => {
                    let body_start = bytes.len() - rest.len() - body.len();
                    check_message(inner, body, base.saturating_add(body_start), depth + 1)?;
                }
                _ => {}
            },
            _ => return Err(fail(ErrorKind::WireTypeMismatch)),
        }
    }
}

fn packed_ok(wire: Wire, mut run: &[u8]) -> bool {
    while !run.is_empty() {
        let ok = match wire {
            Wire::Varint => read_varint(&mut run).is_ok(),
            Wire::Fixed32 => read_fixed32(&mut run).is_ok(),
            Wire::Fixed64 => read_fixed64(&mut run).is_ok(),
            Wire::Len => false,
        };
        if !ok {
            return false;
        }
    }
    true
}
