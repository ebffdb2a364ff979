//! JSON → protobuf (`from_json`) for a Pod, then back through the views.
//!
//! The input is either JSON text (first byte `% 4 == 0`; the corpus is seeded
//! with the upstream Pod fixture's JSON) or, otherwise, bytes that drive a
//! schema-guided generator: a Pod-shaped `serde_json::Value` with mostly
//! well-typed members (times, quantities, durations, int-or-string, raw JSON,
//! maps, arrays) and now and then a value of the wrong type.
//!
//! Whenever `from_json` encodes the value:
//! 1. the bytes validate, prost-reflect decodes them, and the views' tree
//!    equals prost-reflect's (no split singular message either);
//! 2. `to_json` of the bytes succeeds, and encoding that JSON again gives the
//!    same bytes (encode is a fixed point of decode ∘ encode);
//! 3. the JSON read back equals the input after normalization: empty values
//!    dropped (`kguest_test_support::json::without_empty`, as in
//!    `json_conformance.rs`), `null` elements
//!    read as zero values, quantities in the form Kubernetes serves
//!    (`reserialize`), times truncated to their precision in UTC, durations
//!    in Go's form, floats rounded to `f32` where the field is a `float`,
//!    bytes in canonical base64.

#![no_main]

use arbitrary::Unstructured;
use kguest_fuzz::generate::gen_message;
use kguest_k8s::api::core::v1::Pod;
use kguest_k8s_io::json::{from_json, object_from_json, to_json};
use kguest_test_support::deviations::has_split_message;
use kguest_test_support::diff::hex_prefix;
use kguest_test_support::json::without_empty;
use kguest_test_support::oracle::{first_difference, reference_decode, reference_tree, view_tree};
use kguest_wire::View;
use kguest_wire::quantity;
use kguest_wire::schema::{JsonForm, Kind, Label, MessageSchema};
use kguest_wire::timefmt;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

// ---------------------------------------------------------------------------
// Normalization: what the input means, in the form `to_json` writes it.

/// Go's zero `time.Time` (Unix seconds): Kubernetes writes it as `null`.
const GO_ZERO_TIME_SECONDS: i64 = -62_135_596_800;

thread_local! {
    /// Set when normalization met Go's zero time. Not a bug, a limit of
    /// Kubernetes JSON itself: the zero time encodes as an empty Timestamp
    /// (as Go writes it) and reads back as `null`, and for a pointer field
    /// (`status.startTime`) `null` means "absent", so the second encoding
    /// drops the field that the first one wrote as `3a 00`. Go round-trips
    /// the same way. The byte fixed point is skipped for such input; the
    /// semantic comparison still runs.
    static SAW_ZERO_TIME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn norm_message(schema: &MessageSchema, value: &Value) -> Value {
    match schema.json {
        JsonForm::Object => {
            let mut out = Map::new();
            if let Value::Object(members) = value {
                norm_members(schema, members, &mut out);
            }
            Value::Object(out)
        }
        JsonForm::Timestamp { frac_digits } => match value {
            Value::String(text) => match timefmt::parse_rfc3339(text.as_bytes()) {
                Some((seconds, nanos)) => {
                    let nanos = match frac_digits {
                        0 => 0,
                        6 => nanos - nanos % 1_000,
                        _ => nanos,
                    };
                    if seconds == GO_ZERO_TIME_SECONDS && nanos == 0 {
                        SAW_ZERO_TIME.with(|saw| saw.set(true));
                        return Value::Null;
                    }
                    let mut buf = [0u8; 40];
                    timefmt::format_rfc3339(seconds, nanos, frac_digits, &mut buf)
                        .map_or(Value::Null, |t| Value::String(t.into()))
                }
                None => Value::Null,
            },
            _ => Value::Null,
        },
        JsonForm::EmbeddedString => match value {
            Value::String(s) => Value::String(s.clone()),
            _ => Value::String(String::new()),
        },
        JsonForm::Quantity => {
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => "0".into(),
            };
            let mut buf = [0u8; 64];
            let kept = quantity::reserialize(text.as_bytes(), &mut buf).unwrap_or("!!invalid");
            Value::String(kept.into())
        }
        JsonForm::IntOrString => match value {
            Value::Null => Value::from(0),
            other => other.clone(),
        },
        JsonForm::RawJson => value.clone(),
        JsonForm::BareArray => match (value, schema.fields.first()) {
            (Value::Array(items), Some(field)) => {
                Value::Array(items.iter().map(|v| norm_scalar(field.kind, v)).collect())
            }
            _ => Value::Array(Vec::new()),
        },
        JsonForm::Duration => {
            let nanos = match value {
                Value::String(s) => timefmt::parse_go_duration(s.as_bytes()).unwrap_or(0),
                _ => 0,
            };
            let mut buf = [0u8; 40];
            Value::String(timefmt::format_go_duration(nanos, &mut buf).into())
        }
    }
}

