//! Where two byte strings or texts differ, shown with enough context to
//! read a failure without rerunning it.

use std::fmt::Write as _;

/// Lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// `N bytes: <hex>` of at most the first `max` bytes, `...` when cut.
pub fn hex_prefix(bytes: &[u8], max: usize) -> String {
    let shown = &bytes[..bytes.len().min(max)];
    let more = if bytes.len() > shown.len() { "..." } else { "" };
    format!("{} bytes: {}{more}", bytes.len(), hex(shown))
}

/// The offset of the first byte where `a` and `b` differ; the shorter
/// length when one is a prefix of the other (both lengths when equal).
pub fn first_mismatch(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// `differs at byte N (ours A B, <theirs_name> B B)`.
pub fn byte_difference(ours: &[u8], theirs: &[u8], theirs_name: &str) -> String {
    format!(
        "differs at byte {} (ours {} B, {theirs_name} {} B)",
        first_mismatch(ours, theirs),
        ours.len(),
        theirs.len()
    )
}

/// [`byte_difference`] with both sides in hex, 8 bytes either side of the
/// difference.
pub fn byte_difference_in_hex(ours: &[u8], theirs: &[u8], theirs_name: &str) -> String {
    let at = first_mismatch(ours, theirs);
    let around = |bytes: &[u8]| {
        let start = at.saturating_sub(8).min(bytes.len());
        hex(&bytes[start..(at + 8).min(bytes.len())])
    };
    format!(
        "{}: ours {} {theirs_name} {}",
        byte_difference(ours, theirs, theirs_name),
        around(ours),
        around(theirs)
    )
}

/// [`byte_difference`] of two texts (or byte strings mostly text), with
/// both sides shown 40 bytes around the difference, newlines as `\n`.
pub fn byte_difference_in_text(ours: &[u8], theirs: &[u8], theirs_name: &str) -> String {
    let at = first_mismatch(ours, theirs);
    let around = |bytes: &[u8]| {
        let start = at.saturating_sub(40).min(bytes.len());
        let end = (at + 40).min(bytes.len());
        String::from_utf8_lossy(&bytes[start..end]).replace('\n', "\\n")
    };
    format!(
        "{}: ours `{}` {theirs_name} `{}`",
        byte_difference(ours, theirs, theirs_name),
        around(ours),
        around(theirs)
    )
}

/// The part of `text` from `before` bytes before `at` to `after` bytes
/// after it, widened to whole characters.
pub fn text_around(text: &str, at: usize, before: usize, after: usize) -> &str {
    let mut start = at.saturating_sub(before).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = at.saturating_add(after).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    &text[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences() {
        assert_eq!(hex(&[0, 0xab, 7]), "00ab07");
        assert_eq!(hex_prefix(&[1, 2, 3], 2), "3 bytes: 0102...");
        assert_eq!(hex_prefix(&[1, 2], 2), "2 bytes: 0102");
        assert_eq!(first_mismatch(b"abc", b"abd"), 2);
        assert_eq!(first_mismatch(b"ab", b"abc"), 2);
        assert_eq!(
            byte_difference(b"abc", b"abd", "Go"),
            "differs at byte 2 (ours 3 B, Go 3 B)"
        );
        assert_eq!(
            byte_difference_in_hex(&[1, 2, 3], &[1, 2], "Go"),
            "differs at byte 2 (ours 3 B, Go 2 B): ours 010203 Go 0102"
        );
        assert_eq!(
            byte_difference_in_text(b"a\nb", b"a\nc", "Go"),
            "differs at byte 2 (ours 3 B, Go 3 B): ours `a\\nb` Go `a\\nc`"
        );
        let text = "aé日🦀z";
        assert_eq!(text_around(text, 4, 2, 1), "é日");
        assert_eq!(text_around(text, 7, 0, 1), "🦀");
        assert_eq!(text_around(text, 100, 3, 3), "");
    }
}
