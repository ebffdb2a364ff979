//! YAML as `kubectl get -o yaml` prints it, from JSON text.
//!
//! kubectl marshals the object to JSON, reads that JSON back with go-yaml v2
//! (`sigs.k8s.io/yaml.JSONToYAML`) and prints the generic value with go-yaml
//! v2's emitter. This module follows both halves so that the bytes match:
//!
//! * Reading: numbers become integers when they fit an `int64` or `uint64`,
//!   otherwise floats (printed the way Go's `strconv.FormatFloat(f, 'g', -1,
//!   64)` does); a number too large for a float stays the text it was.
//!   U+0085 (NEL) in a string, which kubectl's `encoding/json` writes
//!   unescaped and go-yaml reads as a line break, is folded as a YAML
//!   double-quoted scalar folds breaks (a lone one becomes a space).
//! * Keys are sorted with go-yaml's key order, which is not byte order:
//!   runs of digits compare as numbers and non-letters sort before letters.
//! * Strings: a string that plain style would turn into another type (a
//!   YAML 1.1 boolean, null, integer, float or timestamp) is double-quoted;
//!   one with a line break uses a literal block (`|`, `|-`, `|+`); one that
//!   plain style cannot hold is single-quoted, or double-quoted when single
//!   quotes cannot hold it either (non-printable characters, characters
//!   outside the Basic Multilingual Plane), with go-yaml's escapes.
//! * Long plain and quoted scalars are folded at spaces past column 80,
//!   go-yaml v2's default width (kubectl does not change it).
//! * Block style, two spaces of indent, a sequence's `- ` at its key's
//!   column, `{}` and `[]` for empty collections, `null` for null.
//!
//! What kubectl itself cannot print is an error here too: characters
//! go-yaml's reader refuses (DEL, C1 controls, U+FFFE, U+FFFF), a key with
//! a raw U+0085 or longer than 1022 characters as JSON.
//!
//! Two limits. go-yaml's key order is not always a total order (`a01`,
//! `a10`, `a1a` compare in a cycle); for such keys kubectl's order depends
//! on Go's map iteration and changes from run to run, and this module picks
//! one stable order. Beyond ASCII, "letter" and "digit" in that order use
//! Rust's alphabetic and numeric properties, close to but not exactly Go's
//! `unicode.IsLetter` and `unicode.IsDigit`.

use std::collections::BTreeMap;

use kguest_json::{Event, JsonError, Reader, Text};

/// go-yaml v2's preferred line width.
const BEST_WIDTH: usize = 80;
/// go-yaml v2's indent step.
const BEST_INDENT: i64 = 2;
/// The longest key go-yaml writes as `key: value` (longer: `? key`).
const MAX_SIMPLE_KEY: usize = 128;

/// kubectl's YAML for one JSON value (what `kubectl get -o yaml` prints for
/// an object whose JSON is `json`).
///
/// ```
/// let yaml = kguest_k8s_io::kubectl_yaml::to_kubectl_yaml(
///     r#"{"kind":"Pod","metadata":{"labels":{"on":"yes"}},"spec":{"containers":[{"args":["a: b"]}]}}"#,
/// )
/// .unwrap();
/// assert_eq!(
///     yaml,
///     "kind: Pod\nmetadata:\n  labels:\n    \"on\": \"yes\"\nspec:\n  containers:\n  - args:\n    - 'a: b'\n"
/// );
/// ```
pub fn to_kubectl_yaml(json: &str) -> Result<String, JsonError> {
    let mut reader = Reader::new(json);
    let first = reader.next_event()?;
    let value = Value::read(&mut reader, first, &mut String::new())?;
    reader.finish()?;
    let mut emitter = Emitter::new();
    emitter.node(&value, Context::ROOT);
    // The document's end: a line break unless one was just written.
    emitter.write_indent();
    Ok(emitter.out)
}

/// A JSON value as go-yaml v2 reads it into an `interface{}`.
enum Value {
    Null,
    Bool(bool),
    /// An integer or float, already in the text go-yaml prints for it.
    Number(String),
    String(String),
    /// Members in go-yaml's key order.
    Map(Vec<(String, Value)>),
    Seq(Vec<Value>),
}

