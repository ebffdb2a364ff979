//! Embedded JSON (`runtime.RawExtension`, `FieldsV1`): the value is stored
//! as JSON text inside the protobuf. JSON text keeps it as written (see
//! `Source::raw_text`); from a source without text (YAML, a
//! `serde_json::Value`) it is written in the form Go's `json.Marshal` gives a
//! decoded value, which is what the API server stores for YAML (it turns
//! YAML into JSON that way first): compact, object members sorted by name
//! (the last of duplicate names wins), numbers and strings as Go writes them.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::JsonError;
use super::input::{Number, Source, SourceEvent};
use super::text::MAX_DEPTH;

#[derive(Clone, Copy, Debug)]
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    /// Text in `Canonical::strings`.
    Str(u32, u32),
    /// Children in `Canonical::kids`.
    Array(u32, u32),
    /// Members in `Canonical::members`.
    Object(u32, u32),
}

/// Why an embedded value could not be read.
pub(crate) enum ReadError {
    Source(JsonError),
    Invalid(&'static str),
}

impl From<JsonError> for ReadError {
    fn from(err: JsonError) -> Self {
        ReadError::Source(err)
    }
}

/// Scratch space for one embedded value at a time, reused.
#[derive(Default)]
pub struct Canonical {
    nodes: Vec<Node>,
    strings: Vec<u8>,
    kids: Vec<u32>,
    /// (name start, name end, value node)
    members: Vec<(u32, u32, u32)>,
}

impl Canonical {
    /// Reads the value whose first event is `first`; returns its root node.
    pub(crate) fn read<'s, S: Source<'s>>(
        &mut self,
        first: SourceEvent<'s>,
        src: &mut S,
        _scratch: &mut Vec<u8>,
    ) -> Result<u32, ReadError> {
        self.nodes.clear();
        self.strings.clear();
        self.kids.clear();
        self.members.clear();
        self.node(first, src, 0)
    }

    fn text(&mut self, text: &super::text::Text<'_>) -> Node {
        let start = self.strings.len() as u32;
        text.decode_into(&mut self.strings);
        Node::Str(start, self.strings.len() as u32)
    }

    fn node<'s, S: Source<'s>>(
        &mut self,
        first: SourceEvent<'s>,
        src: &mut S,
        depth: usize,
    ) -> Result<u32, ReadError> {
        if depth > MAX_DEPTH {
            return Err(ReadError::Invalid(
                "embedded JSON nests deeper than 100 levels",
            ));
        }
        let node = match first {
            SourceEvent::Null => Node::Null,
            SourceEvent::Bool(b) => Node::Bool(b),
            SourceEvent::Number(n) => number(n),
            SourceEvent::String(t) => self.text(&t),
            SourceEvent::ArrayStart => {
                let mut kids = Vec::new();
                loop {
                    let item = src.next_event()?;
                    if item == SourceEvent::ArrayEnd {
                        break;
                    }
                    kids.push(self.node(item, src, depth + 1)?);
                }
                let start = self.kids.len() as u32;
                self.kids.extend_from_slice(&kids);
                Node::Array(start, kids.len() as u32)
            }
            SourceEvent::ObjectStart => {
                let mut members: Vec<(u32, u32, u32)> = Vec::new();
                loop {
                    let key = match src.next_event()? {
                        SourceEvent::ObjectEnd => break,
                        SourceEvent::Key(key) => key,
                        _ => return Err(ReadError::Invalid("expected a member name")),
                    };
                    let Node::Str(start, end) = self.text(&key) else {
                        continue;
                    };
                    let value = src.next_event()?;
                    let child = self.node(value, src, depth + 1)?;
                    members.push((start, end, child));
                }
                let strings = &self.strings;
                let name = |m: &(u32, u32, u32)| strings.get(m.0 as usize..m.1 as usize);
                members.sort_by(|a, b| name(a).cmp(&name(b)));
                // Of equal names, the last one wins.
                let mut kept: Vec<(u32, u32, u32)> = Vec::with_capacity(members.len());
                for member in members {
                    match kept.last_mut() {
                        Some(last) if name(last) == name(&member) => *last = member,
                        _ => kept.push(member),
                    }
                }
                let start = self.members.len() as u32;
                self.members.extend_from_slice(&kept);
                Node::Object(start, kept.len() as u32)
            }
            SourceEvent::ObjectEnd | SourceEvent::ArrayEnd | SourceEvent::Key(_) => {
                return Err(ReadError::Invalid("expected a value"));
            }
        };
        self.nodes.push(node);
        Ok(self.nodes.len() as u32 - 1)
    }

