//! A protobuf writer for test input. Unlike `kguest_wire::encode` (the
//! encoder under test, which writes only what Go writes), it also writes
//! what a conforming decoder must accept but no marshaller writes: overlong
//! varints, any wire type for any field. It depends on nothing of kguest's.

/// Wire types.
pub const VARINT: u8 = 0;
pub const FIXED64: u8 = 1;
pub const LEN: u8 = 2;
pub const FIXED32: u8 = 5;

/// The bytes of the minimal varint of `v` (1 to 10).
pub fn varint_len(v: u64) -> usize {
    (1..10).find(|&n| v >> (7 * n) == 0).unwrap_or(10)
}

/// Writes `v` as a varint in exactly `n` bytes (`varint_len(v) <= n <= 10`):
/// more than `varint_len(v)` pads it with continuation bytes of zeros.
pub fn put_varint_n(out: &mut Vec<u8>, v: u64, n: usize) {
    for i in 0..n {
        let byte = ((v >> (7 * i)) & 0x7f) as u8;
        out.push(if i + 1 < n { byte | 0x80 } else { byte });
    }
}

/// Writes the minimal varint of `v`.
pub fn put_varint(out: &mut Vec<u8>, v: u64) {
    put_varint_n(out, v, varint_len(v));
}

/// Writes the minimal key of field `number` with wire type `wire`.
pub fn key(out: &mut Vec<u8>, number: u32, wire: u8) {
    put_varint(out, (u64::from(number) << 3) | u64::from(wire));
}

/// A length-delimited record, key and length minimal.
pub fn len_field(number: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 6);
    key(&mut out, number, LEN);
    put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(body);
    out
}

/// A varint record, the value in exactly `width` bytes (0: minimal).
pub fn varint_field(number: u32, v: u64, width: usize) -> Vec<u8> {
    let mut out = Vec::new();
    key(&mut out, number, VARINT);
    put_varint_n(&mut out, v, width.max(varint_len(v)));
    out
}

/// `levels` length-delimited records nested in each other around `inner`,
/// the outermost of field `numbers[0]`, the next of `numbers[1]`, and so
/// on, cycling through `numbers`.
pub fn nest(numbers: &[u32], levels: usize, inner: &[u8]) -> Vec<u8> {
    let mut bytes = inner.to_vec();
    for level in (0..levels).rev() {
        let mut outer = Vec::with_capacity(bytes.len() + 8);
        key(&mut outer, numbers[level % numbers.len()], LEN);
        put_varint(&mut outer, bytes.len() as u64);
        outer.extend(bytes);
        bytes = outer;
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_minimal_and_padded() {
        for (v, minimal) in [
            (0, &[0x00][..]),
            (1, &[0x01]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out, minimal, "{v}");
            assert_eq!(varint_len(v), minimal.len());
        }
        let mut out = Vec::new();
        put_varint(&mut out, u64::MAX);
        assert_eq!(out.len(), 10);
        assert_eq!(out[9], 0x01);
        let mut out = Vec::new();
        put_varint_n(&mut out, 3, 4);
        assert_eq!(out, [0x83, 0x80, 0x80, 0x00]);
    }

    #[test]
    fn records() {
        assert_eq!(len_field(1, b"ab"), [0x0a, 0x02, b'a', b'b']);
        assert_eq!(varint_field(7, 1, 0), [0x38, 0x01]);
        assert_eq!(varint_field(7, 1, 3), [0x38, 0x81, 0x80, 0x00]);
        assert_eq!(nest(&[1, 2], 2, b"x"), [0x0a, 0x03, 0x12, 0x01, b'x']);
        let mut out = Vec::new();
        key(&mut out, 536_870_911, FIXED32);
        assert_eq!(out, [0xfd, 0xff, 0xff, 0xff, 0x0f]);
    }
}
