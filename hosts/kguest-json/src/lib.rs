//! Kubernetes JSON ↔ protobuf for hosts, driven by the static schemas of
//! `kguest-wire` (the views' crate stays `no_std`, allocation-free and small;
//! this one needs `alloc`, and `std` only with the `serde_json` feature).
//!
//! Field names are the protobuf names, which Kubernetes also uses in JSON.
//! Messages with a [`JsonForm`](kguest_wire::schema::JsonForm) other than
//! `Object` take their special form (RFC 3339 times, int-or-string, embedded
//! raw JSON, quantities, ...).
//!
//! - [`write_json`] / [`write_object_json`]: protobuf → JSON text, as Go's
//!   `encoding/json` writes the Go types: a field whose Go json tag has
//!   `omitempty` is left out when empty, any other is written even when empty
//!   (its zero value, or `null` for an unset pointer, slice or map); see
//!   [`FieldSchema::emit_empty`](kguest_wire::schema::FieldSchema::emit_empty).
//!   Unknown fields cannot be expressed and are dropped.
//! - [`Encoder`] / [`from_json_text`]: JSON → protobuf in one pass over the
//!   text, byte for byte what Kubernetes' Go marshaller writes: fields in
//!   number order, map entries sorted by key with key and value always
//!   written, and the fields Go always writes (its non-pointer fields, see
//!   [`FieldSchema::always`](kguest_wire::schema::FieldSchema::always))
//!   written with their zero value when the JSON leaves them out. Any
//!   [`Source`] of events can feed it (`kguest-k8s-io` adds YAML).
//! - With the `serde_json` feature: [`from_json`] / [`to_json`] between
//!   protobuf and `serde_json::Value`.
//!
//! Limits: containers nest at most [`text::MAX_DEPTH`] deep, in the text and
//! in embedded JSON values; an encoded object is at most 4 GiB.

#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "serde_json")]
extern crate std;

use alloc::string::String;
use core::fmt;

use kguest_wire::DecodeError;

mod input;
mod output;
mod raw;
pub mod text;
#[cfg(feature = "serde_json")]
mod value;

pub use input::{
    Encoder, FieldValidation, Number, Source, SourceEvent, base64_decode, from_json_text, skip,
};
pub use output::{Resolver, Style, WriteOptions, base64, is_zero, write_json, write_object_json};
pub use raw::write_f64 as write_go_float;
pub use text::{Event, Reader, Text};
#[cfg(feature = "serde_json")]
pub use value::{ValueSource, from_json, to_json};

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
    /// Text that is not JSON (or YAML): where and why.
    Syntax {
        line: usize,
        column: usize,
        reason: String,
    },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Decode(err) => err.fmt(f),
            JsonError::Unrepresentable { path, reason } | JsonError::Invalid { path, reason } => {
                write!(f, "{path}: {reason}")
            }
            JsonError::Syntax {
                line,
                column,
                reason,
            } => write!(f, "line {line} column {column}: {reason}"),
        }
    }
}

impl core::error::Error for JsonError {}

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
