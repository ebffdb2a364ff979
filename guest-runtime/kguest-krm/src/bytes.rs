//! Byte-level string helpers that cannot panic. `core`'s `char`-pattern
//! searchers (`split`, `split_once`, `trim_matches`) link slice-index
//! panics into a guest; these do not.

/// Copies `src` into `dst` (the shorter length).
pub(crate) fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

/// `s` split at the first `b` (an ASCII byte).
pub(crate) fn split_once(s: &str, b: u8) -> Option<(&str, &str)> {
    let i = s.as_bytes().iter().position(|&c| c == b)?;
    Some((s.get(..i)?, s.get(i + 1..)?))
}

/// `s` without trailing `\n`s.
pub(crate) fn trim_newlines(s: &str) -> &str {
    let mut end = s.len();
    while end > 0 && s.as_bytes().get(end - 1) == Some(&b'\n') {
        end -= 1;
    }
    s.get(..end).unwrap_or(s)
}

/// The lines of `s` (split at `\n`; no trailing empty line for a final `\n`
/// only when `s` was trimmed first).
pub(crate) fn lines(s: &str) -> Lines<'_> {
    Lines { rest: Some(s) }
}

pub(crate) struct Lines<'s> {
    rest: Option<&'s str>,
}

impl<'s> Iterator for Lines<'s> {
    type Item = &'s str;

    fn next(&mut self) -> Option<&'s str> {
        let s = self.rest?;
        match split_once(s, b'\n') {
            Some((line, rest)) => {
                self.rest = Some(rest);
                Some(line)
            }
            None => {
                self.rest = None;
                Some(s)
            }
        }
    }
}

/// True when `s` holds only blanks.
pub(crate) fn is_blank(s: &str) -> bool {
    s.bytes().all(|c| c == b' ' || c == b'\t' || c == b'\r')
}
