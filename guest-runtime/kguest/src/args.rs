//! Typed config: a plugin's JSON config read into its own fields, with the
//! errors Go's `json.Unmarshal` gives for the same struct. No allocation;
//! nothing is linked into a plugin that does not call [`decode`].
//!
//! ```
//! use kguest::{Refusal, args};
//!
//! let config: &'static [u8] = br#"{"weight": 80, "zone": "a", "strict": true}"#;
//! let (mut weight, mut zone, mut strict) = (50, "", false);
//! args::decode(config, "ZoneArgs", |f| {
//!     f.int("weight", &mut weight).str("zone", &mut zone).bool("strict", &mut strict);
//! })?;
//! assert_eq!((weight, zone, strict), (80, "a", true));
//!
//! let bad: &'static [u8] = br#"{"weight": "80"}"#;
//! let err = args::decode(bad, "ZoneArgs", |f| { f.int("weight", &mut weight); }).unwrap_err();
//! assert_eq!(
//!     err.parts().collect::<String>(),
//!     "json: cannot unmarshal string into Go struct field ZoneArgs.weight of type int"
//! );
//! # Ok::<(), Refusal>(())
//! ```
//!
//! As Go decodes into a struct: keys match field names ignoring ASCII case,
//! the last one wins, `null` leaves a field as it was, other keys are
//! ignored, and an empty config or `null` sets nothing. Two differences: a
//! string with escapes is refused (it cannot be read in place), and the
//! values of keys no field takes are checked only for where they end (Go
//! refuses any malformed JSON, with its own syntax error text; here it is
//! `malformed JSON object`).

use crate::Refusal;
use crate::json;

/// One member of the config object, offered to each field in turn.
pub struct Field {
    key: &'static [u8],
    value: &'static [u8],
    go_type: &'static str,
    /// A field took this member.
    taken: bool,
    error: Option<Refusal>,
}

/// Reads the JSON object `config` with `fields`, which names each field
/// once (`f.int("weight", &mut weight)...`) and is called once per member.
/// `go_type` is the struct's name in errors, as Go's are worded:
/// `json: cannot unmarshal string into Go struct field <go_type>.weight of
/// type int`.
#[inline]
#[allow(clippy::result_large_err)] // a `Refusal`: 88 bytes in wasm32, once
pub fn decode(
    config: &'static [u8],
    go_type: &'static str,
    mut fields: impl FnMut(&mut Field),
) -> Result<(), Refusal> {
    if json::is_blank(config) || json::as_null(config) {
        return Ok(());
    }
    let mut entries = json::raw_entries(config);
    for (key, value) in entries.by_ref() {
        let mut field = Field {
            key,
            value,
            go_type,
            taken: false,
            error: None,
        };
        fields(&mut field);
        if let Some(error) = field.error {
            return Err(error);
        }
    }
    match entries.rest() {
        Some(rest) if json::is_blank(rest) => Ok(()),
        _ => match kind(config) {
            Some(kind) if kind != "object" => Err(Refusal::of(&[
                "json: cannot unmarshal ",
                kind,
                " into Go value of type ",
                go_type,
            ])),
            _ => Err(Refusal::new("malformed JSON object")),
        },
    }
}

/// What Go's errors call a JSON value by its first byte.
#[inline]
fn kind(value: &[u8]) -> Option<&'static str> {
    let first = value.get(json_start(value)).copied()?;
    Some(match first {
        b'"' => "string",
        b'{' => "object",
        b'[' => "array",
        b't' | b'f' => "bool",
        b'-' | b'0'..=b'9' => "number",
        _ => return None,
    })
}

#[inline]
fn json_start(value: &[u8]) -> usize {
    value
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(value.len())
}

