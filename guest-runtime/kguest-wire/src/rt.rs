//! The functions generated accessors call. Not a stable API.
//!
//! Kept tiny and non-generic where possible so that a guest links only
//! what its accessors reach.

use crate::codec::Codec;
use crate::fields::{Field, Read};
use crate::wire::{Raw, field_at};

/// The last occurrence of field `number`, undecoded, or `None` when the
/// field is absent or the message is malformed anywhere.
///
/// Values are skipped, not decoded ([`field_at`], shared by every read
/// path); only the winner is decoded, by the codec that asked for it.
/// Singular accessors go through [`get_wire`] instead, which also checks the
/// wire type and returns a scalar from its loop; this one serves oneof
/// members and codecs outside this crate.
#[inline]
pub fn last(bytes: &[u8], number: u32) -> Option<Raw<'_>> {
    // The winner as (key, start, end); key 0 means none yet.
    let mut found = (0u32, 0usize, 0usize);
    let (mut pos, mut start) = (0usize, 0usize);
    while pos < bytes.len() {
        let key = field_at(bytes, &mut pos, &mut start);
        if key == 0 {
            return None;
        }
        if key >> 3 == number {
            found = (key, start, pos);
        }
    }
    let (key, start, end) = found;
    if key == 0 {
        return None;
    }
    Some(Raw {
        wire: (key & 7) as u8,
        bytes: bytes.get(start..end)?,
    })
}

/// Where the last occurrence of field `number` is, as `start | end << 32`
/// (offsets of its value), when its wire type is `wire`; `u64::MAX` when
/// the field is absent, its last occurrence has another wire type or the
/// message is malformed anywhere. For messages shorter than `u32::MAX`
/// bytes ([`get_wire`] checks).
///
/// One function returning a scalar, so that a singular accessor is a call
/// and a bounds check (`#[inline]` only compiles it in the guest's crate;
/// see the crate docs).
#[inline]
pub fn last_span(bytes: &[u8], number: u32, wire: u32) -> u64 {
    let mut found = u64::MAX;
    let (mut pos, mut start) = (0usize, 0usize);
    while pos < bytes.len() {
        let key = field_at(bytes, &mut pos, &mut start);
        if key == 0 {
            return u64::MAX;
        }
        if key >> 3 == number {
            found = if key & 7 == wire {
                start as u64 | (pos as u64) << 32
            } else {
                u64::MAX
            };
        }
    }
    found
}

/// The value of the last occurrence of field `number` when its wire type
/// is `wire` (a varint's bytes, the fixed bytes, a length-delimited body):
/// [`last`] filtered by wire type. Every codec that reads one wire type
/// (all of this crate's) reads singular fields through it.
#[inline(always)]
pub fn get_wire(bytes: &[u8], number: u32, wire: u32) -> Option<&[u8]> {
    if usize::BITS > 32 && bytes.len() >= u32::MAX as usize {
        // Only on 64-bit hosts: offsets do not fit the span.
        return last(bytes, number)
            .filter(|raw| u32::from(raw.wire) == wire)
            .map(|raw| raw.bytes);
    }
    let span = last_span(bytes, number, wire);
    bytes.get(span as u32 as usize..(span >> 32) as usize)
}

/// The next occurrence of field `number` in `rest`, undecoded, with `rest`
/// moved past it. At the end of `rest`, or when a field before the next
/// occurrence is malformed, returns `None` and empties `rest`.
///
/// Non-generic: the repeated and map iterators of every type share it.
#[inline]
pub fn next_occurrence<'a>(rest: &mut &'a [u8], number: u32) -> Option<Raw<'a>> {
    let bytes = *rest;
    *rest = &[];
    let (mut pos, mut start) = (0usize, 0usize);
    while pos < bytes.len() {
        let key = field_at(bytes, &mut pos, &mut start);
        if key == 0 {
            return None;
        }
        if key >> 3 == number {
            let value = bytes.get(start..pos)?;
            *rest = bytes.get(pos..)?;
            return Some(Raw {
                wire: (key & 7) as u8,
                bytes: value,
            });
        }
    }
    None
}

/// A singular field read with codec `C`.
#[inline(always)]
pub fn get<'a, C: Codec<'a>>(bytes: &'a [u8], number: u32) -> Option<C::Item> {
    C::get(bytes, number)
}

