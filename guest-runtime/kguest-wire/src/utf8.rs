//! UTF-8 validation written for size: the only `unsafe` of this crate.
//!
//! `core::str::from_utf8` is fast (it checks ASCII a word at a time) but
//! costs a guest about 950 bytes (its code and a 256-byte table); Kubernetes
//! strings are short, so wasm guests validate them byte by byte instead.
//! Hosts are not size-bound and keep `core`'s. Both accept exactly the same
//! bytes: a test compares them on every sequence of up to three bytes and on
//! every four-byte lead with edge continuation bytes (a sequence is checked
//! on its own, so that covers every input).
#![allow(unsafe_code)]

/// `bytes` as a `&str` when they are valid UTF-8 (what
/// `core::str::from_utf8(bytes).ok()` returns); in wasm, in less code.
#[inline]
pub fn to_str(bytes: &[u8]) -> Option<&str> {
    #[cfg(target_arch = "wasm32")]
    return compact(bytes);
    #[cfg(not(target_arch = "wasm32"))]
    return core::str::from_utf8(bytes).ok();
}

/// [`to_str`] byte by byte, in about 280 bytes of wasm.
#[inline]
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
fn compact(bytes: &[u8]) -> Option<&str> {
    let mut rest = bytes.iter();
    while let Some(&lead) = rest.next() {
        if lead < 0x80 {
            continue;
        }
        // Continuation bytes to follow and the smallest code point that
        // needs them (smaller ones are overlong encodings).
        let (more, min) = match lead {
            0xc2..=0xdf => (1, 0x80),
            0xe0..=0xef => (2, 0x800),
            0xf0..=0xf4 => (3, 0x1_0000),
            _ => return None,
        };
        let mut c = u32::from(lead) & (0x3f >> more);
        for _ in 0..more {
            let &next = rest.next()?;
            if next & 0xc0 != 0x80 {
                return None;
            }
            c = c << 6 | u32::from(next & 0x3f);
        }
        if c < min || (0xd800..0xe000).contains(&c) || c > 0x10_ffff {
            return None;
        }
    }
    // SAFETY: the loop above checked every sequence of `bytes` by the rules
    // of UTF-8 (no stray continuation or invalid lead byte, no truncated
    // sequence, no overlong encoding, no surrogate, nothing above U+10FFFF),
    // which is all `from_utf8_unchecked` requires.
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

#[cfg(test)]
mod tests {
    use super::compact as to_str;

    #[test]
    fn every_sequence_up_to_three_bytes_matches_core() {
        let mut buf = [0u8; 3];
        for len in 1..=3usize {
            for n in 0..1u32 << (8 * len) {
                for (i, b) in buf.iter_mut().enumerate().take(len) {
                    *b = (n >> (8 * i)) as u8;
                }
                let bytes = &buf[..len];
                assert_eq!(
                    to_str(bytes),
                    core::str::from_utf8(bytes).ok(),
                    "{bytes:02x?}"
                );
            }
        }
    }

    #[test]
    fn four_byte_sequences_and_mixed_text_match_core() {
        // Every lead byte from 0xf0 with continuation bytes around the edges
        // (U+10000, U+10FFFF, above it), plus random mixes of valid and
        // broken text.
        let edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0, 0xff];
        for lead in 0xf0..=0xffu8 {
            for &a in &edges {
                for &b in &edges {
                    for &c in &edges {
                        let bytes = [lead, a, b, c];
                        assert_eq!(
                            to_str(&bytes),
                            core::str::from_utf8(&bytes).ok(),
                            "{bytes:02x?}"
                        );
                    }
                }
            }
        }
        let pieces: [&[u8]; 10] = [
            b"abc",
            "é".as_bytes(),
            "€".as_bytes(),
            "𝄞".as_bytes(),
            &[0xed, 0xa0, 0x80],
            &[0xf4, 0x90, 0x80, 0x80],
            &[0xe0, 0x80, 0x80],
            &[0xc3],
            &[0x80],
            b"",
        ];
        let mut state = 0x0c0f_fee5_u64;
        let mut text = [0u8; 64];
        for _ in 0..100_000 {
            let mut len = 0;
            for _ in 0..6 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let piece = pieces[(state >> 33) as usize % pieces.len()];
                text[len..len + piece.len()].copy_from_slice(piece);
                len += piece.len();
            }
            let bytes = &text[..len];
            assert_eq!(
                to_str(bytes),
                core::str::from_utf8(bytes).ok(),
                "{bytes:02x?}"
            );
        }
    }
}
