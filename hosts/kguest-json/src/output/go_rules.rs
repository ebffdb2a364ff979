//! One test per Go `encoding/json` rule, on a schema built for it.

use super::*;
use crate::from_json_text;
use alloc::string::String;
use kguest_wire::schema::{FieldSchema as F, JsonForm, Kind, Label, MessageSchema};

static INNER: MessageSchema = MessageSchema::new(
    "t.Inner",
    JsonForm::Object,
    &[F::new(1, "n", Label::Singular, Kind::Int32).always()],
);
static TIME: MessageSchema = MessageSchema::new(
    "t.Time",
    JsonForm::Timestamp { frac_digits: 0 },
    &[
        F::new(1, "seconds", Label::Singular, Kind::Int64),
        F::new(2, "nanos", Label::Singular, Kind::Int32),
    ],
);
static QUANTITY: MessageSchema = MessageSchema::new(
    "t.Quantity",
    JsonForm::Quantity,
    &[F::new(1, "string", Label::Singular, Kind::String)],
);
static ENTRY: MessageSchema = MessageSchema::new(
    "t.Entry",
    JsonForm::Object,
    &[
        F::new(1, "key", Label::Singular, Kind::String).always(),
        F::new(2, "value", Label::Singular, Kind::String).always(),
    ],
);
static OUTER: MessageSchema = MessageSchema::new(
    "t.Outer",
    JsonForm::Object,
    &[
        // int32 `json:"a,omitempty"`
        F::new(1, "omitInt", Label::Singular, Kind::Int32).always(),
        // int32 `json:"b"`
        F::new(2, "keepInt", Label::Singular, Kind::Int32)
            .always()
            .emit_empty(),
        // *int32 `json:"c,omitempty"`
        F::new(3, "ptrInt", Label::Singular, Kind::Int32),
        // *string `json:"d"`
        F::new(4, "ptrKeep", Label::Singular, Kind::String).emit_empty(),
        F::new(5, "list", Label::Repeated, Kind::String),
        F::new(6, "listKeep", Label::Repeated, Kind::String).emit_empty(),
        F::new(7, "map", Label::Map, Kind::Message(&ENTRY)),
        F::new(8, "mapKeep", Label::Map, Kind::Message(&ENTRY)).emit_empty(),
        // Inner `json:"inner,omitempty"`: a struct, always written.
        F::new(9, "inner", Label::Singular, Kind::Message(&INNER)).always(),
        F::new(10, "innerPtr", Label::Singular, Kind::Message(&INNER)),
        // metav1.Time `json:"time,omitempty"`
        F::new(11, "time", Label::Singular, Kind::Message(&TIME)).always(),
        // metav1.Time `json:"zeroTime,omitempty,omitzero"`
        F::new(12, "zeroTime", Label::Singular, Kind::Message(&TIME))
            .always()
            .omit_zero(),
        F::new(13, "bytes", Label::Singular, Kind::Bytes),
        F::new(14, "bytesKeep", Label::Singular, Kind::Bytes).emit_empty(),
        F::new(15, "flag", Label::Singular, Kind::Bool).always(),
        F::new(16, "flagKeep", Label::Singular, Kind::Bool)
            .always()
            .emit_empty(),
        F::new(17, "text", Label::Singular, Kind::String).always(),
        F::new(18, "textKeep", Label::Singular, Kind::String)
            .always()
            .emit_empty(),
        // resource.Quantity `json:"q,omitempty"`: a struct, written as "0".
        F::new(19, "q", Label::Singular, Kind::Message(&QUANTITY)).always(),
    ],
);

/// JSON in, Go's JSON out (compact).
fn round(json: &str) -> String {
    let bytes = from_json_text(&OUTER, json).expect("encodes");
    let mut out = Vec::new();
    write_json(&OUTER, &bytes, WriteOptions::default(), &mut out).expect("decodes");
    String::from_utf8(out).expect("UTF-8")
}

