//! String helpers for plugin code that never panic and never reach
//! `core::fmt`.
//!
//! `str::split`, `split_once`, `trim_matches`, `parse` and slicing with
//! `&s[a..b]` keep panic paths (and with them `core::fmt`, several KB) in a
//! wasm build even when they cannot fail. These scan bytes and cut with
//! `str::get`, so a guest stays small:
//!
//! ```
//! use kguest::text;
//! assert_eq!(text::split_once("zone=eu-1", b'='), Some(("zone", "eu-1")));
//! let want: Vec<_> = text::pairs(" zone=eu-1, ssd ,,tier=gold").collect();
//! assert_eq!(want, [("zone", "eu-1"), ("ssd", ""), ("tier", "gold")]);
//! assert_eq!(text::pair_value("zone=eu-1,tier=gold", "tier"), Some("gold"));
//!
//! let labels = [("zone", "eu-1"), ("tier", "gold")];
//! assert_eq!(text::selector_matches("zone in (eu-1, eu-2), tier!=bronze", &labels[..]), Ok(true));
//! assert_eq!(text::selector_matches("!tier", &labels[..]), Ok(false));
//! ```

use kguest_k8s::Map;
use kguest_k8s::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kguest_wire::codec::Str;

/// The index of the first `b` in `s`.
#[inline]
pub fn find(s: &str, b: u8) -> Option<usize> {
    s.bytes().position(|c| c == b)
}

/// The index of the last `b` in `s`.
#[inline]
pub fn rfind(s: &str, b: u8) -> Option<usize> {
    s.bytes().rposition(|c| c == b)
}

/// `s` cut around byte index `i`: `(s[..i], s[i + skip..])`; `None` when a
/// cut is out of range or not on a character boundary.
#[inline]
fn cut(s: &str, i: usize, skip: usize) -> Option<(&str, &str)> {
    Some((s.get(..i)?, s.get(i.checked_add(skip)?..)?))
}

/// Splits at the first `sep` (an ASCII byte).
#[inline]
pub fn split_once(s: &str, sep: u8) -> Option<(&str, &str)> {
    cut(s, find(s, sep)?, 1)
}

/// Splits at the last `sep` (an ASCII byte).
#[inline]
pub fn rsplit_once(s: &str, sep: u8) -> Option<(&str, &str)> {
    cut(s, rfind(s, sep)?, 1)
}

/// `s` without the leading `prefix`, if it starts with it (`str::strip_prefix`
/// without its panic path).
#[inline]
pub fn strip_prefix<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    if s.as_bytes().starts_with(prefix.as_bytes()) {
        s.get(prefix.len()..)
    } else {
        None
    }
}

/// `s` without the trailing `suffix`, if it ends with it.
#[inline]
pub fn strip_suffix<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    if s.as_bytes().ends_with(suffix.as_bytes()) {
        s.get(..s.len().saturating_sub(suffix.len()))
    } else {
        None
    }
}

/// The pieces of `s` between occurrences of `sep` (an ASCII byte), like
/// `str::split`: `""` yields one empty piece.
#[inline]
pub fn split(s: &str, sep: u8) -> Split<'_> {
    Split { rest: Some(s), sep }
}

/// Iterator of [`split`].
#[derive(Debug, Clone)]
pub struct Split<'a> {
    rest: Option<&'a str>,
    sep: u8,
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let s = self.rest?;
        match split_once(s, self.sep) {
            Some((head, tail)) => {
                self.rest = Some(tail);
                Some(head)
            }
            None => {
                self.rest = None;
                Some(s)
            }
        }
    }
}

/// `s` without leading and trailing ASCII whitespace (`str::trim_ascii`,
/// which has no panic path; `str::trim` handles Unicode whitespace and is
/// larger).
#[inline]
pub fn trim(s: &str) -> &str {
    s.trim_ascii()
}

/// The `key=value` entries of a `,`-separated list, each trimmed; an entry
/// without `=` has the value `""`; empty entries are skipped.
#[inline]
pub fn pairs(list: &str) -> Pairs<'_> {
    Pairs { rest: list }
}

