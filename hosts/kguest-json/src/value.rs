//! `serde_json::Value` both ways (feature `json`).

use alloc::vec::Vec;

use serde_json::Value as Json;

use super::JsonError;
use super::input::{Encoder, Number, Source, SourceEvent};
use super::output::{WriteOptions, write_json};
use super::text::Text;
use kguest_wire::schema::MessageSchema;

/// Writes the message `bytes` of type `schema` as a JSON value.
pub fn to_json(schema: &MessageSchema, bytes: &[u8]) -> Result<Json, JsonError> {
    let mut out = Vec::new();
    write_json(schema, bytes, WriteOptions::default(), &mut out)?;
    serde_json::from_slice(&out).map_err(|err| JsonError::Unrepresentable {
        path: ".".into(),
        reason: alloc::format!("{err}"),
    })
}

/// Encodes `json` (one object of type `schema`) the way Kubernetes' Go
/// marshaller would encode the same object.
pub fn from_json(schema: &'static MessageSchema, json: &Json) -> Result<Vec<u8>, JsonError> {
    let mut out = Vec::new();
    Encoder::new().encode(schema, &mut ValueSource::new(json), &[], &mut out)?;
    Ok(out)
}

enum Frame<'a> {
    Object(serde_json::map::Iter<'a>),
    Array(core::slice::Iter<'a, Json>),
}

/// The events of a `serde_json::Value`, for the [`Encoder`].
pub struct ValueSource<'a> {
    pending: Option<&'a Json>,
    stack: Vec<Frame<'a>>,
}

impl<'a> ValueSource<'a> {
    pub fn new(root: &'a Json) -> Self {
        ValueSource {
            pending: Some(root),
            stack: Vec::new(),
        }
    }

    fn start(&mut self, value: &'a Json) -> SourceEvent<'a> {
        match value {
            Json::Null => SourceEvent::Null,
            Json::Bool(b) => SourceEvent::Bool(*b),
            Json::Number(n) => SourceEvent::Number(if let Some(v) = n.as_u64() {
                Number::Uint(v)
            } else if let Some(v) = n.as_i64() {
                Number::Int(v)
            } else {
                Number::Float(n.as_f64().unwrap_or(0.0))
            }),
            Json::String(s) => SourceEvent::String(Text::plain(s)),
            Json::Array(items) => {
                self.stack.push(Frame::Array(items.iter()));
                SourceEvent::ArrayStart
            }
            Json::Object(members) => {
                self.stack.push(Frame::Object(members.iter()));
                SourceEvent::ObjectStart
            }
        }
    }
}

impl<'a> Source<'a> for ValueSource<'a> {
    fn next_event(&mut self) -> Result<SourceEvent<'a>, JsonError> {
        if let Some(value) = self.pending.take() {
            return Ok(self.start(value));
        }
        match self.stack.last_mut() {
            Some(Frame::Object(members)) => match members.next() {
                Some((key, value)) => {
                    self.pending = Some(value);
                    Ok(SourceEvent::Key(Text::plain(key)))
                }
                None => {
                    self.stack.pop();
                    Ok(SourceEvent::ObjectEnd)
                }
            },
            Some(Frame::Array(items)) => match items.next() {
                Some(value) => Ok(self.start(value)),
                None => {
                    self.stack.pop();
                    Ok(SourceEvent::ArrayEnd)
                }
            },
            None => Err(JsonError::Syntax {
                line: 0,
                column: 0,
                reason: "the document has ended".into(),
            }),
        }
    }
}
