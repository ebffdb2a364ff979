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

fn at(s: &[u8], i: usize) -> Option<u8> {
    s.get(i).copied()
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(at(s, i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `i` is at an opening quote; returns the index past the closing quote.
fn skip_string(s: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match at(s, i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// Returns the index just past the value starting at `i`.
fn skip_value(s: &[u8], i: usize) -> Option<usize> {
    match at(s, i)? {
        b'"' => skip_string(s, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match at(s, j)? {
                    b'"' => {
                        j = skip_string(s, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while let Some(c) = at(s, j) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                j += 1;
            }
            if j == i { None } else { Some(j) }
        }
    }
}

/// The members of a JSON object, as `(raw key, raw value)`.
#[derive(Debug, Clone)]
pub struct Entries<'a> {
    s: &'a [u8],
    i: usize,
}

/// Iterates over the members of the object `json` (empty if not an object).
pub fn entries(json: &[u8]) -> Entries<'_> {
    let i = skip_ws(json, 0);
    match at(json, i) {
        Some(b'{') => Entries { s: json, i: i + 1 },
        _ => Entries { s: &[], i: 0 },
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.step();
        if item.is_none() {
            self.s = &[];
        }
        item
    }
}

impl<'a> Entries<'a> {
    fn step(&mut self) -> Option<(&'a str, &'a [u8])> {
        let s = self.s;
        let mut i = skip_ws(s, self.i);
        if at(s, i)? == b',' {
            i = skip_ws(s, i + 1);
        }
        if at(s, i)? != b'"' {
            return None;
        }
        let key_end = skip_string(s, i)?;
        let key = core::str::from_utf8(s.get(i + 1..key_end - 1)?).ok()?;
        i = skip_ws(s, key_end);
        if at(s, i)? != b':' {
            return None;
        }
        let start = skip_ws(s, i + 1);
        let end = skip_value(s, start)?;
        self.i = end;
        Some((key, s.get(start..end)?))
    }
}

/// The elements of a JSON array, raw.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    s: &'a [u8],
    i: usize,
}

/// Iterates over the elements of the array `json` (empty if not an array).
pub fn elements(json: &[u8]) -> Elements<'_> {
    let i = skip_ws(json, 0);
    match at(json, i) {
        Some(b'[') => Elements { s: json, i: i + 1 },
        _ => Elements { s: &[], i: 0 },
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let s = self.s;
        let mut i = skip_ws(s, self.i);
        if at(s, i) == Some(b',') {
            i = skip_ws(s, i + 1);
        }
        let item = match at(s, i) {
            None | Some(b']') => None,
            Some(_) => skip_value(s, i).and_then(|end| {
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
pub fn get<'a>(json: &'a [u8], key: &str) -> Option<&'a [u8]> {
    entries(json)
        .filter(|(k, _)| *k == key)
        .last()
        .map(|(_, v)| v)
}

/// A string value without escapes (`None` for other values or escapes).
pub fn as_str(raw: &[u8]) -> Option<&str> {
    // Not `strip_prefix`/`strip_suffix`: their slice split keeps a panic
    // path (and `core::fmt`) in wasm builds.
    let (&first, rest) = raw.split_first()?;
    let (&last, inner) = rest.split_last()?;
    if first != b'"' || last != b'"' {
        return None;
    }
    if inner.contains(&b'\\') {
        return None;
    }
    core::str::from_utf8(inner).ok()
}

pub fn as_bool(raw: &[u8]) -> Option<bool> {
    match raw {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    }
}

/// An integer value (no fraction or exponent) that fits `i64`.
pub fn as_i64(raw: &[u8]) -> Option<i64> {
    let (neg, digits) = match raw.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, raw),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        let d = i64::from(c - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

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
