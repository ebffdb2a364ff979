//! Where the encoder's events come from: the [`Source`] trait, its events and
//! numbers, JSON text as a source, and skipping a value.

use alloc::string::String;
use alloc::vec::Vec;

use super::Result;
use crate::JsonError;
use crate::text::{Event, Reader, Text};

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
    pub(super) fn as_i64(&self) -> Option<i64> {
        match *self {
            Number::Text(t) if is_integer_text(t) => t.parse().ok(),
            Number::Int(v) => Some(v),
            Number::Uint(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    pub(super) fn as_u64(&self) -> Option<u64> {
        match *self {
            Number::Text(t) if is_integer_text(t) => t.parse().ok(),
            Number::Int(v) => u64::try_from(v).ok(),
            Number::Uint(v) => Some(v),
            _ => None,
        }
    }

    pub(super) fn as_f64(&self) -> f64 {
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
                crate::raw::write_f64(v, &mut buf);
                out.write_str(core::str::from_utf8(&buf).unwrap_or("0"))
            }
        };
    }

    pub(super) fn text(&self) -> String {
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
    /// What the event is, for error messages: "an object", "a string", ...
    pub fn describe(&self) -> &'static str {
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
pub(super) struct Nothing;

impl<'s> Source<'s> for Nothing {
    fn next_event(&mut self) -> Result<SourceEvent<'s>, JsonError> {
        Err(JsonError::Syntax {
            line: 0,
            column: 0,
            reason: "no input".into(),
        })
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
