//! Protobuf → JSON text, following Go's `encoding/json` rules for the Go
//! types the messages come from (see [`FieldSchema::emit_empty`]).
//!
//! Each message is scanned once: the occurrences of its fields are
//! collected into a scratch list (reused across messages) and written in
//! field order, so a field is never searched for.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::JsonError;
use super::text::{Event, Reader};
use kguest_wire::rt;
use kguest_wire::schema::{self, FieldSchema, JsonForm, Kind, Label, MessageSchema};
use kguest_wire::timefmt;
use kguest_wire::wire::{
    MAX_FIELD_NUMBER, Value, read_fixed32, read_fixed64, read_varint, zigzag32, zigzag64,
};

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

/// Reads the next field from the front of `rest`, as `wire::next_field`
/// does (it rejects what that rejects), but inlined into the writer's
/// loops: this is the writer's innermost step.
#[inline(always)]
fn next_field<'a>(rest: &mut &'a [u8]) -> Result<Option<(u32, Value<'a>)>, ()> {
    let bytes = *rest;
    if bytes.is_empty() {
        return Ok(None);
    }
    let mut pos = 0usize;
    let key = varint(bytes, &mut pos)?;
    let number = key >> 3;
    if number == 0 || number > u64::from(MAX_FIELD_NUMBER) {
        return Err(());
    }
    let value = match key & 7 {
        0 => Value::Varint(varint(bytes, &mut pos)?),
        1 => {
            let b = bytes.get(pos..pos + 8).ok_or(())?;
            pos += 8;
            Value::Fixed64(u64::from_le_bytes(b.try_into().map_err(|_| ())?))
        }
        2 => {
            let len = varint(bytes, &mut pos)?;
            let len = usize::try_from(len).map_err(|_| ())?;
            let end = pos.checked_add(len).ok_or(())?;
            let body = bytes.get(pos..end).ok_or(())?;
            pos = end;
            Value::Len(body)
        }
        5 => {
            let b = bytes.get(pos..pos + 4).ok_or(())?;
            pos += 4;
            Value::Fixed32(u32::from_le_bytes(b.try_into().map_err(|_| ())?))
        }
        _ => return Err(()),
    };
    *rest = bytes.get(pos..).unwrap_or(&[]);
    Ok(Some((number as u32, value)))
}

/// A varint at `*pos`: one byte inline, longer ones out of line.
#[inline(always)]
fn varint(bytes: &[u8], pos: &mut usize) -> Result<u64, ()> {
    match bytes.get(*pos) {
        Some(&b) if b < 0x80 => {
            *pos += 1;
            Ok(u64::from(b))
        }
        _ => varint_long(bytes, pos),
    }
}

#[inline(never)]
fn varint_long(bytes: &[u8], pos: &mut usize) -> Result<u64, ()> {
    let mut rest = bytes.get(*pos..).unwrap_or(&[]);
    let before = rest.len();
    let v = read_varint(&mut rest).map_err(|_| ())?;
    *pos += before - rest.len();
    Ok(v)
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
    entries: Vec<(&'a [u8], Option<Value<'a>>)>,
    path: Vec<&'static str>,
}

