//! A very small JSON reader for plugin config and the host's JSON lists.
//!
//! It walks bytes in place: no allocation, no unescaping. Values come back
//! raw (`b"\"abc\""`, `b"12"`, `b"{...}"`) and the `as_*` helpers read the
//! simple ones. Keys are compared as written between the quotes, so a key
//! spelled with escapes does not match its unescaped form. Malformed input
//! ends iteration early; nothing panics.
//!
//! ```
//! use kguest::json;
//! let cfg = br#"{"reverse": true, "label": "wasm", "n": -3}"#;
//! assert_eq!(json::get(cfg, "reverse").and_then(json::as_bool), Some(true));
//! assert_eq!(json::get(cfg, "label").and_then(json::as_str), Some("wasm"));
//! assert_eq!(json::get(cfg, "n").and_then(json::as_i64), Some(-3));
//! ```

#[inline]
fn at(s: &[u8], i: usize) -> Option<u8> {
    s.get(i).copied()
}

#[inline]
pub(crate) fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(at(s, i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `Some(i)` unless `i` is 0 (the scanners' answer for "malformed").
#[inline]
fn found(i: usize) -> Option<usize> {
    (i != 0).then_some(i)
}

/// `i` is at an opening quote; returns the index past the closing quote, 0
/// when there is none. (The scanners answer a plain index, 0 for no: no
/// index past a value is 0, and a wasm function returns a `usize` in a
/// register but an `Option` through memory.)
#[inline]
fn skip_string(s: &[u8], mut i: usize) -> usize {
    i += 1;
    loop {
        match at(s, i) {
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
            None => return 0,
        }
    }
}

/// Returns the index just past the value starting at `i`, 0 when it does
/// not end.
#[inline]
fn skip_value(s: &[u8], i: usize) -> usize {
    match at(s, i) {
        None => 0,
        Some(b'"') => skip_string(s, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match at(s, j) {
                    None => return 0,
                    Some(b'"') => {
                        j = skip_string(s, j);
                        if j == 0 {
                            return 0;
                        }
                        continue;
                    }
                    Some(b'{' | b'[') => depth += 1,
                    Some(b'}' | b']') => {
                        // `depth` is at least 1 here: the first byte opened.
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    Some(_) => {}
                }
                j += 1;
            }
        }
        Some(_) => {
            let mut j = i;
            while let Some(c) = at(s, j) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                j += 1;
            }
            if j == i { 0 } else { j }
        }
    }
}

/// The members of a JSON object, as `(key, raw value)` with the key as
/// written between its quotes (escapes not decoded) and as bytes, so that
/// no UTF-8 check is linked in. See [`entries`] for `&str` keys.
#[derive(Debug, Clone)]
pub struct RawEntries<'a> {
    pub(crate) s: &'a [u8],
    /// Where the next member (or its `,`) starts.
    pub(crate) i: usize,
    /// No member read yet (a `,` is not allowed before the first).
    pub(crate) first: bool,
    /// What follows the closing `}`, once iteration reached it.
    rest: Option<&'a [u8]>,
}

/// Iterates over the members of the object `json` (empty if not an
/// object), keys as bytes.
#[inline]
pub fn raw_entries(json: &[u8]) -> RawEntries<'_> {
    let i = skip_ws(json, 0);
    let (s, i) = match at(json, i) {
        Some(b'{') => (json, i + 1),
        _ => (&[][..], 0),
    };
    RawEntries {
        s,
        i,
        first: true,
        rest: None,
    }
}

impl<'a> Iterator for RawEntries<'a> {
    type Item = (&'a [u8], &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let item = self.step();
        if item.is_none() {
            self.s = &[];
        }
        item
    }
}

impl<'a> RawEntries<'a> {
    /// The bytes after the object's closing `}` once iteration has reached
    /// it; `None` before that or when iteration stopped at malformed JSON
    /// (a missing `:` or `,`, a trailing comma, an unterminated value).
    /// Values are checked only for where they end, not validated.
    #[inline]
    pub fn rest(&self) -> Option<&'a [u8]> {
        self.rest
    }

    #[inline]
    fn step(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let s = self.s;
        let mut i = skip_ws(s, self.i);
        match (at(s, i)?, self.first) {
            (b'}', _) => {
                self.rest = s.get(i + 1..);
                return None;
            }
            (b',', false) => i = skip_ws(s, i + 1),
            (_, false) => return None,
            _ => {}
        }
        self.first = false;
        if at(s, i)? != b'"' {
            return None;
        }
        let key_end = found(skip_string(s, i))?;
        let key = s.get(i + 1..key_end - 1)?;
        i = skip_ws(s, key_end);
        if at(s, i)? != b':' {
            return None;
        }
        let start = skip_ws(s, i + 1);
        let end = found(skip_value(s, start))?;
        self.i = end;
        Some((key, s.get(start..end)?))
    }
}