    /// Writes the value rooted at `root` as compact JSON.
    pub(crate) fn write(&self, root: u32, out: &mut Vec<u8>) -> Result<(), ReadError> {
        let Some(&node) = self.nodes.get(root as usize) else {
            return Ok(());
        };
        match node {
            Node::Null => out.extend_from_slice(b"null"),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Int(v) => push_display(out, v),
            Node::Uint(v) => push_display(out, v),
            Node::Float(v) => write_f64(v, out),
            Node::Str(start, end) => write_str(
                self.strings
                    .get(start as usize..end as usize)
                    .unwrap_or(&[]),
                out,
            ),
            Node::Array(start, len) => {
                out.push(b'[');
                for (i, &kid) in self
                    .kids
                    .get(start as usize..(start + len) as usize)
                    .unwrap_or(&[])
                    .iter()
                    .enumerate()
                {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write(kid, out)?;
                }
                out.push(b']');
            }
            Node::Object(start, len) => {
                out.push(b'{');
                for (i, &(s, e, kid)) in self
                    .members
                    .get(start as usize..(start + len) as usize)
                    .unwrap_or(&[])
                    .iter()
                    .enumerate()
                {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(self.strings.get(s as usize..e as usize).unwrap_or(&[]), out);
                    out.push(b':');
                    self.write(kid, out)?;
                }
                out.push(b'}');
            }
        }
        Ok(())
    }
}

fn push_display(out: &mut Vec<u8>, v: impl core::fmt::Display) {
    let mut s = String::new();
    let _ = write!(s, "{v}");
    out.extend_from_slice(s.as_bytes());
}

/// A number as `serde_json` holds it: an integer when the text is one that
/// fits, else a float (`-0` is the float -0.0).
fn number(n: Number<'_>) -> Node {
    match n {
        Number::Int(v) => Node::Int(v),
        Number::Uint(v) => Node::Uint(v),
        Number::Float(v) => Node::Float(v),
        Number::Text(t) => {
            if !t.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                if let Some(digits) = t.strip_prefix('-') {
                    if digits.bytes().all(|b| b == b'0') {
                        return Node::Float(-0.0);
                    }
                    if let Ok(v) = t.parse::<i64>() {
                        return Node::Int(v);
                    }
                } else if let Ok(v) = t.parse::<u64>() {
                    return Node::Uint(v);
                }
            }
            Node::Float(t.parse().unwrap_or(0.0))
        }
    }
}

/// A JSON string as Go's `json.Marshal` writes it (the one escaper:
/// [`crate::output::write_go_string`]); the text is UTF-8 here.
pub(crate) fn write_str(text: &[u8], out: &mut Vec<u8>) {
    crate::output::write_go_string(text, out);
}

/// A float as Go's `encoding/json` writes a float64: the shortest digits
/// that read back to the same value, without an exponent from 1e-6 up to
/// 1e21 (`1`, `1.5`, `0.001`, `100000000000000000000`), with one outside it
/// (`1e+21`, `1.5e-7`, `1e-10`); `null` when not finite (Go refuses those).
pub fn write_f64(v: f64, out: &mut Vec<u8>) {
    if !v.is_finite() {
        out.extend_from_slice(b"null");
        return;
    }
    let abs = v.abs();
    let mut text = String::new();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Rust's `{:e}` has the same shortest digits; Go writes the exponent
        // signed with at least two digits, then encoding/json turns `e-07`
        // into `e-7`.
        let _ = write!(text, "{v:e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        out.extend_from_slice(mantissa.as_bytes());
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        if exp.abs() < 10 && exp >= 0 {
            out.push(b'0');
        }
        push_display(out, exp.abs());
        return;
    }
    let _ = write!(text, "{v}");
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_like_go() {
        // Each as Go's json.Marshal(float64) writes it.
        let cases = [
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.0, "0"),
            (-0.0, "-0"),
            (1e16, "10000000000000000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1234567890123456.0, "1234567890123456"),
            (123456.789, "123456.789"),
            (0.001, "0.001"),
            (0.000001, "0.000001"),
            (0.0001234, "0.0001234"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e-10, "1e-10"),
            (2.5e300, "2.5e+300"),
            (f64::NAN, "null"),
        ];
        for (v, want) in cases {
            let mut out = Vec::new();
            write_f64(v, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), want, "{v}");
        }
    }

    #[test]
    fn strings_are_escaped_like_go() {
        let mut out = Vec::new();
        write_str(
            "a\"b\\c\n\u{1}é/<>&\u{2028}\u{2029}\u{8}".as_bytes(),
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"b\\c\n\u0001é/\u003c\u003e\u0026\u2028\u2029\b""#
        );
    }
}
