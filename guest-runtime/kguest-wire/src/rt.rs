//! The functions generated accessors call. Not a stable API.
//!
//! Kept tiny and non-generic where possible so that a guest links only
//! what its accessors reach.

use crate::codec::Codec;
use crate::fields::{Field, Read};
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

/// The wire type [`Slot`] holds when no readable occurrence was found.
const NO_WIRE: u8 = 8;

/// What one pass over a message ([`scan`]) recorded for one wanted field.
///
/// Read back through [`Slot::raw`] (a singular field's last occurrence,
/// exactly what [`last`] returns) and [`Slot::range`] (the bytes from the
/// first occurrence to the end of the last one: iterating a repeated or map
/// field there yields what iterating the whole message yields).
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Offset of the key of the first occurrence.
    first: usize,
    /// Offsets of the value of the last occurrence; `end` also ends the range.
    start: usize,
    end: usize,
    /// Wire type of the last occurrence, or `NO_WIRE`: absent, message
    /// malformed, or (a oneof member) a sibling came after it.
    wire: u8,
    /// A oneof sibling occurred after the last occurrence so far.
    shadowed: bool,
}

impl Slot {
    /// Nothing found.
    pub const EMPTY: Slot = Slot {
        first: 0,
        start: 0,
        end: 0,
        wire: NO_WIRE,
        shadowed: false,
    };

    /// The readable last occurrence, undecoded: what [`last`] (or
    /// [`get_in_oneof`], for a oneof member) would locate.
    #[inline]
    pub fn raw<'a>(&self, bytes: &'a [u8]) -> Option<Raw<'a>> {
        if self.wire == NO_WIRE {
            return None;
        }
        Some(Raw {
            wire: self.wire,
            bytes: bytes.get(self.start..self.end)?,
        })
    }

    /// The bytes from the first occurrence's key to the end of the last
    /// occurrence (empty when absent); they start and end on field
    /// boundaries.
    #[inline]
    pub fn range<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes.get(self.first..self.end).unwrap_or_default()
    }
}

/// One field a [`scan`] looks for: its number and, for a oneof member, the
/// numbers of the other members.
#[derive(Clone, Copy, Debug)]
pub struct FieldId {
    pub number: u32,
    pub siblings: &'static [u32],
}

/// One pass over `bytes`: fills `slots[i]` for the field `ids[i]` (pairs
/// past the shorter slice are ignored; `slots` must start as
/// [`Slot::EMPTY`]).
///
/// Follows [`last`]'s rules: a malformed message anywhere leaves every
/// singular value unreadable, while the ranges keep the occurrences before
/// the malformed field (where an iterator over the whole message stops too).
/// Non-generic, so every one-pass read in a guest shares this loop.
pub fn scan(bytes: &[u8], ids: &[FieldId], slots: &mut [Slot]) {
    let mut pos = 0usize;
    let well_formed = loop {
        if pos >= bytes.len() {
            break true;
        }
        let key_at = pos;
        let Some(key) = varint_at(bytes, &mut pos) else {
            break false;
        };
        if key < 8 || key > u64::from(u32::MAX) {
            break false; // field number 0 or above 2^29 - 1
        }
        let wire = (key & 7) as u8;
        let mut start = pos;
        let skip = match wire {
            0 => match varint_at(bytes, &mut pos) {
                Some(_) => 0,
                None => break false,
            },
            1 => 8,
            2 => match varint_at(bytes, &mut pos) {
                Some(len) => {
                    start = pos;
                    len
                }
                None => break false,
            },
            5 => 4,
            _ => break false,
        };
        match usize::try_from(skip).ok().and_then(|s| pos.checked_add(s)) {
            Some(end) if end <= bytes.len() => pos = end,
            _ => break false,
        }
        let number = (key >> 3) as u32;
        for (id, slot) in ids.iter().zip(slots.iter_mut()) {
            if id.number == number {
                if slot.wire == NO_WIRE {
                    slot.first = key_at;
                }
                *slot = Slot {
                    first: slot.first,
                    start,
                    end: pos,
                    wire,
                    shadowed: false,
                };
            } else if id.siblings.contains(&number) {
                slot.shadowed = true;
            }
        }
    };
    for slot in slots.iter_mut() {
        if !well_formed || slot.shadowed {
            slot.wire = NO_WIRE;
        }
    }
}

/// The slots of one [`scan`] for `N` fields, read back by index.
#[derive(Clone, Copy, Debug)]
pub struct Scan<'a, const N: usize> {
    bytes: &'a [u8],
    slots: [Slot; N],
}

impl<'a, const N: usize> Scan<'a, N> {
    /// Scans `bytes` once for the fields `ids`.
    #[inline]
    pub fn new(bytes: &'a [u8], ids: &[FieldId; N]) -> Self {
        let mut slots = [Slot::EMPTY; N];
        scan(bytes, ids, &mut slots);
        Scan { bytes, slots }
    }

    /// The value of `field`, found as the `index`-th of the `ids`.
    #[inline]
    pub fn get<M, K: Read<'a>>(&self, index: usize, field: Field<M, K>) -> K::Output {
        let slot = self.slots.get(index).unwrap_or(&Slot::EMPTY);
        K::read(self.bytes, field.number(), slot)
    }
}
