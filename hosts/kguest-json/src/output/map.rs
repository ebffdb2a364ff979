//! Protobuf maps as JSON objects, entries sorted by key as Go writes them.

use alloc::vec::Vec;

use super::check::{value_valid, wire_fits};
use super::layout::{write_int, write_uint};
use super::scan::{last_value, next_field};
use super::zero::zero_value;
use super::{Step, Writer};
use kguest_wire::schema::{Kind, MessageSchema};
use kguest_wire::wire::{Value, zigzag32, zigzag64};

impl<'o, 'a> Writer<'o, 'a> {
    /// A map: entries sorted by key as Go writes them; of repeated keys the
    /// last wins.
    // `map`, `special` and `float` are kept out of `members`, which the
    // common fields go through, so that it stays small.
    #[inline(never)]
    pub(super) fn map(&mut self, entry: &MessageSchema, start: usize, end: usize) -> Step {
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