impl Value {
    /// The value whose first event is `first`; `path` names it in errors.
    fn read(
        reader: &mut Reader<'_>,
        first: Event<'_>,
        path: &mut String,
    ) -> Result<Value, JsonError> {
        let unrepresentable = |path: &str, reason: String| JsonError::Unrepresentable {
            path: if path.is_empty() {
                ".".into()
            } else {
                path.into()
            },
            reason,
        };
        Ok(match first {
            Event::ObjectStart => {
                // A later duplicate replaces an earlier one, as in a Go map.
                let mut members = BTreeMap::new();
                while let Event::Key(key) = reader.next_event()? {
                    let name =
                        read_string(key, true).map_err(|reason| unrepresentable(path, reason))?;
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&name);
                    let value = reader.next_event()?;
                    let value = Value::read(reader, value, path)?;
                    path.truncate(len);
                    members.insert(name, value);
                }
                let members: Vec<(String, Value)> = members.into_iter().collect();
                Value::Map(merge_sort(members, |a, b| key_less(&a.0, &b.0)))
            }
            Event::ArrayStart => {
                let mut items = Vec::new();
                loop {
                    let item = reader.next_event()?;
                    if item == Event::ArrayEnd {
                        break;
                    }
                    let len = path.len();
                    path.push_str(&format!("[{}]", items.len()));
                    items.push(Value::read(reader, item, path)?);
                    path.truncate(len);
                }
                Value::Seq(items)
            }
            Event::String(text) => {
                let text = read_string(text, false);
                Value::String(text.map_err(|reason| unrepresentable(path, reason))?)
            }
            Event::Number(n) => Value::Number(number(n)),
            Event::Bool(b) => Value::Bool(b),
            Event::Null | Event::ObjectEnd | Event::ArrayEnd | Event::Key(_) => Value::Null,
        })
    }
}

/// go-yaml's text for a JSON number: `int64`, then `uint64`, then `float64`;
/// a number out of float range stays a string (its own text, plain).
fn number(text: &str) -> String {
    if let Ok(i) = text.parse::<i64>() {
        return i.to_string();
    }
    if let Ok(u) = text.parse::<u64>() {
        return u.to_string();
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => format_float(f),
        _ => text.into(),
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)` for a finite `f`.
fn format_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest digits that read back as `f`, as
    // Go's shortest formatting does: `-1.2345e-7`.
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let nd = digits.len() as i64;
    let dp = exponent + 1;
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    // Shortest 'g': %e when the exponent is < -4 or >= 6 (Go uses 6 as the
    // precision for this choice, whatever the number of digits).
    if !(-4..6).contains(&exponent) {
        out.push(char::from(digits[0]));
        if nd > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|&d| char::from(d)));
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        let e = exponent.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    } else {
        if dp > 0 {
            for i in 0..dp {
                out.push(digits.get(i as usize).map_or('0', |&d| char::from(d)));
            }
        } else {
            out.push('0');
        }
        let decimals = (nd - dp).max(0);
        if decimals > 0 {
            out.push('.');
            for i in 0..decimals {
                let at = dp + i;
                let d = if at >= 0 {
                    digits.get(at as usize)
                } else {
                    None
                };
                out.push(d.map_or('0', |&d| char::from(d)));
            }
        }
    }
    out
}

/// A JSON string's text as go-yaml reads it back from the JSON kubectl
/// writes (`encoding/json` escapes control characters, `"`, `\\`, `<`, `>`,
/// `&`, U+2028 and U+2029, and writes every other character as itself).
/// go-yaml's reader refuses a few raw characters (DEL, C1 controls other than
/// U+0085, U+FFFE, U+FFFF): kubectl fails on those, and so does this. A raw
/// U+0085 (NEL) is a line break to YAML, folded as a double-quoted scalar
/// folds breaks: blanks around a run of breaks are dropped, a single break
/// becomes a space, and each further break a line feed.
fn read_string(text: Text<'_>, key: bool) -> Result<String, String> {
    let mut bytes = Vec::with_capacity(text.raw().len());
    text.decode_into(&mut bytes);
    let decoded = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    };
    if let Some(c) = decoded.chars().find(|&c| {
        let c = c as u32;
        c == 0x7f || (0x80..=0x9f).contains(&c) && c != 0x85 || c == 0xfffe || c == 0xffff
    }) {
        return Err(format!(
            "U+{:04X} has no YAML form (kubectl: \"control characters are not allowed\")",
            c as u32
        ));
    }
    if key {
        check_key(&decoded)?;
    }
    if !decoded.contains('\u{85}') {
        return Ok(decoded);
    }
    let mut out = String::with_capacity(decoded.len());
    let mut spaces = 0;
    let mut chars = decoded.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => spaces += 1,
            '\u{85}' => {
                spaces = 0;
                let mut more = 0;
                let mut trailing_space = false;
                while let Some(&next) = chars.peek() {
                    match next {
                        ' ' => trailing_space = true,
                        '\u{85}' => {
                            more += 1;
                            trailing_space = false;
                        }
                        _ => break,
                    }
                    chars.next();
                }
                if more == 0 {
                    out.push(' ');
                } else {
                    out.extend(core::iter::repeat_n('\n', more));
                }
                // A line that starts with a document marker ends the
                // document inside the string: go-yaml refuses it.
                if !trailing_space {
                    let rest = chars.clone().collect::<String>();
                    for marker in ["---", "..."] {
                        if rest
                            .strip_prefix(marker)
                            .is_some_and(|after| after.starts_with([' ', '\u{85}']))
                        {
                            return Err(format!(
                                "`{marker}` after U+0085 has no YAML form \
                                 (kubectl: \"found unexpected document indicator\")"
                            ));
                        }
                    }
                }
            }
            _ => {
                out.extend(core::iter::repeat_n(' ', spaces));
                spaces = 0;
                out.push(c);
            }
        }
    }
    out.extend(core::iter::repeat_n(' ', spaces));
    Ok(out)
}

