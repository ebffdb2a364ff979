//! Building short messages without `core::fmt` or an allocator.

/// Copies `min(dst.len(), src.len())` bytes (one `memory.copy` in wasm).
/// Unlike `copy_from_slice` it has no length-mismatch panic (which would
/// pull in `core::fmt`).
pub(crate) use crate::sys::copy;

/// A fixed-capacity UTF-8 buffer for status reasons and log lines.
///
/// Appends that do not fit are cut at a character boundary and set
/// [`ReasonBuf::is_truncated`]; nothing panics.
///
/// ```
/// let mut r = kguest::ReasonBuf::<64>::new();
/// r.push_str("node has ").push_u64(3).push_str(" cpus");
/// assert_eq!(r.as_str(), "node has 3 cpus");
/// ```
#[derive(Clone)]
pub struct ReasonBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
    truncated: bool,
}

impl<const N: usize> ReasonBuf<N> {
    pub const fn new() -> Self {
        ReasonBuf {
            buf: [0; N],
            len: 0,
            truncated: false,
        }
    }

    #[inline]
    pub fn clear(&mut self) -> &mut Self {
        self.len = 0;
        self.truncated = false;
        self
    }

    /// Appends `s`, or as much of it as fits.
    #[inline]
    pub fn push_str(&mut self, s: &str) -> &mut Self {
        let room = N.saturating_sub(self.len);
        let mut take = s.len().min(room);
        while !s.is_char_boundary(take) {
            take = take.saturating_sub(1);
        }
        if take < s.len() {
            self.truncated = true;
        }
        if let (Some(dst), Some(src)) = (
            self.buf.get_mut(self.len..self.len.saturating_add(take)),
            s.as_bytes().get(..take),
        ) {
            copy(dst, src);
            self.len = self.len.saturating_add(take);
        }
        self
    }

    /// Appends the decimal digits of `v`.
    #[inline]
    pub fn push_u64(&mut self, mut v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i = i.saturating_sub(1);
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + (v % 10) as u8;
            }
            v /= 10;
            if v == 0 || i == 0 {
                break;
            }
        }
        // Only ASCII digits were written.
        let s = kguest_wire::utf8::to_str(digits.get(i..).unwrap_or(&[])).unwrap_or("");
        self.push_str(s)
    }

    /// Appends `v` in decimal with a leading `-` when negative.
    #[inline]
    pub fn push_i64(&mut self, v: i64) -> &mut Self {
        if v < 0 {
            self.push_str("-");
        }
        self.push_u64(v.unsigned_abs())
    }

    #[inline]
    pub fn as_str(&self) -> &str {
        // Only whole `str`s cut at character boundaries were copied in.
        kguest_wire::utf8::to_str(self.buf.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when some append did not fit.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }
}

impl<const N: usize> Default for ReasonBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for ReasonBuf<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("ReasonBuf").field(&self.as_str()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings() {
        let mut r = ReasonBuf::<64>::new();
        r.push_u64(0)
            .push_str(" ")
            .push_u64(u64::MAX)
            .push_str(" ")
            .push_i64(i64::MIN);
        assert_eq!(r.as_str(), "0 18446744073709551615 -9223372036854775808");
        assert!(!r.is_truncated());
        r.clear().push_i64(-5).push_i64(42);
        assert_eq!(r.as_str(), "-542");
    }

    #[test]
    fn overflow_truncates_at_char_boundary() {
        let mut r = ReasonBuf::<5>::new();
        r.push_str("abcé");
        assert_eq!(r.as_str(), "abcé");
        r.push_str("x");
        assert_eq!(r.as_str(), "abcé");
        assert!(r.is_truncated());
        let mut r = ReasonBuf::<4>::new();
        r.push_str("abcé");
        assert_eq!(r.as_str(), "abc");
        assert_eq!(r.len(), 3);
        let mut r = ReasonBuf::<3>::new();
        r.push_u64(12345);
        assert_eq!(r.as_str(), "123");
        let mut z = ReasonBuf::<0>::new();
        z.push_str("a").push_u64(1);
        assert!(z.is_empty() && z.is_truncated());
    }
}
