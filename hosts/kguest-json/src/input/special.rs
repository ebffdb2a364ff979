//! Messages whose JSON form is not an object: times, quantities,
//! int-or-string, durations, bare arrays and embedded JSON.

use alloc::format;
use alloc::vec::Vec;

use super::source::{Source, SourceEvent, skip};
use super::{Body, Encoder, Part, Result};
use crate::text::Text;
use kguest_wire::encode::{LEN, VARINT, put_key, put_varint};
use kguest_wire::schema::{JsonForm, MessageSchema};
use kguest_wire::{quantity, timefmt};

impl Encoder {
    /// Writes the body of a message whose JSON form is not an object.
    pub(super) fn special<'s, S: Source<'s>>(
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
                        crate::raw::ReadError::Source(err) => err,
                        crate::raw::ReadError::Invalid(reason) => self.invalid(reason),
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
