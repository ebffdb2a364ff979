//! Protobuf → JSON text, following Go's `encoding/json` rules for the Go
//! types the messages come from (see
//! [`FieldSchema::emit_empty`](kguest_wire::schema::FieldSchema::emit_empty)).
//!
//! Each message is scanned once: the occurrences of its fields are
//! collected into a scratch list (reused across messages) and written in
//! field order, so a field is never searched for.
//!
//! Here: the entry points and the writer's state. `message.rs` writes fields
//! by Go's rules, `map.rs` maps, `special.rs` the other JSON forms;
//! `layout.rs`, `strings.rs`, `zero.rs`, `check.rs` and `scan.rs` serve them.

mod check;
#[cfg(test)]
mod go_rules;
mod layout;
mod map;
mod message;
mod scan;
mod special;
mod strings;
mod zero;

use alloc::string::ToString;
use alloc::vec::Vec;

use super::JsonError;
use check::valid;
use kguest_wire::schema::{self, JsonForm, MessageSchema};
use kguest_wire::wire::Value;

pub use strings::base64;
pub(crate) use strings::write_go_string;
pub use zero::is_zero;

/// How JSON text is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// No whitespace, as the API server writes it.
    #[default]
    Compact,
    /// Indented by four spaces per level, as `kubectl get -o json` prints.
    Pretty,
}

/// Resolves the embedded objects of `runtime.RawExtension` values that hold
/// protobuf (`k8s\0` + `runtime.Unknown`, as in API-server lists and watch
/// events) to the schema of their type: `(apiVersion, kind) → schema`.
pub type Resolver = fn(&str, &str) -> Option<&'static MessageSchema>;

/// Options for [`write_json`].
#[derive(Clone, Copy, Default)]
pub struct WriteOptions {
    pub style: Style,
    /// Decodes protobuf objects embedded in `RawExtension`s; without it they
    /// are an error.
    pub resolver: Option<Resolver>,
}

/// Writes the message `bytes` of type `schema` as Kubernetes JSON to `out`.
pub fn write_json(
    schema: &MessageSchema,
    bytes: &[u8],
    options: WriteOptions,
    out: &mut Vec<u8>,
) -> Result<(), JsonError> {
    write_object_json("", "", schema, bytes, options, out)
}

/// Writes a top-level object: `kind` and `apiVersion` (when not empty)
/// first, then the message's fields.
///
/// The bytes are checked as they are written (wire types, UTF-8, nesting
/// depth: what [`schema::validate`] checks). When anything looks wrong, or
/// writing fails, the output is discarded and [`schema::validate`] names
/// the problem, so malformed input gets the same error as a separate
/// validation pass would give, and nothing is written for it.
pub fn write_object_json(
    api_version: &str,
    kind: &str,
    schema: &MessageSchema,
    bytes: &[u8],
    options: WriteOptions,
    out: &mut Vec<u8>,
) -> Result<(), JsonError> {
    let start = out.len();
    let (result, suspect) = write_checked(api_version, kind, schema, bytes, options, out, true);
    if result.is_ok() && !suspect {
        return Ok(());
    }
    if let Err(err) = schema::validate(schema, bytes) {
        out.truncate(start);
        return Err(err.into());
    }
    if !suspect {
        return result;
    }
    // A false alarm (bytes `validate` accepts but the writer flags, such as
    // fields out of order): write again without the early stops.
    out.truncate(start);
    write_checked(api_version, kind, schema, bytes, options, out, false).0
}