/// The members of a JSON object, as `(raw key, raw value)`; iteration stops
/// at a key that is not UTF-8.
#[derive(Debug, Clone)]
pub struct Entries<'a>(RawEntries<'a>);

/// Iterates over the members of the object `json` (empty if not an object).
#[inline]
pub fn entries(json: &[u8]) -> Entries<'_> {
    Entries(raw_entries(json))
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (k, v) = self.0.next()?;
        match kguest_wire::utf8::to_str(k) {
            Some(k) => Some((k, v)),
            None => {
                self.0.s = &[];
                None
            }
        }
    }
}

impl<'a> Entries<'a> {
    /// See [`RawEntries::rest`].
    #[inline]
    pub fn rest(&self) -> Option<&'a [u8]> {
        self.0.rest
    }
}

/// The elements of a JSON array, raw.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    s: &'a [u8],
    i: usize,
}

/// Iterates over the elements of the array `json` (empty if not an array).
#[inline]
pub fn elements(json: &[u8]) -> Elements<'_> {
    let i = skip_ws(json, 0);
    match at(json, i) {
        Some(b'[') => Elements { s: json, i: i + 1 },
        _ => Elements { s: &[], i: 0 },
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let s = self.s;
        let mut i = skip_ws(s, self.i);
        if at(s, i) == Some(b',') {
            i = skip_ws(s, i + 1);
        }
        let item = match at(s, i) {
            None | Some(b']') => None,
            Some(_) => found(skip_value(s, i)).and_then(|end| {
                self.i = end;
                s.get(i..end)
            }),
        };
        if item.is_none() {
            self.s = &[];
        }
        item
    }
}

/// The raw value of member `key` of the object `json` (the last one if the
/// key repeats).
#[inline]
pub fn get<'a>(json: &'a [u8], key: &str) -> Option<&'a [u8]> {
    raw_entries(json)
        .filter(|(k, _)| *k == key.as_bytes())
        .last()
        .map(|(_, v)| v)
}

/// A string value without escapes (`None` for other values or escapes).
#[inline]
pub fn as_str(raw: &[u8]) -> Option<&str> {
    // Not `strip_prefix`/`strip_suffix`: their slice split keeps a panic
    // path (and `core::fmt`) in wasm builds.
    let (&first, rest) = raw.split_first()?;
    let (&last, inner) = rest.split_last()?;
    if first != b'"' || last != b'"' {
        return None;
    }
    // A plain loop: `contains` on bytes links core's memchr (~300 B).
    #[allow(clippy::manual_contains)]
    if inner.iter().any(|&b| b == b'\\') {
        return None;
    }
    kguest_wire::utf8::to_str(inner)
}

/// True when `raw` is `null` (surrounding whitespace allowed).
#[inline]
pub fn as_null(raw: &[u8]) -> bool {
    let i = skip_ws(raw, 0);
    raw.get(i..i + 4) == Some(b"null") && is_blank(raw.get(i + 4..).unwrap_or(&[]))
}

/// True when `raw` holds only JSON whitespace.
#[inline]
pub fn is_blank(raw: &[u8]) -> bool {
    skip_ws(raw, 0) >= raw.len()
}

#[inline]
pub fn as_bool(raw: &[u8]) -> Option<bool> {
    match raw {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    }
}

/// An integer value (no fraction or exponent) that fits `i64`.
#[inline]
pub fn as_i64(raw: &[u8]) -> Option<i64> {
    let (neg, digits) = match raw.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, raw),
    };
    // Up to 19 digits fit a u64 without overflow checks (no 128-bit
    // multiply linked in); more never fit an i64.
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    }
}

/// The characters a JSON string's content stands for: escapes decoded,
/// `\uXXXX` surrogate pairs joined; a lone surrogate or a malformed escape
/// yields U+FFFD (a malformed escape then ends the string). Go decodes the
/// same way except that a malformed escape is an error there.
#[inline]
pub fn chars(raw: &str) -> Chars<'_> {
    Chars { it: raw.chars() }
}

