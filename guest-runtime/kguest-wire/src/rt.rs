//! The functions generated accessors call. Not a stable API.
//!
//! Kept tiny and non-generic where possible so that a guest links only
//! what its accessors reach.

use core::marker::PhantomData;

use crate::codec::Codec;
use crate::wire::{Raw, read_varint};
use crate::{Map, Repeated};

/// The last occurrence of field `number`, undecoded, or `None` when the
/// field is absent or the message is malformed anywhere.
///
/// This is the hot path of every singular accessor, so it is written for
/// size: values are skipped, not decoded; only the winner is decoded, by the
/// codec that asked for it.
pub fn last(bytes: &[u8], number: u32) -> Option<Raw<'_>> {
    let mut rest = bytes;
    let mut found = None;
    while !rest.is_empty() {
        let key = read_varint(&mut rest).ok()?;
        if key < 8 || key > u64::from(u32::MAX) {
            return None; // field number 0 or above 2^29 - 1
        }
        let wire = (key & 7) as u8;
        let len = match wire {
            0 => varint_len(rest)?,
            1 => 8,
            2 => usize::try_from(read_varint(&mut rest).ok()?).ok()?,
            5 => 4,
            _ => return None,
        };
        let (value, tail) = rest.split_at_checked(len)?;
        rest = tail;
        if key >> 3 == u64::from(number) {
            found = Some(Raw { wire, bytes: value });
        }
    }
    found
}

/// The length of the varint at the front of `bytes`, if it is valid.
fn varint_len(bytes: &[u8]) -> Option<usize> {
    let end = bytes.iter().take(10).position(|b| b & 0x80 == 0)?;
    // A tenth byte may only carry the top bit of a u64.
    (end < 9 || bytes.get(9).is_some_and(|&b| b <= 1)).then_some(end + 1)
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

/// A repeated field read with codec `C`.
#[inline]
pub const fn repeated<'a, C: Codec<'a>>(bytes: &'a [u8], number: u32) -> Repeated<'a, C> {
    Repeated::new(bytes, number)
}

/// A map field with key codec `K` and value codec `V`.
#[inline]
pub const fn map<'a, K: Codec<'a>, V: Codec<'a>>(bytes: &'a [u8], number: u32) -> Map<'a, K, V> {
    Map::new(bytes, number)
}

#[doc(hidden)]
pub type Phantom<T> = PhantomData<T>;
