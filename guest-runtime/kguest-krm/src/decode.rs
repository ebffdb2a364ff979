//! Scalar values that are not their source text: multi-line plain and
//! quoted scalars (line folding), escapes, and block scalars (indentation,
//! folding, chomping). The decoded bytes go to the arena.

use crate::node::Bytes;
use crate::sys::Arena;
use crate::yaml::{Doc, Raw, Style, byte, is_brk, is_ws, line_end};

pub(crate) fn decode<'a>(arena: &'a Arena, doc: Doc<'a>, r: Raw) -> Option<&'a str> {
    let mut out = Bytes::new(arena)?;
    let ok = match r.style {
        Style::Plain => flow_scalar(doc.text, r.start, r.end, &mut out, Quote::None),
        Style::SingleQuoted => {
            flow_scalar(doc.text, r.start + 1, r.end - 1, &mut out, Quote::Single)
        }
        Style::DoubleQuoted => {
            flow_scalar(doc.text, r.start + 1, r.end - 1, &mut out, Quote::Double)
        }
        Style::Literal | Style::Folded => block_scalar(doc.text, r, &mut out),
        _ => false,
    };
    if !ok {
        return None;
    }
    core::str::from_utf8(out.finish()).ok()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Plain, single- and double-quoted scalars between `a` and `b`.
fn flow_scalar(s: &[u8], a: u32, b: u32, out: &mut Bytes<'_>, q: Quote) -> bool {
    let mut i = a;
    // Length of `out` up to the last byte that line folding must keep.
    let mut keep = 0usize;
    while i < b {
        let c = byte(s, i);
        if c == b'\n' || c == b'\r' {
            // Fold: drop trailing blanks, skip the break and the next
            // line's indentation; empty lines become newlines.
            out.truncate(keep);
            let mut breaks = 0;
            while i < b && is_brk_or_blank_line_char(byte(s, i)) {
                if byte(s, i) == b'\n' {
                    breaks += 1;
                }
                i += 1;
            }
            if breaks <= 1 {
                if !out.push(b' ') {
                    return false;
                }
            } else {
                for _ in 1..breaks {
                    if !out.push(b'\n') {
                        return false;
                    }
                }
            }
            keep = out.len();
            continue;
        }
        if q == Quote::Single && c == b'\'' && byte(s, i + 1) == b'\'' {
            if !out.push(b'\'') {
                return false;
            }
            keep = out.len();
            i += 2;
            continue;
        }
        if q == Quote::Double && c == b'\\' {
            let e = byte(s, i + 1);
            if e == b'\n' || e == b'\r' {
                // Escaped line break: joins the lines without a space.
                i += 1;
                if byte(s, i) == b'\r' {
                    i += 1;
                }
                if byte(s, i) == b'\n' {
                    i += 1;
                }
                // The next line's indentation goes; empty lines after an
                // escaped break are newlines.
                loop {
                    while i < b && is_ws(byte(s, i)) {
                        i += 1;
                    }
                    if i < b && byte(s, i) == b'\r' {
                        i += 1;
                    }
                    if i < b && byte(s, i) == b'\n' {
                        if !out.push(b'\n') {
                            return false;
                        }
                        i += 1;
                        continue;
                    }
                    break;
                }
                keep = out.len();
                continue;
            }
            let Some(used) = escape(s, i + 1, out) else {
                return false;
            };
            keep = out.len();
            i += 1 + used;
            continue;
        }
        if !out.push(c) {
            return false;
        }
        if !is_ws(c) {
            keep = out.len();
        }
        i += 1;
    }
    true
}

fn is_brk_or_blank_line_char(c: u8) -> bool {
    c == b'\n' || c == b'\r' || is_ws(c)
}

/// Decodes the escape whose letter is at `i`; returns how many bytes it used.
fn escape(s: &[u8], i: u32, out: &mut Bytes<'_>) -> Option<u32> {
    let simple = match byte(s, i) {
        b'0' => 0u8,
        b'a' => 7,
        b'b' => 8,
        b't' | b'\t' => b'\t',
        b'n' => b'\n',
        b'v' => 11,
        b'f' => 12,
        b'r' => b'\r',
        b'e' => 27,
        b' ' => b' ',
        b'"' => b'"',
        b'/' => b'/',
        b'\\' => b'\\',
        b'N' => return push_char(out, 0x85).then_some(1),
        b'_' => return push_char(out, 0xa0).then_some(1),
        b'L' => return push_char(out, 0x2028).then_some(1),
        b'P' => return push_char(out, 0x2029).then_some(1),
        b'x' => return push_char(out, hex(s, i + 1, 2)?).then_some(3),
        b'u' => {
            let hi = hex(s, i + 1, 4)?;
            if (0xd800..0xdc00).contains(&hi) && byte(s, i + 5) == b'\\' && byte(s, i + 6) == b'u' {
                let lo = hex(s, i + 7, 4)?;
                if (0xdc00..0xe000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                    return push_char(out, c).then_some(11);
                }
            }
            return push_char(out, hi).then_some(5);
        }
        b'U' => return push_char(out, hex(s, i + 1, 8)?).then_some(9),
        _ => return None,
    };
    out.push(simple).then_some(1)
}

fn hex(s: &[u8], i: u32, n: u32) -> Option<u32> {
    let mut v = 0u32;
    for k in 0..n {
        let d = match byte(s, i + k) {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | u32::from(d);
    }
    Some(v)
}

/// Appends `c` as UTF-8; false for surrogates and values past U+10FFFF.
pub(crate) fn push_char(out: &mut Bytes<'_>, c: u32) -> bool {
    let mut buf = [0u8; 4];
    let n = match c {
        0..=0x7f => {
            buf[0] = c as u8;
            1
        }
        0x80..=0x7ff => {
            buf[0] = 0xc0 | (c >> 6) as u8;
            buf[1] = 0x80 | (c & 0x3f) as u8;
            2
        }
        0xd800..=0xdfff => return false,
        0x800..=0xffff => {
            buf[0] = 0xe0 | (c >> 12) as u8;
            buf[1] = 0x80 | ((c >> 6) & 0x3f) as u8;
            buf[2] = 0x80 | (c & 0x3f) as u8;
            3
        }
        0x10000..=0x10ffff => {
            buf[0] = 0xf0 | (c >> 18) as u8;
            buf[1] = 0x80 | ((c >> 12) & 0x3f) as u8;
            buf[2] = 0x80 | ((c >> 6) & 0x3f) as u8;
            buf[3] = 0x80 | (c & 0x3f) as u8;
            4
        }
        _ => return false,
    };
    buf.get(..n).is_some_and(|b| out.extend(b))
}

/// `|` and `>` scalars. `r.count` is the parent's indentation + 1.
fn block_scalar(s: &[u8], r: Raw, out: &mut Bytes<'_>) -> bool {
    let folded = r.style == Style::Folded;
    let base = r.count as i32 - 1;
    let mut i = r.start + 1;
    let mut chomp = 0i8; // -1 strip, 0 clip, 1 keep
    let mut content: i32 = -1;
    for _ in 0..2 {
        match byte(s, i) {
            b'+' => {
                chomp = 1;
                i += 1;
            }
            b'-' => {
                chomp = -1;
                i += 1;
            }
            d @ b'1'..=b'9' => {
                content = base.max(0) + i32::from(d - b'0');
                i += 1;
            }
            _ => {}
        }
    }
    let len = s.len() as u32;
    let mut ls = line_end(s, i) + 1;
    // Pending line breaks before the next content line, and whether the
    // previous content line was a "normal" (not more-indented) line.
    let mut pending = 0u32;
    let mut seen = false;
    let mut prev_normal = false;
    // Whether the last content line ended with a line break (not the end
    // of the text): clipping keeps that break only.
    let mut last_break = false;
    while ls < len && line_end(s, i) < len {
        if is_marker(s, ls) {
            break;
        }
        let mut k = ls;
        while byte(s, k) == b' ' {
            k += 1;
        }
        let indent = (k - ls) as i32;
        let mut j = k;
        while is_ws(byte(s, j)) {
            j += 1;
        }
        let eol = line_end(s, k);
        // A line of only blanks is empty, unless it has blanks past the
        // content's indentation: then those are content.
        let blanks_are_content = content >= 0 && (indent > content || (indent == content && j > k));
        if is_brk(byte(s, j)) && !blanks_are_content {
            // Blank line: one more pending break.
            pending += 1;
            ls = eol + 1;
            continue;
        }
        if indent <= base {
            break;
        }
        if content < 0 {
            content = indent;
        }
        if indent < content {
            break;
        }
        let text_start = ls + content as u32;
        let mut text_end = eol;
        if text_end > text_start && byte(s, text_end - 1) == b'\r' {
            text_end -= 1;
        }
        let more = indent > content || is_ws(byte(s, text_start));
        if seen {
            if folded && prev_normal && !more {
                if pending == 0 {
                    if !out.push(b' ') {
                        return false;
                    }
                } else {
                    for _ in 0..pending {
                        if !out.push(b'\n') {
                            return false;
                        }
                    }
                }
            } else {
                for _ in 0..=pending {
                    if !out.push(b'\n') {
                        return false;
                    }
                }
            }
        } else {
            for _ in 0..pending {
                if !out.push(b'\n') {
                    return false;
                }
            }
        }
        pending = 0;
        let Some(text) = s.get(text_start as usize..text_end as usize) else {
            return false;
        };
        if !out.extend(text) {
            return false;
        }
        seen = true;
        prev_normal = !more;
        last_break = eol < len;
        ls = eol + 1;
    }
    let tail = match chomp {
        -1 => 0,
        0 => u32::from(seen && last_break),
        _ => pending + u32::from(seen && last_break),
    };
    for _ in 0..tail {
        if !out.push(b'\n') {
            return false;
        }
    }
    true
}

fn is_marker(s: &[u8], ls: u32) -> bool {
    let a = byte(s, ls);
    (a == b'-' || a == b'.')
        && byte(s, ls + 1) == a
        && byte(s, ls + 2) == a
        && crate::yaml::is_blank_or_brk(byte(s, ls + 3))
}
