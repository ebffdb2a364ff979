//! Messages with a JSON form other than an object of their fields: times,
//! quantities, int-or-string, durations, bare arrays and embedded JSON.

use alloc::string::String;
use alloc::vec::Vec;

use super::check::value_valid;
use super::scan::{last_value, next_field};
use super::{Step, Writer};
use crate::JsonError;
use crate::text::{Event, Reader};
use kguest_wire::rt;
use kguest_wire::schema::{self, JsonForm, MessageSchema};
use kguest_wire::timefmt;
use kguest_wire::wire::Value;

impl<'o, 'a> Writer<'o, 'a> {
    /// Messages whose JSON form is not an object of their fields.
    #[inline(never)]
    pub(super) fn special(&mut self, schema: &MessageSchema, bytes: &'a [u8]) -> Step {
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
