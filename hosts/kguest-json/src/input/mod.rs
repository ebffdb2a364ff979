//! JSON → protobuf in one pass over the input, byte-exact with Kubernetes'
//! Go marshaller.
//!
//! The input arrives as [`Event`](crate::text::Event)s from a [`Source`] (JSON text, YAML, a
//! `serde_json::Value`) and is encoded as it is read. Go writes fields in
//! field-number order and sorts map entries, while JSON members come in any
//! order, so the encoder does not write the output directly: scalar fields
//! are encoded into one scratch buffer, and every message becomes a list of
//! chunks (a field's bytes, or a nested message) sorted by field number when
//! the message closes. Lengths are summed bottom-up as messages close, so the
//! final output is written in a single walk with each length known: no
//! length placeholder is ever patched or shifted. The scratch space lives in
//! an [`Encoder`] and is reused, so encoding many objects allocates nothing
//! once it has grown.
//!
//! Here: the [`Encoder`], its state and its entry points. `object.rs` reads
//! objects, arrays and maps, `scalar.rs` and `special.rs` their values,
//! `assemble.rs` closes a message; `scratch.rs`, `path.rs` and `source.rs`
//! serve them.

mod assemble;
mod object;
mod path;
mod scalar;
mod scratch;
mod source;
mod special;
#[cfg(test)]
mod tests;

use alloc::string::String;
use alloc::vec::Vec;

use super::JsonError;
use super::text::Reader;
use kguest_wire::schema::{FieldSchema, MessageSchema};

pub use scalar::base64_decode;
pub use source::{Number, Source, SourceEvent, skip};

/// Encodes the JSON text of one message of type `schema` as Kubernetes' Go
/// marshaller would. Only whitespace may follow the value.
pub fn from_json_text(schema: &'static MessageSchema, text: &str) -> Result<Vec<u8>, JsonError> {
    let mut out = Vec::new();
    Encoder::new().encode_text(schema, text, &[], &mut out)?;
    Ok(out)
}

/// What the encoder writes besides a field's bytes, to sort and size them.
#[derive(Clone, Copy, Debug)]
enum Body {
    /// An explicit `null`: the member is there but has no value.
    Null,
    /// A whole field (key and value) in the scratch buffer.
    Raw(u32, u32),
    /// A length-delimited field whose contents are in the scratch buffer.
    Len(u32, u32),
    /// A nested message.
    Node(u32),
}

/// The sort key of a map entry.
#[derive(Clone, Copy, Debug)]
enum MapKey {
    None,
    Bytes(u32, u32),
    Int(i64),
    Uint(u64),
}

#[derive(Clone, Copy, Debug)]
struct Chunk {
    /// 0 for the message itself, else an inline slot (see `Slot`).
    owner: u8,
    number: u32,
    /// Which member of the JSON object wrote this chunk; a later member
    /// for the same field replaces the earlier one, as in Go.
    seq: u32,
    key: MapKey,
    body: Body,
}

/// A finished message: its chunks in `Encoder::done`, in output order.
#[derive(Clone, Copy, Debug)]
struct Node {
    start: u32,
    end: u32,
    len: u64,
}

/// An inlined message field open inside the current JSON object.
#[derive(Clone, Copy, Debug)]
struct Slot {
    parent: u8,
    field: &'static FieldSchema,
}

#[derive(Clone, Copy, Debug)]
enum Part {
    Name(&'static str),
    /// A JSON member name, in `Encoder::names`.
    Member(u32, u32),
    Index(usize),
    /// A map key, in `Encoder::names`.
    Key(u32, u32),
}

/// What the encoder does with a JSON member that names no field of its
/// message: Kubernetes' `fieldValidation` modes. The API server and Go's
/// strict decoder fail on the first one (`Strict`); Go's default decoder
/// drops them silently (`Ignore`); `Warn` drops them and records each one's
/// path (see [`Encoder::take_warnings`]), as the API server warns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// An unknown field is an error naming its path.
    #[default]
    Strict,
    /// Unknown fields are dropped, and their paths recorded.
    Warn,
    /// Unknown fields are dropped.
    Ignore,
}

