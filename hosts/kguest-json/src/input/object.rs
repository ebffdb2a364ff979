//! JSON objects as messages: finding the field a member names (inlined
//! messages included), arrays of values, and maps with their keys.

use alloc::format;
use alloc::string::String;

use super::source::{Nothing, Number, Source, SourceEvent, skip};
use super::{Body, Chunk, Encoder, FieldValidation, MapKey, Part, Result, Slot};
use crate::text::{MAX_DEPTH, Text};
use kguest_wire::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};

impl Encoder {
    /// Encodes one message value whose first event is `first`.
    pub(super) fn message<'s, S: Source<'s>>(
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

    pub(super) fn object<'s, S: Source<'s>>(
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