fn norm_members(
    schema: &MessageSchema,
    members: &Map<String, Value>,
    out: &mut Map<String, Value>,
) {
    for field in schema.fields {
        if let (true, Kind::Message(inner)) = (field.inline, field.kind) {
            // Written when Go always writes it or when the object has one
            // of its members.
            if field.always || members.keys().any(|key| knows(inner, key)) {
                norm_members(inner, members, out);
            }
            continue;
        }
        let Some(value) = members.get(field.json_name()).filter(|v| !v.is_null()) else {
            // A Go value field is written with its zero value (a zero
            // quantity reads back as "0", a zero duration as "0s").
            if field.always && field.label == Label::Singular {
                out.insert(
                    field.json_name().to_string(),
                    norm_scalar(field.kind, &Value::Null),
                );
            }
            continue;
        };
        let value = match (field.label, value) {
            (Label::Singular, v) => norm_scalar(field.kind, v),
            (Label::Repeated, Value::Array(items)) => {
                Value::Array(items.iter().map(|v| norm_scalar(field.kind, v)).collect())
            }
            (Label::Map, Value::Object(entries)) => {
                let value_kind = match field.kind {
                    Kind::Message(entry) => entry.field(2).map(|f| f.kind),
                    _ => None,
                };
                let mut sorted: Vec<_> = entries.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    sorted
                        .into_iter()
                        .map(|(k, v)| {
                            (
                                k.clone(),
                                value_kind.map_or(Value::Null, |kind| norm_scalar(kind, v)),
                            )
                        })
                        .collect(),
                )
            }
            _ => Value::Null,
        };
        out.insert(field.json_name().to_string(), value);
    }
}

/// True when `key` is a JSON member of `schema`, directly or inlined.
fn knows(schema: &MessageSchema, key: &str) -> bool {
    schema
        .fields
        .iter()
        .any(|field| match (field.inline, field.kind) {
            (true, Kind::Message(inner)) => knows(inner, key),
            _ => field.json_name() == key,
        })
}

fn norm_scalar(kind: Kind, value: &Value) -> Value {
    match kind {
        Kind::Message(inner) => norm_message(inner, value),
        Kind::String => match value {
            Value::String(s) => Value::String(s.clone()),
            _ => Value::String(String::new()),
        },
        Kind::Bytes => match value {
            Value::String(s) => {
                let bytes = base64_decode(s).unwrap_or_default();
                Value::String(kguest_json::base64(&bytes))
            }
            _ => Value::String(String::new()),
        },
        Kind::Bool => Value::Bool(value.as_bool().unwrap_or(false)),
        Kind::Float => {
            let v = value.as_f64().unwrap_or(0.0) as f32;
            Number::from_f64(f64::from(v)).map_or(Value::Null, Value::Number)
        }
        Kind::Double => {
            Number::from_f64(value.as_f64().unwrap_or(0.0)).map_or(Value::Null, Value::Number)
        }
        _ => match value {
            Value::Number(n) => Value::Number(n.clone()),
            _ => Value::from(0),
        },
    }
}

/// Standard padded base64, independent of the library's decoder.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut nbits = 0;
    let mut out = Vec::new();
    let body = text.trim_end_matches('=');
    for c in body.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------
// The checks.

fn check(input: &Value) {
    let schema = <Pod<'static> as View<'static>>::SCHEMA;
    let Ok(bytes) = from_json(schema, input) else {
        return;
    };
    let shown = || {
        format!(
            "input JSON: {}\nencoded {}",
            serde_json::to_string(input).unwrap_or_default(),
            hex_prefix(&bytes, 256)
        )
    };

    // 1. Well-formed, and read alike by the views and prost-reflect.
    if let Err(err) = kguest_wire::schema::validate(schema, &bytes) {
        panic!(
            "from_json wrote bytes that do not validate: {err}\n{}",
            shown()
        );
    }
    let reference = reference_decode(schema.name(), &bytes).unwrap_or_else(|err| {
        panic!(
            "prost-reflect rejects what from_json wrote: {err}\n{}",
            shown()
        )
    });
    assert!(
        !has_split_message(schema, &bytes),
        "from_json wrote a singular message twice\n{}",
        shown()
    );
    let ours = view_tree(&Pod::from_bytes(&bytes));
    if let Some(diff) = first_difference(Some(schema), "", &ours, &reference_tree(&reference)) {
        panic!(
            "views and prost-reflect differ on from_json's bytes: {diff}\n{}",
            shown()
        );
    }

    // 2. Decoding gives JSON that encodes to the same bytes.
    let back = to_json(schema, &bytes)
        .unwrap_or_else(|err| panic!("to_json fails on from_json's bytes: {err}\n{}", shown()));
    SAW_ZERO_TIME.with(|saw| saw.set(false));
    let expected = without_empty(&norm_message(schema, input));
    let zero_time = SAW_ZERO_TIME.with(|saw| saw.get());
    match from_json(schema, &back) {
        Ok(again) if again == bytes || zero_time => {}
        Ok(again) => panic!(
            "encode(decode(encode(x))) != encode(x)\nread back: {}\nre-encoded {}\n{}",
            back,
            hex_prefix(&again, 256),
            shown()
        ),
        Err(err) => panic!(
            "the JSON read back does not encode: {err}\nread back: {back}\n{}",
            shown()
        ),
    }

    // 3. Semantically the input.
    let actual = without_empty(&back);
    if let Some((path, a, b)) = kguest_test_support::json::first_difference("", &actual, &expected)
    {
        let diff = format!("{path}: read back {a}, expected {b}");
        panic!(
            "round trip changes the value: {diff}\nread back: {back}\n{}",
            shown()
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 4 == 0 {
        let Ok(mut value) = serde_json::from_slice::<Value>(rest) else {
            return;
        };
        std::hint::black_box(object_from_json(&value).is_ok());
        if let Value::Object(members) = &mut value {
            members.remove("apiVersion");
            members.remove("kind");
        }
        check(&value);
    } else {
        let mut u = Unstructured::new(rest);
        let schema = <Pod<'static> as View<'static>>::SCHEMA;
        if let Ok(value) = gen_message(schema, &mut u, 0) {
            check(&value);
        }
    }
});
