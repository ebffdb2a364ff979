//! The JSON KSW's Go host writes for its JSON-typed getters
//! (`encoding/json.Marshal`): maps with sorted keys, HTML-safe string
//! escaping, no spaces.

use std::collections::BTreeMap;

/// Appends `s` as a Go `encoding/json` string literal.
pub(crate) fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go escapes the other control characters, the HTML-sensitive
            // characters and the JavaScript line separators as \u00XX.
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `["a","b"]` (Go's `[]string`).
pub(crate) fn string_array<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(&mut out, item);
    }
    out.push(']');
    out
}

/// `{"a":1,"b":2}` (Go's `map[string]int`, keys sorted; a repeated key
/// keeps its last value, as a Go map does).
pub(crate) fn int_map<'a>(entries: impl IntoIterator<Item = (&'a str, i64)>) -> String {
    let sorted: BTreeMap<&str, i64> = entries.into_iter().collect();
    let mut out = String::from("{");
    for (i, (key, value)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(&mut out, key);
        out.push(':');
        out.push_str(&value.to_string());
    }
    out.push('}');
    out
}

/// Parses a `{"node": score}` object as Go's `json.Unmarshal` into
/// `map[string]int` would, keeping the guest's order; `null` (a nil Go map)
/// is `None`.
pub(crate) fn parse_int_map(bytes: &[u8]) -> Result<Option<Vec<(String, i64)>>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|err| format!("invalid JSON: {err}"))?;
    let map = match value {
        serde_json::Value::Object(map) => map,
        serde_json::Value::Null => return Ok(None),
        _ => return Err("expected a JSON object of node name to score".into()),
    };
    map.into_iter()
        .map(|(name, score)| match score.as_i64() {
            Some(score) => Ok((name, score)),
            None => Err(format!("score of `{name}` is not an integer: {score}")),
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_go_does() {
        let mut out = String::new();
        push_string(&mut out, "a\"b\\c\n<&>\u{1}\u{2028}é");
        assert_eq!(out, r#""a\"b\\c\n\u003c\u0026\u003e\u0001\u2028é""#);
    }

    #[test]
    fn maps_are_sorted_and_arrays_keep_order() {
        assert_eq!(
            int_map([("b", 2), ("a", -1), ("b", 3)]),
            r#"{"a":-1,"b":3}"#
        );
        assert_eq!(string_array(["z", "a"]), r#"["z","a"]"#);
        assert_eq!(string_array([]), "[]");
        assert_eq!(int_map([]), "{}");
    }

    #[test]
    fn int_maps_parse_or_fail_with_a_reason() {
        assert_eq!(
            parse_int_map(br#"{"n1":100,"n0":-5}"#).unwrap(),
            Some(vec![("n1".to_string(), 100), ("n0".to_string(), -5)])
        );
        assert_eq!(parse_int_map(b"null").unwrap(), None);
        assert!(parse_int_map(b"[1]").unwrap_err().contains("object"));
        assert!(parse_int_map(br#"{"a":1.5}"#).unwrap_err().contains("`a`"));
        assert!(parse_int_map(b"{").unwrap_err().contains("invalid JSON"));
    }
}