/// What every field writes when it is empty.
const EMPTY: &str = r#"{"keepInt":0,"ptrKeep":null,"listKeep":null,"mapKeep":null,"inner":{},"time":null,"bytesKeep":null,"flagKeep":false,"textKeep":"","q":"0"}"#;

#[test]
fn empty_fields_follow_their_tags() {
    assert_eq!(round("{}"), EMPTY);
}

#[test]
fn omitempty_leaves_out_zero_values_even_when_set() {
    let json = r#"{"omitInt":0,"flag":false,"text":"","list":[],"map":{},"bytes":""}"#;
    assert_eq!(round(json), EMPTY);
}

#[test]
fn without_omitempty_zero_values_are_written() {
    let json = r#"{"keepInt":0,"flagKeep":false,"textKeep":""}"#;
    assert_eq!(round(json), EMPTY);
}

#[test]
fn set_pointers_are_written_even_when_zero() {
    let out = round(r#"{"ptrInt":0,"ptrKeep":"","innerPtr":{}}"#);
    assert!(out.contains(r#""ptrInt":0"#), "{out}");
    assert!(out.contains(r#""ptrKeep":"""#), "{out}");
    assert!(out.contains(r#""innerPtr":{}"#), "{out}");
}

#[test]
fn unset_pointers_are_left_out_or_null() {
    let out = round("{}");
    assert!(
        !out.contains("ptrInt") && !out.contains("innerPtr"),
        "{out}"
    );
    assert!(out.contains(r#""ptrKeep":null"#), "{out}");
}

#[test]
fn structs_are_written_even_with_omitempty() {
    assert!(round("{}").contains(r#""inner":{}"#));
    assert!(round("{}").contains(r#""q":"0""#));
}

#[test]
fn a_zero_time_is_null_unless_omitzero() {
    let out = round(r#"{"time":null,"zeroTime":null}"#);
    assert!(out.contains(r#""time":null"#), "{out}");
    assert!(!out.contains("zeroTime"), "{out}");
    let out = round(r#"{"zeroTime":"2024-05-01T10:00:00Z"}"#);
    assert!(
        out.contains(r#""zeroTime":"2024-05-01T10:00:00Z""#),
        "{out}"
    );
}

#[test]
fn empty_slices_and_maps_are_null_or_left_out() {
    let out = round(r#"{"list":[],"listKeep":[],"map":{},"mapKeep":{}}"#);
    // Protobuf cannot tell an empty list from none: Go reads back nil.
    assert!(
        out.contains(r#""listKeep":null"#) && out.contains(r#""mapKeep":null"#),
        "{out}"
    );
    assert!(
        !out.contains(r#""list""#) && !out.contains(r#""map""#),
        "{out}"
    );
    let out = round(r#"{"list":["a"],"mapKeep":{"b":"2","a":"1"}}"#);
    assert!(out.contains(r#""list":["a"]"#), "{out}");
    assert!(out.contains(r#""mapKeep":{"a":"1","b":"2"}"#), "{out}");
}

#[test]
fn empty_bytes_are_empty_strings_unless_omitempty() {
    let out = round(r#"{"bytes":"","bytesKeep":""}"#);
    assert!(out.contains(r#""bytesKeep":"""#), "{out}");
    assert!(!out.contains(r#""bytes""#), "{out}");
    assert!(round(r#"{"bytes":"AQ=="}"#).contains(r#""bytes":"AQ==""#));
}

#[test]
fn text_is_escaped_and_laid_out_as_go_does() {
    let bytes = from_json_text(&OUTER, r#"{"text":"<a&b>","list":["x","y"]}"#).expect("encodes");
    let mut out = Vec::new();
    let options = WriteOptions {
        style: Style::Pretty,
        resolver: None,
    };
    write_json(&OUTER, &bytes, options, &mut out).expect("decodes");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains("    \"list\": [\n        \"x\",\n        \"y\"\n    ],"),
        "{text}"
    );
    assert!(text.contains(r#""text": "\u003ca\u0026b\u003e""#), "{text}");
    assert!(text.contains("    \"mapKeep\": null,\n"), "{text}");
}

static DEEP: MessageSchema = MessageSchema::new(
    "t.Deep",
    JsonForm::Object,
    &[F::new(1, "next", Label::Singular, Kind::Message(&DEEP))],
);

/// Messages nested `levels` deep.
fn nested(levels: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..levels {
        let mut outer = alloc::vec![0x0a];
        kguest_wire::encode::put_varint(&mut outer, bytes.len() as u64);
        outer.extend_from_slice(&bytes);
        bytes = outer;
    }
    bytes
}

#[test]
fn malformed_bytes_get_the_validators_error_and_no_output() {
    let good = from_json_text(
        &OUTER,
        r#"{"omitInt":3,"keepInt":-2,"ptrInt":7,"ptrKeep":"p","list":["a","bc"],
            "listKeep":["x"],"map":{"k":"v","a":"b"},"mapKeep":{"m":"n"},"inner":{"n":4},
            "innerPtr":{"n":5},"time":"2024-05-01T10:00:00Z",
            "zeroTime":"2024-05-01T10:00:00Z","bytes":"AQI=","flag":true,"text":"t\u00e9",
            "q":"1500m"}"#,
    )
    .expect("encodes");
    let mut cases = Vec::new();
    for i in 0..good.len() {
        cases.push(good[..i].to_vec());
        for b in [
            0x00, 0x01, 0x07, 0x7f, 0x80, 0xc3, 0xff, 0x08, 0x0a, 0x12, 0x1a,
        ] {
            let mut bad = good.clone();
            bad[i] = b;
            cases.push(bad);
        }
    }
    let mut rejected = 0;
    for bytes in &cases {
        let mut out = b"[".to_vec();
        let got = write_json(&OUTER, bytes, WriteOptions::default(), &mut out);
        match schema::validate(&OUTER, bytes) {
            Err(err) => {
                rejected += 1;
                assert_eq!(got, Err(JsonError::Decode(err)), "{bytes:02x?}");
                assert_eq!(out, b"[", "{bytes:02x?}");
            }
            Ok(()) => {
                // What the writer gives without its checks.
                let mut want = b"[".to_vec();
                let options = WriteOptions::default();
                let (result, _) = write_checked("", "", &OUTER, bytes, options, &mut want, false);
                assert_eq!(got, result, "{bytes:02x?}");
                assert_eq!(out, want, "{bytes:02x?}");
            }
        }
    }
    assert!(
        rejected > good.len(),
        "{rejected} of {} rejected",
        cases.len()
    );
}

#[test]
fn nesting_deeper_than_validate_follows_is_its_error() {
    let bytes = nested(150);
    let want = schema::validate(&DEEP, &bytes).expect_err("too deep");
    assert_eq!(want.kind, kguest_wire::ErrorKind::TooDeep);
    let mut out = Vec::new();
    let got = write_json(&DEEP, &bytes, WriteOptions::default(), &mut out);
    assert_eq!(got, Err(JsonError::Decode(want)));
    assert!(out.is_empty());
    // As deep as `validate` allows is written.
    let bytes = nested(usize::try_from(schema::MAX_DEPTH).unwrap());
    write_json(&DEEP, &bytes, WriteOptions::default(), &mut out).expect("writes");
    assert!(
        out.ends_with(&[b'}'; 101]),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

#[test]
fn is_zero_follows_go() {
    assert!(is_zero(&INNER, &[]));
    assert!(is_zero(&INNER, &[0x08, 0x00]));
    assert!(!is_zero(&INNER, &[0x08, 0x01]));
    assert!(is_zero(&TIME, &[]));
    assert!(!is_zero(&TIME, &[0x08, 0x01]));
    assert!(is_zero(&QUANTITY, &[0x0a, 0x01, b'0']));
    assert!(!is_zero(&QUANTITY, &[0x0a, 0x01, b'1']));
}
