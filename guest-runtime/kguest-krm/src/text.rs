//! [`Text`]: a fixed-capacity string builder for messages, without
//! `core::fmt`.

/// A string of at most `N` bytes built piece by piece; what does not fit
/// is cut at a character boundary and marked with `...`.
#[derive(Clone, Copy)]
pub struct Text<const N: usize = 256> {
    buf: [u8; N],
    len: usize,
    cut: bool,
}

impl<const N: usize> Default for Text<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for Text<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> Text<N> {
    pub const fn new() -> Self {
        Text {
            buf: [0; N],
            len: 0,
            cut: false,
        }
    }

    /// Appends `s` (chainable).
    #[inline(never)]
    pub fn push(&mut self, s: &str) -> &mut Self {
        if self.cut {
            return self;
        }
        let room = N.saturating_sub(self.len + 3);
        let mut take = s.len().min(room);
        if take < s.len() {
            while take > 0 && !s.is_char_boundary(take) {
                take -= 1;
            }
            self.cut = true;
        }
        if let (Some(dst), Some(src)) = (
            self.buf.get_mut(self.len..self.len + take),
            s.as_bytes().get(..take),
        ) {
            crate::bytes::copy(dst, src);
            self.len += take;
        }
        if self.cut
            && let Some(dst) = self.buf.get_mut(self.len..self.len + 3)
        {
            crate::bytes::copy(dst, b"...");
            self.len += 3;
        }
        self
    }

    /// Appends a decimal integer.
    pub fn int(&mut self, v: i64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut n = v.unsigned_abs();
        let mut i = digits.len();
        loop {
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if n == 0 || i == 0 {
                break;
            }
        }
        if v < 0 {
            self.push("-");
        }
        let s = digits
            .get(i..)
            .and_then(|d| core::str::from_utf8(d).ok())
            .unwrap_or("");
        self.push(s)
    }

    pub fn as_str(&self) -> &str {
        self.buf
            .get(..self.len)
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    pub fn clear(&mut self) {
        self.len = 0;
        self.cut = false;
    }
}
