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
    /// A field took this member.
    taken: bool,
    /// The field that took the member but could not read its value: its
    /// name and Go type. The refusal is written from it once, in
    /// [`refusal`], so each field's reader is a few stores.
    wrong: Option<(&'static str, GoType)>,
}

/// A field's Go type, as errors name it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GoType {
    Int,
    Bool,
    String,
}

/// A JSON value's kind, as Go's errors name it (`KINDS`), by first byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Nothing a JSON value begins with.
    Other,
    String,
    Object,
    Array,
    Bool,
    Number,
}

const KINDS: [&str; 6] = ["", "string", "object", "array", "bool", "number"];
const GO_TYPES: [&str; 3] = ["int", "bool", "string"];

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
            taken: false,
            wrong: None,
        };
        fields(&mut field);
        if field.wrong.is_some() {
            return Err(refusal(go_type, field.wrong, value));
        }
    }
    match entries.rest() {
        Some(rest) if json::is_blank(rest) => Ok(()),
        _ => Err(refusal(go_type, None, config)),
    }
}

/// What Go's errors call a JSON value, by its first byte (after blanks).
#[inline]
fn kind(value: &[u8]) -> Kind {
    match value.get(json::skip_ws(value, 0)) {
        Some(b'"') => Kind::String,
        Some(b'{') => Kind::Object,
        Some(b'[') => Kind::Array,
        Some(b't' | b'f') => Kind::Bool,
        Some(b'-' | b'0'..=b'9') => Kind::Number,
        _ => Kind::Other,
    }
}

/// The refusal for `value`: Go's `UnmarshalTypeError` for `field` (its name
/// and Go type; a number that does not fit an int shows its literal:
/// `number 1.5`), or for the config as a whole (`None`: not an object, or
/// `malformed JSON object`). One array of pieces for every case keeps the
/// code that writes them in one place.
#[cold]
#[inline]
fn refusal(
    go_type: &'static str,
    field: Option<(&'static str, GoType)>,
    value: &'static [u8],
) -> Refusal {
    let kind = kind(value);
    let mut parts = [""; Refusal::PARTS];
    parts[0] = "json: cannot unmarshal ";
    parts[1] = KINDS[kind as usize];
    match field {
        None if matches!(kind, Kind::Object | Kind::Other) => {
            parts[0] = "malformed JSON object";
            parts[1] = "";
        }
        None => {
            parts[4] = " into Go value of type ";
            parts[5] = go_type;
        }
        Some((name, want)) => {
            if want == GoType::Int && kind == Kind::Number {
                parts[2] = " ";
                parts[3] = kguest_wire::utf8::to_str(value).unwrap_or("");
            } else if want == GoType::String && kind == Kind::String {
                // Valid JSON Go would read: only the escapes stop us.
                parts[0] = "kguest::args: cannot read the escaped ";
            }
            parts[4] = " into Go struct field ";
            parts[5] = go_type;
            parts[6] = ".";
            parts[7] = name;
            parts[8] = " of type ";
            parts[9] = GO_TYPES[want as usize];
        }
    }
    Refusal::all(parts)
}

impl Field {
    /// The member's value if its key is `name` and no field took it yet.
    #[inline]
    fn take(&mut self, name: &str) -> Option<&'static [u8]> {
        if self.taken || !json::key_matches(self.key, name) {
            return None;
        }
        self.taken = true;
        (!json::as_null(self.value)).then_some(self.value)
    }

    /// A JSON integer that fits `i64` (Go `int` on 64 bits).
    #[inline]
    pub fn int(&mut self, name: &'static str, dst: &mut i64) -> &mut Self {
        if let Some(v) = self.take(name) {
            match json::as_i64(v) {
                Some(n) => *dst = n,
                None => self.wrong = Some((name, GoType::Int)),
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
                None => self.wrong = Some((name, GoType::Bool)),
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
                None => self.wrong = Some((name, GoType::String)),
            }
        }
        self
    }
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
            Err(
                "kguest::args: cannot read the escaped string into Go struct field Args.zone \
                 of type string"
                    .into()
            )
        );
        // A member after the one refused is not read.
        assert_eq!(
            read(r#"{"strict": 1, "weight": "x"}"#),
            field("number", "strict", "bool")
        );
    }
}
