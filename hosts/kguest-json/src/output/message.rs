//! Messages as JSON objects: collecting a message's field occurrences, then
//! writing each field (singular, repeated, map) by Go's `omitempty` rules.

use super::check::wire_fits;
use super::scan::next_field;
use super::strings::base64_into;
use super::zero::{bare_array_is_empty, is_zero, scalar_is_zero, zero_value};
use super::{Occ, Step, Writer};
use kguest_wire::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};
use kguest_wire::wire::{Value, read_fixed32, read_fixed64, read_varint, zigzag32, zigzag64};

impl<'o, 'a> Writer<'o, 'a> {
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
    pub(super) fn message(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> Step {
        if !self.enter() {
            return Ok(());
        }
        let result = self.body(schema, bytes);
        self.leave();
        result
    }

    /// The message being written, in its JSON form.
    pub(super) fn body(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> Step {
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
    pub(super) fn members(
        &mut self,
        schema: &MessageSchema,
        bytes: &'a [u8],
        first: &mut bool,
    ) -> Step {
        let base = self.collect(schema, bytes);
        let end = self.occ.len();
        let mut i = base;
        let ordered = !schema.json_order.is_empty();
        let count = if ordered {
            schema.json_order.len()
        } else {
            schema.fields.len()
        };
        // In Go's struct order each field's run comes from a table filled in
        // one pass over the occurrences (sorted by field).
        let runs = self.runs.len();
        if ordered {
            self.runs.resize(runs + schema.fields.len(), (0, 0));
            let mut j = base;
            while j < end {
                let index = usize::from(self.occ[j].index);
                let start = j;
                while j < end && usize::from(self.occ[j].index) == index {
                    j += 1;
                }
                if let Some(slot) = self.runs.get_mut(runs + index) {
                    *slot = (start as u32, j as u32);
                }
            }
        }
        for step in 0..count {
            // In number order the occurrences are walked once.
            let index = if ordered {
                usize::from(schema.json_order[step])
            } else {
                step
            };
            let Some(field) = schema.fields.get(index) else {
                continue;
            };
            let run = if ordered {
                let (start, stop) = self.runs[runs + index];
                i = stop as usize;
                start as usize
            } else {
                let run = i;
                while i < end && usize::from(self.occ[i].index) == index {
                    i += 1;
                }
                run
            };
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
        self.runs.truncate(runs);
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

    pub(super) fn repeated_value(
        &mut self,
        kind: Kind,
        value: Value<'a>,
        first: &mut bool,
    ) -> Step {
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

    pub(super) fn scalar(&mut self, kind: Kind, value: Value<'_>) {
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
}
