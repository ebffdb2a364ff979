//! Reading kubectl's JSON as go-yaml v2 reads it into an `interface{}`.

use std::collections::BTreeMap;

use kguest_json::{Event, JsonError, Reader, Text};

use super::key_order::{key_less, merge_sort};
use super::number::number;

/// A JSON value as go-yaml v2 reads it into an `interface{}`.
pub(super) enum Value {
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
    pub(super) fn read(
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
