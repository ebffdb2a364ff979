//! JSON → protobuf in one pass over the input, byte-exact with Kubernetes'
//! Go marshaller.
//!
//! The input arrives as [`Event`]s from a [`Source`] (JSON text, YAML, a
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

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::JsonError;
use super::text::{Event, MAX_DEPTH, Reader, Text};
use kguest_wire::encode::{
    FIXED32, FIXED64, LEN, VARINT, put_key, put_varint, varint_len, zigzag32, zigzag64,
};
use kguest_wire::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};
use kguest_wire::{quantity, timefmt};

/// A number as a source hands it over: JSON text, or a value a YAML or
/// `serde_json` source already has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number<'a> {
    /// JSON number syntax.
    Text(&'a str),
    Int(i64),
    Uint(u64),
    Float(f64),
}

impl Number<'_> {
    fn as_i64(&self) -> Option<i64> {
        match *self {
            Number::Text(t) if is_integer_text(t) => t.parse().ok(),
            Number::Int(v) => Some(v),
            Number::Uint(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match *self {
            Number::Text(t) if is_integer_text(t) => t.parse().ok(),
            Number::Int(v) => u64::try_from(v).ok(),
            Number::Uint(v) => Some(v),
            _ => None,
        }
    }

    fn as_f64(&self) -> f64 {
        match *self {
            Number::Text(t) => t.parse().unwrap_or(0.0),
            Number::Int(v) => v as f64,
            Number::Uint(v) => v as f64,
            Number::Float(v) => v,
        }
    }

    /// The number as text, for error messages and quantities.
    fn write_text(&self, out: &mut String) {
        use core::fmt::Write;
        let _ = match *self {
            Number::Text(t) => out.write_str(t),
            Number::Int(v) => write!(out, "{v}"),
            Number::Uint(v) => write!(out, "{v}"),
            Number::Float(v) => {
                let mut buf = Vec::new();
                super::raw::write_f64(v, &mut buf);
                out.write_str(core::str::from_utf8(&buf).unwrap_or("0"))
            }
        };
    }

    fn text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }
}

fn is_integer_text(t: &str) -> bool {
    !t.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// Where encoder events come from: one document's worth of values in JSON's
/// shape. [`Reader`] (JSON text) is one; the `kguest-k8s` crate adds YAML.
pub trait Source<'s> {
    /// The next event of the document.
    fn next_event(&mut self) -> Result<SourceEvent<'s>, JsonError>;

    /// For a source that reads JSON text: the text of the value whose first
    /// event `first` was just read, consuming the rest of it. Embedded JSON
    /// (`RawExtension`, `FieldsV1`) is kept as written, as Go keeps the
    /// bytes its decoder hands to `UnmarshalJSON`. Other sources (YAML, a
    /// `serde_json::Value`) return `None` and the value is re-written.
    fn raw_text(&mut self, first: &SourceEvent<'s>) -> Option<Result<&'s str, JsonError>> {
        let _ = first;
        None
    }
}

/// The events a [`Source`] yields: JSON's, with numbers as [`Number`]s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SourceEvent<'s> {
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
    Key(Text<'s>),
    Null,
    Bool(bool),
    Number(Number<'s>),
    String(Text<'s>),
}

impl SourceEvent<'_> {
    fn describe(&self) -> &'static str {
        match self {
            SourceEvent::ObjectStart | SourceEvent::ObjectEnd => "an object",
            SourceEvent::ArrayStart | SourceEvent::ArrayEnd => "an array",
            SourceEvent::Key(_) => "a member name",
            SourceEvent::Null => "null",
            SourceEvent::Bool(_) => "a boolean",
            SourceEvent::Number(_) => "a number",
            SourceEvent::String(_) => "a string",
        }
    }
}

impl<'a> Source<'a> for Reader<'a> {
    fn next_event(&mut self) -> Result<SourceEvent<'a>, JsonError> {
        Ok(match Reader::next_event(self)? {
            Event::ObjectStart => SourceEvent::ObjectStart,
            Event::ObjectEnd => SourceEvent::ObjectEnd,
            Event::ArrayStart => SourceEvent::ArrayStart,
            Event::ArrayEnd => SourceEvent::ArrayEnd,
            Event::Key(t) => SourceEvent::Key(t),
            Event::Null => SourceEvent::Null,
            Event::Bool(b) => SourceEvent::Bool(b),
            Event::Number(n) => SourceEvent::Number(Number::Text(n)),
            Event::String(t) => SourceEvent::String(t),
        })
    }

    fn raw_text(&mut self, first: &SourceEvent<'a>) -> Option<Result<&'a str, JsonError>> {
        let first = match first {
            SourceEvent::ObjectStart => Event::ObjectStart,
            SourceEvent::ArrayStart => Event::ArrayStart,
            _ => Event::Null,
        };
        Some(self.value_text(first))
    }
}

/// A source with nothing in it, for values synthesised from `null`.
struct Nothing;

