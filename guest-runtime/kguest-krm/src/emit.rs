//! Writing YAML: values for edits, quoting, numbers, indentation.

use crate::bytes::{is_blank, lines, trim_newlines};
use crate::node::Bytes;

/// A value to write into a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'s> {
    /// A string: written plain when that reads back as the same string,
    /// double-quoted otherwise.
    Str(&'s str),
    Int(i64),
    Bool(bool),
    Null,
    /// YAML text written as is: a scalar or flow collection on one line,
    /// or a block mapping or sequence (several lines starting at column
    /// 0), re-indented to its place.
    Yaml(&'s str),
}

impl Value<'_> {
    /// A block value: written on the lines below its key.
    pub(crate) fn is_block(&self) -> bool {
        match self {
            Value::Yaml(t) => trim_newlines(t).as_bytes().contains(&b'\n') || is_block_start(t),
            _ => false,
        }
    }
}

/// `key: v` or `- v` text that only makes sense on its own lines.
fn is_block_start(t: &str) -> bool {
    let b = t.as_bytes();
    if b.first() == Some(&b'-') && matches!(b.get(1), None | Some(b' ' | b'\n')) {
        return true;
    }
    // `a: b` at top level is a mapping.
    let mut quote = 0u8;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'"' | b'\'' if quote == 0 && i == 0 => quote = c,
            _ if quote != 0 && c == quote => quote = 0,
            b':' if quote == 0 => {
                if matches!(b.get(i + 1), None | Some(b' ' | b'\n')) {
                    return !matches!(b.first(), Some(b'{' | b'[' | b'"' | b'\''));
                }
            }
            _ => {}
        }
    }
    false
}

/// Words YAML 1.1 readers (kyaml, go-yaml v2) take for booleans or null.
const RESERVED: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL",
];

/// True when `s` can be written as a plain scalar and read back as the
/// same string by any YAML reader.
pub fn plain_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == b'/') {
        return false;
    }
    if !b
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'/'))
    {
        return false;
    }
    !RESERVED.contains(&s)
}

/// Writes `s` as a YAML scalar (plain or double-quoted).
pub(crate) fn string(out: &mut Bytes<'_>, s: &str) -> bool {
    if plain_ok(s) {
        return out.extend(s.as_bytes());
    }
    quoted(out, s)
}

/// Writes `s` double-quoted, JSON-compatible.
pub(crate) fn quoted(out: &mut Bytes<'_>, s: &str) -> bool {
    let mut ok = out.push(b'"');
    for &c in s.as_bytes() {
        ok &= match c {
            b'"' => out.extend(b"\\\""),
            b'\\' => out.extend(b"\\\\"),
            b'\n' => out.extend(b"\\n"),
            b'\t' => out.extend(b"\\t"),
            b'\r' => out.extend(b"\\r"),
            0..=0x1f | 0x7f => {
                let hex = b"0123456789abcdef";
                out.extend(b"\\u00")
                    && out.push(hex.get(usize::from(c >> 4)).copied().unwrap_or(b'0'))
                    && out.push(hex.get(usize::from(c & 15)).copied().unwrap_or(b'0'))
            }
            _ => out.push(c),
        };
    }
    ok && out.push(b'"')
}

/// Writes a decimal integer.
pub(crate) fn int(out: &mut Bytes<'_>, v: i64) -> bool {
    let mut buf = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    (v >= 0 || out.push(b'-')) && buf.get(i..).is_some_and(|d| out.extend(d))
}

/// Writes `n` spaces.
pub(crate) fn spaces(out: &mut Bytes<'_>, n: u32) -> bool {
    (0..n).all(|_| out.push(b' '))
}

/// Writes a value that fits on the current line (after `key: `);
/// `json`: strings always double-quoted.
pub(crate) fn inline(out: &mut Bytes<'_>, v: Value<'_>, json: bool) -> bool {
    match v {
        Value::Str(s) if json => quoted(out, s),
        Value::Str(s) => string(out, s),
        Value::Int(i) => int(out, i),
        Value::Bool(true) => out.extend(b"true"),
        Value::Bool(false) => out.extend(b"false"),
        Value::Null => out.extend(b"null"),
        Value::Yaml(t) => out.extend(t.as_bytes().trim_ascii()),
    }
}

/// Writes block text `t` (column 0) with every line indented by `indent`,
/// each line preceded by a line break.
pub(crate) fn block(out: &mut Bytes<'_>, t: &str, indent: u32) -> bool {
    for line in lines(trim_newlines(t)) {
        if !out.push(b'\n') {
            return false;
        }
        if !is_blank(line) && !spaces(out, indent) {
            return false;
        }
        if !out.extend(line.as_bytes()) {
            return false;
        }
    }
    true
}

/// Writes a mapping key.
pub(crate) fn key(out: &mut Bytes<'_>, k: &str, force_quotes: bool) -> bool {
    if force_quotes {
        quoted(out, k)
    } else {
        string(out, k)
    }
}
