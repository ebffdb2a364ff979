//! How Go's `encoding/json` writes text: string escaping and `[]byte` as
//! base64.

use alloc::string::String;
use alloc::vec::Vec;

/// The bytes Go writes unchanged inside a string: printable ASCII except
/// `"`, `\\`, `<`, `>` and `&`.
pub(super) const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 0x80 {
        table[b] = !matches!(b as u8, b'"' | b'\\' | b'<' | b'>' | b'&');
        b += 1;
    }
    table
};

/// Writes `text` as a JSON string the way Go's `encoding/json` does;
/// returns false when `text` is not UTF-8 (the bad bytes are written as
/// U+FFFD).
pub(crate) fn write_go_string(text: &[u8], out: &mut Vec<u8>) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut utf8 = true;
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    loop {
        i = plain_run(text, i);
        let Some(&b) = text.get(i) else {
            break;
        };
        if b < 0x80 {
            let escape: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                // Go 1.22 and later (the Go judge runs 1.26).
                0x08 => b"\\b",
                0x0c => b"\\f",
                b'<' | b'>' | b'&' | 0..=0x1f => b"",
                _ => {
                    i += 1;
                    continue;
                }
            };
            out.extend_from_slice(&text[start..i]);
            if escape.is_empty() {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            } else {
                out.extend_from_slice(escape);
            }
            i += 1;
            start = i;
            continue;
        }
        // Multi-byte: U+2028 and U+2029 are escaped, invalid bytes replaced.
        let width = match b {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 0,
        };
        let valid = width > 0
            && text
                .get(i..i + width)
                .is_some_and(|s| core::str::from_utf8(s).is_ok());
        if !valid {
            utf8 = false;
            out.extend_from_slice(&text[start..i]);
            out.extend_from_slice("\u{fffd}".as_bytes());
            i += 1;
            start = i;
            continue;
        }
        if width == 3
            && b == 0xe2
            && text[i + 1] == 0x80
            && (text[i + 2] == 0xa8 || text[i + 2] == 0xa9)
        {
            out.extend_from_slice(&text[start..i]);
            out.extend_from_slice(if text[i + 2] == 0xa8 {
                b"\\u2028"
            } else {
                b"\\u2029"
            });
            i += 3;
            start = i;
            continue;
        }
        i += width;
    }
    out.extend_from_slice(&text[start..]);
    out.push(b'"');
    utf8
}

/// The offset of the first byte at or after `i` that Go does not write
/// unchanged in a string (see `PLAIN`), or the end. Eight bytes at a time:
/// each test flags the bytes it matches, falsely only above a real match,
/// so the lowest flagged byte is always a real one.
#[inline(always)]
fn plain_run(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let equal = |w: u64, c: u8| {
        let x = w ^ (ONES * u64::from(c));
        x.wrapping_sub(ONES) & !x
    };
    let flags = |chunk: &[u8]| {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        (w | (w.wrapping_sub(ONES * 0x20) & !w)
            | equal(w, b'"')
            | equal(w, b'\\')
            | equal(w, b'<')
            | equal(w, b'>')
            | equal(w, b'&'))
            & HIGH
    };
    while let Some(chunk) = text.get(i..i + 8) {
        let flagged = flags(chunk);
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while text.get(i).is_some_and(|&b| PLAIN[usize::from(b)]) {
        i += 1;
    }
    i
}

/// Standard base64 with padding, as Go's `encoding/json` writes `[]byte`.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    base64_into(bytes, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

pub(super) fn base64_into(bytes: &[u8], out: &mut Vec<u8>) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want);
        }
    }

    #[test]
    fn strings_are_escaped_as_go_does() {
        let mut out = Vec::new();
        write_go_string("a\"<b>&\u{2028}\t\u{1}é".as_bytes(), &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"\u003cb\u003e\u0026\u2028\t\u0001é""#
        );
        // Backspace and form feed have short escapes since Go 1.22 (the
        // Go fuzz oracle's StatefulSet `updateRevision`).
        let mut out = Vec::new();
        write_go_string(b"1\x08\x0c\x0b", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#""1\b\f\u000b""#);
        let mut out = Vec::new();
        write_go_string(b"a\xffb", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "\"a\u{fffd}b\"");
    }

    /// Go's rules one byte (or character) at a time, as the reference for
    /// the word-at-a-time writer.
    fn reference(text: &[u8]) -> (Vec<u8>, bool) {
        let mut out = alloc::vec![b'"'];
        let mut utf8 = true;
        let mut rest = text;
        while !rest.is_empty() {
            let ch = match core::str::from_utf8(&rest[..rest.len().min(4)]) {
                Ok(s) => s.chars().next(),
                Err(e) if e.valid_up_to() > 0 => core::str::from_utf8(&rest[..e.valid_up_to()])
                    .ok()
                    .and_then(|s| s.chars().next()),
                Err(_) => None,
            };
            let Some(ch) = ch else {
                utf8 = false;
                out.extend_from_slice("\u{fffd}".as_bytes());
                rest = &rest[1..];
                continue;
            };
            match ch {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\u{8}' => out.extend_from_slice(b"\\b"),
                '\u{c}' => out.extend_from_slice(b"\\f"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' | '\0'..='\u{1f}' => {
                    out.extend_from_slice(alloc::format!("\\u{:04x}", u32::from(ch)).as_bytes())
                }
                _ => out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes()),
            }
            rest = &rest[ch.len_utf8()..];
        }
        out.push(b'"');
        (out, utf8)
    }

    #[test]
    fn strings_match_the_byte_at_a_time_rules_at_every_offset() {
        let specials: [&[u8]; 14] = [
            b"\x08",
            b"\x0c",
            b"\"",
            b"\\",
            b"<",
            b">",
            b"&",
            b"\n",
            b"\x01",
            b"\x7f",
            "\u{e9}".as_bytes(),
            "\u{2028}".as_bytes(),
            "\u{1f600}".as_bytes(),
            b"\xff",
        ];
        for special in specials {
            for before in 0..20 {
                for after in [0, 1, 7, 8, 9, 17] {
                    let mut text = alloc::vec![b'a'; before];
                    text.extend_from_slice(special);
                    text.extend(core::iter::repeat_n(b'z', after));
                    let mut out = Vec::new();
                    let utf8 = write_go_string(&text, &mut out);
                    assert_eq!((out, utf8), reference(&text), "{text:?}");
                }
            }
        }
    }
}