impl Field {
    /// The member's value if its key is `name` and no field took it yet.
    #[inline]
    fn take(&mut self, name: &str) -> Option<&'static [u8]> {
        if self.taken || self.error.is_some() || !json::key_matches(self.key, name) {
            return None;
        }
        self.taken = true;
        (!json::as_null(self.value)).then_some(self.value)
    }

    /// Go's `UnmarshalTypeError` for field `name` of Go type `want`; a
    /// number that does not fit shows its literal (`number 1.5`).
    #[cold]
    fn wrong(&mut self, name: &'static str, want: &'static str, number: bool) {
        let kind = kind(self.value).unwrap_or("value");
        let (kind, literal) = if number && kind == "number" {
            ("number ", as_static_str(self.value))
        } else {
            (kind, "")
        };
        self.error = Some(Refusal::of(&[
            "json: cannot unmarshal ",
            kind,
            literal,
            " into Go struct field ",
            self.go_type,
            ".",
            name,
            " of type ",
            want,
        ]));
    }

    /// A JSON integer that fits `i64` (Go `int` on 64 bits).
    #[inline]
    pub fn int(&mut self, name: &'static str, dst: &mut i64) -> &mut Self {
        if let Some(v) = self.take(name) {
            match json::as_i64(v) {
                Some(n) => *dst = n,
                None => self.wrong(name, "int", true),
            }
        }
        self
    }

    /// `true` or `false`.
    #[inline]
    pub fn bool(&mut self, name: &'static str, dst: &mut bool) -> &mut Self {
        if let Some(v) = self.take(name) {
            match json::as_bool(v) {
                Some(b) => *dst = b,
                None => self.wrong(name, "bool", false),
            }
        }
        self
    }

    /// A string without escapes, borrowed from the config.
    #[inline]
    pub fn str(&mut self, name: &'static str, dst: &mut &'static str) -> &mut Self {
        if let Some(v) = self.take(name) {
            match json::as_str(v) {
                Some(s) => *dst = s,
                None if kind(v) == Some("string") => {
                    self.error = Some(Refusal::of(&[
                        "config field ",
                        name,
                        ": a string with escapes is not read",
                    ]));
                }
                None => self.wrong(name, "string", false),
            }
        }
        self
    }
}

/// A number's literal as text: JSON numbers are ASCII.
#[inline]
fn as_static_str(raw: &'static [u8]) -> &'static str {
    kguest_wire::utf8::to_str(raw).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    #[derive(Debug, PartialEq)]
    struct Args {
        weight: i64,
        zone: &'static str,
        strict: bool,
    }

    fn read(config: &'static str) -> Result<Args, String> {
        let mut a = Args {
            weight: 50,
            zone: "",
            strict: false,
        };
        decode(config.as_bytes(), "Args", |f| {
            f.int("weight", &mut a.weight)
                .str("zone", &mut a.zone)
                .bool("strict", &mut a.strict);
        })
        .map_err(|e| e.parts().collect::<String>())?;
        Ok(a)
    }

    #[test]
    fn fields_as_go_decodes_them() {
        let a = |weight, zone, strict| {
            Ok(Args {
                weight,
                zone,
                strict,
            })
        };
        assert_eq!(read(""), a(50, "", false));
        assert_eq!(read(" null "), a(50, "", false));
        assert_eq!(read("{}"), a(50, "", false));
        assert_eq!(
            read(r#"{"Weight": 7, "ZONE": "b", "strict": true, "other": [1, {"x": 2}]}"#),
            a(7, "b", true)
        );
        assert_eq!(read(r#"{"weight": 1, "weight": null}"#), a(1, "", false));
        assert_eq!(read(r#"{"weight": 1, "weight": -3}"#), a(-3, "", false));
    }

    /// The texts Go 1.2x's `json.Unmarshal` gives for these into
    /// `struct{Weight int; Zone string; Strict bool}` named `Args`.
    #[test]
    fn errors_as_go_words_them() {
        let field = |what: &str, f: &str, t: &str| {
            Err(std::format!(
                "json: cannot unmarshal {what} into Go struct field Args.{f} of type {t}"
            ))
        };
        assert_eq!(read(r#"{"weight": "5"}"#), field("string", "weight", "int"));
        assert_eq!(
            read(r#"{"weight": 1.5}"#),
            field("number 1.5", "weight", "int")
        );
        assert_eq!(read(r#"{"weight": true}"#), field("bool", "weight", "int"));
        assert_eq!(read(r#"{"zone": 3}"#), field("number", "zone", "string"));
        assert_eq!(read(r#"{"zone": ["a"]}"#), field("array", "zone", "string"));
        assert_eq!(
            read(r#"{"strict": "yes"}"#),
            field("string", "strict", "bool")
        );
        assert_eq!(read(r#"{"strict": {}}"#), field("object", "strict", "bool"));
        assert_eq!(
            read("[1]"),
            Err("json: cannot unmarshal array into Go value of type Args".into())
        );
        assert_eq!(read(r#"{"weight": 1"#), Err("malformed JSON object".into()));
        assert_eq!(
            read(r#"{"weight": 1} x"#),
            Err("malformed JSON object".into())
        );
        assert_eq!(
            read(r#"{"zone": "a\"b"}"#),
            Err("config field zone: a string with escapes is not read".into())
        );
    }
}