impl FieldValidation {
    /// The mode as `kubectl --validate` and the API server's
    /// `fieldValidation` parameter spell it (`strict`, `warn`, `ignore`;
    /// case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "strict" => Some(Self::Strict),
            "warn" => Some(Self::Warn),
            "ignore" => Some(Self::Ignore),
            _ => None,
        }
    }
}

/// Reusable scratch space for encoding. One encoder can encode any number
/// of objects, one after the other; it allocates only while growing.
#[derive(Default)]
pub struct Encoder {
    validation: FieldValidation,
    /// Under `Warn`: the fields dropped since the last `take_warnings`.
    warnings: Vec<String>,
    raw: Vec<u8>,
    stack: Vec<Chunk>,
    asm: Vec<Chunk>,
    done: Vec<Chunk>,
    nodes: Vec<Node>,
    slots: Vec<Slot>,
    path: Vec<Part>,
    names: String,
    text: Vec<u8>,
    tree: super::raw::Canonical,
}

type Result<T, E = JsonError> = core::result::Result<T, E>;

impl Encoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// An encoder that treats unknown fields as `mode` says.
    pub fn with_field_validation(mode: FieldValidation) -> Self {
        Encoder {
            validation: mode,
            ..Self::default()
        }
    }

    /// Changes how unknown fields are treated from the next object on.
    pub fn set_field_validation(&mut self, mode: FieldValidation) {
        self.validation = mode;
    }

    /// How unknown fields are treated.
    pub fn field_validation(&self) -> FieldValidation {
        self.validation
    }

    /// Under [`FieldValidation::Warn`], one line per unknown field dropped
    /// since the last call (`unknown field "spec.workloadRef"`, as the API
    /// server words its warning), oldest first.
    pub fn take_warnings(&mut self) -> Vec<String> {
        core::mem::take(&mut self.warnings)
    }

    fn reset(&mut self) {
        self.raw.clear();
        self.stack.clear();
        self.asm.clear();
        self.done.clear();
        self.nodes.clear();
        self.slots.clear();
        self.path.clear();
        self.names.clear();
    }

    /// Encodes the JSON text `text`, one message of type `schema`, appending
    /// to `out`. Top-level members named in `ignore` that are not fields of
    /// `schema` are skipped (`apiVersion` and `kind`, which travel in the
    /// envelope).
    pub fn encode_text(
        &mut self,
        schema: &'static MessageSchema,
        text: &str,
        ignore: &[&str],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut reader = Reader::new(text);
        self.encode(schema, &mut reader, ignore, out)?;
        reader.finish()
    }

    /// Encodes the next value of `src`, one message of type `schema`,
    /// appending to `out`. See [`Encoder::encode_text`] for `ignore`.
    pub fn encode<'s, S: Source<'s>>(
        &mut self,
        schema: &'static MessageSchema,
        src: &mut S,
        ignore: &[&str],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let first = src.next_event()?;
        self.encode_from(schema, first, src, ignore, out)
    }

    /// Like [`Encoder::encode`] for a value whose first event `first` the
    /// caller has already read from `src`.
    pub fn encode_from<'s, S: Source<'s>>(
        &mut self,
        schema: &'static MessageSchema,
        first: SourceEvent<'s>,
        src: &mut S,
        ignore: &[&str],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        self.reset();
        let body = self.message(schema, first, src, ignore)?;
        match body {
            Body::Node(node) => {
                let len = self.node(node).len;
                out.reserve(usize::try_from(len).unwrap_or(0));
                self.emit(node, out);
            }
            Body::Len(start, end) => out.extend_from_slice(self.raw_range(start, end)),
            Body::Raw(..) | Body::Null => {}
        }
        Ok(())
    }
}
