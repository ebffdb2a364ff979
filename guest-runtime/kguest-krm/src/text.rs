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

/// The dotted form of `path` for [`Report::field`](crate::Report::field)
/// (`field.path` of a result): keys joined with `.`, sequence indices as
/// `[i]`.
///
/// ```
/// let at = kguest_krm::field_path(&["spec", "template", "spec", "containers", "0", "image"]);
/// assert_eq!(at.as_str(), "spec.template.spec.containers[0].image");
/// ```
pub fn field_path(path: &[&str]) -> Text<256> {
    let mut out = Text::new();
    for (i, seg) in path.iter().enumerate() {
        let index = !seg.is_empty() && seg.bytes().all(|c| c.is_ascii_digit());
        if index {
            out.push("[").push(seg).push("]");
        } else {
            if i > 0 {
                out.push(".");
            }
            out.push(seg);
        }
    }
    out
}

/// A path of up to `N` segments built from pieces, for
/// [`ResourceList::set`](crate::ResourceList::set) and friends: a pod
/// template's path joined with the fields below it. A segment past `N`
/// makes the path [`Path::overflowed`], and its slice empty (which every
/// edit refuses).
///
/// ```
/// use kguest_krm::{Path, workload};
///
/// let template = workload::pod_template_path("apps", "Deployment").unwrap();
/// let image = Path::<12>::new(template).push("spec").push("containers").push("0").push("image");
/// assert_eq!(image.as_slice(), ["spec", "template", "spec", "containers", "0", "image"]);
/// assert_eq!(image.field().as_str(), "spec.template.spec.containers[0].image");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Path<'s, const N: usize = 16> {
    segs: [&'s str; N],
    len: usize,
    overflowed: bool,
}

impl<'s, const N: usize> Path<'s, N> {
    /// A path starting with `segments`.
    pub fn new(segments: &[&'s str]) -> Self {
        Path {
            segs: [""; N],
            len: 0,
            overflowed: false,
        }
        .extend(segments)
    }

    /// Appends one segment (chainable).
    pub fn push(mut self, seg: &'s str) -> Self {
        match self.segs.get_mut(self.len) {
            Some(slot) => {
                *slot = seg;
                self.len += 1;
            }
            None => self.overflowed = true,
        }
        self
    }

    /// Appends `segments`.
    pub fn extend(self, segments: &[&'s str]) -> Self {
        segments.iter().fold(self, |p, s| p.push(s))
    }

    /// True when a segment did not fit.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The segments (empty when the path overflowed).
    pub fn as_slice(&self) -> &[&'s str] {
        if self.overflowed {
            return &[];
        }
        self.segs.get(..self.len).unwrap_or(&[])
    }

    /// The dotted form, see [`field_path`].
    pub fn field(&self) -> Text<256> {
        field_path(self.as_slice())
    }
}