impl<'s> Source<'s> for Nothing {
    fn next_event(&mut self) -> Result<SourceEvent<'s>, JsonError> {
        Err(JsonError::Syntax {
            line: 0,
            column: 0,
            reason: "no input".into(),
        })
    }
}

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

    // ---- errors and paths -------------------------------------------------

    fn render_path(&self) -> String {
        let mut out = String::new();
        for part in &self.path {
            match *part {
                Part::Name(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Part::Member(start, end) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(self.names.get(start as usize..end as usize).unwrap_or(""));
                }
                Part::Index(i) => out.push_str(&format!("[{i}]")),
                Part::Key(start, end) => {
                    let key = self.names.get(start as usize..end as usize).unwrap_or("");
                    out.push_str(&format!("[{key:?}]"));
                }
            }
        }
        if out.is_empty() { ".".into() } else { out }
    }

    fn invalid(&self, reason: impl ToString) -> JsonError {
        JsonError::Invalid {
            path: self.render_path(),
            reason: reason.to_string(),
        }
    }

    fn expected(&self, what: &str, found: &SourceEvent<'_>) -> JsonError {
        self.invalid(format!("expected {what}, found {}", found.describe()))
    }

    fn push_name(&mut self, text: &Text<'_>, key: bool) {
        let start = self.names.len() as u32;
        if let Some(plain) = text.as_plain() {
            self.names.push_str(plain);
        } else {
            let mut buf = core::mem::take(&mut self.text);
            buf.clear();
            text.decode_into(&mut buf);
            self.names.push_str(&String::from_utf8_lossy(&buf));
            self.text = buf;
        }
        let end = self.names.len() as u32;
        self.path.push(if key {
            Part::Key(start, end)
        } else {
            Part::Member(start, end)
        });
    }

    fn pop_name(&mut self) {
        if let Some(Part::Member(start, _) | Part::Key(start, _)) = self.path.pop() {
            self.names.truncate(start as usize);
        }
    }

    // ---- scratch buffer ---------------------------------------------------

    fn pos(&self) -> Result<u32> {
        u32::try_from(self.raw.len()).map_err(|_| self.invalid("the object is larger than 4 GiB"))
    }

    fn raw_range(&self, start: u32, end: u32) -> &[u8] {
        self.raw.get(start as usize..end as usize).unwrap_or(&[])
    }

    fn node(&self, id: u32) -> Node {
        self.nodes.get(id as usize).copied().unwrap_or(Node {
            start: 0,
            end: 0,
            len: 0,
        })
    }

    fn chunk_len(&self, chunk: &Chunk) -> u64 {
        match chunk.body {
            Body::Null => 0,
            Body::Raw(start, end) => u64::from(end - start),
            Body::Len(start, end) => {
                let n = u64::from(end - start);
                key_len(chunk.number) + varint_len(n) as u64 + n
            }
            Body::Node(id) => {
                let n = self.node(id).len;
                key_len(chunk.number) + varint_len(n) as u64 + n
            }
        }
    }

    fn emit(&self, node: u32, out: &mut Vec<u8>) {
        let Node { start, end, .. } = self.node(node);
        for chunk in self.done.get(start as usize..end as usize).unwrap_or(&[]) {
            match chunk.body {
                Body::Null => {}
                Body::Raw(s, e) => out.extend_from_slice(self.raw_range(s, e)),
                Body::Len(s, e) => {
                    put_key(out, chunk.number, LEN);
                    put_varint(out, u64::from(e - s));
                    out.extend_from_slice(self.raw_range(s, e));
                }
                Body::Node(id) => {
                    put_key(out, chunk.number, LEN);
                    put_varint(out, self.node(id).len);
                    self.emit(id, out);
                }
            }
        }
    }

    // ---- messages ---------------------------------------------------------

    /// Encodes one message value whose first event is `first`.
    fn message<'s, S: Source<'s>>(
        &mut self,
        schema: &'static MessageSchema,
        first: SourceEvent<'s>,
        src: &mut S,
        ignore: &[&str],
    ) -> Result<Body> {
        if schema.json == JsonForm::Object {
            return self.object(schema, first, src, ignore).map(Body::Node);
        }
        let start = self.pos()?;
        self.special(schema, first, src)?;
        Ok(Body::Len(start, self.pos()?))
    }

    fn object<'s, S: Source<'s>>(
        &mut self,
        schema: &'static MessageSchema,
        first: SourceEvent<'s>,
        src: &mut S,
        ignore: &[&str],
    ) -> Result<u32> {
        // The path holds one part per enclosing container, so this bounds
        // recursion for any source and any (even recursive) schema.
        if self.path.len() >= MAX_DEPTH {
            return Err(self.invalid(format!("nested more than {MAX_DEPTH} levels deep")));
        }
        let base = self.stack.len();
        let slots_base = self.slots.len();
        match first {
            SourceEvent::Null => {}
            SourceEvent::ObjectStart => {
                let mut seq = 0u32;
                let mut cursor = 0usize;
                loop {
                    let key = match src.next_event()? {
                        SourceEvent::ObjectEnd => break,
                        SourceEvent::Key(key) => key,
                        other => return Err(self.expected("a member name", &other)),
                    };
                    seq += 1;
                    let Some((owner, field)) =
                        self.lookup(schema, slots_base, &key, &mut cursor)?
                    else {
                        if ignore.iter().any(|name| key.eq_str(name))
                            || (is_type_meta(&key) && embeds_type_meta(schema))
                        {
                            let value = src.next_event()?;
                            skip(value, src)?;
                            continue;
                        }
                        self.push_name(&key, false);
                        match self.validation {
                            FieldValidation::Strict => {
                                return Err(self.invalid("unknown field"));
                            }
                            FieldValidation::Warn => {
                                let path = self.render_path();
                                self.warnings.push(format!("unknown field \"{path}\""));
                            }
                            FieldValidation::Ignore => {}
                        }
                        self.path.pop();
                        let value = src.next_event()?;
                        skip(value, src)?;
                        continue;
                    };
                    self.path.push(Part::Name(field.json_name()));
                    let value = src.next_event()?;
                    self.member(field, owner, seq, value, src)?;
                    self.path.pop();
                }
            }
            other => return Err(self.expected("an object", &other)),
        }
        self.close(schema, base, slots_base)
    }

    /// Finds the field a member names: one of `schema`'s own, or one of a
    /// message inlined into it (opening an inline slot for it).
    fn lookup(
        &mut self,
        schema: &'static MessageSchema,
        slots_base: usize,
        key: &Text<'_>,
        cursor: &mut usize,
    ) -> Result<Option<(u8, &'static FieldSchema)>> {
        let fields = schema.fields;
        // Members usually come in field order: try from where the last one was.
        let n = fields.len();
        let from = (*cursor).min(n);
        for i in (from..n).chain(0..from) {
            let field = &fields[i];
            if !field.inline && key_matches(key, field.json_name()) {
                *cursor = i + 1;
                return Ok(Some((0, field)));
            }
        }
        self.lookup_inline(schema, 0, slots_base, key)
    }

    fn lookup_inline(
        &mut self,
        schema: &'static MessageSchema,
        parent: u8,
        slots_base: usize,
        key: &Text<'_>,
    ) -> Result<Option<(u8, &'static FieldSchema)>> {
        for field in schema.fields.iter().filter(|f| f.inline) {
            let Kind::Message(inner) = field.kind else {
                continue;
            };
            if !knows(inner, key) {
                continue;
            }
            let slot = self.slot(parent, field, slots_base)?;
            if let Some(found) = inner
                .fields
                .iter()
                .find(|f| !f.inline && key_matches(key, f.json_name()))
            {
                return Ok(Some((slot, found)));
            }
            return self.lookup_inline(inner, slot, slots_base, key);
        }
        Ok(None)
    }

    /// The inline slot for `field` of the slot `parent`, opened if needed.
    fn slot(&mut self, parent: u8, field: &'static FieldSchema, slots_base: usize) -> Result<u8> {
        let open = &self.slots[slots_base..];
        if let Some(i) = open
            .iter()
            .position(|s| s.parent == parent && core::ptr::eq(s.field, field))
        {
            return Ok((i + 1) as u8);
        }
        if open.len() >= 200 {
            return Err(self.invalid("too many inlined messages"));
        }
        self.slots.push(Slot { parent, field });
        Ok((self.slots.len() - slots_base) as u8)
    }

    fn push(&mut self, owner: u8, number: u32, seq: u32, key: MapKey, body: Body) {
        self.stack.push(Chunk {
            owner,
            number,
            seq,
            key,
            body,
        });
    }

    /// Encodes one member's value: a singular value, an array or a map.
    fn member<'s, S: Source<'s>>(
        &mut self,
        field: &'static FieldSchema,
        owner: u8,
        seq: u32,
        first: SourceEvent<'s>,
        src: &mut S,
    ) -> Result<()> {
        if first == SourceEvent::Null {
            self.push(owner, field.number, seq, MapKey::None, Body::Null);
            return Ok(());
        }
        match field.label {
            Label::Singular => {
                let body = self.value(field, first, src)?;
                self.push(owner, field.number, seq, MapKey::None, body);
            }
            Label::Repeated => {
                if first != SourceEvent::ArrayStart {
                    return Err(self.expected("an array", &first));
                }
                let mut i = 0;
                loop {
                    let item = src.next_event()?;
                    if item == SourceEvent::ArrayEnd {
                        break;
                    }
                    self.path.push(Part::Index(i));
                    let body = self.value(field, item, src)?;
                    self.path.pop();
                    self.push(owner, field.number, seq, MapKey::None, body);
                    i += 1;
                }
                if i == 0 {
                    // `[]` still replaces an earlier member of the same name.
                    self.push(owner, field.number, seq, MapKey::None, Body::Null);
                }
            }
            Label::Map => {
                if first != SourceEvent::ObjectStart {
                    return Err(self.expected("an object", &first));
                }
                self.map(field, owner, seq, src)?;
            }
        }
        Ok(())
    }

    /// A map: one entry message per member, with key and value always
    /// written, as Go does (but a nil `[]byte`); sorted by key when the
    /// parent closes.
    fn map<'s, S: Source<'s>>(
        &mut self,
        field: &'static FieldSchema,
        owner: u8,
        seq: u32,
        src: &mut S,
    ) -> Result<()> {
        let Kind::Message(entry) = field.kind else {
            return Err(self.invalid("schema error: a map field without an entry message"));
        };
        let (Some(key_field), Some(value_field)) = (entry.field(1), entry.field(2)) else {
            return Err(self.invalid("schema error: a map entry without key or value"));
        };
        let mut any = false;
        loop {
            let key = match src.next_event()? {
                SourceEvent::ObjectEnd => break,
                SourceEvent::Key(key) => key,
                other => return Err(self.expected("a member name", &other)),
            };
            any = true;
            self.push_name(&key, true);
            let sort_key = self.map_key(key_field, &key)?;
            let key_chunk = self.last_raw();
            let value = src.next_event()?;
            // Go writes a `[]byte` value only when it is not nil, and JSON
            // `null` makes it nil: the entry is its key alone.
            let nil_bytes = matches!(value_field.kind, Kind::Bytes) && value == SourceEvent::Null;
            // The value first: a message value adds its own nodes to `done`.
            let value_chunk = match nil_bytes {
                true => None,
                false => Some(Chunk {
                    owner: 0,
                    number: 2,
                    seq: 0,
                    key: MapKey::None,
                    body: self.value(value_field, value, src)?,
                }),
            };
            let start = self.done.len() as u32;
            let mut len = self.chunk_len(&key_chunk);
            self.done.push(key_chunk);
            if let Some(value_chunk) = value_chunk {
                len += self.chunk_len(&value_chunk);
                self.done.push(value_chunk);
            }
            let node = self.new_node(start, len);
            self.push(owner, field.number, seq, sort_key, Body::Node(node));
            self.pop_name();
        }
        if !any {
            self.push(owner, field.number, seq, MapKey::None, Body::Null);
        }
        Ok(())
    }

    fn new_node(&mut self, start: u32, len: u64) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            start,
            end: self.done.len() as u32,
            len,
        });
        id
    }

    /// The chunk of the key field just written by `map_key`.
    fn last_raw(&mut self) -> Chunk {
        self.stack.pop().unwrap_or(Chunk {
            owner: 0,
            number: 1,
            seq: 0,
            key: MapKey::None,
            body: Body::Null,
        })
    }

    /// Writes a map entry's key field (as a chunk on the stack, taken back
    /// by `last_raw`) and returns the entry's sort key.
    fn map_key(&mut self, field: &'static FieldSchema, key: &Text<'_>) -> Result<MapKey> {
        let start = self.pos()?;
        if let Kind::String = field.kind {
            let text_start = self.put_text(field.number, key)?;
            let end = self.pos()?;
            self.push(0, 1, 0, MapKey::None, Body::Raw(start, end));
            return Ok(MapKey::Bytes(text_start, end));
        }
        let mut buf = core::mem::take(&mut self.text);
        buf.clear();
        key.decode_into(&mut buf);
        let text = String::from_utf8_lossy(&buf).into_owned();
        self.text = buf;
        let (event, sort) = match field.kind {
            Kind::Bool => (
                SourceEvent::Bool(text == "true"),
                MapKey::Int(i64::from(text == "true")),
            ),
            Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => {
                let v: u64 = text
                    .parse()
                    .map_err(|_| self.invalid(format!("map key `{text}` is not a number")))?;
                (SourceEvent::Number(Number::Uint(v)), MapKey::Uint(v))
            }
            _ => {
                let v: i64 = text
                    .parse()
                    .map_err(|_| self.invalid(format!("map key `{text}` is not a number")))?;
                (SourceEvent::Number(Number::Int(v)), MapKey::Int(v))
            }
        };
        let body = self.value(field, event, &mut Nothing)?;
        self.push(0, 1, 0, MapKey::None, body);
        Ok(sort)
    }

    /// Sorts the open message's chunks, keeps the last member for each
    /// field, adds the zero values Go always writes, and records the node.
    fn close(
        &mut self,
        schema: &'static MessageSchema,
        base: usize,
        slots_base: usize,
    ) -> Result<u32> {
        let raw = &self.raw;
        if let Some(chunks) = self.stack.get_mut(base..) {
            chunks.sort_by(|a, b| {
                (a.owner, a.number)
                    .cmp(&(b.owner, b.number))
                    .then_with(|| compare_keys(raw, &a.key, &b.key))
                    .then(a.seq.cmp(&b.seq))
            });
        }
        let node = self.build(schema, 0, base, slots_base)?;
        self.stack.truncate(base);
        self.slots.truncate(slots_base);
        Ok(node)
    }

    /// Assembles the node of the slot `slot` (0: the message itself).
    fn build(
        &mut self,
        schema: &'static MessageSchema,
        slot: u8,
        base: usize,
        slots_base: usize,
    ) -> Result<u32> {
        // Inlined messages first, so their chunk lists are finished before
        // this one is assembled.
        let mut inlined: [(u32, u32); 4] = [(0, 0); 4];
        let mut n_inlined = 0;
        for field in schema.fields.iter().filter(|f| f.inline) {
            let Kind::Message(inner) = field.kind else {
                continue;
            };
            let open = self.slots[slots_base..]
                .iter()
                .position(|s| s.parent == slot && core::ptr::eq(s.field, field));
            let node = match open {
                Some(i) => Some(self.build(inner, (i + 1) as u8, base, slots_base)?),
                None if field.always => {
                    Some(self.object(inner, SourceEvent::Null, &mut Nothing, &[])?)
                }
                None => None,
            };
            if let (Some(node), Some(entry)) = (node, inlined.get_mut(n_inlined)) {
                *entry = (field.number, node);
                n_inlined += 1;
            }
        }

        let asm_base = self.asm.len();
        let end = self.stack.len();
        let mut i = base;
        while i < end && self.stack[i].owner < slot {
            i += 1;
        }
        let mut len = 0u64;
        for field in schema.fields {
            if field.inline {
                if let Some(&(_, node)) = inlined[..n_inlined]
                    .iter()
                    .find(|(n, _)| *n == field.number)
                {
                    let chunk = Chunk {
                        owner: slot,
                        number: field.number,
                        seq: 0,
                        key: MapKey::None,
                        body: Body::Node(node),
                    };
                    len += self.chunk_len(&chunk);
                    self.asm.push(chunk);
                }
                continue;
            }
            let run_start = i;
            while i < end && self.stack[i].owner == slot && self.stack[i].number == field.number {
                i += 1;
            }
            if i == run_start && !(field.always && field.label == Label::Singular) {
                // Not in the JSON and not written when absent: most fields.
                continue;
            }
            if i == run_start + 1 && !matches!(self.stack[run_start].body, Body::Null) {
                // One member for the field: the common case.
                let chunk = self.stack[run_start];
                len += self.chunk_len(&chunk);
                self.asm.push(chunk);
                continue;
            }
            let run = &self.stack[run_start..i];
            let first_seq = run.iter().map(|c| c.seq).min().unwrap_or(0);
            let last_seq = run.iter().map(|c| c.seq).max().unwrap_or(0);
            if first_seq != last_seq {
                self.duplicate_member(field, run_start..i)?;
            }
            let run = &self.stack[run_start..i];
            // A map takes the entries of every member after the last `null`
            // (Go merges a repeated map member into the map it has); any
            // other field keeps its last member.
            let from_seq = match field.label {
                Label::Map => run
                    .iter()
                    .filter(|c| matches!(c.body, Body::Null))
                    .map(|c| c.seq)
                    .max()
                    .unwrap_or(0),
                _ => last_seq,
            };
            let mut wrote = false;
            let mut j = run_start;
            while j < i {
                let chunk = self.stack[j];
                j += 1;
                if chunk.seq < from_seq || matches!(chunk.body, Body::Null) {
                    continue;
                }
                // Of map entries with equal keys, the last one wins (the
                // chunks are sorted by key, then by member).
                if field.label == Label::Map
                    && j < i
                    && compare_keys(&self.raw, &chunk.key, &self.stack[j].key) == Ordering::Equal
                {
                    if self.validation == FieldValidation::Strict {
                        return Err(self.duplicate_key(field, &chunk.key));
                    }
                    continue;
                }
                len += self.chunk_len(&chunk);
                self.asm.push(chunk);
                wrote = true;
            }
            if !wrote && field.always && field.label == Label::Singular {
                let body = self.value(field, SourceEvent::Null, &mut Nothing)?;
                let chunk = Chunk {
                    owner: slot,
                    number: field.number,
                    seq: 0,
                    key: MapKey::None,
                    body,
                };
                len += self.chunk_len(&chunk);
                self.asm.push(chunk);
            }
        }
        let start = self.done.len() as u32;
        self.done.extend_from_slice(&self.asm[asm_base..]);
        self.asm.truncate(asm_base);
        Ok(self.new_node(start, len))
    }

    /// A field named by more than one member of the same object. Strict
    /// decoding refuses it, as Go's does; otherwise a later member replaces
    /// an earlier one (maps merge, above), except where Go would merge two
    /// objects into one message, which kguest refuses rather than write
    /// bytes Go would not.
    fn duplicate_member(
        &mut self,
        field: &'static FieldSchema,
        run: core::ops::Range<usize>,
    ) -> Result<()> {
        let name = field.json_name();
        let run = &self.stack[run];
        let objects = run.iter().filter(|c| !matches!(c.body, Body::Null)).count();
        // A later `null` clears a pointer field but leaves a value field (Go
        // writes those always) as it was: merged state again.
        let last_is_null = run.last().is_some_and(|c| matches!(c.body, Body::Null));
        match self.validation {
            FieldValidation::Strict => {
                return Err(self.invalid(format!("duplicate field \"{name}\"")));
            }
            FieldValidation::Warn => {
                let mut path = self.render_path();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(name);
                self.warnings.push(format!("duplicate field \"{path}\""));
            }
            FieldValidation::Ignore => {}
        }
        let object = matches!(field.kind, Kind::Message(m) if matches!(m.json, JsonForm::Object));
        if field.label != Label::Singular || !object {
            return Ok(());
        }
        if objects > 1 || (field.always && last_is_null && objects > 0) {
            return Err(self.invalid(format!(
                "`{name}` appears twice: Go merges the two objects into one, which kguest does not do; \
                 write the field once"
            )));
        }
        Ok(())
    }

    /// Strict decoding's error for a map key given twice.
    fn duplicate_key(&self, field: &'static FieldSchema, key: &MapKey) -> JsonError {
        let key = match *key {
            MapKey::Bytes(start, end) => self
                .raw
                .get(start as usize..end as usize)
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default(),
            MapKey::Int(v) => v.to_string(),
            MapKey::Uint(v) => v.to_string(),
            MapKey::None => String::new(),
        };
        self.invalid(format!("duplicate field \"{}.{key}\"", field.json_name()))
    }

    // ---- values -----------------------------------------------------------

    /// Encodes one value of `field` (a singular field, an array element or
    /// a map value); `null` gives the zero value.
    fn value<'s, S: Source<'s>>(
        &mut self,
        field: &'static FieldSchema,
        first: SourceEvent<'s>,
        src: &mut S,
    ) -> Result<Body> {
        let number = field.number;
        if let Kind::Message(inner) = field.kind {
            return self.message(inner, first, src, &[]);
        }
        let start = self.pos()?;
        match field.kind {
            Kind::Message(_) => {}
            Kind::String => {
                let text = match first {
                    SourceEvent::Null => Text::plain(""),
                    SourceEvent::String(text) => text,
                    other => return Err(self.expected("a string", &other)),
                };
                self.put_text(number, &text)?;
            }
            Kind::Bytes => {
                let text = match first {
                    SourceEvent::Null => Text::plain(""),
                    SourceEvent::String(text) => text,
                    // Go's `encoding/json` also reads a `[]byte` from an array
                    // of numbers, one byte each (`null` leaves a zero).
                    SourceEvent::ArrayStart => {
                        let mut bytes = Vec::new();
                        loop {
                            let element = src.next_event()?;
                            match element {
                                SourceEvent::ArrayEnd => break,
                                SourceEvent::Null | SourceEvent::Number(_) => {
                                    bytes.push(self.int(&element, 0, 255)? as u8);
                                }
                                other => return Err(self.expected("a number in 0..=255", &other)),
                            }
                        }
                        put_key(&mut self.raw, number, LEN);
                        put_varint(&mut self.raw, bytes.len() as u64);
                        self.raw.extend_from_slice(&bytes);
                        return Ok(Body::Raw(start, self.pos()?));
                    }
                    other => return Err(self.expected("a base64 string", &other)),
                };
                let mut buf = core::mem::take(&mut self.text);
                buf.clear();
                text.decode_into(&mut buf);
                let mut decoded = Vec::with_capacity(buf.len() / 4 * 3);
                let ok = base64_decode_into(&buf, &mut decoded);
                self.text = buf;
                if !ok {
                    return Err(self.invalid("expected base64 (standard alphabet, padded)"));
                }
                put_key(&mut self.raw, number, LEN);
                put_varint(&mut self.raw, decoded.len() as u64);
                self.raw.extend_from_slice(&decoded);
            }
            Kind::Bool => {
                let flag = match first {
                    SourceEvent::Null => false,
                    SourceEvent::Bool(flag) => flag,
                    other => return Err(self.expected("a boolean", &other)),
                };
                put_key(&mut self.raw, number, VARINT);
                put_varint(&mut self.raw, u64::from(flag));
            }
            Kind::Int32 | Kind::Enum => {
                let v = self.int(&first, i64::from(i32::MIN), i64::from(i32::MAX))?;
                put_key(&mut self.raw, number, VARINT);
                put_varint(&mut self.raw, v as u64);
            }
            Kind::Int64 => {
                let v = self.int(&first, i64::MIN, i64::MAX)?;
                put_key(&mut self.raw, number, VARINT);
                put_varint(&mut self.raw, v as u64);
            }
            Kind::Sint32 => {
                let v = self.int(&first, i64::from(i32::MIN), i64::from(i32::MAX))?;
                put_key(&mut self.raw, number, VARINT);
                put_varint(&mut self.raw, zigzag32(v as i32));
            }
            Kind::Sint64 => {
                let v = self.int(&first, i64::MIN, i64::MAX)?;
                put_key(&mut self.raw, number, VARINT);
                put_varint(&mut self.raw, zigzag64(v));
            }
            Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => {
                let max = if matches!(field.kind, Kind::Uint32 | Kind::Fixed32) {
                    u64::from(u32::MAX)
                } else {
                    u64::MAX
                };
                let v = match first {
                    SourceEvent::Null => 0,
                    SourceEvent::Number(n) => n
                        .as_u64()
                        .filter(|v| *v <= max)
                        .ok_or_else(|| self.invalid(format!("{} is out of range", n.text())))?,
                    other => return Err(self.expected("a number", &other)),
                };
                match field.kind {
                    Kind::Fixed32 => {
                        put_key(&mut self.raw, number, FIXED32);
                        self.raw.extend_from_slice(&(v as u32).to_le_bytes());
                    }
                    Kind::Fixed64 => {
                        put_key(&mut self.raw, number, FIXED64);
                        self.raw.extend_from_slice(&v.to_le_bytes());
                    }
                    _ => {
                        put_key(&mut self.raw, number, VARINT);
                        put_varint(&mut self.raw, v);
                    }
                }
            }
            Kind::Sfixed32 => {
                let v = self.int(&first, i64::from(i32::MIN), i64::from(i32::MAX))?;
                put_key(&mut self.raw, number, FIXED32);
                self.raw.extend_from_slice(&(v as i32).to_le_bytes());
            }
            Kind::Sfixed64 => {
                let v = self.int(&first, i64::MIN, i64::MAX)?;
                put_key(&mut self.raw, number, FIXED64);
                self.raw.extend_from_slice(&v.to_le_bytes());
            }
            Kind::Float | Kind::Double => {
                let v = match first {
                    SourceEvent::Null => 0.0,
                    SourceEvent::Number(n) => n.as_f64(),
                    other => return Err(self.expected("a number", &other)),
                };
                if matches!(field.kind, Kind::Float) {
                    put_key(&mut self.raw, number, FIXED32);
                    self.raw.extend_from_slice(&(v as f32).to_le_bytes());
                } else {
                    put_key(&mut self.raw, number, FIXED64);
                    self.raw.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        Ok(Body::Raw(start, self.pos()?))
    }

    fn int(&self, value: &SourceEvent<'_>, min: i64, max: i64) -> Result<i64> {
        match value {
            SourceEvent::Null => Ok(0),
            SourceEvent::Number(n) => {
                n.as_i64()
                    .filter(|v| (min..=max).contains(v))
                    .ok_or_else(|| {
                        self.invalid(format!("{} is not an integer in {min}..={max}", n.text()))
                    })
            }
            other => Err(self.expected("an integer", other)),
        }
    }

    /// Writes a string field (key, length, decoded text); returns where the
    /// text starts.
    fn put_text(&mut self, number: u32, text: &Text<'_>) -> Result<u32> {
        put_key(&mut self.raw, number, LEN);
        match text.as_plain() {
            Some(plain) => {
                put_varint(&mut self.raw, plain.len() as u64);
                let at = self.pos()?;
                self.raw.extend_from_slice(plain.as_bytes());
                Ok(at)
            }
            None => {
                let mut buf = core::mem::take(&mut self.text);
                buf.clear();
                text.decode_into(&mut buf);
                put_varint(&mut self.raw, buf.len() as u64);
                let at = self.pos()?;
                self.raw.extend_from_slice(&buf);
                self.text = buf;
                Ok(at)
            }
        }
    }

    /// The decoded text of a string event, for the special forms.
    fn string_of(&mut self, text: &Text<'_>) -> String {
        let mut buf = core::mem::take(&mut self.text);
        buf.clear();
        text.decode_into(&mut buf);
        let s = String::from_utf8_lossy(&buf).into_owned();
        self.text = buf;
        s
    }

    /// Writes the body of a message whose JSON form is not an object.
    fn special<'s, S: Source<'s>>(
        &mut self,
        schema: &'static MessageSchema,
        first: SourceEvent<'s>,
        src: &mut S,
    ) -> Result<()> {
        match schema.json {
            JsonForm::Object => Err(self.invalid("schema error: an object form")),
            JsonForm::Timestamp { frac_digits } => {
                let text = match first {
                    SourceEvent::Null => return Ok(()),
                    SourceEvent::String(text) => text,
                    other => return Err(self.expected("an RFC 3339 time", &other)),
                };
                // Go's parser decides what Kubernetes accepts.
                let parsed = match text.as_plain() {
                    Some(plain) => timefmt::parse_go_time(plain.as_bytes(), frac_digits),
                    None => timefmt::parse_go_time(self.string_of(&text).as_bytes(), frac_digits),
                };
                let (seconds, nanos) = parsed.ok_or_else(|| {
                    let text = self.string_of(&text);
                    let what = match frac_digits {
                        0 => "an RFC 3339 time",
                        _ => "an RFC 3339 time with six fraction digits",
                    };
                    self.invalid(format!("`{text}` is not {what}"))
                })?;
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
                put_key(&mut self.raw, 1, VARINT);
                put_varint(&mut self.raw, seconds as u64);
                put_key(&mut self.raw, 2, VARINT);
                put_varint(&mut self.raw, i64::from(nanos) as u64);
                Ok(())
            }
            JsonForm::EmbeddedString => {
                let text = match first {
                    SourceEvent::Null => Text::plain(""),
                    SourceEvent::String(text) => text,
                    other => return Err(self.expected("a string", &other)),
                };
                self.put_text(1, &text).map(|_| ())
            }
            JsonForm::Quantity => {
                let decoded;
                let text: &str = match first {
                    SourceEvent::Null => "0",
                    // Go's `Quantity.UnmarshalJSON` reads the JSON text
                    // between the quotes as it is, without unescaping, and
                    // trims Unicode spaces around it: an escape (or a
                    // character Go's encoder escapes, from YAML) is never
                    // part of a quantity, and ` 1 ` is `1`.
                    SourceEvent::String(text) => match text.as_plain() {
                        Some(plain) if !plain.chars().any(go_escapes) => {
                            plain.trim_matches(char::is_whitespace)
                        }
                        _ => {
                            decoded = self.string_of(&text);
                            return Err(self.invalid(format!(
                                "`{decoded}` is not a quantity (an escaped character)"
                            )));
                        }
                    },
                    // Go accepts a bare JSON number for a quantity.
                    SourceEvent::Number(n) => {
                        decoded = n.text();
                        &decoded
                    }
                    other => return Err(self.expected("a quantity", &other)),
                };
                let mut buf = [0u8; 64];
                let canonical = self.canonical_quantity(text, &mut buf)?;
                self.put_text(1, &Text::plain(canonical)).map(|_| ())
            }
            JsonForm::IntOrString => {
                let (kind, int) = match first {
                    SourceEvent::Null | SourceEvent::String(_) => {
                        (u64::from(matches!(first, SourceEvent::String(_))), 0)
                    }
                    SourceEvent::Number(_) => (
                        0,
                        self.int(&first, i64::from(i32::MIN), i64::from(i32::MAX))?,
                    ),
                    other => return Err(self.expected("a number or a string", &other)),
                };
                put_key(&mut self.raw, 1, VARINT);
                put_varint(&mut self.raw, kind);
                put_key(&mut self.raw, 2, VARINT);
                put_varint(&mut self.raw, int as u64);
                let text = match first {
                    SourceEvent::String(text) => text,
                    _ => Text::plain(""),
                };
                self.put_text(3, &text).map(|_| ())
            }
            JsonForm::RawJson => {
                if first == SourceEvent::Null {
                    return Ok(());
                }
                if let Some(text) = src.raw_text(&first) {
                    let text = text?;
                    put_key(&mut self.raw, 1, LEN);
                    put_varint(&mut self.raw, text.len() as u64);
                    self.raw.extend_from_slice(text.as_bytes());
                    return Ok(());
                }
                let mut tree = core::mem::take(&mut self.tree);
                let result = tree.read(first, src, &mut self.text);
                let mut out = Vec::new();
                if let Err(reason) = result.and_then(|root| tree.write(root, &mut out)) {
                    self.tree = tree;
                    return Err(match reason {
                        super::raw::ReadError::Source(err) => err,
                        super::raw::ReadError::Invalid(reason) => self.invalid(reason),
                    });
                }
                self.tree = tree;
                put_key(&mut self.raw, 1, LEN);
                put_varint(&mut self.raw, out.len() as u64);
                self.raw.extend_from_slice(&out);
                Ok(())
            }
            JsonForm::BareArray => {
                let Some(field) = schema.fields.first() else {
                    return skip(first, src);
                };
                match first {
                    SourceEvent::Null => Ok(()),
                    SourceEvent::ArrayStart => {
                        let mut i = 0;
                        loop {
                            let item = src.next_event()?;
                            if item == SourceEvent::ArrayEnd {
                                return Ok(());
                            }
                            self.path.push(Part::Index(i));
                            let body = self.value(field, item, src)?;
                            self.path.pop();
                            // Scalars are written in place; a message item
                            // would not be, and no Kubernetes type has one.
                            if let Body::Node(_) | Body::Len(..) = body {
                                return Err(self.invalid("schema error: a bare array of messages"));
                            }
                            i += 1;
                        }
                    }
                    other => Err(self.expected("an array", &other)),
                }
            }
            JsonForm::Duration => {
                let nanos = match first {
                    SourceEvent::Null => 0,
                    SourceEvent::String(text) => {
                        let s = self.string_of(&text);
                        timefmt::parse_go_duration(s.as_bytes())
                            .ok_or_else(|| self.invalid(format!("`{s}` is not a duration")))?
                    }
                    other => return Err(self.expected("a duration string", &other)),
                };
                put_key(&mut self.raw, 1, VARINT);
                put_varint(&mut self.raw, nanos as u64);
                Ok(())
            }
        }
    }

    fn canonical_quantity<'b>(&self, text: &'b str, buf: &'b mut [u8; 64]) -> Result<&'b str> {
        quantity::reserialize(text.as_bytes(), buf)
            .map_err(|err| self.invalid(format!("`{text}` is not a quantity ({})", err.as_str())))
    }
}

/// The characters Go's `encoding/json` writes as an escape in a string.
fn go_escapes(c: char) -> bool {
    matches!(
        c,
        '\0'..='\u{1f}' | '"' | '\\' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}'
    )
}

fn key_len(number: u32) -> u64 {
    varint_len(u64::from(number) << 3) as u64
}

fn key_matches(key: &Text<'_>, name: &str) -> bool {
    match key.as_plain() {
        // Length and first byte settle most mismatches without a memcmp call.
        Some(plain) => {
            plain.len() == name.len()
                && plain.as_bytes().first() == name.as_bytes().first()
                && plain == name
        }
        None => key.eq_str(name),
    }
}

/// True when `key` names a field of `schema` or of a message inlined in it.
fn knows(schema: &MessageSchema, key: &Text<'_>) -> bool {
    schema
        .fields
        .iter()
        .any(|field| match (field.inline, field.kind) {
            (true, Kind::Message(inner)) => knows(inner, key),
            _ => key_matches(key, field.json_name()),
        })
}

fn is_type_meta(key: &Text<'_>) -> bool {
    key_matches(key, "apiVersion") || key_matches(key, "kind")
}

/// True for the messages of Kubernetes objects (those with `ObjectMeta` or
/// `ListMeta` metadata): their Go types embed `TypeMeta`, so their JSON may
/// carry `apiVersion` and `kind` (a StatefulSet's volume claim templates
/// often do), which protobuf does not keep.
fn embeds_type_meta(schema: &MessageSchema) -> bool {
    schema.fields.iter().any(|f| {
        f.json_name() == "metadata"
            && matches!(f.kind, Kind::Message(m)
                if m.name().ends_with(".v1.ObjectMeta") || m.name().ends_with(".v1.ListMeta"))
    })
}

fn compare_keys(raw: &[u8], a: &MapKey, b: &MapKey) -> Ordering {
    match (a, b) {
        (MapKey::Bytes(s1, e1), MapKey::Bytes(s2, e2)) => raw
            .get(*s1 as usize..*e1 as usize)
            .cmp(&raw.get(*s2 as usize..*e2 as usize)),
        (MapKey::Int(x), MapKey::Int(y)) => x.cmp(y),
        (MapKey::Uint(x), MapKey::Uint(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// Skips the value whose first event is `first` (an object or array
/// through its end; a scalar is already whole).
pub fn skip<'s, S: Source<'s>>(first: SourceEvent<'s>, src: &mut S) -> Result<()> {
    let mut depth = match first {
        SourceEvent::ObjectStart | SourceEvent::ArrayStart => 1usize,
        _ => return Ok(()),
    };
    while depth > 0 {
        match src.next_event()? {
            SourceEvent::ObjectStart | SourceEvent::ArrayStart => depth += 1,
            SourceEvent::ObjectEnd | SourceEvent::ArrayEnd => depth -= 1,
            _ => {}
        }
    }
    Ok(())
}

/// Decodes standard, padded base64 (what Go's `encoding/json` writes for
/// `[]byte`); `None` on anything else.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    base64_decode_into(text.as_bytes(), &mut out).then_some(out)
}

fn base64_decode_into(bytes: &[u8], out: &mut Vec<u8>) -> bool {
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
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let groups = bytes.len() / 4;
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let last = i + 1 == groups;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return false;
        }
        let mut n = 0u32;
        for &c in chunk.iter().take(4 - pad) {
            match sextet(c) {
                Some(v) => n = (n << 6) | v,
                None => return false,
            }
        }
        n <<= 6 * pad as u32;
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for input in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let encoded = super::super::output::base64(input.as_bytes());
            assert_eq!(base64_decode(&encoded).as_deref(), Some(input.as_bytes()));
        }
        for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "Zg==Zg=="] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }

    /// A schema that contains itself: only the depth limit stops the
    /// recursion, with an error instead of a stack overflow.
    #[test]
    fn recursion_is_bounded_for_any_schema() {
        use kguest_wire::schema::FieldSchema as F;
        static NODE: MessageSchema = MessageSchema::new(
            "t.Node",
            JsonForm::Object,
            &[F::new(1, "next", Label::Singular, Kind::Message(&NODE))],
        );
        let nested = |depth: usize| "{\"next\":".repeat(depth) + "{}" + &"}".repeat(depth);
        let mut encoder = Encoder::new();
        let mut out = Vec::new();
        encoder
            .encode_text(&NODE, &nested(MAX_DEPTH - 1), &[], &mut out)
            .expect("100 levels");
        struct Deep(usize);
        impl<'s> Source<'s> for Deep {
            fn next_event(&mut self) -> Result<SourceEvent<'s>> {
                self.0 += 1;
                Ok(match self.0 % 2 {
                    1 => SourceEvent::ObjectStart,
                    _ => SourceEvent::Key(Text::plain("next")),
                })
            }
        }
        let err = encoder
            .encode(&NODE, &mut Deep(0), &[], &mut out)
            .expect_err("endless");
        assert!(
            err.to_string().contains("nested more than 100 levels deep"),
            "{err}"
        );
    }
}
