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

mod emitter;
mod key_order;
mod number;
mod read;
mod resolve;
mod style;
#[cfg(test)]
mod tests;

use kguest_json::{JsonError, Reader};

use emitter::{Context, Emitter};
use read::Value;

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