/// Iterator of [`chars`].
#[derive(Debug, Clone)]
pub struct Chars<'a> {
    it: core::str::Chars<'a>,
}

impl Chars<'_> {
    #[inline]
    fn hex4(&mut self) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            v = v * 16 + self.it.next()?.to_digit(16)?;
        }
        Some(v)
    }

    #[inline]
    fn escape(&mut self) -> Option<char> {
        Some(match self.it.next()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let hi = self.hex4()?;
                let mut cp = hi;
                if (0xD800..0xDC00).contains(&hi) {
                    let mut ahead = self.it.clone();
                    if ahead.next() == Some('\\') && ahead.next() == Some('u') {
                        let mut low = Chars { it: ahead };
                        if let Some(lo) = low.hex4().filter(|lo| (0xDC00..0xE000).contains(lo)) {
                            cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            self.it = low.it;
                        }
                    }
                }
                char::from_u32(cp).unwrap_or('\u{FFFD}')
            }
            c @ ('"' | '\\' | '/') => c,
            _ => return None,
        })
    }
}

impl Iterator for Chars<'_> {
    type Item = char;

    #[inline]
    fn next(&mut self) -> Option<char> {
        let c = self.it.next()?;
        if c != '\\' {
            return Some(c);
        }
        let e = self.escape();
        if e.is_none() {
            self.it = "".chars();
        }
        Some(e.unwrap_or('\u{FFFD}'))
    }
}

/// True when the JSON string content `raw` (escapes allowed) stands for the
/// concatenation of `parts`.
#[inline]
pub fn str_eq(raw: &str, parts: &[&str]) -> bool {
    if !raw.as_bytes().contains(&b'\\') {
        return raw.bytes().eq(parts.iter().flat_map(|p| p.bytes()));
    }
    chars(raw).eq(parts.iter().flat_map(|p| p.chars()))
}

/// True when the JSON string content `raw`, taken as written (escapes not
/// decoded), is the concatenation of `parts`. Enough for strings Go's
/// encoder writes without escapes: it escapes only `"`, `\`, `<`, `>`, `&`,
/// control characters, U+2028 and U+2029.
#[inline]
pub fn raw_eq(raw: &[u8], parts: &[&[u8]]) -> bool {
    let mut rest = raw;
    for p in parts {
        match rest.split_at_checked(p.len()) {
            Some((head, tail)) if head == *p => rest = tail,
            _ => return false,
        }
    }
    rest.is_empty()
}

/// True when the object key `raw` selects the struct field `field` the way
/// Go's `encoding/json` matches keys to fields: ignoring ASCII case. Two
/// differences, both irrelevant to keys people write: Go also folds `ſ` to
/// `s` and the Kelvin sign to `k`, and decodes escapes in the key first
/// (here a key is compared as written).
#[inline]
pub fn key_matches(raw: impl AsRef<[u8]>, field: &str) -> bool {
    raw.as_ref().eq_ignore_ascii_case(field.as_bytes())
}

/// Nesting limit of Go's `encoding/json` scanner.
const MAX_DEPTH: usize = 10_000;

