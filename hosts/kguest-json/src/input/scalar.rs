//! Scalar values: strings, `[]byte` (base64), booleans and numbers in range,
//! encoded into the scratch buffer.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::source::{Source, SourceEvent};
use super::{Body, Encoder, Result};
use crate::text::Text;
use kguest_wire::encode::{FIXED32, FIXED64, LEN, VARINT, put_key, put_varint, zigzag32, zigzag64};
use kguest_wire::schema::{FieldSchema, Kind};

impl Encoder {
    /// Encodes one value of `field` (a singular field, an array element or
    /// a map value); `null` gives the zero value.
    pub(super) fn value<'s, S: Source<'s>>(
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

    pub(super) fn int(&self, value: &SourceEvent<'_>, min: i64, max: i64) -> Result<i64> {
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
    pub(super) fn put_text(&mut self, number: u32, text: &Text<'_>) -> Result<u32> {
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
    pub(super) fn string_of(&mut self, text: &Text<'_>) -> String {
        let mut buf = core::mem::take(&mut self.text);
        buf.clear();
        text.decode_into(&mut buf);
        let s = String::from_utf8_lossy(&buf).into_owned();
        self.text = buf;
        s
    }
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