/// Iterator of [`pairs`].
#[derive(Debug, Clone)]
pub struct Pairs<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Pairs<'a> {
    type Item = (&'a str, &'a str);

    #[inline]
    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        loop {
            if self.rest.is_empty() {
                return None;
            }
            let (item, rest) = split_once(self.rest, b',').unwrap_or((self.rest, ""));
            self.rest = rest;
            let item = item.trim_ascii();
            if item.is_empty() {
                continue;
            }
            let (k, v) = split_once(item, b'=').unwrap_or((item, ""));
            return Some((k.trim_ascii(), v.trim_ascii()));
        }
    }
}

/// The value of `key` in a `key=value,...` list (the last one if repeated).
#[inline]
pub fn pair_value<'a>(list: &'a str, key: &str) -> Option<&'a str> {
    pairs(list)
        .filter(|(k, _)| *k == key)
        .last()
        .map(|(_, v)| v)
}

/// A parsed decimal `i64` (an optional sign, digits only).
#[inline]
pub fn parse_i64(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, s.as_bytes()),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        let d = i64::from(c.checked_sub(b'0').filter(|d| *d <= 9)?);
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

/// Where labels come from: a labels map view, or a slice of pairs.
pub trait Labels {
    /// The value of label `key`, if set.
    fn label(&self, key: &str) -> Option<&str>;
}

impl Labels for Map<'_, Str, Str> {
    #[inline]
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

impl Labels for [(&str, &str)] {
    #[inline]
    fn label(&self, key: &str) -> Option<&str> {
        self.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

/// A label selector that cannot be evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorError {
    /// The string form does not parse.
    Syntax,
    /// An unknown `matchExpressions` operator.
    Operator,
    /// `In`/`NotIn` without values, or `Exists`/`DoesNotExist` with values.
    Values,
}

impl SelectorError {
    pub const fn as_str(self) -> &'static str {
        match self {
            SelectorError::Syntax => "malformed label selector",
            SelectorError::Operator => "unknown label selector operator",
            SelectorError::Values => "label selector values do not fit the operator",
        }
    }
}

/// Does a label selector in string form (`kubectl -l` syntax: `k=v`,
/// `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`,
/// `k<1`, joined by `,`) select `labels`? The empty selector selects
/// everything. Keys and values are compared as written; their character
/// rules are not checked.
#[inline]
pub fn selector_matches<L: Labels + ?Sized>(
    selector: &str,
    labels: &L,
) -> Result<bool, SelectorError> {
    let mut rest = trim(selector);
    let mut all = true;
    while !rest.is_empty() {
        let (req, tail) = next_requirement(rest)?;
        all &= requirement(req, labels)?;
        rest = tail;
    }
    Ok(all)
}

/// The first requirement of `s` (up to a `,` outside parentheses) and the
/// rest after that comma.
#[inline]
fn next_requirement(s: &str) -> Result<(&str, &str), SelectorError> {
    let mut depth = 0u32;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.checked_sub(1).ok_or(SelectorError::Syntax)?,
            b',' if depth == 0 => {
                let (req, rest) = cut(s, i, 1).ok_or(SelectorError::Syntax)?;
                if trim(rest).is_empty() {
                    return Err(SelectorError::Syntax);
                }
                return Ok((trim(req), trim(rest)));
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(SelectorError::Syntax);
    }
    Ok((trim(s), ""))
}

#[inline]
fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/')
}