/// True when `json` is one JSON value (with surrounding whitespace) that Go's
/// `encoding/json` accepts: RFC 8259 syntax, no control characters in
/// strings, at most 10,000 levels of nesting. Like Go, invalid UTF-8 inside
/// strings is accepted. (About 1 KB of wasm; [`RawEntries::rest`] checks an
/// object's structure for less.)
#[inline]
pub fn is_valid(json: &[u8]) -> bool {
    // One bit per open container: 1 for an object, 0 for an array.
    let mut stack = [0u64; MAX_DEPTH.div_ceil(64)];
    let mut depth = 0usize;
    let s = json;
    let mut i = skip_ws(s, 0);
    'value: loop {
        // A value starts at `i`.
        match at(s, i) {
            Some(b'{') | Some(b'[') => {
                let object = at(s, i) == Some(b'{');
                if depth == MAX_DEPTH {
                    return false;
                }
                if let Some(w) = stack.get_mut(depth / 64) {
                    let bit = 1u64 << (depth % 64);
                    *w = if object { *w | bit } else { *w & !bit };
                }
                depth += 1;
                i = skip_ws(s, i + 1);
                let close = if object { b'}' } else { b']' };
                if at(s, i) == Some(close) {
                    depth -= 1;
                    i += 1;
                } else if object {
                    match member_key(s, i) {
                        Some(j) => {
                            i = j;
                            continue 'value;
                        }
                        None => return false,
                    }
                } else {
                    continue 'value;
                }
            }
            Some(b'"') => match valid_string(s, i) {
                Some(j) => i = j,
                None => return false,
            },
            Some(b't') => match literal(s, i, b"true") {
                Some(j) => i = j,
                None => return false,
            },
            Some(b'f') => match literal(s, i, b"false") {
                Some(j) => i = j,
                None => return false,
            },
            Some(b'n') => match literal(s, i, b"null") {
                Some(j) => i = j,
                None => return false,
            },
            Some(b'-' | b'0'..=b'9') => match number(s, i) {
                Some(j) => i = j,
                None => return false,
            },
            _ => return false,
        }
        // After a value: close containers or move to the next element.
        loop {
            i = skip_ws(s, i);
            if depth == 0 {
                return i == s.len();
            }
            let top = depth - 1;
            let object = stack
                .get(top / 64)
                .is_some_and(|w| w & (1u64 << (top % 64)) != 0);
            match (at(s, i), object) {
                (Some(b','), true) => match member_key(s, skip_ws(s, i + 1)) {
                    Some(j) => {
                        i = j;
                        continue 'value;
                    }
                    None => return false,
                },
                (Some(b','), false) => {
                    i = skip_ws(s, i + 1);
                    continue 'value;
                }
                (Some(b'}'), true) | (Some(b']'), false) => {
                    depth = top;
                    i += 1;
                }
                _ => return false,
            }
        }
    }
}

/// `"key" :` at `i`; returns the index of the value (whitespace skipped).
#[inline]
fn member_key(s: &[u8], i: usize) -> Option<usize> {
    if at(s, i)? != b'"' {
        return None;
    }
    let j = skip_ws(s, valid_string(s, i)?);
    if at(s, j)? != b':' {
        return None;
    }
    Some(skip_ws(s, j + 1))
}

/// A string at `i` (its opening quote); returns the index past it.
#[inline]
fn valid_string(s: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match at(s, i)? {
            b'"' => return Some(i + 1),
            b'\\' => match at(s, i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    for k in 2..6 {
                        if !at(s, i + k)?.is_ascii_hexdigit() {
                            return None;
                        }
                    }
                    i += 6;
                }
                _ => return None,
            },
            0..0x20 => return None,
            _ => i += 1,
        }
    }
}

