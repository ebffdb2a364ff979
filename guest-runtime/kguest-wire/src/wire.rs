//! The protobuf wire format: varints, keys and one-field-at-a-time scanning.

use crate::ErrorKind;

/// One field value as it appears on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: strings, bytes, messages and packed repeated scalars.
    Len(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

/// One field value, located but not decoded: the wire type and the value's
/// bytes (a varint's bytes, the 4 or 8 fixed bytes, or a length-delimited
/// body without its length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raw<'a> {
    pub wire: u8,
    pub bytes: &'a [u8],
}

impl<'a> Raw<'a> {
    /// Decodes the value.
    #[inline]
    pub fn value(self) -> Option<Value<'a>> {
        let mut bytes = self.bytes;
        Some(match self.wire {
            0 => Value::Varint(take_varint(&mut bytes)?),
            1 => Value::Fixed64(read_fixed64(&mut bytes).ok()?),
            2 => Value::Len(bytes),
            5 => Value::Fixed32(read_fixed32(&mut bytes).ok()?),
            _ => return None,
        })
    }

    /// The body of a length-delimited value.
    #[inline]
    pub fn len_body(self) -> Option<&'a [u8]> {
        (self.wire == 2).then_some(self.bytes)
    }
}

/// The largest field number protobuf allows.
pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

/// Reads a varint from the front of `rest`, advancing it.
#[inline]
pub fn read_varint(rest: &mut &[u8]) -> Result<u64, ErrorKind> {
    let mut bytes = rest.iter();
    let mut value: u64 = 0;
    let mut shift: u32 = 0;
    while let Some(&byte) = bytes.next() {
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            // The tenth byte may only carry the top bit of a u64.
            if shift == 63 && byte > 1 {
                return Err(ErrorKind::VarintOverflow);
            }
            *rest = bytes.as_slice();
            return Ok(value);
        }
        shift += 7;
        if shift > 63 {
            return Err(ErrorKind::VarintOverflow);
        }
    }
    Err(ErrorKind::Truncated)
}

/// Decodes the varint at `*pos` and moves `*pos` past it (the rules of
/// [`read_varint`]). Malformed (truncated, longer than 10 bytes or above
/// `u64::MAX`): returns 0 and sets `*pos` to `usize::MAX`, which every
/// caller's end-of-input check then catches.
///
/// The one varint decoder of the guest read paths ([`field_at`], the
/// codecs): one function, because guests are size-bound (`#[inline]` only
/// compiles it in the guest's crate; see the crate docs).
#[inline]
pub fn varint_at(bytes: &[u8], pos: &mut usize) -> u64 {
    let mut value: u64 = 0;
    let mut shift: u32 = 0;
    while let Some(&byte) = bytes.get(*pos) {
        // `*pos < bytes.len()`, so this cannot overflow.
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            // The tenth byte may only carry the top bit of a u64.
            if shift < 63 || byte <= 1 {
                return value;
            }
            break;
        }
        shift += 7;
        if shift > 63 {
            break;
        }
    }
    *pos = usize::MAX;
    0
}

/// [`varint_at`] with one-byte varints read in place: most keys and
/// lengths in Kubernetes objects are one byte, and a call per varint was
/// most of the cost of skipping a field.
#[inline(always)]
fn short_varint_at(bytes: &[u8], pos: &mut usize) -> u64 {
    match bytes.get(*pos) {
        Some(&byte) if byte < 0x80 => {
            *pos += 1;
            u64::from(byte)
        }
        _ => varint_at(bytes, pos),
    }
}

/// Reads a varint from the front of `rest` with [`varint_at`], advancing
/// it; `None` when malformed (`rest` is then left as it was).
#[inline]
pub fn take_varint(rest: &mut &[u8]) -> Option<u64> {
    let mut pos = 0;
    let value = varint_at(rest, &mut pos);
    *rest = rest.get(pos..)?;
    Some(value)
}

/// Skips the field whose key is at `*pos`: returns the key (field number
/// `<< 3` | wire type), with `*start` at the value (past the length of a
/// length-delimited value) and `*pos` past the value. Returns 0 when the
/// field is malformed, by the rules of [`next_field`]: a bad varint, field
/// number 0 or above [`MAX_FIELD_NUMBER`], wire type 3, 4, 6 or 7, or a
/// value running past the end. `*pos` and `*start` are then meaningless.
///
/// Every guest read path (accessors, one-pass reads, repeated and map
/// iterators) walks messages with this one function.
#[inline]
pub fn field_at(bytes: &[u8], pos: &mut usize, start: &mut usize) -> u32 {
    let key = short_varint_at(bytes, pos);
    *start = *pos;
    let len = match key & 7 {
        1 => 8,
        5 => 4,
        // One call reads a varint value or a length (the value starts past it).
        wire @ (0 | 2) => {
            let varint = short_varint_at(bytes, pos);
            if wire == 0 {
                0
            } else {
                *start = *pos;
                varint
            }
        }
        _ => return 0,
    };
    // A failed varint left `*pos` at `usize::MAX`: no room at all. A key
    // that is not a u32 has a field number above 2^29 - 1.
    let room = bytes.len().saturating_sub(*pos);
    if *pos > bytes.len() || len > room as u64 || key < 8 || u64::from(key as u32) != key {
        return 0;
    }
    // `len <= room`, so the sum stays within `bytes.len()`.
    *pos += len as usize;
    key as u32
}

/// Reads `width` little-endian bytes (4 or 8) from the front of `rest`.
/// One non-generic function for both widths keeps guests small.
#[inline]
fn read_le(rest: &mut &[u8], width: usize) -> Result<u64, ErrorKind> {
    let (head, tail) = rest.split_at_checked(width).ok_or(ErrorKind::Truncated)?;
    *rest = tail;
    Ok(head
        .iter()
        .rev()
        .fold(0, |acc, &b| (acc << 8) | u64::from(b)))
}

