//! Writing the protobuf wire format (hosts only: feature `encode`).
//!
//! Plain functions over `Vec<u8>`. Lengths are always the minimal varint,
//! as every conforming encoder (and Go's) writes them.

use alloc::vec::Vec;

/// Wire types.
pub const VARINT: u8 = 0;
pub const FIXED64: u8 = 1;
pub const LEN: u8 = 2;
pub const FIXED32: u8 = 5;

/// Appends `value` as a varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The number of bytes `value` takes as a varint.
#[inline]
pub const fn varint_len(value: u64) -> usize {
    // 1 + floor(bits / 7), with 0 taking one byte.
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Appends a field key.
#[inline]
pub fn put_key(out: &mut Vec<u8>, number: u32, wire: u8) {
    put_varint(out, (u64::from(number) << 3) | u64::from(wire));
}

/// Appends a length-delimited field.
#[inline]
pub fn put_bytes(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_key(out, number, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Zigzag-encodes a `sint64`.
#[inline]
pub const fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Zigzag-encodes a `sint32`.
#[inline]
pub const fn zigzag32(v: i32) -> u64 {
    (((v << 1) ^ (v >> 31)) as u32) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{read_varint, zigzag32 as unzig32, zigzag64 as unzig64};

    #[test]
    fn varints_round_trip() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX, 1 << 63] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(out.len(), varint_len(value), "{value}");
            assert_eq!(read_varint(&mut out.as_slice()), Ok(value));
        }
    }

    #[test]
    fn zigzag_round_trips() {
        for v in [0i64, 1, -1, i64::MAX, i64::MIN, 12345, -98765] {
            assert_eq!(unzig64(zigzag64(v)), v);
        }
        for v in [0i32, 1, -1, i32::MAX, i32::MIN] {
            assert_eq!(unzig32(zigzag32(v)), v);
        }
    }
}
