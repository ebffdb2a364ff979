//! Closing a message: its chunks sorted into Go's order, the last member of
//! a field kept, the zero values Go always writes added, duplicates judged.

use alloc::format;
use alloc::string::{String, ToString};
use core::cmp::Ordering;

use super::source::{Nothing, SourceEvent};
use super::{Body, Chunk, Encoder, FieldValidation, MapKey, Result};
use crate::JsonError;
use kguest_wire::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};

impl Encoder {
    /// Sorts the open message's chunks, keeps the last member for each
    /// field, adds the zero values Go always writes, and records the node.
    pub(super) fn close(
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