/// Reads a little-endian `fixed32` from the front of `rest`.
#[inline]
pub fn read_fixed32(rest: &mut &[u8]) -> Result<u32, ErrorKind> {
    read_le(rest, 4).map(|v| v as u32)
}

/// Reads a little-endian `fixed64` from the front of `rest`.
#[inline]
pub fn read_fixed64(rest: &mut &[u8]) -> Result<u64, ErrorKind> {
    read_le(rest, 8)
}

/// Reads the next field (key and value) from the front of `rest`.
///
/// Returns `Ok(None)` at the end of the message. On error `rest` is left
/// where it was, so the caller can report the offset of the bad field.
#[inline]
pub fn next_field<'a>(rest: &mut &'a [u8]) -> Result<Option<(u32, Value<'a>)>, ErrorKind> {
    if rest.is_empty() {
        return Ok(None);
    }
    let mut bytes = *rest;
    let key = read_varint(&mut bytes)?;
    let number = key >> 3;
    if number == 0 || number > u64::from(MAX_FIELD_NUMBER) {
        return Err(ErrorKind::InvalidFieldNumber);
    }
    let value = match key & 7 {
        0 => Value::Varint(read_varint(&mut bytes)?),
        1 => Value::Fixed64(read_fixed64(&mut bytes)?),
        2 => {
            let len = read_varint(&mut bytes)?;
            let len = usize::try_from(len).map_err(|_| ErrorKind::Truncated)?;
            let (body, tail) = bytes.split_at_checked(len).ok_or(ErrorKind::Truncated)?;
            bytes = tail;
            Value::Len(body)
        }
        5 => Value::Fixed32(read_fixed32(&mut bytes)?),
        _ => return Err(ErrorKind::InvalidWireType),
    };
    *rest = bytes;
    // `number` fits in u32: checked against MAX_FIELD_NUMBER above.
    Ok(Some((number as u32, value)))
}

/// Zigzag-decodes a `sint64`.
#[inline]
pub const fn zigzag64(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Zigzag-decodes a `sint32` (the varint's low 32 bits).
#[inline]
pub const fn zigzag32(v: u64) -> i32 {
    let v = v as u32;
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let cases: &[(&[u8], u64)] = &[
            (&[0], 0),
            (&[1], 1),
            (&[0x96, 0x01], 150),
            (&[0xff, 0xff, 0xff, 0xff, 0x0f], u64::from(u32::MAX)),
            (
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
                u64::MAX,
            ),
            // Non-canonical (padded) varints are valid.
            (&[0x80, 0x80, 0x00], 0),
        ];
        for &(bytes, want) in cases {
            let mut rest = bytes;
            assert_eq!(read_varint(&mut rest), Ok(want), "{bytes:?}");
            assert!(rest.is_empty());
        }
    }

    #[test]
    fn bad_varints() {
        let overflow = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(
            read_varint(&mut &overflow[..]),
            Err(ErrorKind::VarintOverflow)
        );
        let eleven = [0x80u8; 11];
        assert_eq!(
            read_varint(&mut &eleven[..]),
            Err(ErrorKind::VarintOverflow)
        );
        assert_eq!(read_varint(&mut &[0x80u8][..]), Err(ErrorKind::Truncated));
        assert_eq!(read_varint(&mut &[][..]), Err(ErrorKind::Truncated));
    }

    #[test]
    fn fields() {
        // field 1 varint 150, field 2 "hi", field 3 fixed32 7, field 4 fixed64 9
        let msg = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 7, 0, 0, 0, 0x21, 9, 0, 0, 0, 0, 0, 0,
            0,
        ];
        let mut rest = &msg[..];
        assert_eq!(next_field(&mut rest), Ok(Some((1, Value::Varint(150)))));
        assert_eq!(next_field(&mut rest), Ok(Some((2, Value::Len(b"hi")))));
        assert_eq!(next_field(&mut rest), Ok(Some((3, Value::Fixed32(7)))));
        assert_eq!(next_field(&mut rest), Ok(Some((4, Value::Fixed64(9)))));
        assert_eq!(next_field(&mut rest), Ok(None));
    }

    #[test]
    fn bad_fields() {
        let cases: &[(&[u8], ErrorKind)] = &[
            (&[0x00, 0x01], ErrorKind::InvalidFieldNumber),
            (&[0x0b], ErrorKind::InvalidWireType), // start group
            (&[0x0e], ErrorKind::InvalidWireType),
            (&[0x12, 0x05, b'a'], ErrorKind::Truncated),
            (&[0x12, 0xff, 0xff, 0xff, 0xff, 0x0f], ErrorKind::Truncated),
            (&[0x1d, 1, 2], ErrorKind::Truncated),
            (&[0x08], ErrorKind::Truncated),
            (
                &[0xf8, 0xff, 0xff, 0xff, 0x7f, 0x00],
                ErrorKind::InvalidFieldNumber,
            ),
        ];
        for &(bytes, want) in cases {
            let mut rest = bytes;
            assert_eq!(next_field(&mut rest), Err(want), "{bytes:?}");
            assert_eq!(rest, bytes, "rest must not move on error");
        }
    }

    #[test]
    fn zigzag() {
        assert_eq!(zigzag64(0), 0);
        assert_eq!(zigzag64(1), -1);
        assert_eq!(zigzag64(2), 1);
        assert_eq!(zigzag64(u64::MAX), i64::MIN);
        assert_eq!(zigzag32(3), -2);
        assert_eq!(zigzag32(u64::from(u32::MAX)), i32::MIN);
    }
}