#[inline]
fn literal(s: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    let end = i.checked_add(word.len())?;
    (s.get(i..end)? == word).then_some(end)
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` at `i`.
#[inline]
fn number(s: &[u8], mut i: usize) -> Option<usize> {
    let digits = |s: &[u8], mut i: usize| -> Option<usize> {
        let start = i;
        while at(s, i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if at(s, i) == Some(b'-') {
        i += 1;
    }
    i = match at(s, i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(s, i)?,
        _ => return None,
    };
    if at(s, i) == Some(b'.') {
        i = digits(s, i + 1)?;
    }
    if matches!(at(s, i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(at(s, i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(s, i)?;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    #[test]
    fn validation_follows_go() {
        for ok in [
            &b"{}"[..],
            b" null ",
            b"true",
            b"-0.5e+10",
            b"0",
            br#"{"a":[1,{"b":null}],"c":"\u00e9\n\/"}"#,
            b"[ ]",
            b"\"\xff\"",
            b"[[[]]]",
        ] {
            assert!(is_valid(ok), "{}", String::from_utf8_lossy(ok));
        }
        for bad in [
            &b""[..],
            b" ",
            b"{",
            b"{}}",
            b"{} x",
            b"[1,]",
            b"{\"a\":1,}",
            b"{\"a\" 1}",
            b"{a:1}",
            b"01",
            b"1.",
            b"-",
            b"1e",
            b".5",
            b"tru",
            b"nul",
            b"\"\t\"",
            b"\"\\x\"",
            b"\"\\u12g4\"",
            b"[1 2]",
            b"[}",
            b"{]",
            b"\xef\xbb\xbf{}",
        ] {
            assert!(!is_valid(bad), "{}", String::from_utf8_lossy(bad));
        }
        let deep = |n: usize| -> Vec<u8> {
            let mut v = Vec::new();
            v.resize(n, b'[');
            v.resize(2 * n, b']');
            v
        };
        assert!(is_valid(&deep(10_000)));
        assert!(!is_valid(&deep(10_001)));
    }

    #[test]
    fn unescaping_and_key_matching() {
        let all: String = chars(r#"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00"#).collect();
        assert_eq!(all, "a\"\\/\u{8}\u{c}\n\r\té😀\u{FFFD}x\u{FFFD}");
        assert_eq!(chars(r"a\qb").collect::<String>(), "a\u{FFFD}");
        assert_eq!(chars(r"\u12").collect::<String>(), "\u{FFFD}");
        assert!(str_eq("nginx:latest", &["nginx", ":latest"]));
        assert!(str_eq(r"nginx\u003alatest", &["nginx:latest"]));
        assert!(!str_eq(r"nginx\u003alates", &["nginx:latest"]));
        assert!(!str_eq("nginx", &["nginx", ":latest"]));
        assert!(raw_eq(b"nginx:latest", &[b"nginx", b":latest"]));
        assert!(!raw_eq(b"nginx:lates", &[b"nginx", b":latest"]));
        assert!(!raw_eq(b"nginx:latestx", &[b"nginx", b":latest"]));
        assert!(raw_eq(b"", &[]));
        assert!(key_matches("reverse", "reverse"));
        assert!(key_matches("REVERSE", "reverse"));
        assert!(!key_matches(r"rev\u0065rse", "reverse"));
        assert!(!key_matches("reverses", "reverse"));
        assert!(!key_matches("revers", "reverse"));
        assert!(!key_matches("rëverse", "reverse"));
        assert!(!key_matches(r"rev\qrse", "reverse"));
    }

    #[test]
    fn object_members() {
        let j = br#" { "a" : {"x":[1,{"y":"}"}]}, "b":"q\"z", "c":[ ], "d":null, "a":2 } "#;
        let keys: Vec<&str> = entries(j).map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "a"]);
        assert_eq!(get(j, "a"), Some(&b"2"[..]));
        assert_eq!(get(j, "b"), Some(&br#""q\"z""#[..]));
        assert_eq!(get(j, "b").and_then(as_str), None);
        assert_eq!(get(j, "c"), Some(&b"[ ]"[..]));
        assert_eq!(get(j, "zz"), None);
        assert_eq!(entries(b"[1]").count(), 0);
        assert_eq!(entries(b"{\"a\" 1}").count(), 0);
        assert_eq!(entries(b"{\"a\":").count(), 0);
        assert_eq!(entries(b"{\"a\":\"unterminated").count(), 0);
        // Where the object ends, and whether it ended well.
        let mut it = entries(br#" {"a":1, "b":[2]} x"#);
        assert_eq!(it.by_ref().count(), 2);
        assert_eq!(it.rest(), Some(&b" x"[..]));
        let mut it = entries(b"{}");
        assert_eq!((it.next(), it.rest()), (None, Some(&b""[..])));
        for bad in [
            &br#"{"a":1,}"#[..],
            br#"{"a":1 "b":2}"#,
            br#"{,"a":1}"#,
            br#"{"a" 1}"#,
            b"{",
        ] {
            let mut it = entries(bad);
            it.by_ref().for_each(drop);
            assert_eq!(it.rest(), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn arrays() {
        let v: Vec<&[u8]> = elements(br#"["n1", "n2" ,"n3"]"#).collect();
        let names: Vec<&str> = v.iter().filter_map(|r| as_str(r)).collect();
        assert_eq!(names, ["n1", "n2", "n3"]);
        assert_eq!(elements(b"[]").count(), 0);
        assert_eq!(elements(b"{}").count(), 0);
        assert_eq!(elements(b"[1,2").count(), 2);
    }

    #[test]
    fn scalars() {
        assert_eq!(as_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(as_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(as_i64(b"9223372036854775808"), None);
        assert_eq!(as_i64(b"1.5"), None);
        assert_eq!(as_i64(b"-"), None);
        assert_eq!(as_bool(b"true"), Some(true));
        assert_eq!(as_bool(b"1"), None);
        assert_eq!(as_str(b"\"a\""), Some("a"));
        assert_eq!(as_str(b"\""), None);
    }
}
