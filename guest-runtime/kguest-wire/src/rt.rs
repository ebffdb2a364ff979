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

/// What one pass over a message ([`scan`]) recorded for one wanted field.
///
/// Read back through [`Slot::raw`] (a singular field's last occurrence,
/// exactly what [`last`] returns) and [`Slot::range`] (the bytes from the
/// first occurrence to the end of the last one: iterating a repeated or map
/// field there yields what iterating the whole message yields). All zeros
/// ([`Slot::EMPTY`]) is "not found", so a table of slots starts zeroed.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Offset of the key of the first occurrence.
    first: usize,
    /// Offsets of the value of the last occurrence; `end` also ends the
    /// range, and is 0 until an occurrence is found.
    start: usize,
    end: usize,
    /// The wire type of the last occurrence plus one; 0 when there is none
    /// or the message is malformed.
    tag: u8,
}

impl Slot {
    /// Nothing found.
    pub const EMPTY: Slot = Slot {
        first: 0,
        start: 0,
        end: 0,
        tag: 0,
    };

    /// The last occurrence, undecoded: what [`last`] returns.
    #[inline]
    pub fn raw<'a>(&self, bytes: &'a [u8]) -> Option<Raw<'a>> {
        let wire = self.tag.checked_sub(1)?;
        Some(Raw {
            wire,
            bytes: bytes.get(self.start..self.end)?,
        })
    }

    /// The bytes from the first occurrence's key to the end of the last
    /// occurrence (empty when absent); they start and end on field
    /// boundaries.
    #[inline(never)]
    pub fn range<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes.get(self.first..self.end).unwrap_or_default()
    }
}

/// A field as one-pass reads know it: its number and, for a member of a
/// oneof, the numbers of the other members.
#[derive(Clone, Copy, Debug)]
pub struct FieldId {
    pub number: u32,
    pub siblings: &'static [u32],
}

/// One pass over `bytes`: fills `slots[i]` for the field number
/// `numbers[i]` (pairs past the shorter slice are ignored; `slots` must
/// start as [`Slot::EMPTY`]).
///
/// Follows [`last`]'s rules: a malformed message anywhere leaves every
/// singular value unreadable, while the ranges keep the occurrences before
/// the malformed field (where an iterator over the whole message stops too).
/// Non-generic, so every one-pass read in a guest shares this loop.
pub fn scan(bytes: &[u8], numbers: &[u32], slots: &mut [Slot]) {
    let mut pos = 0usize;
    while pos < bytes.len() {
        let key_at = pos;
        let Some((number, wire, start)) = skip_field(bytes, &mut pos) else {
            for slot in slots.iter_mut() {
                slot.tag = 0;
            }
            return;
        };
        for (&wanted, slot) in numbers.iter().zip(slots.iter_mut()) {
            if wanted == number {
                *slot = Slot {
                    first: if slot.end == 0 { key_at } else { slot.first },
                    start,
                    end: pos,
                    tag: wire + 1,
                };
            }
        }
    }
}

/// [`scan`] for distinct field numbers, written for speed rather than size:
/// generated `Reflect` impls use it (through [`Scan`]), guests do not.
/// Varints decode inline, and the search for a field number starts at the
/// previous match, so a message written in field-number order costs about
/// one comparison per field. When `numbers` has no duplicates it fills the
/// slots exactly as [`scan`] does (a unit test holds them equal).
pub fn scan_distinct(bytes: &[u8], numbers: &[u32], slots: &mut [Slot]) {
    let wanted = numbers.len().min(slots.len());
    let mut rest = bytes;
    let mut hint = 0usize;
    while !rest.is_empty() {
        let key_at = bytes.len().saturating_sub(rest.len());
        let Some((number, wire, value)) = next_located(&mut rest) else {
            for slot in slots.iter_mut() {
                slot.tag = 0;
            }
            return;
        };
        let end = bytes.len().saturating_sub(rest.len());
        let start = end.saturating_sub(value);
        let mut i = hint;
        for _ in 0..wanted {
            if numbers.get(i) == Some(&number) {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = Slot {
                        first: if slot.end == 0 { key_at } else { slot.first },
                        start,
                        end,
                        tag: wire + 1,
                    };
                }
                hint = i;
                break;
            }
            i = if i + 1 < wanted { i + 1 } else { 0 };
        }
    }
}