/// Writes the object; the flag is true when the bytes may be malformed
/// (then the output is not to be trusted). `checking` stops at nesting
/// deeper than [`schema::MAX_DEPTH`].
fn write_checked(
    api_version: &str,
    kind: &str,
    schema: &MessageSchema,
    bytes: &[u8],
    options: WriteOptions,
    out: &mut Vec<u8>,
    checking: bool,
) -> (Result<(), JsonError>, bool) {
    // Kubernetes JSON is usually about twice the size of the protobuf (the
    // up-front part is capped: the bytes may yet turn out malformed).
    out.reserve(bytes.len().saturating_mul(2).min(1 << 24));
    let mut writer = Writer {
        out,
        pretty: options.style == Style::Pretty,
        resolver: options.resolver,
        depth: 0,
        level: 0,
        checking,
        suspect: false,
        error: None,
        occ: Vec::with_capacity(64),
        runs: Vec::new(),
        entries: Vec::new(),
        path: Vec::with_capacity(16),
    };
    let result = writer
        .top(api_version, kind, schema, bytes)
        .map_err(|Stop| {
            writer
                .error
                .take()
                .unwrap_or_else(|| JsonError::Unrepresentable {
                    path: ".".into(),
                    reason: "stopped without a reason".into(),
                })
        });
    (result, writer.suspect)
}

/// Writing stopped; the writer holds the error.
#[derive(Debug)]
struct Stop;

type Step = Result<(), Stop>;

/// One occurrence of a known field in a message.
#[derive(Clone, Copy)]
struct Occ<'a> {
    index: u16,
    value: Value<'a>,
}

struct Writer<'o, 'a> {
    out: &'o mut Vec<u8>,
    pretty: bool,
    resolver: Option<Resolver>,
    /// Open JSON containers, for indentation.
    depth: usize,
    /// Protobuf nesting of the message being written (the top one is 0),
    /// counted as `schema::validate` counts it.
    level: u32,
    /// Whether to stop at messages nested deeper than `schema::MAX_DEPTH`.
    checking: bool,
    /// Set when the bytes may be malformed: something `schema::validate`
    /// could reject was seen (or could not be checked on the way).
    suspect: bool,
    /// Why writing stopped (kept here so results stay small).
    error: Option<JsonError>,
    occ: Vec<Occ<'a>>,
    /// Per field of each message being written in Go's struct order: the
    /// run of its occurrences in `occ` (`start..end`, empty when unset),
    /// found in one pass instead of a search per field.
    runs: Vec<(u32, u32)>,
    entries: Vec<(&'a [u8], Option<Value<'a>>)>,
    path: Vec<&'static str>,
}

impl<'o, 'a> Writer<'o, 'a> {
    /// Records why writing stops.
    #[cold]
    fn stop(&mut self, err: JsonError) -> Stop {
        self.error = Some(err);
        Stop
    }

    fn unrepresentable(&self, reason: impl ToString) -> JsonError {
        JsonError::Unrepresentable {
            path: super::path_string(&self.path),
            reason: reason.to_string(),
        }
    }

    /// The top-level object (see [`write_object_json`]).
    fn top(
        &mut self,
        api_version: &str,
        kind: &str,
        schema: &MessageSchema,
        bytes: &'a [u8],
    ) -> Step {
        if (kind.is_empty() && api_version.is_empty()) || schema.json != JsonForm::Object {
            return self.body(schema, bytes);
        }
        self.typed_object(api_version, kind, schema, bytes)
    }

    /// An object with `kind` and `apiVersion` first (each when not empty),
    /// then its members.
    fn typed_object(
        &mut self,
        api_version: &str,
        kind: &str,
        schema: &MessageSchema,
        bytes: &'a [u8],
    ) -> Step {
        self.object_start();
        let mut first = true;
        if !kind.is_empty() {
            self.member(&mut first, "kind");
            self.string(kind.as_bytes());
        }
        if !api_version.is_empty() {
            self.member(&mut first, "apiVersion");
            self.string(api_version.as_bytes());
        }
        self.members(schema, bytes, &mut first)?;
        self.object_end(first);
        Ok(())
    }

    /// Enters a nested message; false (and suspect) when it is nested too
    /// deep to follow.
    fn enter(&mut self) -> bool {
        self.level += 1;
        if self.checking && self.level > schema::MAX_DEPTH {
            self.level -= 1;
            self.suspect = true;
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.level -= 1;
    }

    /// Notes a message body the writer skips (a zero value left out):
    /// whether `schema::validate` would accept it is checked separately.
    fn skipped(&mut self, schema: &MessageSchema, bytes: &[u8]) {
        if !valid(schema, bytes, self.level + 1) {
            self.suspect = true;
        }
    }
}