/// A member of a oneof read with codec `C`: present only when no other
/// member (`siblings`) occurs after its last occurrence, as protobuf
/// specifies ("the last member seen wins").
#[inline]
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
    #[inline]
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
/// start as [`Slot::EMPTY`]). Returns false when the message is malformed.
///
/// Follows [`last`]'s rules: a malformed message anywhere leaves every
/// singular value unreadable, while the ranges keep the occurrences before
/// the malformed field (where an iterator over the whole message stops too).
/// Non-generic, so every one-pass read in a guest shares this loop (and map
/// iterators use it to split an entry into key and value).
#[inline]
pub fn scan(bytes: &[u8], numbers: &[u32], slots: &mut [Slot]) -> bool {
    let (mut pos, mut start) = (0usize, 0usize);
    while pos < bytes.len() {
        let key_at = pos;
        let key = field_at(bytes, &mut pos, &mut start);
        if key == 0 {
            for slot in slots.iter_mut() {
                slot.tag = 0;
            }
            return false;
        }
        for (&wanted, slot) in numbers.iter().zip(slots.iter_mut()) {
            if wanted == key >> 3 {
                *slot = Slot {
                    first: if slot.end == 0 { key_at } else { slot.first },
                    start,
                    end: pos,
                    tag: (key & 7) as u8 + 1,
                };
            }
        }
    }
    true
}

/// [`scan`] for distinct field numbers, written for speed rather than size:
/// generated `Reflect` impls use it (through [`Scan`]), guests do not.
/// Varints decode inline, and the search for a field number starts at the
/// previous match, so a message written in field-number order costs about
/// one comparison per field. When `numbers` has no duplicates it fills the
/// slots exactly as [`scan`] does (a unit test holds them equal).
#[inline]
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
#[inline]
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
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::wire::Value;

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

    /// A value as the reference decoder ([`crate::wire::next_field`]) sees
    /// it, and the same value read back from located bytes of `wire` type.
    fn located(wire: u32, mut bytes: &[u8]) -> Option<Value<'_>> {
        Some(match wire {
            0 => Value::Varint(crate::wire::take_varint(&mut bytes)?),
            1 => Value::Fixed64(crate::wire::read_fixed64(&mut bytes).ok()?),
            2 => Value::Len(bytes),
            5 => Value::Fixed32(crate::wire::read_fixed32(&mut bytes).ok()?),
            _ => return None,
        })
    }

    fn wire_of(value: &Value<'_>) -> u32 {
        match value {
            Value::Varint(_) => 0,
            Value::Fixed64(_) => 1,
            Value::Len(_) => 2,
            Value::Fixed32(_) => 5,
        }
    }

    #[test]
    fn get_wire_and_next_occurrence_agree_with_next_field() {
        let mut rng = Lcg(0x5_12e);
        let mut buf = [0u8; 4096];
        for case in 0..20_000 {
            let len = random_message(&mut rng, &mut buf);
            let bytes = buf.get(..len).unwrap_or_default();
            for number in 1..=13 {
                // The reference: every occurrence until the end or an error.
                let mut rest = bytes;
                let mut occurrences = Vec::new();
                let mut malformed = false;
                loop {
                    match crate::wire::next_field(&mut rest) {
                        Ok(Some((n, value))) if n == number => occurrences.push(value),
                        Ok(Some(_)) => {}
                        Ok(None) => break,
                        Err(_) => {
                            malformed = true;
                            break;
                        }
                    }
                }
                for wire in [0, 1, 2, 5] {
                    let want = match occurrences.last() {
                        Some(value) if !malformed && wire_of(value) == wire => Some(*value),
                        _ => None,
                    };
                    let got = get_wire(bytes, number, wire).map(|b| located(wire, b));
                    assert_eq!(
                        got,
                        want.map(Some),
                        "case {case}, field {number}: {bytes:02x?}"
                    );
                }
                let mut rest = bytes;
                let mut seen = Vec::new();
                while let Some(raw) = next_occurrence(&mut rest, number) {
                    seen.push(raw.value());
                }
                assert!(rest.is_empty());
                let want: Vec<_> = occurrences.iter().map(|v| Some(*v)).collect();
                assert_eq!(seen, want, "case {case}, field {number}: {bytes:02x?}");
            }
        }
    }

    #[test]
    fn take_varint_follows_read_varint() {
        let mut rng = Lcg(0x7a_7e);
        for _ in 0..200_000 {
            let mut bytes = [0u8; 12];
            let len = (rng.next() % 13) as usize;
            for (i, b) in bytes.iter_mut().enumerate().take(len) {
                // Mostly continuation bytes, so long and overlong varints occur.
                *b = (rng.next() % 256) as u8
                    | if rng.next().is_multiple_of(4) || i + 1 == len {
                        0
                    } else {
                        0x80
                    };
            }
            let bytes = &bytes[..len];
            let (mut a, mut b) = (bytes, bytes);
            let want = crate::wire::read_varint(&mut a).ok();
            let got = crate::wire::take_varint(&mut b);
            assert_eq!(got, want, "{bytes:02x?}");
            if want.is_some() {
                assert_eq!(a, b, "{bytes:02x?}");
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
