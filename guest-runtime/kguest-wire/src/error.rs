/// Why a buffer is not a valid encoding of a message.
///
/// No `Display` here on purpose: formatting machinery must stay out of
/// guests. Hosts get a readable form through [`ErrorKind::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A varint, a fixed-width value or a length-delimited value runs past the end.
    Truncated,
    /// A varint longer than 10 bytes or above `u64::MAX`.
    VarintOverflow,
    /// Field number 0 or above 2^29 - 1.
    InvalidFieldNumber,
    /// Wire type 3, 4 (groups), 6 or 7.
    InvalidWireType,
    /// A known field arrived with a wire type its declared type cannot have.
    WireTypeMismatch,
    /// A `string` field holds bytes that are not UTF-8.
    InvalidUtf8,
    /// Messages nested deeper than [`crate::schema::MAX_DEPTH`].
    TooDeep,
}

impl ErrorKind {
    /// A short lowercase description, e.g. `"truncated input"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated input",
            ErrorKind::VarintOverflow => "varint overflow",
            ErrorKind::InvalidFieldNumber => "invalid field number",
            ErrorKind::InvalidWireType => "invalid wire type",
            ErrorKind::WireTypeMismatch => "wire type does not match the field's type",
            ErrorKind::InvalidUtf8 => "invalid UTF-8 in a string field",
            ErrorKind::TooDeep => "messages nested too deeply",
        }
    }
}

/// The first problem found in a buffer, with the byte offset (from the start
/// of the buffer that was validated) of the field key where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub kind: ErrorKind,
    pub offset: usize,
    /// The number of the field being read, when known (0 otherwise).
    pub field: u32,
}

#[cfg(feature = "encode")]
impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at byte {}", self.kind.as_str(), self.offset)?;
        if self.field != 0 {
            write!(f, " (field {})", self.field)?;
        }
        Ok(())
    }
}

#[cfg(feature = "encode")]
impl core::error::Error for DecodeError {}