/// Reads the field at the front of `rest` (the rules of [`last`]),
/// advancing past it: its number, wire type and value length, or `None`
/// when it is malformed.
#[inline(always)]
fn next_located(rest: &mut &[u8]) -> Option<(u32, u8, usize)> {
    let key = varint_fast(rest)?;
    if key < 8 || key > u64::from(u32::MAX) {
        return None; // field number 0 or above 2^29 - 1
    }
    let wire = (key & 7) as u8;
    let len = match wire {
        0 => {
            let before = rest.len();
            varint_fast(rest)?;
            return Some(((key >> 3) as u32, wire, before.saturating_sub(rest.len())));
        }
        1 => 8,
        2 => usize::try_from(varint_fast(rest)?).ok()?,
        5 => 4,
        _ => return None,
    };
    let (_, tail) = rest.split_at_checked(len)?;
    *rest = tail;
    Some(((key >> 3) as u32, wire, len))
}

/// [`crate::wire::read_varint`] with the one-byte case inline (most keys
/// and lengths).
#[inline(always)]
fn varint_fast(rest: &mut &[u8]) -> Option<u64> {
    match rest.split_first() {
        Some((&byte, tail)) if byte < 0x80 => {
            *rest = tail;
            Some(u64::from(byte))
        }
        _ => crate::wire::read_varint(rest).ok(),
    }
}

/// Skips the field at `*pos` (the rules of [`last`]): its number, wire
/// type and the offset of its value, or `None` when it is malformed.
fn skip_field(bytes: &[u8], pos: &mut usize) -> Option<(u32, u8, usize)> {
    let key = varint_at(bytes, pos)?;
    if key < 8 || key > u64::from(u32::MAX) {
        return None; // field number 0 or above 2^29 - 1
    }
    let wire = (key & 7) as u8;
    let mut start = *pos;
    let skip = match wire {
        0 => {
            varint_at(bytes, pos)?;
            0
        }
        1 => 8,
        2 => {
            let len = varint_at(bytes, pos)?;
            start = *pos;
            len
        }
        5 => 4,
        _ => return None,
    };
    *pos = pos.checked_add(usize::try_from(skip).ok()?)?;
    (*pos <= bytes.len()).then_some(((key >> 3) as u32, wire, start))
}

/// A singular field read from its [`Slot`]: the last occurrence, unless the
/// field is a member of a oneof (`siblings` are the other members) and a
/// sibling occurs after it, as [`get_in_oneof`] decides.
#[inline(always)]
pub fn slot_raw<'a>(bytes: &'a [u8], slot: &Slot, siblings: &[u32]) -> Option<Raw<'a>> {
    let mine = slot.raw(bytes)?;
    if siblings.is_empty() {
        return Some(mine);
    }
    later_sibling_absent(bytes, mine, siblings).then_some(mine)
}

/// No member of `siblings` occurs after `mine` (Kubernetes has no oneofs, so
/// this rescan never runs for its views).
fn later_sibling_absent(bytes: &[u8], mine: Raw<'_>, siblings: &[u32]) -> bool {
    let mine_end = mine.bytes.as_ptr() as usize + mine.bytes.len();
    !siblings
        .iter()
        .any(|&other| last(bytes, other).is_some_and(|raw| raw.bytes.as_ptr() as usize >= mine_end))
}

/// The slots of one [`scan_distinct`] for `N` distinct fields, read back by
/// index (generated `Reflect` impls read every field of a message this way).
#[derive(Clone, Copy, Debug)]
pub struct Scan<'a, const N: usize> {
    bytes: &'a [u8],
    slots: [Slot; N],
}

impl<'a, const N: usize> Scan<'a, N> {
    /// Scans `bytes` once for the distinct field numbers `numbers`.
    #[inline(always)]
    pub fn new(bytes: &'a [u8], numbers: &[u32; N]) -> Self {
        let mut scanned = Scan {
            bytes,
            slots: [Slot::EMPTY; N],
        };
        scan_distinct(bytes, numbers, &mut scanned.slots);
        scanned
    }

    /// The value of `field`, found as the `index`-th of the `numbers`.
    #[inline(always)]
    pub fn get<M, K: Read<'a>>(&self, index: usize, field: Field<M, K>) -> K::Output {
        let slot = self.slots.get(index).unwrap_or(&Slot::EMPTY);
        K::read(self.bytes, field.id(), slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Knuth's MMIX LCG, high bits.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }
    }