/// Keys go-yaml cannot read back from kubectl's JSON: in a flow mapping a
/// key must stay on one line (a raw U+0085 breaks it) and its `:` must come
/// within 1024 characters of its start.
fn check_key(name: &str) -> Result<(), String> {
    if name.contains('\u{85}') {
        return Err(
            "a key with U+0085 has no YAML form (kubectl: \"did not find expected ',' or '}'\")"
                .into(),
        );
    }
    // The key's length as `encoding/json` writes it, in characters.
    let written: usize = name
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            '\0'..='\u{1f}' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => 6,
            _ => 1,
        })
        .sum();
    if written > 1022 {
        return Err(format!(
            "a key of {written} characters (as JSON) has no YAML form (kubectl: \"did not find expected ',' or '}}'\")"
        ));
    }
    Ok(())
}

/// go-yaml v2's order of string keys (`keyList.Less`): at the first
/// differing character, letters compare as characters, a non-letter sorts
/// before a letter, and otherwise the runs of digits starting there compare as
/// numbers.
fn key_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let al = is_letter(ar[i]);
        let bl = is_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i] == '0' || br[i] == '0' {
            // A zero after other digits: the runs carry a leading 1, so that
            // "10" and "1a" are not read as 0 against 0.
            for &c in ar[..i].iter().rev() {
                if !is_digit(c) {
                    break;
                }
                if c != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ar[ai]) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(i64::from(ar[ai] as u32) - i64::from(b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(br[bi]) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(i64::from(br[bi] as u32) - i64::from(b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// Go's `unicode.IsLetter` (exact for ASCII; Rust's alphabetic property
/// beyond it).
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        c.is_alphabetic()
    }
}

/// Go's `unicode.IsDigit`: the decimal digits (category Nd), not every
/// numeric character (`½`, `³` and Roman numerals are not digits to Go).
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    let c = u32::from(c);
    // Unicode 15's Nd characters outside ASCII: the first of each run of
    // ten (the mathematical digits run fifty).
    const ZEROS: &[u32] = &[
        0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
        0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
        0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0,
        0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0,
        0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0,
        0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
    ];
    (0x1D7CE..=0x1D7FF).contains(&c) || ZEROS.iter().any(|&zero| (zero..zero + 10).contains(&c))
}

/// A stable merge sort by `less` that cannot panic, whatever `less` does
/// (go-yaml's key order is not guaranteed to be a total order).
fn merge_sort<T>(items: Vec<T>, less: impl Fn(&T, &T) -> bool + Copy) -> Vec<T> {
    if items.len() <= 1 {
        return items;
    }
    let mut left = items;
    let right = left.split_off(left.len() / 2);
    let left = merge_sort(left, less);
    let right = merge_sort(right, less);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_right = match (left.peek(), right.peek()) {
            (Some(l), Some(r)) => less(r, l),
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => break,
        };
        let next = if take_right {
            right.next()
        } else {
            left.next()
        };
        out.extend(next);
    }
    out
}

// ---- Which style a string gets ------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// What go-yaml's `yaml_emitter_analyze_scalar` finds in a scalar.
#[derive(Clone, Copy, Debug)]
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// go-yaml's `is_printable`: line feed (not tab), printable ASCII and the Basic
/// Multilingual Plane from U+00A0 except surrogates, U+FEFF, U+FFFE and
/// U+FFFF. (Characters beyond U+FFFF count as non-printable.)
fn is_printable(c: char) -> bool {
    let c = c as u32;
    c == 0x0a
        || (0x20..=0x7e).contains(&c)
        || (0xa0..=0xd7ff).contains(&c)
        || ((0xe000..=0xfffd).contains(&c) && c != 0xfeff)
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;
    let mut preceded_by_whitespace = true;
    let chars: Vec<char> = value.chars().collect();
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = chars.get(i + 1).is_none_or(|&n| is_blank(n));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' if followed_by_whitespace => block_indicators = true,
                '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special_characters = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i == last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank(c) || is_break(c) || c == '\0';
    }
    let mut analysis = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.block_plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if line_breaks || block_indicators {
        analysis.block_plain_allowed = false;
    }
    analysis
}

/// The style go-yaml's encoder asks for (`encoder.stringv`): literal for a
/// string with a line feed, plain when plain text would read back as this
/// string, double-quoted otherwise.
fn requested_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if resolves_to_string(s) && !is_base60_float(s) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

/// The style go-yaml's emitter settles on (`yaml_emitter_select_scalar_style`,
/// block context).
fn select_style(requested: Style, analysis: &Analysis, simple_key: bool, empty: bool) -> Style {
    let mut style = requested;
    if simple_key && analysis.multiline {
        style = Style::DoubleQuoted;
    }
    if style == Style::Plain && (!analysis.block_plain_allowed || (empty && simple_key)) {
        style = Style::SingleQuoted;
    }
    if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && (!analysis.block_allowed || simple_key) {
        style = Style::DoubleQuoted;
    }
    style
}

