//! Object bytes handed in by the caller: raw protobuf messages, or the
//! API server's envelope (`k8s\0` + `runtime.Unknown`), unwrapped without a
//! copy.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

use kguest_k8s::envelope::{self, EnvelopeError};

/// Why bytes handed to [`Cycle::new`](crate::Cycle::new),
/// [`SnapshotNode::from_node`](crate::SnapshotNode::from_node) or
/// [`Snapshot::from_nodes`](crate::Snapshot::from_nodes) were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputError {
    /// The bytes start with the API server's `k8s\0` magic, but the
    /// `runtime.Unknown` after it is malformed.
    Envelope {
        /// `"Pod"` or `"Node"`: what the bytes were given as.
        expected: &'static str,
        /// What is wrong with the envelope.
        detail: String,
    },
    /// An envelope holding another kind of object.
    WrongKind {
        /// `"Pod"` or `"Node"`.
        expected: &'static str,
        /// `apiVersion/kind` found in the envelope.
        found: String,
    },
    /// An envelope whose payload is not plain protobuf (a content type or
    /// encoding is set).
    Encoding {
        /// `"Pod"` or `"Node"`.
        expected: &'static str,
        /// The envelope's content type and encoding.
        found: String,
    },
    /// No bytes at all: a guest would see an empty object.
    Empty {
        /// `"Pod"` or `"Node"`.
        expected: &'static str,
    },
    /// A Node without `metadata.name` (or bytes that do not decode as one).
    NodeWithoutName,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Envelope { expected, detail } => {
                write!(
                    f,
                    "malformed API-server envelope for a {expected}: {detail}"
                )
            }
            InputError::WrongKind { expected, found } => {
                write!(f, "expected an enveloped v1 {expected}, found {found}")
            }
            InputError::Encoding { expected, found } => write!(
                f,
                "the enveloped {expected} is not plain protobuf ({found})"
            ),
            InputError::Empty { expected } => write!(f, "empty {expected} bytes"),
            InputError::NodeWithoutName => f.write_str("a Node without metadata.name"),
        }
    }
}

impl std::error::Error for InputError {}

/// Shared bytes, possibly a window into a larger buffer (an unwrapped
/// envelope keeps its buffer and serves the message inside it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Bytes {
    buf: Arc<[u8]>,
    range: Range<usize>,
}

impl Bytes {
    /// All of `buf`.
    pub fn whole(buf: Arc<[u8]>) -> Bytes {
        let range = 0..buf.len();
        Bytes { buf, range }
    }

    /// `buf` as the message of type `kind` it holds: unwrapped when it
    /// starts with `k8s\0` (checked to be a `v1` `kind` in plain protobuf),
    /// else served as it is.
    pub fn object(buf: Arc<[u8]>, kind: &'static str) -> Result<Bytes, InputError> {
        if !envelope::has_magic(&buf) {
            if buf.is_empty() {
                return Err(InputError::Empty { expected: kind });
            }
            return Ok(Bytes::whole(buf));
        }
        let env = envelope::unwrap(&buf).map_err(|err| InputError::Envelope {
            expected: kind,
            detail: describe(err),
        })?;
        if env.kind != kind || env.api_version != "v1" {
            return Err(InputError::WrongKind {
                expected: kind,
                found: format!("{}/{}", env.api_version, env.kind),
            });
        }
        if !env.content_type.is_empty() || !env.content_encoding.is_empty() {
            return Err(InputError::Encoding {
                expected: kind,
                found: format!(
                    "content type `{}`, encoding `{}`",
                    env.content_type, env.content_encoding
                ),
            });
        }
        // `raw` borrows `buf`: keep the buffer, remember the window.
        let start = env.raw.as_ptr() as usize - buf.as_ptr() as usize;
        let range = start..start + env.raw.len();
        if env.raw.is_empty() {
            return Err(InputError::Empty { expected: kind });
        }
        Ok(Bytes { buf, range })
    }

    /// Whether this is a window into a larger buffer (an unwrapped envelope).
    pub fn is_window(&self) -> bool {
        self.range.len() != self.buf.len()
    }
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // The range was taken from `buf` itself.
        self.buf.get(self.range.clone()).unwrap_or_default()
    }
}

fn describe(err: EnvelopeError) -> String {
    match err {
        EnvelopeError::MissingMagic => err.as_str().to_string(),
        EnvelopeError::Malformed(e) => format!("{} at byte {}", e.kind.as_str(), e.offset),
    }
}
