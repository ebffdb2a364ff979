//! The functions generated accessors call. Not a stable API.
//!
//! Kept tiny and non-generic where possible so that a guest links only
//! what its accessors reach.

use crate::codec::Codec;
use crate::wire::Raw;

/// The last occurrence of field `number`, undecoded, or `None` when the
/// field is absent or the message is malformed anywhere.
///
/// This is the hot path of every singular accessor, so it is written for
/// size: values are skipped, not decoded; only the winner is decoded, by the
/// codec that asked for it.
pub fn last(bytes: &[u8], number: u32) -> Option<Raw<'_>> {
    // The winner as (wire type, start, end); wire type 8 means none yet.
    let mut found = (8u8, 0usize, 0usize);
    let mut pos = 0usize;
    while pos < bytes.len() {
        let key = varint_at(bytes, &mut pos)?;
        if key < 8 || key > u64::from(u32::MAX) {
            return None; // field number 0 or above 2^29 - 1
        }
        let wire = (key & 7) as u8;
        let mut start = pos;
        let skip = match wire {
            0 => {
                varint_at(bytes, &mut pos)?;
                0
            }
            1 => 8,
            2 => {
                let len = varint_at(bytes, &mut pos)?;
                start = pos;
                len
            }
            5 => 4,
            _ => return None,
        };
        pos = pos.checked_add(usize::try_from(skip).ok()?)?;
        if pos > bytes.len() {
            return None;
        }
        if key >> 3 == u64::from(number) {
            found = (wire, start, pos);
        }
    }
    let (wire, start, end) = found;
    if wire == 8 {
        return None;
    }
    Some(Raw {
        wire,
        bytes: bytes.get(start..end)?,
    })
}

/// Decodes the varint at `*pos`, advancing it (the rules of
/// [`crate::wire::read_varint`]). Not inlined: `last` calls it from three
/// places and guests are size-bound.
#[inline(never)]
fn varint_at(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value: u64 = 0;
    let mut shift: u32 = 0;
    loop {
        let byte = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return (shift < 63 || byte <= 1).then_some(value);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// A singular field read with codec `C`.
#[inline(always)]
pub fn get<'a, C: Codec<'a>>(bytes: &'a [u8], number: u32) -> Option<C::Item> {
    last(bytes, number).and_then(C::decode_raw)
}

/// A member of a oneof read with codec `C`: present only when no other
/// member (`siblings`) occurs after its last occurrence, as protobuf
/// specifies ("the last member seen wins").
pub fn get_in_oneof<'a, C: Codec<'a>>(
    bytes: &'a [u8],
    number: u32,
    siblings: &[u32],
) -> Option<C::Item> {
    let mine = last(bytes, number)?;
    let mine_end = mine.bytes.as_ptr() as usize + mine.bytes.len();
    let later_sibling = siblings.iter().any(|&other| {
        last(bytes, other).is_some_and(|raw| raw.bytes.as_ptr() as usize >= mine_end)
    });
    if later_sibling {
        None
    } else {
        C::decode_raw(mine)
    }
}