#[inline]
fn requirement<L: Labels + ?Sized>(req: &str, labels: &L) -> Result<bool, SelectorError> {
    if req.is_empty() {
        return Err(SelectorError::Syntax);
    }
    if let Some(key) = strip_prefix(req, "!") {
        let key = trim(key);
        if key.is_empty() || !key.bytes().all(is_key_byte) {
            return Err(SelectorError::Syntax);
        }
        return Ok(labels.label(key).is_none());
    }
    let key_end = req
        .bytes()
        .position(|c| !is_key_byte(c))
        .unwrap_or(req.len());
    let (key, op) = cut(req, key_end, 0).ok_or(SelectorError::Syntax)?;
    if key.is_empty() {
        return Err(SelectorError::Syntax);
    }
    let op = trim(op);
    let have = labels.label(key);
    if op.is_empty() {
        return Ok(have.is_some());
    }
    let (set_op, values) = if let Some(v) = word(op, "notin") {
        (Some(false), v)
    } else if let Some(v) = word(op, "in") {
        (Some(true), v)
    } else {
        (None, op)
    };
    if let Some(inside) = set_op {
        let list = strip_prefix(trim(values), "(")
            .and_then(|v| strip_suffix(v, ")"))
            .ok_or(SelectorError::Syntax)?;
        if trim(list).is_empty() {
            return Err(SelectorError::Syntax);
        }
        let mut found = false;
        for v in split(list, b',') {
            let v = trim(v);
            if !v.bytes().all(is_key_byte) {
                return Err(SelectorError::Syntax);
            }
            found |= have == Some(v);
        }
        return Ok(if inside { found } else { !found });
    }
    let mut parsed = None;
    for (prefix, kind) in [
        ("==", b'='),
        ("!=", b'!'),
        ("=", b'='),
        (">", b'>'),
        ("<", b'<'),
    ] {
        if let Some(v) = strip_prefix(op, prefix) {
            parsed = Some((kind, v));
            break;
        }
    }
    let (kind, value) = parsed.ok_or(SelectorError::Syntax)?;
    let value = trim(value);
    if !value.bytes().all(is_key_byte) {
        return Err(SelectorError::Syntax);
    }
    Ok(match kind {
        b'=' => have == Some(value),
        b'!' => have != Some(value),
        _ => {
            let bound = parse_i64(value).ok_or(SelectorError::Syntax)?;
            match have.and_then(parse_i64) {
                Some(v) if kind == b'>' => v > bound,
                Some(v) => v < bound,
                None => false,
            }
        }
    })
}

/// `op` starting with the word `w` followed by whitespace or `(`: the rest.
#[inline]
fn word<'a>(op: &'a str, w: &str) -> Option<&'a str> {
    let rest = strip_prefix(op, w)?;
    match rest.bytes().next() {
        Some(c) if c.is_ascii_whitespace() || c == b'(' => Some(rest),
        _ => None,
    }
}