// ---- go-yaml v2's implicit resolution (resolve.go) ----------------------

/// True when go-yaml reads `s`, written plain, back as a string (not a
/// bool, null, int, float or timestamp).
fn resolves_to_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null",
        "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    let Some(&first) = s.as_bytes().first() else {
        return false;
    };
    let hint = match first {
        b'+' | b'-' | b'0'..=b'9' => b'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => b'M',
        b'.' => b'.',
        _ => return true,
    };
    if SPECIAL.contains(&s) {
        return false;
    }
    match hint {
        b'.' => !go_parse_float(s),
        b'D' => {
            if is_timestamp(s) {
                return false;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if go_parse_int(&plain, 0) || go_parse_uint(&plain, 0) {
                return false;
            }
            if is_yaml_float(&plain) && go_parse_float(&plain) {
                return false;
            }
            // `0b` then a binary number, which may carry its own sign.
            match (plain.strip_prefix("0b"), plain.strip_prefix("-0b")) {
                (Some(rest), _) => !(go_parse_int(rest, 2) || go_parse_uint(rest, 2)),
                (None, Some(rest)) => !go_parse_int(&format!("-{rest}"), 2),
                (None, None) => true,
            }
        }
        _ => true,
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Whether Go's `strconv.ParseUint(s, base, 64)` succeeds (base 0: `0b`,
/// `0o`, `0x` or a leading `0` for octal; the caller removed underscores).
fn go_parse_uint(s: &str, base: u32) -> bool {
    go_uint_value(s, base).is_some()
}

fn go_uint_value(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (digits, base) = if base == 0 {
        let b = s.as_bytes();
        if b[0] == b'0' {
            match b.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if b.len() >= 3 => (&s[2..], 2),
                Some(b'o') if b.len() >= 3 => (&s[2..], 8),
                Some(b'x') if b.len() >= 3 => (&s[2..], 16),
                _ => (&s[1..], 8),
            }
        } else {
            (s, 10)
        }
    } else {
        (s, base)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(36)?;
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Whether Go's `strconv.ParseInt(s, base, 64)` succeeds.
fn go_parse_int(s: &str, base: u32) -> bool {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    match go_uint_value(rest, base) {
        Some(n) if negative => n <= 1 << 63,
        Some(n) => n < 1 << 63,
        None => false,
    }
}

/// Whether Go's `strconv.ParseFloat(s, 64)` succeeds, for the strings
/// `resolve` hands it: decimal syntax (underscores between digits allowed),
/// and the value in range.
fn go_parse_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower = rest.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return true;
    }
    if lower == "nan" && i == 0 {
        return true;
    }
    if rest.len() > 2 && rest.starts_with('0') && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        // Hexadecimal floats never reach here: `resolve` only parses
        // strings that start with '.' or match the decimal float pattern.
        return false;
    }
    let mut saw_dot = false;
    let mut saw_digits = false;
    let mut underscores = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'_' => underscores = true,
            b'.' if !saw_dot => saw_dot = true,
            b'0'..=b'9' => saw_digits = true,
            _ => break,
        }
        i += 1;
    }
    if !saw_digits {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while matches!(b.get(i), Some(b'0'..=b'9' | b'_')) {
            underscores |= b[i] == b'_';
            i += 1;
        }
    }
    if i != b.len() || (underscores && !underscores_ok(s)) {
        return false;
    }
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    plain.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Go's `underscoreOK` for a decimal number: each underscore between digits.
fn underscores_ok(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let mut saw = '^';
    for c in s.chars() {
        if c.is_ascii_digit() {
            saw = '0';
        } else if c == '_' {
            if saw != '0' {
                return false;
            }
            saw = '_';
        } else {
            if saw == '_' {
                return false;
            }
            saw = '!';
        }
    }
    saw != '_'
}