fn last_value(bytes: &[u8], number: u32) -> Option<Value<'_>> {
    rt::last(bytes, number).and_then(|raw| raw.value())
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

    // ---- layout -----------------------------------------------------------

    fn newline(&mut self) {
        if self.pretty {
            self.out.push(b'\n');
            for _ in 0..self.depth {
                self.out.extend_from_slice(b"    ");
            }
        }
    }

    fn object_start(&mut self) {
        self.out.push(b'{');
        self.depth += 1;
    }

    fn object_end(&mut self, empty: bool) {
        self.depth -= 1;
        if !empty {
            self.newline();
        }
        self.out.push(b'}');
    }

    fn array_start(&mut self) {
        self.out.push(b'[');
        self.depth += 1;
    }

    fn array_end(&mut self, empty: bool) {
        self.depth -= 1;
        if !empty {
            self.newline();
        }
        self.out.push(b']');
    }

    /// Starts the next array element.
    fn element(&mut self, first: &mut bool) {
        if !*first {
            self.out.push(b',');
        }
        *first = false;
        self.newline();
    }

    /// Starts the next object member.
    fn member(&mut self, first: &mut bool, name: &str) {
        // Schema names are plain identifiers: nothing to escape.
        debug_assert!(name.bytes().all(|b| PLAIN[usize::from(b)]), "{name}");
        self.element(first);
        let out = &mut *self.out;
        out.reserve(name.len() + 4);
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.push(b'"');
        out.push(b':');
        if self.pretty {
            out.push(b' ');
        }
    }

    fn member_bytes(&mut self, first: &mut bool, name: &[u8]) {
        self.element(first);
        self.string(name);
        self.out.push(b':');
        if self.pretty {
            self.out.push(b' ');
        }
    }

    /// A JSON string the way Go writes one: `<`, `>`, `&`, U+2028 and
    /// U+2029 escaped too, invalid UTF-8 as U+FFFD.
    fn string(&mut self, text: &[u8]) {
        if !write_go_string(text, self.out) {
            // Only `string` fields reach here with bytes that are not UTF-8.
            self.suspect = true;
        }
    }

    fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    fn int(&mut self, v: i64) {
        write_int(self.out, v);
    }

    fn uint(&mut self, v: u64) {
        write_uint(self.out, v);
    }

    /// A float as Go writes one: shortest digits, exponent form below 1e-6
    /// and from 1e21 on; non-finite values as `null`.
    #[inline(never)]
    fn float(&mut self, v: f64) {
        use core::fmt::Write;
        if !v.is_finite() {
            return self.null();
        }
        let abs = v.abs();
        let mut s = String::new();
        if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
            let _ = write!(s, "{v:e}");
            if let Some(at) = s.find('e')
                && !s[at + 1..].starts_with('-')
            {
                s.insert(at + 1, '+');
            }
        } else {
            let _ = write!(s, "{v}");
        }
        self.out.extend_from_slice(s.as_bytes());
    }

    // ---- messages ---------------------------------------------------------

    /// Collects the occurrences of `schema`'s fields in `bytes` onto the
    /// scratch list, sorted by field (wire order kept within a field);
    /// returns where they start.
    fn collect(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> usize {
        let base = self.occ.len();
        let fields = schema.fields;
        let mut rest = bytes;
        let mut cursor = 0usize;
        let mut sorted = true;
        let mut last = 0u16;
        loop {
            let (number, value) = match next_field(&mut rest) {
                Ok(Some(field)) => field,
                Ok(None) => break,
                Err(_) => {
                    self.suspect = true;
                    break;
                }
            };
            // Fields usually come in order and most are unset: step forward
            // from the previous one, and search only when that fails.
            let mut next = cursor;
            while let Some(f) = fields.get(next)
                && f.number < number
            {
                next += 1;
            }
            let index = match fields.get(next) {
                Some(f) if f.number == number => next,
                _ => match fields.binary_search_by_key(&number, |f| f.number) {
                    Ok(i) => i,
                    Err(_) => continue,
                },
            };
            cursor = index;
            if let Some(field) = fields.get(index)
                && !wire_fits(field, &value)
            {
                self.suspect = true;
            }
            let index = index as u16;
            sorted &= index >= last;
            last = index;
            self.occ.push(Occ { index, value });
        }
        if !sorted {
            // Go writes fields in order; others are checked by `validate`.
            self.suspect = true;
            self.occ[base..].sort_by_key(|o| o.index);
        }
        base
    }

    /// A nested message.
    fn message(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> Step {
        if !self.enter() {
            return Ok(());
        }
        let result = self.body(schema, bytes);
        self.leave();
        result
    }

    /// The message being written, in its JSON form.
    fn body(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> Step {
        if schema.json == JsonForm::Object {
            self.object_start();
            let mut first = true;
            self.members(schema, bytes, &mut first)?;
            self.object_end(first);
            return Ok(());
        }
        self.special(schema, bytes)
    }

    /// Writes the members of `schema`'s fields (an inlined message's join
    /// its parent's object).
    fn members(&mut self, schema: &MessageSchema, bytes: &'a [u8], first: &mut bool) -> Step {
        let base = self.collect(schema, bytes);
        let end = self.occ.len();
        let mut i = base;
        let ordered = !schema.json_order.is_empty();
        let count = if ordered {
            schema.json_order.len()
        } else {
            schema.fields.len()
        };
        for step in 0..count {
            // In number order the occurrences (sorted by field) are walked
            // once; in Go's struct order each field's run is looked up.
            let index = if ordered {
                usize::from(schema.json_order[step])
            } else {
                step
            };
            let Some(field) = schema.fields.get(index) else {
                continue;
            };
            if ordered {
                let occ = &self.occ[base..end];
                i = base + occ.partition_point(|o| usize::from(o.index) < index);
            }
            let run = i;
            while i < end && usize::from(self.occ[i].index) == index {
                i += 1;
            }
            if run == i && !field.always && !field.emit_empty {
                // Unset and not written: most fields of most messages.
                continue;
            }
            // Only messages can fail to write: name the path to them.
            let named = matches!(field.kind, Kind::Message(_));
            if named {
                self.path.push(field.json_name());
            }
            let result = if field.inline {
                if i - run > 1 {
                    self.suspect = true;
                }
                let body = match self.occ[run..i].last().map(|o| o.value) {
                    Some(Value::Len(body)) => Some(body),
                    _ => None,
                };
                match (field.kind, body) {
                    (Kind::Message(inner), Some(body)) => {
                        if self.enter() {
                            let result = self.members(inner, body, first);
                            self.leave();
                            result
                        } else {
                            Ok(())
                        }
                    }
                    (Kind::Message(inner), None) if field.always => self.members(inner, &[], first),
                    _ => Ok(()),
                }
            } else {
                self.field(field, run, i, first)
            };
            if named {
                self.path.pop();
            }
            result?;
        }
        self.occ.truncate(base);
        Ok(())
    }

    /// Writes one field whose occurrences are `occ[start..end]`.
    fn field(&mut self, field: &FieldSchema, start: usize, end: usize, first: &mut bool) -> Step {
        let name = field.json_name();
        match field.label {
            Label::Singular => {
                if end - start > 1 {
                    // Earlier occurrences are not written, so not checked.
                    self.suspect = true;
                }
                let value = self.occ[start..end].last().map(|o| o.value);
                self.singular(field, value, first)
            }
            Label::Repeated => {
                if start == end {
                    return self.absent(field, name, first);
                }
                self.member(first, name);
                self.array_start();
                let mut first_item = true;
                for i in start..end {
                    let value = self.occ[i].value;
                    self.repeated_value(field.kind, value, &mut first_item)?;
                }
                self.array_end(first_item);
                Ok(())
            }
            Label::Map => {
                if start == end {
                    return self.absent(field, name, first);
                }
                let Kind::Message(entry) = field.kind else {
                    return Ok(());
                };
                self.member(first, name);
                self.map(entry, start, end)
            }
        }
    }

    /// A field that is not set: `null` when Go writes it anyway.
    fn absent(&mut self, field: &FieldSchema, name: &str, first: &mut bool) -> Step {
        if field.emit_empty {
            self.member(first, name);
            self.null();
        }
        Ok(())
    }

    fn singular(
        &mut self,
        field: &FieldSchema,
        value: Option<Value<'a>>,
        first: &mut bool,
    ) -> Step {
        let name = field.json_name();
        match field.kind {
            Kind::Message(inner) => {
                let body = match value {
                    Some(Value::Len(body)) => Some(body),
                    _ => None,
                };
                if inner.json == JsonForm::BareArray {
                    // A Go slice type: unset is nil, set is a (maybe empty) list.
                    return match body {
                        None => self.absent(field, name, first),
                        Some(body) if !field.emit_empty && bare_array_is_empty(inner, body) => {
                            self.skipped(inner, body);
                            Ok(())
                        }
                        Some(body) => {
                            self.member(first, name);
                            self.message(inner, body)
                        }
                    };
                }
                match body {
                    // A Go struct is always written, unless `omitzero`.
                    None if field.always => {
                        if field.omit_zero {
                            return Ok(());
                        }
                        self.member(first, name);
                        self.message(inner, &[])
                    }
                    None => self.absent(field, name, first),
                    Some(body) => {
                        if field.omit_zero && is_zero(inner, body) {
                            self.skipped(inner, body);
                            return Ok(());
                        }
                        self.member(first, name);
                        self.message(inner, body)
                    }
                }
            }
            Kind::Bytes => match value {
                // `[]byte`: nil when unset, and `omitempty` drops it when empty.
                None => self.absent(field, name, first),
                Some(Value::Len(b)) if b.is_empty() && !field.emit_empty => Ok(()),
                Some(value) => {
                    self.member(first, name);
                    self.scalar(field.kind, value);
                    Ok(())
                }
            },
            _ => {
                let value = match value {
                    Some(value) => value,
                    None if field.always => zero_value(field.kind),
                    None => return self.absent(field, name, first),
                };
                // A non-pointer Go field: `omitempty` drops its zero value.
                if field.always && !field.emit_empty && scalar_is_zero(field.kind, value) {
                    return Ok(());
                }
                self.member(first, name);
                self.scalar(field.kind, value);
                Ok(())
            }
        }
    }

    fn repeated_value(&mut self, kind: Kind, value: Value<'a>, first: &mut bool) -> Step {
        match (kind, value) {
            (Kind::Message(inner), Value::Len(body)) => {
                self.element(first);
                self.message(inner, body)
            }
            (Kind::String | Kind::Bytes | Kind::Message(_), _) | (_, Value::Varint(_)) => {
                self.element(first);
                self.scalar(kind, value);
                Ok(())
            }
            (_, Value::Fixed32(_) | Value::Fixed64(_)) => {
                self.element(first);
                self.scalar(kind, value);
                Ok(())
            }
            (kind, Value::Len(mut run)) => {
                // Packed scalars.
                while !run.is_empty() {
                    let element = match kind {
                        Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => {
                            read_fixed32(&mut run).map(Value::Fixed32)
                        }
                        Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => {
                            read_fixed64(&mut run).map(Value::Fixed64)
                        }
                        _ => read_varint(&mut run).map(Value::Varint),
                    };
                    match element {
                        Ok(element) => {
                            self.element(first);
                            self.scalar(kind, element);
                        }
                        Err(_) => {
                            self.suspect = true;
                            break;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// A map: entries sorted by key as Go writes them; of repeated keys the
    /// last wins.
    // `map`, `special` and `float` are kept out of `members`, which the
    // common fields go through, so that it stays small.
    #[inline(never)]
    fn map(&mut self, entry: &MessageSchema, start: usize, end: usize) -> Step {
        let key_kind = entry.field(1).map(|f| f.kind).unwrap_or(Kind::String);
        let value_field = entry.field(2);
        let string_keys = matches!(key_kind, Kind::String);
        let base = self.entries.len();
        for i in start..end {
            let Value::Len(entry_bytes) = self.occ[i].value else {
                continue;
            };
            let Some((key, value)) = entry_fields(entry, entry_bytes) else {
                // Malformed, or not as Go writes entries: `validate` decides.
                self.suspect = true;
                continue;
            };
            // String keys sort as bytes; other keys are re-read from the entry.
            let sort = if string_keys {
                match key {
                    Some(Value::Len(k)) => k,
                    _ => &[],
                }
            } else {
                entry_bytes
            };
            self.entries.push((sort, value));
        }
        let numeric = |bytes: &[u8]| -> i128 {
            match last_value(bytes, 1) {
                Some(Value::Varint(v)) => match key_kind {
                    Kind::Int32 | Kind::Enum => i128::from(v as i32),
                    Kind::Int64 => i128::from(v as i64),
                    Kind::Sint32 => i128::from(zigzag32(v)),
                    Kind::Sint64 => i128::from(zigzag64(v)),
                    _ => i128::from(v),
                },
                Some(Value::Fixed32(v)) => match key_kind {
                    Kind::Sfixed32 => i128::from(v as i32),
                    _ => i128::from(v),
                },
                Some(Value::Fixed64(v)) => match key_kind {
                    Kind::Sfixed64 => i128::from(v as i64),
                    _ => i128::from(v),
                },
                _ => 0,
            }
        };
        if string_keys {
            self.entries[base..].sort_by(|a, b| a.0.cmp(b.0));
        } else {
            self.entries[base..].sort_by_key(|e| numeric(e.0));
        }
        self.object_start();
        let mut first = true;
        let n = self.entries.len();
        for i in base..n {
            let (key, value) = self.entries[i];
            let same_as_next = i + 1 < n && {
                let next = self.entries[i + 1].0;
                if string_keys {
                    next == key
                } else {
                    numeric(next) == numeric(key)
                }
            };
            if same_as_next {
                // A repeated key: the earlier entry's value is not written.
                self.suspect = true;
                continue;
            }
            self.element(&mut first);
            if string_keys {
                self.string(key);
            } else {
                let mut text = Vec::new();
                match key_kind {
                    Kind::Bool => {
                        text.extend_from_slice(if numeric(key) != 0 { b"true" } else { b"false" })
                    }
                    _ => {
                        let v = numeric(key);
                        if v < 0 {
                            write_int(&mut text, v as i64);
                        } else {
                            write_uint(&mut text, v as u64);
                        }
                    }
                }
                self.string(&text);
            }
            self.out.push(b':');
            if self.pretty {
                self.out.push(b' ');
            }
            match (value_field, value) {
                (Some(f), Some(Value::Len(body))) if matches!(f.kind, Kind::Message(_)) => {
                    if let Kind::Message(inner) = f.kind {
                        // The entry is a message too: its value is two deeper.
                        if self.enter() {
                            let result = self.message(inner, body);
                            self.leave();
                            result?;
                        }
                    }
                }
                (Some(f), Some(value)) => self.scalar(f.kind, value),
                (Some(f), None) => match f.kind {
                    Kind::Message(inner) => self.message(inner, &[])?,
                    kind => self.scalar(kind, zero_value(kind)),
                },
                (None, _) => self.null(),
            }
        }
        self.object_end(first);
        self.entries.truncate(base);
        Ok(())
    }

    fn scalar(&mut self, kind: Kind, value: Value<'_>) {
        match (kind, value) {
            (Kind::Int32 | Kind::Enum, Value::Varint(v)) => self.int(i64::from(v as i32)),
            (Kind::Int64, Value::Varint(v)) => self.int(v as i64),
            (Kind::Uint32, Value::Varint(v)) => self.uint(u64::from(v as u32)),
            (Kind::Uint64, Value::Varint(v)) => self.uint(v),
            (Kind::Sint32, Value::Varint(v)) => self.int(i64::from(zigzag32(v))),
            (Kind::Sint64, Value::Varint(v)) => self.int(zigzag64(v)),
            (Kind::Bool, Value::Varint(v)) => {
                self.out
                    .extend_from_slice(if v != 0 { b"true" } else { b"false" })
            }
            (Kind::Fixed32, Value::Fixed32(v)) => self.uint(u64::from(v)),
            (Kind::Sfixed32, Value::Fixed32(v)) => self.int(i64::from(v as i32)),
            (Kind::Float, Value::Fixed32(v)) => self.float(f64::from(f32::from_bits(v))),
            (Kind::Fixed64, Value::Fixed64(v)) => self.uint(v),
            (Kind::Sfixed64, Value::Fixed64(v)) => self.int(v as i64),
            (Kind::Double, Value::Fixed64(v)) => self.float(f64::from_bits(v)),
            (Kind::String, Value::Len(b)) => self.string(b),
            (Kind::Bytes, Value::Len(b)) => {
                self.out.push(b'"');
                base64_into(b, self.out);
                self.out.push(b'"');
            }
            _ => self.null(),
        }
    }

    /// Messages whose JSON form is not an object of their fields.
    #[inline(never)]
    fn special(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> Step {
        // One scan finds the last value of fields 1 to 3 (all these forms
        // read) and checks every field as `validate` would.
        let mut last: [Option<Value<'a>>; 4] = [None; 4];
        let mut rest = bytes;
        loop {
            match next_field(&mut rest) {
                Ok(Some((number, value))) => {
                    if let Some(field) = schema.field(number)
                        && !value_valid(field, value, self.level)
                    {
                        self.suspect = true;
                    }
                    if let Some(slot) = last.get_mut(number as usize) {
                        *slot = Some(value);
                    }
                }
                Ok(None) => break,
                Err(()) => {
                    self.suspect = true;
                    break;
                }
            }
        }
        let varint_field = |n: usize| match last.get(n) {
            Some(Some(Value::Varint(v))) => *v,
            _ => 0,
        };
        let bytes_field = |n: usize| match last.get(n) {
            Some(Some(Value::Len(b))) => Some(*b),
            _ => None,
        };
        match schema.json {
            JsonForm::Object => self.body(schema, bytes)?,
            JsonForm::Timestamp { frac_digits } => {
                let seconds = varint_field(1) as i64;
                let nanos = varint_field(2) as i32;
                // Go writes its zero time as an empty message; older writers
                // used the zero time's Unix seconds.
                if bytes.is_empty() || (seconds == timefmt::MIN_SECONDS && nanos == 0) {
                    self.null();
                    return Ok(());
                }
                let mut buf = [0u8; 40];
                match timefmt::format_rfc3339(seconds, nanos, frac_digits, &mut buf) {
                    Some(text) => self.string(text.as_bytes()),
                    None => {
                        let err = self.unrepresentable("time outside years 1 to 9999");
                        return Err(self.stop(err));
                    }
                }
            }
            JsonForm::EmbeddedString => {
                let text = bytes_field(1).unwrap_or(b"");
                self.string(text);
            }
            JsonForm::Quantity => {
                let text = bytes_field(1).unwrap_or(b"");
                if text.is_empty() {
                    self.string(b"0");
                } else {
                    let mut buf = [0u8; 64];
                    let canonical = match kguest_wire::quantity::reserialize(text, &mut buf) {
                        Ok(canonical) => canonical,
                        Err(err) => {
                            let err = self.unrepresentable(alloc::format!(
                                "quantity `{}`: {}",
                                String::from_utf8_lossy(text),
                                err.as_str()
                            ));
                            return Err(self.stop(err));
                        }
                    };
                    self.string(canonical.as_bytes());
                }
            }
            JsonForm::IntOrString => {
                if varint_field(1) == 1 {
                    let text = bytes_field(3).unwrap_or(b"");
                    self.string(text);
                } else {
                    self.int(i64::from(varint_field(2) as i32));
                }
            }
            JsonForm::RawJson => match bytes_field(1) {
                None | Some([]) => self.null(),
                Some(raw) if raw.starts_with(b"k8s\0") => self.embedded_object(raw)?,
                Some(raw) => self.embedded_json(raw)?,
            },
            JsonForm::BareArray => {
                self.array_start();
                let mut first = true;
                if let Some(field) = schema.fields.first() {
                    let mut rest = bytes;
                    while let Ok(Some((number, value))) = next_field(&mut rest) {
                        if number == field.number {
                            self.repeated_value(field.kind, value, &mut first)?;
                        }
                    }
                }
                self.array_end(first);
            }
            JsonForm::Duration => {
                let mut buf = [0u8; 40];
                let text = timefmt::format_go_duration(varint_field(1) as i64, &mut buf);
                self.string(text.as_bytes());
            }
        }
        Ok(())
    }

    /// Embedded JSON text, re-laid-out in the writer's style (member order
    /// kept, as Go compacts a `MarshalJSON` result).
    fn embedded_json(&mut self, raw: &[u8]) -> Step {
        let result = self.embedded_text(raw);
        result.map_err(|err| self.stop(err))
    }

    fn embedded_text(&mut self, raw: &[u8]) -> Result<(), JsonError> {
        let text = core::str::from_utf8(raw)
            .map_err(|_| self.unrepresentable("embedded JSON: not UTF-8"))?;
        let mut reader = Reader::new(text);
        let fail = |this: &Self, err: JsonError| {
            this.unrepresentable(alloc::format!("embedded JSON: {err}"))
        };
        let first = reader.next_event().map_err(|err| fail(self, err))?;
        self.embedded_value(&mut reader, first)
            .map_err(|err| fail(self, err))?;
        reader.finish().map_err(|err| fail(self, err))
    }

    fn embedded_value(
        &mut self,
        reader: &mut Reader<'_>,
        first: Event<'_>,
    ) -> Result<(), JsonError> {
        let mut buf = Vec::new();
        match first {
            Event::ObjectStart => {
                self.object_start();
                let mut first = true;
                while let Event::Key(t) = reader.next_event()? {
                    buf.clear();
                    t.decode_into(&mut buf);
                    self.member_bytes(&mut first, &buf);
                    let value = reader.next_event()?;
                    self.embedded_value(reader, value)?;
                }
                self.object_end(first);
            }
            Event::ArrayStart => {
                self.array_start();
                let mut first = true;
                loop {
                    let item = reader.next_event()?;
                    if item == Event::ArrayEnd {
                        break;
                    }
                    self.element(&mut first);
                    self.embedded_value(reader, item)?;
                }
                self.array_end(first);
            }
            Event::Null => self.null(),
            Event::Bool(b) => self
                .out
                .extend_from_slice(if b { b"true" } else { b"false" }),
            Event::Number(n) => self.out.extend_from_slice(n.as_bytes()),
            Event::String(t) => {
                t.decode_into(&mut buf);
                self.string(&buf);
            }
            Event::ObjectEnd | Event::ArrayEnd | Event::Key(_) => {}
        }
        Ok(())
    }

    /// A protobuf object embedded in a `RawExtension`: written as its JSON,
    /// with `kind` and `apiVersion`, when the resolver knows its type.
    fn embedded_object(&mut self, raw: &'a [u8]) -> Step {
        let unknown = raw.get(4..).unwrap_or(&[]);
        let type_meta = match last_value(unknown, 1) {
            Some(Value::Len(t)) => t,
            _ => &[],
        };
        let text = |bytes: &'a [u8], n| rt::get::<kguest_wire::codec::Str>(bytes, n).unwrap_or("");
        let (api_version, kind) = (text(type_meta, 1), text(type_meta, 2));
        let body = rt::get::<kguest_wire::codec::Bytes>(unknown, 2).unwrap_or(b"");
        let schema = self.resolver.and_then(|resolve| resolve(api_version, kind));
        let Some(schema) = schema else {
            let err = self.unrepresentable(alloc::format!(
                "embedded protobuf object of unknown type `{api_version}` / `{kind}`"
            ));
            return Err(self.stop(err));
        };
        if let Err(err) = schema::validate(schema, body) {
            return Err(self.stop(err.into()));
        }
        self.typed_object(api_version, kind, schema, body)
    }
}

fn write_int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    write_uint(out, v.unsigned_abs());
}

fn write_uint(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 20];
    let mut n = v;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// The key and value of a map entry as Go writes one (each at most once, of
/// the entry's wire types), or `None` when the entry is malformed or has
/// repeated fields (which `validate` judges).
fn entry_fields<'a>(
    entry: &MessageSchema,
    bytes: &'a [u8],
) -> Option<(Option<Value<'a>>, Option<Value<'a>>)> {
    let (mut key, mut value) = (None, None);
    let mut rest = bytes;
    while let Some((number, v)) = next_field(&mut rest).ok()? {
        let slot = match number {
            1 => &mut key,
            2 => &mut value,
            _ => match entry.field(number) {
                Some(field) if !value_valid(field, v, 0) => return None,
                _ => continue,
            },
        };
        if slot.is_some() {
            return None;
        }
        let field = entry.field(number)?;
        if !wire_fits(field, &v) {
            return None;
        }
        *slot = Some(v);
    }
    Some((key, value))
}

/// Whether `value` has the wire type `field` is read with: its own, or a
/// packed run for a repeated scalar (whose contents are read later).
fn wire_fits(field: &FieldSchema, value: &Value<'_>) -> bool {
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
fn valid(schema: &MessageSchema, bytes: &[u8], depth: u32) -> bool {
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
fn value_valid(field: &FieldSchema, value: Value<'_>, depth: u32) -> bool {
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

fn zero_value(kind: Kind) -> Value<'static> {
    match kind {
        Kind::Fixed32 | Kind::Sfixed32 | Kind::Float => Value::Fixed32(0),
        Kind::Fixed64 | Kind::Sfixed64 | Kind::Double => Value::Fixed64(0),
        Kind::String | Kind::Bytes | Kind::Message(_) => Value::Len(&[]),
        _ => Value::Varint(0),
    }
}

fn scalar_is_zero(kind: Kind, value: Value<'_>) -> bool {
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

fn bare_array_is_empty(schema: &MessageSchema, bytes: &[u8]) -> bool {
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

/// The bytes Go writes unchanged inside a string: printable ASCII except
/// `"`, `\\`, `<`, `>` and `&`.
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 0x80 {
        table[b] = !matches!(b as u8, b'"' | b'\\' | b'<' | b'>' | b'&');
        b += 1;
    }
    table
};

/// Writes `text` as a JSON string the way Go's `encoding/json` does;
/// returns false when `text` is not UTF-8 (the bad bytes are written as
/// U+FFFD).
pub(crate) fn write_go_string(text: &[u8], out: &mut Vec<u8>) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut utf8 = true;
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    loop {
        i = plain_run(text, i);
        let Some(&b) = text.get(i) else {
            break;
        };
        if b < 0x80 {
            let escape: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                // Go 1.22 and later (the Go judge runs 1.26).
                0x08 => b"\\b",
                0x0c => b"\\f",
                b'<' | b'>' | b'&' | 0..=0x1f => b"",
                _ => {
                    i += 1;
                    continue;
                }
            };
            out.extend_from_slice(&text[start..i]);
            if escape.is_empty() {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            } else {
                out.extend_from_slice(escape);
            }
            i += 1;
            start = i;
            continue;
        }
        // Multi-byte: U+2028 and U+2029 are escaped, invalid bytes replaced.
        let width = match b {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 0,
        };
        let valid = width > 0
            && text
                .get(i..i + width)
                .is_some_and(|s| core::str::from_utf8(s).is_ok());
        if !valid {
            utf8 = false;
            out.extend_from_slice(&text[start..i]);
            out.extend_from_slice("\u{fffd}".as_bytes());
            i += 1;
            start = i;
            continue;
        }
        if width == 3
            && b == 0xe2
            && text[i + 1] == 0x80
            && (text[i + 2] == 0xa8 || text[i + 2] == 0xa9)
        {
            out.extend_from_slice(&text[start..i]);
            out.extend_from_slice(if text[i + 2] == 0xa8 {
                b"\\u2028"
            } else {
                b"\\u2029"
            });
            i += 3;
            start = i;
            continue;
        }
        i += width;
    }
    out.extend_from_slice(&text[start..]);
    out.push(b'"');
    utf8
}

/// The offset of the first byte at or after `i` that Go does not write
/// unchanged in a string (see `PLAIN`), or the end. Eight bytes at a time:
/// each test flags the bytes it matches, falsely only above a real match,
/// so the lowest flagged byte is always a real one.
#[inline(always)]
fn plain_run(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let equal = |w: u64, c: u8| {
        let x = w ^ (ONES * u64::from(c));
        x.wrapping_sub(ONES) & !x
    };
    let flags = |chunk: &[u8]| {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        (w | (w.wrapping_sub(ONES * 0x20) & !w)
            | equal(w, b'"')
            | equal(w, b'\\')
            | equal(w, b'<')
            | equal(w, b'>')
            | equal(w, b'&'))
            & HIGH
    };
    while let Some(chunk) = text.get(i..i + 8) {
        let flagged = flags(chunk);
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while text.get(i).is_some_and(|&b| PLAIN[usize::from(b)]) {
        i += 1;
    }
    i
}

/// Standard base64 with padding, as Go's `encoding/json` writes `[]byte`.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    base64_into(bytes, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn base64_into(bytes: &[u8], out: &mut Vec<u8>) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want);
        }
    }

    #[test]
    fn strings_are_escaped_as_go_does() {
        let mut out = Vec::new();
        write_go_string("a\"<b>&\u{2028}\t\u{1}é".as_bytes(), &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"\u003cb\u003e\u0026\u2028\t\u0001é""#
        );
        // Backspace and form feed have short escapes since Go 1.22 (the
        // Go fuzz oracle's StatefulSet `updateRevision`).
        let mut out = Vec::new();
        write_go_string(b"1\x08\x0c\x0b", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#""1\b\f\u000b""#);
        let mut out = Vec::new();
        write_go_string(b"a\xffb", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "\"a\u{fffd}b\"");
    }

    /// Go's rules one byte (or character) at a time, as the reference for
    /// the word-at-a-time writer.
    fn reference(text: &[u8]) -> (Vec<u8>, bool) {
        let mut out = alloc::vec![b'"'];
        let mut utf8 = true;
        let mut rest = text;
        while !rest.is_empty() {
            let ch = match core::str::from_utf8(&rest[..rest.len().min(4)]) {
                Ok(s) => s.chars().next(),
                Err(e) if e.valid_up_to() > 0 => core::str::from_utf8(&rest[..e.valid_up_to()])
                    .ok()
                    .and_then(|s| s.chars().next()),
                Err(_) => None,
            };
            let Some(ch) = ch else {
                utf8 = false;
                out.extend_from_slice("\u{fffd}".as_bytes());
                rest = &rest[1..];
                continue;
            };
            match ch {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\u{8}' => out.extend_from_slice(b"\\b"),
                '\u{c}' => out.extend_from_slice(b"\\f"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' | '\0'..='\u{1f}' => {
                    out.extend_from_slice(alloc::format!("\\u{:04x}", u32::from(ch)).as_bytes())
                }
                _ => out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
            }
            rest = &rest[ch.len_utf8()..];
        }
        out.push(b'"');
        (out, utf8)
    }

    #[test]
    fn strings_match_the_byte_at_a_time_rules_at_every_offset() {
        let specials: [&[u8]; 14] = [
            b"\x08",
            b"\x0c",
            b"\"",
            b"\\",
            b"<",
            b">",
            b"&",
            b"\n",
            b"\x01",
            b"\x7f",
            "\u{e9}".as_bytes(),
            "\u{2028}".as_bytes(),
            "\u{1f600}".as_bytes(),
            b"\xff",
        ];
        for special in specials {
            for before in 0..20 {
                for after in [0, 1, 7, 8, 9, 17] {
                    let mut text = alloc::vec![b'a'; before];
                    text.extend_from_slice(special);
                    text.extend(core::iter::repeat_n(b'z', after));
                    let mut out = Vec::new();
                    let utf8 = write_go_string(&text, &mut out);
                    assert_eq!((out, utf8), reference(&text), "{text:?}");
                }
            }
        }
    }
}

/// One test per Go `encoding/json` rule, on a schema built for it.
#[cfg(test)]
mod go_rules {
    use super::*;
    use crate::from_json_text;
    use kguest_wire::schema::{FieldSchema as F, JsonForm, Kind, Label, MessageSchema};

    static INNER: MessageSchema = MessageSchema::new(
        "t.Inner",
        JsonForm::Object,
        &[F::new(1, "n", Label::Singular, Kind::Int32).always()],
    );
    static TIME: MessageSchema = MessageSchema::new(
        "t.Time",
        JsonForm::Timestamp { frac_digits: 0 },
        &[
            F::new(1, "seconds", Label::Singular, Kind::Int64),
            F::new(2, "nanos", Label::Singular, Kind::Int32),
        ],
    );
    static QUANTITY: MessageSchema = MessageSchema::new(
        "t.Quantity",
        JsonForm::Quantity,
        &[F::new(1, "string", Label::Singular, Kind::String)],
    );
    static ENTRY: MessageSchema = MessageSchema::new(
        "t.Entry",
        JsonForm::Object,
        &[
            F::new(1, "key", Label::Singular, Kind::String).always(),
            F::new(2, "value", Label::Singular, Kind::String).always(),
        ],
    );
    static OUTER: MessageSchema = MessageSchema::new(
        "t.Outer",
        JsonForm::Object,
        &[
            // int32 `json:"a,omitempty"`
            F::new(1, "omitInt", Label::Singular, Kind::Int32).always(),
            // int32 `json:"b"`
            F::new(2, "keepInt", Label::Singular, Kind::Int32)
                .always()
                .emit_empty(),
            // *int32 `json:"c,omitempty"`
            F::new(3, "ptrInt", Label::Singular, Kind::Int32),
            // *string `json:"d"`
            F::new(4, "ptrKeep", Label::Singular, Kind::String).emit_empty(),
            F::new(5, "list", Label::Repeated, Kind::String),
            F::new(6, "listKeep", Label::Repeated, Kind::String).emit_empty(),
            F::new(7, "map", Label::Map, Kind::Message(&ENTRY)),
            F::new(8, "mapKeep", Label::Map, Kind::Message(&ENTRY)).emit_empty(),
            // Inner `json:"inner,omitempty"`: a struct, always written.
            F::new(9, "inner", Label::Singular, Kind::Message(&INNER)).always(),
            F::new(10, "innerPtr", Label::Singular, Kind::Message(&INNER)),
            // metav1.Time `json:"time,omitempty"`
            F::new(11, "time", Label::Singular, Kind::Message(&TIME)).always(),
            // metav1.Time `json:"zeroTime,omitempty,omitzero"`
            F::new(12, "zeroTime", Label::Singular, Kind::Message(&TIME))
                .always()
                .omit_zero(),
            F::new(13, "bytes", Label::Singular, Kind::Bytes),
            F::new(14, "bytesKeep", Label::Singular, Kind::Bytes).emit_empty(),
            F::new(15, "flag", Label::Singular, Kind::Bool).always(),
            F::new(16, "flagKeep", Label::Singular, Kind::Bool)
                .always()
                .emit_empty(),
            F::new(17, "text", Label::Singular, Kind::String).always(),
            F::new(18, "textKeep", Label::Singular, Kind::String)
                .always()
                .emit_empty(),
            // resource.Quantity `json:"q,omitempty"`: a struct, written as "0".
            F::new(19, "q", Label::Singular, Kind::Message(&QUANTITY)).always(),
        ],
    );

    /// JSON in, Go's JSON out (compact).
    fn round(json: &str) -> String {
        let bytes = from_json_text(&OUTER, json).expect("encodes");
        let mut out = Vec::new();
        write_json(&OUTER, &bytes, WriteOptions::default(), &mut out).expect("decodes");
        String::from_utf8(out).expect("UTF-8")
    }

    /// What every field writes when it is empty.
    const EMPTY: &str = r#"{"keepInt":0,"ptrKeep":null,"listKeep":null,"mapKeep":null,"inner":{},"time":null,"bytesKeep":null,"flagKeep":false,"textKeep":"","q":"0"}"#;

    #[test]
    fn empty_fields_follow_their_tags() {
        assert_eq!(round("{}"), EMPTY);
    }

    #[test]
    fn omitempty_leaves_out_zero_values_even_when_set() {
        let json = r#"{"omitInt":0,"flag":false,"text":"","list":[],"map":{},"bytes":""}"#;
        assert_eq!(round(json), EMPTY);
    }

    #[test]
    fn without_omitempty_zero_values_are_written() {
        let json = r#"{"keepInt":0,"flagKeep":false,"textKeep":""}"#;
        assert_eq!(round(json), EMPTY);
    }

    #[test]
    fn set_pointers_are_written_even_when_zero() {
        let out = round(r#"{"ptrInt":0,"ptrKeep":"","innerPtr":{}}"#);
        assert!(out.contains(r#""ptrInt":0"#), "{out}");
        assert!(out.contains(r#""ptrKeep":"""#), "{out}");
        assert!(out.contains(r#""innerPtr":{}"#), "{out}");
    }

    #[test]
    fn unset_pointers_are_left_out_or_null() {
        let out = round("{}");
        assert!(
            !out.contains("ptrInt") && !out.contains("innerPtr"),
            "{out}"
        );
        assert!(out.contains(r#""ptrKeep":null"#), "{out}");
    }

    #[test]
    fn structs_are_written_even_with_omitempty() {
        assert!(round("{}").contains(r#""inner":{}"#));
        assert!(round("{}").contains(r#""q":"0""#));
    }

    #[test]
    fn a_zero_time_is_null_unless_omitzero() {
        let out = round(r#"{"time":null,"zeroTime":null}"#);
        assert!(out.contains(r#""time":null"#), "{out}");
        assert!(!out.contains("zeroTime"), "{out}");
        let out = round(r#"{"zeroTime":"2024-05-01T10:00:00Z"}"#);
        assert!(
            out.contains(r#""zeroTime":"2024-05-01T10:00:00Z""#),
            "{out}"
        );
    }

    #[test]
    fn empty_slices_and_maps_are_null_or_left_out() {
        let out = round(r#"{"list":[],"listKeep":[],"map":{},"mapKeep":{}}"#);
        // Protobuf cannot tell an empty list from none: Go reads back nil.
        assert!(
            out.contains(r#""listKeep":null"#) && out.contains(r#""mapKeep":null"#),
            "{out}"
        );
        assert!(
            !out.contains(r#""list""#) && !out.contains(r#""map""#),
            "{out}"
        );
        let out = round(r#"{"list":["a"],"mapKeep":{"b":"2","a":"1"}}"#);
        assert!(out.contains(r#""list":["a"]"#), "{out}");
        assert!(out.contains(r#""mapKeep":{"a":"1","b":"2"}"#), "{out}");
    }

    #[test]
    fn empty_bytes_are_empty_strings_unless_omitempty() {
        let out = round(r#"{"bytes":"","bytesKeep":""}"#);
        assert!(out.contains(r#""bytesKeep":"""#), "{out}");
        assert!(!out.contains(r#""bytes""#), "{out}");
        assert!(round(r#"{"bytes":"AQ=="}"#).contains(r#""bytes":"AQ==""#));
    }

    #[test]
    fn text_is_escaped_and_laid_out_as_go_does() {
        let bytes =
            from_json_text(&OUTER, r#"{"text":"<a&b>","list":["x","y"]}"#).expect("encodes");
        let mut out = Vec::new();
        let options = WriteOptions {
            style: Style::Pretty,
            resolver: None,
        };
        write_json(&OUTER, &bytes, options, &mut out).expect("decodes");
        let text = String::from_utf8(out).expect("UTF-8");
        assert!(
            text.contains("    \"list\": [\n        \"x\",\n        \"y\"\n    ],"),
            "{text}"
        );
        assert!(text.contains(r#""text": "\u003ca\u0026b\u003e""#), "{text}");
        assert!(text.contains("    \"mapKeep\": null,\n"), "{text}");
    }

    static DEEP: MessageSchema = MessageSchema::new(
        "t.Deep",
        JsonForm::Object,
        &[F::new(1, "next", Label::Singular, Kind::Message(&DEEP))],
    );

    /// Messages nested `levels` deep.
    fn nested(levels: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        for _ in 0..levels {
            let mut outer = alloc::vec![0x0a];
            kguest_wire::encode::put_varint(&mut outer, bytes.len() as u64);
            outer.extend_from_slice(&bytes);
            bytes = outer;
        }
        bytes
    }

    #[test]
    fn malformed_bytes_get_the_validators_error_and_no_output() {
        let good = from_json_text(
            &OUTER,
            r#"{"omitInt":3,"keepInt":-2,"ptrInt":7,"ptrKeep":"p","list":["a","bc"],
                "listKeep":["x"],"map":{"k":"v","a":"b"},"mapKeep":{"m":"n"},"inner":{"n":4},
                "innerPtr":{"n":5},"time":"2024-05-01T10:00:00Z",
                "zeroTime":"2024-05-01T10:00:00Z","bytes":"AQI=","flag":true,"text":"t\u00e9",
                "q":"1500m"}"#,
        )
        .expect("encodes");
        let mut cases = Vec::new();
        for i in 0..good.len() {
            cases.push(good[..i].to_vec());
            for b in [
                0x00, 0x01, 0x07, 0x7f, 0x80, 0xc3, 0xff, 0x08, 0x0a, 0x12, 0x1a,
            ] {
                let mut bad = good.clone();
                bad[i] = b;
                cases.push(bad);
            }
        }
        let mut rejected = 0;
        for bytes in &cases {
            let mut out = b"[".to_vec();
            let got = write_json(&OUTER, bytes, WriteOptions::default(), &mut out);
            match schema::validate(&OUTER, bytes) {
                Err(err) => {
                    rejected += 1;
                    assert_eq!(got, Err(JsonError::Decode(err)), "{bytes:02x?}");
                    assert_eq!(out, b"[", "{bytes:02x?}");
                }
                Ok(()) => {
                    // What the writer gives without its checks.
                    let mut want = b"[".to_vec();
                    let options = WriteOptions::default();
                    let (result, _) =
                        write_checked("", "", &OUTER, bytes, options, &mut want, false);
                    assert_eq!(got, result, "{bytes:02x?}");
                    assert_eq!(out, want, "{bytes:02x?}");
                }
            }
        }
        assert!(
            rejected > good.len(),
            "{rejected} of {} rejected",
            cases.len()
        );
    }

    #[test]
    fn nesting_deeper_than_validate_follows_is_its_error() {
        let bytes = nested(150);
        let want = schema::validate(&DEEP, &bytes).expect_err("too deep");
        assert_eq!(want.kind, kguest_wire::ErrorKind::TooDeep);
        let mut out = Vec::new();
        let got = write_json(&DEEP, &bytes, WriteOptions::default(), &mut out);
        assert_eq!(got, Err(JsonError::Decode(want)));
        assert!(out.is_empty());
        // As deep as `validate` allows is written.
        let bytes = nested(usize::try_from(schema::MAX_DEPTH).unwrap());
        write_json(&DEEP, &bytes, WriteOptions::default(), &mut out).expect("writes");
        assert!(
            out.ends_with(&[b'}'; 101]),
            "{}",
            String::from_utf8_lossy(&out)
        );
    }

    #[test]
    fn is_zero_follows_go() {
        assert!(is_zero(&INNER, &[]));
        assert!(is_zero(&INNER, &[0x08, 0x00]));
        assert!(!is_zero(&INNER, &[0x08, 0x01]));
        assert!(is_zero(&TIME, &[]));
        assert!(!is_zero(&TIME, &[0x08, 0x01]));
        assert!(is_zero(&QUANTITY, &[0x0a, 0x01, b'0']));
        assert!(!is_zero(&QUANTITY, &[0x0a, 0x01, b'1']));
    }
}
