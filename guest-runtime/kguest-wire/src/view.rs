use crate::DecodeError;
use crate::schema::{self, MessageSchema};

/// A lazy, borrowed view of one protobuf message.
///
/// Generated types implement it; creating a view never fails and costs
/// nothing, because nothing is read until an accessor asks for a field.
pub trait View<'a>: Copy {
    /// The static description of this message type.
    const SCHEMA: &'static MessageSchema;

    /// Wraps the encoded bytes of one message (no envelope, no length prefix).
    fn from_bytes(bytes: &'a [u8]) -> Self;

    /// The bytes this view reads.
    fn as_bytes(&self) -> &'a [u8];

    /// Checks the whole message, nested messages included: well-formed
    /// wire format, wire types that match the schema, UTF-8 strings.
    ///
    /// Accessors never need this (they are safe on any input); call it to
    /// reject bad input early with the offset of the first problem.
    #[inline]
    fn validate(&self) -> Result<(), DecodeError> {
        schema::validate(Self::SCHEMA, self.as_bytes())
    }
}
