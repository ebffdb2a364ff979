//! Go's `encoding/json` string form (field names as written, Go's
//! escaping: `<`, `>`, `&`, U+2028/9 as `\u....`), written into a fixed
//! buffer without an allocator: the event recorder's JSON and, natively,
//! the test host's image states. It reaches no host import.

/// Writes while there is room and counts every byte, so one pass both
/// writes and measures.
pub(crate) struct Out<'b> {
    pub(crate) buf: &'b mut [u8],
    pub(crate) len: usize,
}

impl Out<'_> {
    /// Copies `s` when it fits and counts it either way (a part that does
    /// not fit is not written: the message is not sent then).
    #[inline]
    pub(crate) fn raw(&mut self, s: &[u8]) {
        let end = self.len.saturating_add(s.len());
        if let Some(d) = self.buf.get_mut(self.len..end) {
            // Not `copy_from_slice`: its length check links core::fmt.
            d.iter_mut().zip(s).for_each(|(d, s)| *d = *s);
        }
        self.len = end;
    }

    /// A JSON string as Go's `encoding/json` writes it (HTML-safe: `<`, `>`,
    /// `&`, U+2028 and U+2029 as `\u` escapes; `\b \f \n \r \t` short).
    /// Runs of bytes that need no escape go out in one copy.
    #[inline]
    pub(crate) fn string(&mut self, mut b: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.raw(b"\"");
        loop {
            let plain = b
                .iter()
                .position(|&c| c < 0x20 || matches!(c, b'"' | b'\\' | b'<' | b'>' | b'&' | 0xE2))
                .unwrap_or(b.len());
            self.raw(b.get(..plain).unwrap_or(&[]));
            let Some((&c, rest)) = b.get(plain..).and_then(<[u8]>::split_first) else {
                break;
            };
            b = rest;
            let mut esc = [b'\\', c, b'0', b'0', 0, 0];
            let n = match c {
                b'"' | b'\\' => 2,
                0x08 | 0x09 | 0x0a | 0x0c | 0x0d => {
                    esc[1] = b"btn?fr".get(usize::from(c - 8)).copied().unwrap_or(b'?');
                    2
                }
                0..0x20 | b'<' | b'>' | b'&' => {
                    esc[1] = b'u';
                    esc[4] = HEX.get(usize::from(c >> 4)).copied().unwrap_or(b'0');
                    esc[5] = HEX.get(usize::from(c & 15)).copied().unwrap_or(b'0');
                    6
                }
                // U+2028 and U+2029 are E2 80 A8 / E2 80 A9.
                0xE2 if b.first() == Some(&0x80) && matches!(b.get(1), Some(0xA8 | 0xA9)) => {
                    esc = *b"\\u2028";
                    if b.get(1) == Some(&0xA9) {
                        esc[5] = b'9';
                    }
                    b = b.get(2..).unwrap_or(&[]);
                    6
                }
                // Any other 0xE2 is written as it is.
                _ => {
                    esc[0] = c;
                    1
                }
            };
            self.raw(esc.get(..n).unwrap_or(&[]));
        }
        self.raw(b"\"");
    }
}

/// Go's JSON string for `s` (tests and the test host).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn json_string(s: &str) -> std::string::String {
    let mut buf = std::vec![0u8; s.len() * 6 + 2];
    let mut out = Out {
        buf: &mut buf,
        len: 0,
    };
    out.string(s.as_bytes());
    let len = out.len;
    buf.truncate(len);
    std::string::String::from_utf8(buf).unwrap_or_default()
}