/// go-yaml's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    if !s.contains(':') {
        return false;
    }
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while matches!(b.get(i), Some(b'0'..=b'9' | b'_')) {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // [0-5]?[0-9]: one digit, or [0-5] then a digit.
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(b'0'..=b'9')) => i += 2,
            (Some(b'0'..=b'9'), _) => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while matches!(b.get(i), Some(b'0'..=b'9' | b'_')) {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml's `parseTimestamp`: four digits and `-`, then one of the layouts
/// `2006-1-2T15:4:5.999999999Z07:00` (also with `t`),
/// `2006-1-2 15:4:5.999999999` or `2006-1-2`, as Go's `time.Parse` reads
/// them.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year = b[..4]
        .iter()
        .fold(0u32, |y, &d| y * 10 + u32::from(d - b'0'));
    let mut p = TimeParser { b, i: 5 };
    let Some(month) = p.num() else { return false };
    if !p.lit(b'-') {
        return false;
    }
    let Some(day) = p.num() else { return false };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    if p.i == b.len() {
        return true;
    }
    let zoned = match b[p.i] {
        b'T' | b't' => true,
        b' ' => false,
        _ => return false,
    };
    p.i += 1;
    let Some(hour) = p.num() else { return false };
    if !p.lit(b':') {
        return false;
    }
    let Some(minute) = p.num() else { return false };
    if !p.lit(b':') {
        return false;
    }
    let Some(second) = p.num() else { return false };
    if hour >= 24 || minute >= 60 || second >= 60 {
        return false;
    }
    // An optional fraction: `.` or `,` and digits.
    if matches!(b.get(p.i), Some(b'.' | b',')) && b.get(p.i + 1).is_some_and(u8::is_ascii_digit) {
        p.i += 1;
        while b.get(p.i).is_some_and(u8::is_ascii_digit) {
            p.i += 1;
        }
    }
    if !zoned {
        return p.i == b.len();
    }
    match b.get(p.i) {
        Some(b'Z') => p.i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let zone = &b[p.i + 1..];
            zone.len() == 5
                && zone[0].is_ascii_digit()
                && zone[1].is_ascii_digit()
                && zone[2] == b':'
                && zone[3].is_ascii_digit()
                && zone[4].is_ascii_digit()
                && (zone[0] - b'0') * 10 + (zone[1] - b'0') <= 24
                && (zone[3] - b'0') * 10 + (zone[4] - b'0') <= 60
        }
        _ => false,
    }
}

struct TimeParser<'a> {
    b: &'a [u8],
    i: usize,
}