/// Does a `LabelSelector` (`matchLabels` and `matchExpressions`, ANDed)
/// select `labels`? An empty selector selects everything (Kubernetes'
/// `LabelSelectorAsSelector`; callers handle an absent selector, which
/// selects nothing there).
#[inline]
pub fn label_selector_matches<L: Labels + ?Sized>(
    selector: &LabelSelector<'_>,
    labels: &L,
) -> Result<bool, SelectorError> {
    let mut all = true;
    for (k, v) in selector.match_labels() {
        all &= labels.label(k) == Some(v);
    }
    for e in selector.match_expressions() {
        let have = labels.label(e.key().unwrap_or(""));
        let mut values = e.values();
        let none = values.is_empty();
        let ok = match e.operator().unwrap_or("") {
            "In" | "NotIn" if none => return Err(SelectorError::Values),
            "Exists" | "DoesNotExist" if !none => return Err(SelectorError::Values),
            "In" => values.any(|v| have == Some(v)),
            "NotIn" => !values.any(|v| have == Some(v)),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            _ => return Err(SelectorError::Operator),
        };
        all &= ok;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    #[test]
    fn splitting() {
        let v: Vec<&str> = split("a,b,,c", b',').collect();
        assert_eq!(v, ["a", "b", "", "c"]);
        assert_eq!(split("", b',').collect::<Vec<_>>(), [""]);
        assert_eq!(split("é,ü", b',').collect::<Vec<_>>(), ["é", "ü"]);
        assert_eq!(split_once("a=b=c", b'='), Some(("a", "b=c")));
        assert_eq!(rsplit_once("a=b=c", b'='), Some(("a=b", "c")));
        assert_eq!(split_once("abc", b'='), None);
        assert_eq!(trim("  a b \t\n"), "a b");
        assert_eq!(trim(" \t "), "");
        assert_eq!(pair_value("a=1,b=2,a=3", "a"), Some("3"));
        assert_eq!(pair_value("a=1", "c"), None);
        assert_eq!(pairs(" , ,").count(), 0);
        assert_eq!(parse_i64("-12"), Some(-12));
        assert_eq!(parse_i64("+7"), Some(7));
        assert_eq!(parse_i64("9223372036854775808"), None);
        assert_eq!(parse_i64("1a"), None);
        assert_eq!(parse_i64("-"), None);
    }

    #[test]
    fn structured_selectors() {
        use crate::testing::proto::Msg;
        let expr = |key: &str, op: &str, values: &[&str]| {
            let mut m = Msg::new().str(1, key).str(2, op);
            for v in values {
                m = m.str(3, v);
            }
            m
        };
        let sel = |labels: &[(&str, &str)], exprs: &[Msg]| {
            let mut m = Msg::new();
            for (k, v) in labels {
                m = m.map_str(1, k, v);
            }
            for e in exprs {
                m = m.msg(2, e);
            }
            m.into_bytes()
        };
        let labels = [("app", "web"), ("tier", "front")];
        let m =
            |bytes: &[u8]| label_selector_matches(&LabelSelector::from_bytes(bytes), &labels[..]);
        assert_eq!(m(&sel(&[], &[])), Ok(true));
        assert_eq!(m(&sel(&[("app", "web")], &[])), Ok(true));
        assert_eq!(m(&sel(&[("app", "db")], &[])), Ok(false));
        let in_ = expr("tier", "In", &["front", "back"]);
        let not_in = expr("app", "NotIn", &["db"]);
        let exists = expr("tier", "Exists", &[]);
        let absent = expr("gpu", "DoesNotExist", &[]);
        assert_eq!(
            m(&sel(&[("app", "web")], &[in_, not_in, exists, absent])),
            Ok(true)
        );
        assert_eq!(m(&sel(&[], &[expr("gpu", "Exists", &[])])), Ok(false));
        assert_eq!(
            m(&sel(&[], &[expr("app", "In", &[])])),
            Err(SelectorError::Values)
        );
        assert_eq!(
            m(&sel(&[], &[expr("app", "Exists", &["x"])])),
            Err(SelectorError::Values)
        );
        assert_eq!(
            m(&sel(&[], &[expr("app", "Gt", &["1"])])),
            Err(SelectorError::Operator)
        );
    }

    #[test]
    fn string_selectors() {
        let labels = [("app", "web"), ("tier", "front"), ("gen", "5")];
        let m = |s: &str| selector_matches(s, &labels[..]);
        assert_eq!(m(""), Ok(true));
        assert_eq!(m("app=web"), Ok(true));
        assert_eq!(m("app == web, tier=front"), Ok(true));
        assert_eq!(m("app=web,tier=back"), Ok(false));
        assert_eq!(m("app!=db"), Ok(true));
        assert_eq!(m("missing!=x"), Ok(true));
        assert_eq!(m("app in (db, web)"), Ok(true));
        assert_eq!(m("app in(db)"), Ok(false));
        assert_eq!(m("app notin (db,cache)"), Ok(true));
        assert_eq!(m("missing notin (x)"), Ok(true));
        assert_eq!(m("missing in (x)"), Ok(false));
        assert_eq!(m("tier"), Ok(true));
        assert_eq!(m("!tier"), Ok(false));
        assert_eq!(m("!missing"), Ok(true));
        assert_eq!(m("gen>4"), Ok(true));
        assert_eq!(m("gen<5"), Ok(false));
        assert_eq!(m("app>4"), Ok(false));
        assert_eq!(m("app in (web), gen > 3, !x"), Ok(true));
        assert_eq!(m("app="), Ok(false));
        assert_eq!(strip_suffix("a)", ")"), Some("a"));
        assert_eq!(strip_prefix("é", "x"), None);
        for bad in [
            "=web",
            "app in ()",
            "app in (a",
            "a,",
            ",a",
            "app ~ x",
            "gen>x",
            "app in (a b)",
            "!",
        ] {
            assert_eq!(m(bad), Err(SelectorError::Syntax), "{bad}");
        }
    }
}
