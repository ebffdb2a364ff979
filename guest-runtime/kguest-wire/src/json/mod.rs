//! Kubernetes JSON, both ways, driven by the static schemas (feature `json`).
//!
//! Field names are the protobuf names, which Kubernetes also uses in JSON.
//! Messages with a [`JsonForm`](crate::schema::JsonForm) other than `Object`
//! take their special form (RFC 3339 times, int-or-string, embedded raw JSON,
//! quantities, ...).
//!
//! - [`to_json`]: protobuf → JSON. Absent fields, empty repeated fields and
//!   empty maps are left out, as Kubernetes' `omitempty` does. Unknown fields
//!   cannot be expressed and are dropped.
//! - [`from_json`]: JSON → protobuf, byte for byte what Kubernetes' Go
//!   marshaller writes: fields in number order, map entries sorted by key with
//!   key and value always written, and the fields Go always writes (its
//!   non-pointer fields, see [`FieldSchema::always`](crate::schema::FieldSchema::always))
//!   written with their zero value when the JSON leaves them out.

use alloc::string::String;
use core::fmt;

use crate::DecodeError;

mod input;
mod output;

pub use input::from_json;
pub use output::{base64, to_json};

/// Why a message could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// The bytes are not a valid encoding of the message.
    Decode(DecodeError),
    /// A value has no JSON form: embedded JSON that does not parse, a time
    /// outside years 1..=9999, a quantity that does not parse.
    Unrepresentable { path: String, reason: String },
    /// JSON that does not fit the schema: an unknown field, a value of the
    /// wrong type or out of range. `path` names the field (`spec.containers[0].name`).
    Invalid { path: String, reason: String },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Decode(err) => err.fmt(f),
            JsonError::Unrepresentable { path, reason } | JsonError::Invalid { path, reason } => {
                write!(f, "{path}: {reason}")
            }
        }
    }
}

impl std::error::Error for JsonError {}

impl From<DecodeError> for JsonError {
    fn from(err: DecodeError) -> Self {
        JsonError::Decode(err)
    }
}

fn path_string(path: &[&str]) -> String {
    if path.is_empty() {
        ".".into()
    } else {
        path.join(".")
    }
}