impl TimeParser<'_> {
    /// One or two digits (Go's `getnum` for a non-padded field).
    fn num(&mut self) -> Option<u32> {
        let first = *self.b.get(self.i).filter(|d| d.is_ascii_digit())?;
        self.i += 1;
        let mut n = u32::from(first - b'0');
        if let Some(&d) = self.b.get(self.i).filter(|d| d.is_ascii_digit()) {
            self.i += 1;
            n = n * 10 + u32::from(d - b'0');
        }
        Some(n)
    }

    fn lit(&mut self, c: u8) -> bool {
        let ok = self.b.get(self.i) == Some(&c);
        self.i += usize::from(ok);
        ok
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// ---- The emitter (go-yaml v2's emitterc.go, block context only) ---------

/// Where a node is being written.
#[derive(Clone, Copy)]
struct Context {
    /// A mapping's key or value.
    mapping: bool,
    /// A key written as `key: value`.
    simple_key: bool,
}

impl Context {
    /// The document's node or a sequence's item.
    const ROOT: Context = Context {
        mapping: false,
        simple_key: false,
    };
    const ITEM: Context = Context::ROOT;
    const VALUE: Context = Context {
        mapping: true,
        simple_key: false,
    };
    const SIMPLE_KEY: Context = Context {
        mapping: true,
        simple_key: true,
    };
}

struct Emitter {
    out: String,
    /// Characters (not bytes) since the last line break.
    column: usize,
    /// The last character written is whitespace (or nothing yet).
    whitespace: bool,
    /// Only indentation (and indicators like `- `) on this line so far.
    indention: bool,
    indent: i64,
    indents: Vec<i64>,
}

impl Emitter {
    fn new() -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// A line break taken from a scalar: `\n` as itself; another break
    /// character is copied and starts a new line as far as columns go.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = usize::try_from(self.indent.max(0)).unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, value: &Value, ctx: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, ctx),
            Value::Bool(true) => self.scalar("true", Style::Plain, ctx),
            Value::Bool(false) => self.scalar("false", Style::Plain, ctx),
            Value::Number(n) => self.scalar(n, Style::Plain, ctx),
            Value::String(s) => self.string(s, ctx),
            Value::Seq(items) if items.is_empty() => self.write_indicator("[]", true, false, false),
            Value::Map(members) if members.is_empty() => {
                self.write_indicator("{}", true, false, false);
            }
            Value::Seq(items) => {
                self.increase_indent(false, ctx.mapping && !self.indention);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::ITEM);
                }
                self.pop_indent();
            }
            Value::Map(members) => {
                self.increase_indent(false, false);
                for (key, value) in members {
                    self.write_indent();
                    let simple = !key.contains(is_break) && key.len() <= MAX_SIMPLE_KEY;
                    if simple {
                        self.string(key, Context::SIMPLE_KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.string(key, Context::VALUE);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(value, Context::VALUE);
                }
                self.pop_indent();
            }
        }
    }

    fn string(&mut self, s: &str, ctx: Context) {
        let analysis = analyze(s);
        let style = select_style(requested_style(s), &analysis, ctx.simple_key, s.is_empty());
        self.scalar(s, style, ctx);
    }

    fn scalar(&mut self, value: &str, style: Style, ctx: Context) {
        self.increase_indent(true, false);
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.plain(value, allow_breaks),
            Style::SingleQuoted => self.single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.double_quoted(value, allow_breaks),
            Style::Literal => self.literal(value),
        }
        self.pop_indent();
    }

    fn plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let last = chars.len().saturating_sub(1);
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < last
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // go-yaml escapes every character of a string that starts with a
        // byte order mark.
        let bom = value.starts_with('\u{feff}');
        let chars: Vec<char> = value.chars().collect();
        let last = chars.len().saturating_sub(1);
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || bom || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{b}' => Some('v'),
                    '\u{c}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1b}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match short {
                    Some(s) => self.put(s),
                    None => {
                        let code = c as u32;
                        let (letter, width) = match code {
                            0..=0xff => ('x', 2),
                            0x100..=0xffff => ('u', 4),
                            _ => ('U', 8),
                        };
                        self.put(letter);
                        for k in (0..width).rev() {
                            let digit = (code >> (4 * k)) & 0xf;
                            self.put(
                                char::from_digit(digit, 16).map_or('0', |d| d.to_ascii_uppercase()),
                            );
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i < last {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        // Chomping: `-` without a final break, `+` when the text is one
        // break or ends with two, none (clip) for exactly one final break.
        let n = chars.len();
        let chomp = match n {
            0 => Some('-'),
            _ if !is_break(chars[n - 1]) => Some('-'),
            1 => Some('+'),
            _ if is_break(chars[n - 2]) => Some('+'),
            _ => None,
        };
        if let Some(c) = chomp {
            let mut buf = [0u8; 4];
            self.write_indicator(c.encode_utf8(&mut buf), false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {

    use super::to_kubectl_yaml;

    /// (JSON as `encoding/json` writes it, what `sigs.k8s.io/yaml.JSONToYAML`
    /// v1.6.0 with go.yaml.in/yaml/v2 v2.4.3 printed for it.)
    const CASES: &[(&str, &str)] = &[
        ("{\"k\":\"\"}", "k: \"\"\n"),
        ("{\"k\":\"~\"}", "k: \"~\"\n"),
        ("{\"k\":\"1\"}", "k: \"1\"\n"),
        ("{\"k\":\"true\"}", "k: \"true\"\n"),
        ("{\"k\":\"yes\"}", "k: \"yes\"\n"),
        ("{\"k\":\"no\"}", "k: \"no\"\n"),
        ("{\"k\":\"on\"}", "k: \"on\"\n"),
        ("{\"k\":\"off\"}", "k: \"off\"\n"),
        ("{\"k\":\"y\"}", "k: \"y\"\n"),
        ("{\"k\":\"N\"}", "k: \"N\"\n"),
        ("{\"k\":\"null\"}", "k: \"null\"\n"),
        ("{\"k\":\"NULL\"}", "k: \"NULL\"\n"),
        (
            "{\"k\":\"2008-01-01T01:01:01Z\"}",
            "k: \"2008-01-01T01:01:01Z\"\n",
        ),
        ("{\"k\":\"2008-01-01\"}", "k: \"2008-01-01\"\n"),
        ("{\"k\":\"2008-02-30\"}", "k: 2008-02-30\n"),
        (
            "{\"k\":\"2008-01-01T01:01:01\"}",
            "k: 2008-01-01T01:01:01\n",
        ),
        ("{\"k\":\"0x1f\"}", "k: \"0x1f\"\n"),
        ("{\"k\":\"0o17\"}", "k: \"0o17\"\n"),
        ("{\"k\":\"0b101\"}", "k: \"0b101\"\n"),
        ("{\"k\":\"0b-1\"}", "k: \"0b-1\"\n"),
        ("{\"k\":\"017\"}", "k: \"017\"\n"),
        ("{\"k\":\"08\"}", "k: \"08\"\n"),
        ("{\"k\":\".5\"}", "k: \".5\"\n"),
        ("{\"k\":\"1e3\"}", "k: \"1e3\"\n"),
        ("{\"k\":\"1e400\"}", "k: 1e400\n"),
        ("{\"k\":\"1_000\"}", "k: \"1_000\"\n"),
        ("{\"k\":\"1:20\"}", "k: \"1:20\"\n"),
        ("{\"k\":\"190:20:30.15\"}", "k: \"190:20:30.15\"\n"),
        ("{\"k\":\".inf\"}", "k: \".inf\"\n"),
        ("{\"k\":\"-.inf\"}", "k: \"-.inf\"\n"),
        ("{\"k\":\".nan\"}", "k: \".nan\"\n"),
        ("{\"k\":\"+1\"}", "k: \"+1\"\n"),
        ("{\"k\":\"-\"}", "k: '-'\n"),
        ("{\"k\":\"-a\"}", "k: -a\n"),
        ("{\"k\":\"- a\"}", "k: '- a'\n"),
        ("{\"k\":\"a: b\"}", "k: 'a: b'\n"),
        ("{\"k\":\"a:b\"}", "k: a:b\n"),
        ("{\"k\":\"a #b\"}", "k: 'a #b'\n"),
        ("{\"k\":\"a#b\"}", "k: a#b\n"),
        ("{\"k\":\"#a\"}", "k: '#a'\n"),
        ("{\"k\":\"?a\"}", "k: ?a\n"),
        ("{\"k\":\":a\"}", "k: :a\n"),
        ("{\"k\":\"a:\"}", "k: 'a:'\n"),
        ("{\"k\":\"[a\"}", "k: '[a'\n"),
        ("{\"k\":\"{a}\"}", "k: '{a}'\n"),
        ("{\"k\":\"\\u0026a\"}", "k: '&a'\n"),
        ("{\"k\":\"*a\"}", "k: '*a'\n"),
        ("{\"k\":\"!a\"}", "k: '!a'\n"),
        ("{\"k\":\"|a\"}", "k: '|a'\n"),
        ("{\"k\":\"\\u003ea\"}", "k: '>a'\n"),
        ("{\"k\":\"'a\"}", "k: '''a'\n"),
        ("{\"k\":\"\\\"a\"}", "k: '\"a'\n"),
        ("{\"k\":\"%a\"}", "k: '%a'\n"),
        ("{\"k\":\"@a\"}", "k: '@a'\n"),
        ("{\"k\":\"`a\"}", "k: '`a'\n"),
        ("{\"k\":\"it's\"}", "k: it's\n"),
        ("{\"k\":\"---\"}", "k: '---'\n"),
        ("{\"k\":\"...\"}", "k: '...'\n"),
        ("{\"k\":\" a\"}", "k: ' a'\n"),
        ("{\"k\":\"a \"}", "k: 'a '\n"),
        ("{\"k\":\"a\\tb\"}", "k: \"a\\tb\"\n"),
        ("{\"k\":\"a\\nb\"}", "k: |-\n  a\n  b\n"),
        ("{\"k\":\"a\\n\"}", "k: |\n  a\n"),
        ("{\"k\":\"a\\n\\n\"}", "k: |+\n  a\n\n"),
        ("{\"k\":\"\\n\"}", "k: |2+\n\n"),
        ("{\"k\":\" a\\nb\"}", "k: |2-\n   a\n  b\n"),
        ("{\"k\":\"a \\nb\"}", "k: \"a \\nb\"\n"),
        ("{\"k\":\"a\\n b\"}", "k: |-\n  a\n   b\n"),
        ("{\"k\":\"a\\u0007b\"}", "k: \"a\\ab\"\n"),
        ("{\"k\":\"a\u{85}b\"}", "k: a b\n"),
        ("{\"k\":\"a \u{85} b\"}", "k: a b\n"),
        ("{\"k\":\"a\u{85}\u{85}b\"}", "k: |-\n  a\n  b\n"),
        ("{\"k\":\"a b\"}", "k: a b\n"),
        ("{\"k\":\"a\\u2028b\"}", "k: 'a\u{2028}  b'\n"),
        ("{\"k\":\"\u{feff}ab\"}", "k: \"\\uFEFF\\x61\\x62\"\n"),
        ("{\"k\":\"a\u{feff}b\"}", "k: \"a\\uFEFFb\"\n"),
        ("{\"k\":\"日本語\"}", "k: 日本語\n"),
        ("{\"k\":\"a😀b\"}", "k: \"a\\U0001F600b\"\n"),
        (
            "{\"k\":\"\\u003chtml\\u003e\\u0026amp;\"}",
            "k: <html>&amp;\n",
        ),
        (
            "{\"k\":\"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\"}",
            "k: lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt\n  ut labore\n",
        ),
        (
            "{\"k\":\"'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\"}",
            "k: '''lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n  incididunt ut labore'\n",
        ),
        (
            "{\"k\":\"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\\u0007\"}",
            "k: \"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt\n  ut labore\\a\"\n",
        ),
        (
            "{\"k\":\"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod  tempor incididunt  ut labore\\u0007\"}",
            "k: \"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod  tempor\n  incididunt  ut labore\\a\"\n",
        ),
        ("{\"n\":0}", "\"n\": 0\n"),
        ("{\"n\":-0}", "\"n\": 0\n"),
        ("{\"n\":-0.0}", "\"n\": -0\n"),
        ("{\"n\":1.0}", "\"n\": 1\n"),
        ("{\"n\":1.5}", "\"n\": 1.5\n"),
        ("{\"n\":100000.0}", "\"n\": 100000\n"),
        ("{\"n\":1000000.0}", "\"n\": 1e+06\n"),
        ("{\"n\":1e21}", "\"n\": 1e+21\n"),
        ("{\"n\":0.0001}", "\"n\": 0.0001\n"),
        ("{\"n\":0.00001}", "\"n\": 1e-05\n"),
        ("{\"n\":1.2345e-7}", "\"n\": 1.2345e-07\n"),
        (
            "{\"n\":9223372036854775807}",
            "\"n\": 9223372036854775807\n",
        ),
        (
            "{\"n\":9223372036854775808}",
            "\"n\": 9223372036854775808\n",
        ),
        (
            "{\"n\":18446744073709551616}",
            "\"n\": 1.8446744073709552e+19\n",
        ),
        (
            "{\"n\":-9223372036854775809}",
            "\"n\": -9.223372036854776e+18\n",
        ),
        ("{\"n\":1e309}", "\"n\": 1e309\n"),
        ("{\"n\":123e-2}", "\"n\": 1.23\n"),
        ("{}", "{}\n"),
        ("[]", "[]\n"),
        ("null", "null\n"),
        ("\"a\"", "a\n"),
        (
            "{\"a\":{},\"b\":[],\"c\":null,\"d\":true}",
            "a: {}\nb: []\nc: null\nd: true\n",
        ),
        (
            "[[1,[2]],{\"a\":[3]},[]]",
            "- - 1\n  - - 2\n- a:\n  - 3\n- []\n",
        ),
        (
            "{\"a\":[{\"b\":1,\"c\":[{\"d\":\"x\"}]}]}",
            "a:\n- b: 1\n  c:\n  - d: x\n",
        ),
        ("{\"a\":\"x\",\"a\":\"y\"}", "a: \"y\"\n"),
        (
            "{\"a10\":1,\"a9\":1,\"a_b\":1,\"aB\":1,\"a-b\":1,\"Z\":1,\"a\":1,\"b1\":1,\"b_\":1}",
            "Z: 1\na: 1\na-b: 1\na_b: 1\na9: 1\na10: 1\naB: 1\nb_: 1\nb1: 1\n",
        ),
        ("{\"\":1}", "\"\": 1\n"),
        ("{\"a\\nb\":[1]}", "? |-\n  a\n  b\n: - 1\n"),
        (
            "{\"k\":\"a\\nb\",\"l\":\"c\\n\"}",
            "k: |-\n  a\n  b\nl: |\n  c\n",
        ),
        (
            "{\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\":1}",
            "? xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n: 1\n",
        ),
        (
            "{\"a\":{\"b\":{\"c\":\"multi\\nline\\ntext\\n\"}}}",
            "a:\n  b:\n    c: |\n      multi\n      line\n      text\n",
        ),
        (
            "[\"a\\nb\",[\"c\\nd\"]]",
            "- |-\n  a\n  b\n- - |-\n    c\n    d\n",
        ),
    ];

    #[test]
    fn prints_what_go_yaml_prints() {
        let mut failures = Vec::new();
        for &(json, expected) in CASES {
            match to_kubectl_yaml(json) {
                Ok(yaml) if yaml == expected => {}
                other => failures.push(format!("{json}\n  want {expected:?}\n  got  {other:?}")),
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn refuses_what_go_yaml_cannot_read() {
        let long_key = format!("{{\"{}\":1}}", "x".repeat(1023));
        let escaped_key = format!("{{\"{}\\u003c\":1}}", "x".repeat(1017));
        for json in [
            // go-yaml's reader refuses DEL and C1 controls (but U+0085).
            "{\"k\":\"a\u{7f}b\"}",
            "{\"k\":[\"a\\u0090b\"]}",
            "{\"k\":\"\\uffff\"}",
            // A raw NEL in a key breaks the flow key's line.
            "{\"a\u{85}b\":1}",
            // A line starting `--- ` after a NEL ends the document.
            "{\"k\":\"a\u{85}--- b\"}",
            // A key longer than 1024 characters (quotes included) as JSON.
            &long_key,
            &escaped_key,
        ] {
            let err = to_kubectl_yaml(json).expect_err(json);
            assert!(
                matches!(err, kguest_json::JsonError::Unrepresentable { .. }),
                "{json}: {err}"
            );
        }
        let ok = format!("{{\"{}\":1}}", "x".repeat(1022));
        assert!(to_kubectl_yaml(&ok).is_ok());
    }

    #[test]
    fn names_the_path_of_what_it_refuses() {
        let err = to_kubectl_yaml("{\"metadata\":{\"annotations\":{\"a\":\"\u{7f}\"}}}")
            .expect_err("DEL");
        assert!(
            err.to_string()
                .starts_with("metadata.annotations.a: U+007F"),
            "{err}"
        );
        let err = to_kubectl_yaml("{\"a\":[1,\"\u{7f}\"]}").expect_err("DEL");
        assert!(err.to_string().starts_with("a[1]: "), "{err}");
    }

    #[test]
    fn bad_json_is_an_error() {
        for json in ["", "{", "{\"a\":}", "[1,]", "{} {}", "nul"] {
            let err = to_kubectl_yaml(json).expect_err(json);
            assert!(
                matches!(err, kguest_json::JsonError::Syntax { .. }),
                "{json}: {err}"
            );
        }
    }

    #[test]
    fn key_order_is_go_yaml_order_not_byte_order() {
        // Byte order would put "a10" before "a9" and "aB" before "a_b".
        let yaml = to_kubectl_yaml("{\"a10\":1,\"a9\":2,\"aB\":3,\"a_b\":4}").unwrap();
        assert_eq!(yaml, "a_b: 4\na9: 2\na10: 1\naB: 3\n");
        // `½` and `³` are numeric but not digits to Go: against a digit they
        // count as the number 0, so `½x` sorts before `3x`.
        assert!(super::key_less("\u{bd}x", "3x") && !super::key_less("3x", "\u{bd}x"));
        assert!(
            super::is_digit('\u{0967}')
                && !super::is_digit('\u{b3}')
                && !super::is_digit('\u{2160}')
        );
    }
}
