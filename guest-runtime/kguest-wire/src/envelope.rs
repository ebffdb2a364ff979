//! The API server's protobuf framing: `k8s\0` followed by a
//! `runtime.Unknown` that names the type and carries the object's bytes.
//!
//! [`unwrap`] is zero-copy: the returned `raw` borrows the input, so a host
//! that already holds API-server bytes can hand the object to a guest (or a
//! view) without re-encoding it. The framing does not depend on the object's
//! schema: `runtime.Unknown` and its `TypeMeta` are described here
//! ([`UNKNOWN`], [`TYPE_META`]; `kguest-k8s-io`'s tests hold them equal to
//! the generated schemas).

use crate::schema::{FieldSchema as F, JsonForm, Kind, Label, MessageSchema, validate};
use crate::{DecodeError, codec, rt};

/// The four bytes that start every protobuf object the API server sends.
pub const MAGIC: [u8; 4] = *b"k8s\0";

/// `k8s.io.apimachinery.pkg.runtime.TypeMeta`, as generated.
#[doc(hidden)]
pub static TYPE_META: MessageSchema = MessageSchema::new(
    "k8s.io.apimachinery.pkg.runtime.TypeMeta",
    JsonForm::Object,
    &[
        F::new(1, "apiVersion", Label::Singular, Kind::String).always(),
        F::new(2, "kind", Label::Singular, Kind::String).always(),
    ],
);

/// `k8s.io.apimachinery.pkg.runtime.Unknown`, as generated.
#[doc(hidden)]
pub static UNKNOWN: MessageSchema = MessageSchema::new(
    "k8s.io.apimachinery.pkg.runtime.Unknown",
    JsonForm::Object,
    &[
        F::new(1, "typeMeta", Label::Singular, Kind::Message(&TYPE_META))
            .always()
            .emit_empty(),
        F::new(2, "raw", Label::Singular, Kind::Bytes).emit_empty(),
        F::new(3, "contentEncoding", Label::Singular, Kind::String)
            .always()
            .emit_empty(),
        F::new(4, "contentType", Label::Singular, Kind::String)
            .always()
            .emit_empty(),
    ],
);

/// An unwrapped object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// e.g. `v1`, `apps/v1`.
    pub api_version: &'a str,
    /// e.g. `Pod`.
    pub kind: &'a str,
    /// The object's own protobuf message.
    pub raw: &'a [u8],
    /// Empty for plain protobuf.
    pub content_encoding: &'a str,
    /// Empty for plain protobuf.
    pub content_type: &'a str,
}

/// Why bytes are not an enveloped object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvelopeError {
    /// The input does not start with `k8s\0`.
    MissingMagic,
    /// The `runtime.Unknown` wrapper is malformed; the offset counts from
    /// the start of the input, magic included.
    Malformed(DecodeError),
}

impl EnvelopeError {
    /// A short lowercase description.
    pub const fn as_str(&self) -> &'static str {
        match self {
            EnvelopeError::MissingMagic => "not a Kubernetes protobuf object (no `k8s\\0` prefix)",
            EnvelopeError::Malformed(err) => err.kind.as_str(),
        }
    }
}

/// True when `bytes` starts with the `k8s\0` magic.
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Splits an enveloped object into its type and raw bytes, without copying.
pub fn unwrap(bytes: &[u8]) -> Result<Envelope<'_>, EnvelopeError> {
    let body = bytes
        .strip_prefix(&MAGIC)
        .ok_or(EnvelopeError::MissingMagic)?;
    validate(&UNKNOWN, body).map_err(|mut err| {
        err.offset += MAGIC.len();
        EnvelopeError::Malformed(err)
    })?;
    let type_meta = rt::get::<codec::Bytes>(body, 1).unwrap_or(&[]);
    Ok(Envelope {
        api_version: text(type_meta, 1),
        kind: text(type_meta, 2),
        raw: rt::get::<codec::Bytes>(body, 2).unwrap_or(&[]),
        content_encoding: text(body, 3),
        content_type: text(body, 4),
    })
}

/// The string field `number` of `message`; empty when absent.
fn text(message: &[u8], number: u32) -> &str {
    rt::get::<codec::Str>(message, number).unwrap_or("")
}

/// Wraps an object's protobuf bytes as the API server sends them: the magic,
/// then a `runtime.Unknown` with the type, the bytes and empty content
/// encoding and type, exactly as Kubernetes' Go marshaller lays it out.
#[cfg(feature = "encode")]
pub fn wrap(api_version: &str, kind: &str, raw: &[u8]) -> alloc::vec::Vec<u8> {
    use crate::encode::put_bytes;
    let mut type_meta = alloc::vec::Vec::new();
    put_bytes(&mut type_meta, 1, api_version.as_bytes());
    put_bytes(&mut type_meta, 2, kind.as_bytes());
    let mut out = alloc::vec::Vec::with_capacity(raw.len() + type_meta.len() + 16);
    out.extend_from_slice(&MAGIC);
    put_bytes(&mut out, 1, &type_meta);
    put_bytes(&mut out, 2, raw);
    put_bytes(&mut out, 3, b"");
    put_bytes(&mut out, 4, b"");
    out
}