    fn put_varint(out: &mut [u8; 4096], len: &mut usize, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if let Some(slot) = out.get_mut(*len) {
                *slot = if v == 0 { byte } else { byte | 0x80 };
                *len += 1;
            }
            if v == 0 {
                break;
            }
        }
    }

    /// Random records with field numbers 1..=12 and every wire type, then a
    /// random cut or byte flip: well-formed and malformed messages.
    fn random_message(rng: &mut Lcg, out: &mut [u8; 4096]) -> usize {
        let mut len = 0;
        for _ in 0..rng.next() % 24 {
            let number = 1 + rng.next() % 12;
            let wire = [0, 0, 1, 2, 2, 5, 3][(rng.next() % 7) as usize];
            put_varint(out, &mut len, number << 3 | wire);
            match wire {
                0 => put_varint(out, &mut len, rng.next() >> (rng.next() % 32)),
                1 | 5 => {
                    for _ in 0..if wire == 1 { 8 } else { 4 } {
                        put_varint(out, &mut len, rng.next() % 128);
                    }
                }
                2 => {
                    let body = rng.next() % 5;
                    put_varint(out, &mut len, body);
                    for _ in 0..body {
                        put_varint(out, &mut len, rng.next() % 128);
                    }
                }
                _ => {}
            }
        }
        match rng.next() % 4 {
            0 if len > 0 => (rng.next() as usize) % len,
            1 if len > 0 => {
                if let Some(b) = out.get_mut((rng.next() as usize) % len) {
                    *b ^= 1 << (rng.next() % 8);
                }
                len
            }
            _ => len,
        }
    }

    fn same(a: &Slot, b: &Slot, bytes: &[u8]) -> bool {
        a.raw(bytes) == b.raw(bytes) && a.range(bytes) == b.range(bytes)
    }

    #[test]
    fn scan_distinct_fills_the_slots_scan_fills_and_singulars_match_last() {
        let mut rng = Lcg(0x000e_9a55);
        let mut buf = [0u8; 4096];
        for case in 0..20_000 {
            let len = random_message(&mut rng, &mut buf);
            let bytes = buf.get(..len).unwrap_or_default();
            // Distinct numbers in a random order, some absent from the input.
            let mut numbers = [0u32; 6];
            let mut count = 0;
            while count < 1 + (case % 6) {
                let n = 1 + (rng.next() % 14) as u32;
                if !numbers[..count].contains(&n) {
                    numbers[count] = n;
                    count += 1;
                }
            }
            let numbers = &numbers[..count];
            let mut small = [Slot::EMPTY; 6];
            let mut fast = [Slot::EMPTY; 6];
            scan(bytes, numbers, &mut small[..count]);
            scan_distinct(bytes, numbers, &mut fast[..count]);
            for (i, &number) in numbers.iter().enumerate() {
                assert!(
                    same(&small[i], &fast[i], bytes),
                    "case {case}, field {number}: {bytes:02x?}"
                );
                assert_eq!(
                    small[i].raw(bytes),
                    last(bytes, number),
                    "case {case}, field {number}: {bytes:02x?}"
                );
            }
        }
    }

    #[test]
    fn ranges_cover_the_occurrences() {
        // 1: 5, 2: "ab", 1: 6, 3: 7, 2: "c", then field 4.
        let bytes = [
            0x08, 5, 0x12, 2, b'a', b'b', 0x08, 6, 0x18, 7, 0x12, 1, b'c', 0x20, 1,
        ];
        let mut slots = [Slot::EMPTY; 3];
        scan(&bytes, &[2, 1, 9], &mut slots);
        assert_eq!(slots[0].range(&bytes), &bytes[2..13]);
        assert_eq!(slots[1].range(&bytes), &bytes[..8]);
        assert_eq!(slots[1].raw(&bytes), last(&bytes, 1));
        assert_eq!(slots[2].range(&bytes), &[] as &[u8]);
        assert_eq!(slots[2].raw(&bytes), None);
        // Malformed at the end: singular values give up, ranges stay.
        let mut bad = bytes.to_vec();
        bad.push(0x0b);
        let mut slots = [Slot::EMPTY; 2];
        scan(&bad, &[2, 1], &mut slots);
        assert_eq!(slots[0].range(&bad), &bytes[2..13]);
        assert_eq!(slots[1].raw(&bad), None);
    }
}
