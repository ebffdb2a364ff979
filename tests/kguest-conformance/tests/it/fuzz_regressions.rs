//! Regression tests from fuzzing (`fuzz/`, `cargo xtask fuzz`).
//!
//! Every crash a fuzz target found is kept here as an inline byte string
//! asserting the correct behaviour, together with the boundary inputs the
//! fuzzers kept coming back to (overlong varints, field number limits, huge
//! lengths, invalid UTF-8, quantities at the edges of their range).
//!
//! The four bugs found (two in `quantity::scaled`, two in the JSON codec)
//! were fixed in dfc35d2; their tests failed before it.

use kguest_k8s::api::core::v1::Pod;
use kguest_k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kguest_k8s_io::json::schema_by_full_name;
use kguest_wire::quantity::{self, Quantity};
use kguest_wire::schema;
use kguest_wire::{ErrorKind, View};

use kguest_test_support::oracle::{first_difference, reference_decode, reference_tree};

use crate::differential::root_view_tree;

const POD: &str = "k8s.io.api.core.v1.Pod";

/// `validate()` and prost-reflect agree on `bytes` (a root type such as a
/// Pod); when both accept, the views read the same tree. Returns whether
/// they accept.
fn agree(full_name: &str, bytes: &[u8]) -> bool {
    let schema = schema_by_full_name(full_name).expect("schema");
    let ours = schema::validate(schema, bytes);
    let theirs = reference_decode(full_name, bytes);
    assert_eq!(
        ours.is_ok(),
        theirs.is_ok(),
        "{bytes:02x?}: validate() {ours:?}, prost-reflect {:?}",
        theirs.as_ref().err()
    );
    let Ok(reference) = theirs else {
        return false;
    };
    let view = root_view_tree(full_name, bytes).expect("a root type");
    let diff = first_difference(Some(schema), "", &view, &reference_tree(&reference));
    assert!(diff.is_none(), "{bytes:02x?}: {}", diff.unwrap_or_default());
    true
}

/// A Pod whose `metadata` (field 1) is `meta` (shorter than 128 bytes).
fn in_pod(meta: &[u8]) -> Vec<u8> {
    let mut pod = vec![0x0a, u8::try_from(meta.len()).expect("short")];
    pod.extend_from_slice(meta);
    pod
}

// ---------------------------------------------------------------------------
// Crashes found by the `quantity` target.

/// Found by `quantity` in its first second: `scaled` promises "whenever it
/// returns a value, that value equals `parse(s)?.scaled_value(scale)`", but
/// below nano it does not round the way `parse` does. `parse` rounds
/// `.9e-24` up to `1n` (as the API server does), so in units of 10^-30 the
/// value is 10^21, which does not fit an `i64`: `scaled_value(-30)` is
/// `None`. `scaled` computes the exact 900000 instead.
///
/// Expected: `scaled(b".9e-24", -30) == None`; was `Some(900000)` before
/// dfc35d2 (`scaled` now leaves scales below nano to `parse`).
#[test]
fn quantity_scaled_below_nano_agrees_with_parse() {
    let input: &[u8] = &[0x2e, 0x39, 0x65, 0x2d, 0x32, 0x34]; // ".9e-24"
    let q = quantity::parse(input).expect(".9e-24 parses");
    assert_eq!((q.mantissa(), q.exponent()), (1, -9), "rounded up to 1n");
    assert_eq!(q.scaled_value(-30), None);
    // From -9 up the two agree (rounding twice away from zero is rounding once).
    for scale in [-9, -6, -3, 0] {
        assert_eq!(
            quantity::scaled(input, scale),
            q.scaled_value(scale),
            "scale {scale}"
        );
    }
    assert_eq!(quantity::scaled(input, -30), q.scaled_value(-30));
}

/// Found by `quantity` after ~240k executions: `scaled` reads `_` as a
/// suffix meaning 10^0 (it is the "no suffix" placeholder in its table
/// `b"num_kMGTPE"`), so it accepts strings Kubernetes and `parse` reject.
///
/// Expected: `None` (parse fails with `Syntax`); was `Some(..)` before
/// dfc35d2: `scaled(b"10_", -9) == Some(10_000_000_000)`, `scaled(b"1_", 0) == Some(1)`.
#[test]
fn quantity_scaled_rejects_underscore_suffix() {
    let crash: &[u8] = &[0x31, 0x30, 0x5f]; // "10_"
    for (input, scale) in [(crash, -9), (&b"1_"[..], 0), (&b"-2.5_"[..], -3)] {
        assert!(
            quantity::parse(input).is_err(),
            "{input:?} is not a quantity"
        );
        assert_eq!(
            quantity::scaled(input, scale),
            None,
            "scaled({input:?}, {scale})"
        );
    }
}

/// Boundary quantities the fuzzer's corpus concentrates on: the binary cap,
/// digits past `i64`, sub-nano values, exponent limits. Each parses to the
/// value Kubernetes keeps, prints canonically, and the canonical form
/// re-parses to the same value; `scaled` (from nano up) agrees with `parse`.
#[test]
fn quantity_boundaries_round_trip() {
    let cases: &[(&str, &str)] = &[
        ("0", "0"),
        ("-0", "0"),
        ("+1", "1"),
        (".5", "500m"),
        ("5.", "5"),
        ("1000m", "1"),
        ("1e-10", "1e-9"),
        ("-1e-10", "-1e-9"),
        ("0.0000000001", "1n"),
        ("1.5Gi", "1536Mi"),
        ("8Ei", "9223372036854775807"), // 2^63, capped at 2^63-1
        ("7Ei", "7Ei"),
        ("9223372036854775807", "9223372036854775807"),
        ("9223372036854775808", "9223372036854775808"),
        ("1e3", "1e3"),
        ("1E-3", "1e-3"),
        ("1.5e+2", "150"),
    ];
    for &(input, canonical) in cases {
        let q = quantity::parse(input.as_bytes()).unwrap_or_else(|e| panic!("{input}: {e:?}"));
        let mut buf = [0u8; 64];
        assert_eq!(q.canonical(&mut buf), canonical, "canonical of {input}");
        let again = quantity::parse(canonical.as_bytes()).expect("canonical parses");
        assert_eq!(again, q, "{input} -> {canonical}");
        for scale in [-9, -6, -3, 0, 3, 6, 9] {
            if let Some(v) = quantity::scaled(input.as_bytes(), scale) {
                assert_eq!(Some(v), q.scaled_value(scale), "scaled({input}, {scale})");
            }
        }
    }
    // Binary values are capped at 2^63-1 (as the API server caps them).
    let capped = quantity::parse(b"123456789Ei").expect("parses");
    assert_eq!(
        capped,
        Quantity::from_i64(i64::MAX, quantity::Format::BinarySI)
    );
    assert_eq!(quantity::scaled(b"123456789Ei", 0), None, "left to parse");
    // Digit-less forms Kubernetes reads as zero; `scaled` leaves them to parse.
    for input in ["k", ".", "-"] {
        assert!(
            quantity::parse(input.as_bytes()).is_ok_and(|q| q.is_zero()),
            "{input}"
        );
        assert_eq!(quantity::scaled(input.as_bytes(), 0), None, "{input}");
    }
    // Exponents beyond ±(2^31-1) are not quantities.
    assert!(quantity::parse(b"1e2147483648").is_err());
    assert!(quantity::parse(b"").is_err());
}

/// Found by `quantity` (a harness assumption, not a bug): `"10312.5Ki"` is
/// 10560000, a binary value that is not a multiple of 1024, so it prints
/// with no suffix, `"10560000"`, still in binary format (as Kubernetes'
/// `CanonicalizeBytes` does). That string re-parses as decimal SI and prints
/// `"10560k"`. The value never changes; the form settles after two rounds.
#[test]
fn quantity_binary_canonical_settles_in_two_rounds() {
    let input: &[u8] = &[0x31, 0x30, 0x33, 0x31, 0x32, 0x2e, 0x35, 0x4b, 0x69]; // "10312.5Ki"
    let q = quantity::parse(input).expect("parses");
    assert_eq!(q.format(), quantity::Format::BinarySI);
    let (mut b1, mut b2, mut b3) = ([0u8; 64], [0u8; 64], [0u8; 64]);
    let first = q.canonical(&mut b1);
    assert_eq!(first, "10560000");
    let again = quantity::parse(first.as_bytes()).expect("parses");
    assert_eq!(again, q);
    assert_eq!(again.format(), quantity::Format::DecimalSI);
    let second = again.canonical(&mut b2);
    assert_eq!(second, "10560k");
    let third = quantity::parse(second.as_bytes()).expect("parses");
    assert_eq!((third, third.canonical(&mut b3)), (q, "10560k"));
    assert_eq!(quantity::scaled(input, 0), Some(10_560_000));
}

// ---------------------------------------------------------------------------
// Wire-format boundaries (differential target).

/// ObjectMeta.generation (field 7, int64) = 5 as a 10-byte overlong varint
/// is valid protobuf; 11 bytes, or a tenth byte above 1, is not.
#[test]
fn overlong_varints() {
    let padded: &[u8] = &[
        0x38, 0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
    ];
    assert!(agree(POD, &in_pod(padded)));
    assert_eq!(ObjectMeta::from_bytes(padded).generation(), Some(5));

    // Overlong key too: field 7 varint as `b8 00`.
    let padded_key: &[u8] = &[0xb8, 0x00, 0x05];
    assert!(agree(POD, &in_pod(padded_key)));
    assert_eq!(ObjectMeta::from_bytes(padded_key).generation(), Some(5));

    // The largest u64 (-1 as int64) in exactly ten bytes.
    let max: &[u8] = &[
        0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ];
    assert!(agree(POD, &in_pod(max)));
    assert_eq!(ObjectMeta::from_bytes(max).generation(), Some(-1));

    for bad in [
        // Eleven bytes.
        &[
            0x38, 0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
        ][..],
        // Tenth byte 2: bit 64.
        &[
            0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
        ][..],
    ] {
        assert!(!agree(POD, &in_pod(bad)), "{bad:02x?}");
        let err = ObjectMeta::from_bytes(bad).validate().expect_err("invalid");
        assert_eq!((err.kind, err.offset), (ErrorKind::VarintOverflow, 0));
        assert_eq!(ObjectMeta::from_bytes(bad).generation(), None);
    }
}

/// Field numbers 1 ..= 2^29-1 are valid; 0 and 2^29 are not.
#[test]
fn field_number_limits() {
    // Unknown field 2^29-1, varint 1: key (2^29-1) << 3 = 0xfffffff8.
    let max: &[u8] = &[0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01];
    assert!(agree(POD, max));
    for bad in [&[0x00, 0x01][..], &[0x80, 0x80, 0x80, 0x80, 0x10, 0x01][..]] {
        assert!(!agree(POD, bad), "{bad:02x?}");
        let err = Pod::from_bytes(bad).validate().expect_err("invalid");
        assert_eq!(err.kind, ErrorKind::InvalidFieldNumber, "{bad:02x?}");
        assert!(Pod::from_bytes(bad).metadata().is_none());
    }
}

/// Lengths past the end of the input, up to 2^63, are truncation, never a
/// panic or an allocation.
#[test]
fn huge_lengths_are_truncation() {
    for bad in [
        // metadata, length 2^35-1.
        &[0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00][..],
        // metadata, length 2^63.
        &[
            0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
        ][..],
        // metadata, length 1 with nothing after.
        &[0x0a, 0x01][..],
    ] {
        assert!(!agree(POD, bad), "{bad:02x?}");
        let pod = Pod::from_bytes(bad);
        let err = pod.validate().expect_err("truncated");
        assert_eq!(
            (err.kind, err.offset),
            (ErrorKind::Truncated, 0),
            "{bad:02x?}"
        );
        assert!(pod.metadata().is_none());
        assert!(kguest_k8s_io::json::to_json(Pod::SCHEMA, bad).is_err());
    }
}

/// A string field holding invalid UTF-8: rejected by both decoders, and the
/// accessor reads nothing.
#[test]
fn invalid_utf8_in_a_string() {
    // ObjectMeta { name: "\xff" } inside a Pod.
    let pod: &[u8] = &[0x0a, 0x03, 0x0a, 0x01, 0xff];
    assert!(!agree(POD, pod));
    let err = Pod::from_bytes(pod).validate().expect_err("invalid UTF-8");
    assert_eq!(
        (err.kind, err.offset, err.field),
        (ErrorKind::InvalidUtf8, 2, 1)
    );
    let meta = Pod::from_bytes(pod)
        .metadata()
        .expect("metadata is a message");
    assert_eq!(meta.name(), None);
}

// ---------------------------------------------------------------------------
// JSON encoding (json_encode target).

/// Go's zero `time.Time` (`0001-01-01T00:00:00Z`) marshals as an EMPTY
/// Timestamp message: apimachinery's `Time.MarshalToSizedBuffer` returns 0
/// bytes when `m.Time.IsZero()` (and `to_json` already reads an empty or
/// zero-seconds Timestamp back as `null`). So `from_json` must write the
/// same bytes for the zero time as for `null`, and a pointer field
/// (`deletionTimestamp`, field 9) holding the zero time as `4a 00`.
///
/// Expected: `4a 00` inside metadata; before dfc35d2 it was `4a 0d 08 80 92
/// b8 c3 98 fe ff ff ff 01 10 00` (seconds -62135596800, nanos 0). Found by
/// the json_encode target as "encode(decode(encode(x))) != encode(x)".
#[test]
fn json_zero_time_encodes_like_go() {
    use kguest_k8s_io::json::{from_json, to_json};
    use serde_json::json;

    let encode = |v: serde_json::Value| from_json(Pod::SCHEMA, &v).expect("encodes");
    // creationTimestamp (field 8) is a Go value field: always written.
    let zero = encode(json!({"metadata": {"creationTimestamp": "0001-01-01T00:00:00Z"}}));
    let null = encode(json!({"metadata": {"creationTimestamp": null}}));
    let meta = Pod::from_bytes(&null).metadata().expect("metadata");
    assert!(
        meta.creation_timestamp().is_some(),
        "written even when null"
    );
    // Both read back as the zero time, which JSON leaves out (the field's
    // Go tag has `omitzero` since Kubernetes 1.33)...
    for bytes in [&zero, &null] {
        let back = to_json(Pod::SCHEMA, bytes).expect("decodes");
        assert_eq!(back["metadata"].get("creationTimestamp"), None);
    }
    // ... deletionTimestamp (field 9, a Go pointer) as an empty message ...
    let deleted = encode(json!({"metadata": {"deletionTimestamp": "0001-01-01T00:00:00Z"}}));
    let body = Pod::from_bytes(&deleted).metadata().expect("metadata");
    let raw = kguest_wire::rt::last(body.as_bytes(), 9).and_then(|r| r.len_body());
    assert_eq!(raw, Some(&[][..]), "deletionTimestamp: Go writes `4a 00`");
    // ... and the same bytes as Go for the value field.
    assert_eq!(
        zero, null,
        "the zero time encodes like Go's (empty Timestamp)"
    );
}

/// Found by `json_encode` (the byte fixed point): a number inside embedded
/// raw JSON (`fieldsV1`, `RawExtension`) came back changed by `to_json`.
/// `from_json` stores the exact shortest text (`3.812349448779442e-292`),
/// but `to_json` re-parses the embedded bytes with serde_json's default
/// float parser, which is not correctly rounded, and returned a different
/// `f64` (`3.8123494487794423e-292`, one ulp away). Kubernetes keeps raw
/// JSON byte for byte. Fixed in dfc35d2 (serde_json's `float_roundtrip`).
///
/// Input: `{"metadata":{"managedFields":[{"fieldsV1":3.812349448779442e-292}]}}`.
/// Expected: `to_json` reads back `3.812349448779442e-292`; was
/// `3.8123494487794423e-292`.
#[test]
fn json_raw_json_floats_survive_decode() {
    use kguest_k8s_io::json::{from_json, to_json};

    let text = "3.812349448779442e-292";
    let exact: f64 = text.parse().expect("Rust's parser is correctly rounded");
    let input = serde_json::json!({"metadata": {"managedFields": [{"fieldsV1": exact}]}});
    let bytes = from_json(Pod::SCHEMA, &input).expect("encodes");
    // The stored raw JSON is the exact shortest text.
    let fields = Pod::from_bytes(&bytes)
        .metadata()
        .and_then(|m| m.managed_fields().into_iter().next())
        .and_then(|f| f.fields_v1())
        .and_then(|f| f.raw())
        .expect("fieldsV1 raw bytes");
    assert_eq!(fields, text.as_bytes());
    let back = to_json(Pod::SCHEMA, &bytes).expect("decodes");
    let number = &back["metadata"]["managedFields"][0]["fieldsV1"];
    assert_eq!(
        number.as_f64().map(f64::to_bits),
        Some(exact.to_bits()),
        "read back {number}, stored {text}"
    );
}

// ---------------------------------------------------------------------------
// views target: what "validate() accepts but to_json fails" means.

/// Well-formed protobuf whose value has no Kubernetes JSON form: `validate()`
/// (a wire-format check) accepts it, prost-reflect decodes it, and `to_json`
/// reports `Unrepresentable` rather than inventing JSON. The `views` fuzz
/// target allows exactly this error after a successful `validate()`.
#[test]
fn validate_accepts_values_without_a_json_form() {
    use kguest_k8s_io::json::{Error, to_json};

    let cases: [(&str, &[u8]); 2] = [
        // metadata.managedFields[0].fieldsV1.raw = "{" (embedded JSON that does not parse).
        (
            "fieldsV1",
            &[0x0a, 0x08, 0x8a, 0x01, 0x05, 0x3a, 0x03, 0x0a, 0x01, 0x7b],
        ),
        // metadata.creationTimestamp.seconds = 300000000000 (the year 11476:
        // past even what Go's parser can reach from text, year 10000).
        (
            "creationTimestamp",
            &[
                0x0a, 0x09, 0x42, 0x07, 0x08, 0x80, 0xf0, 0x92, 0xcb, 0xdd, 0x08,
            ],
        ),
    ];
    for (what, bytes) in cases {
        assert!(agree(POD, bytes), "{what}: valid protobuf");
        match to_json(Pod::SCHEMA, bytes) {
            Err(Error::Unrepresentable { path, .. }) => assert!(path.contains(what), "{path}"),
            other => panic!("{what}: expected Unrepresentable, got {other:?}"),
        }
    }
}

/// Found by `differential` after ~190 s (input `61 1a 02 0d 00`: selector
/// `0x61`, odd, picks Node): `status.capacity` (a map, field 1) sent with wire
/// type 5 and cut after the key. `validate()` reports the truncated record;
/// prost-reflect 0.16 accepts it, because it reads a map record of any wire
/// type as a length (`00`) and an (empty) entry, the prost-reflect bug
/// already pinned by `prost_reflect_accepts_map_fields_of_any_wire_type` in
/// `no_panic.rs`. kguest is right; the fuzz target now classifies any error
/// at a map key with the wrong wire type as this deviation, not only
/// `WireTypeMismatch`.
#[test]
fn map_record_with_wrong_wire_type_and_no_value() {
    use kguest_k8s::api::core::v1::Node;

    const NODE: &str = "k8s.io.api.core.v1.Node";
    let bytes: &[u8] = &[0x1a, 0x02, 0x0d, 0x00];
    let node = Node::from_bytes(bytes);
    let err = node.validate().expect_err("a fixed32 cut after its key");
    assert_eq!(
        (err.kind, err.offset, err.field),
        (ErrorKind::Truncated, 2, 1)
    );
    assert!(kguest_k8s_io::json::to_json(Node::SCHEMA, bytes).is_err());
    let status = node.status().expect("status is a message");
    assert!(status.capacity().is_empty(), "the views read no entry");

    let reference = reference_decode(NODE, bytes).expect("prost-reflect 0.16 accepts it");
    let status = reference.get_field_by_name("status").expect("status");
    let capacity = status
        .as_message()
        .and_then(|m| m.get_field_by_name("capacity"))
        .expect("capacity");
    assert_eq!(
        capacity.as_map().map(|m| m.len()),
        Some(1),
        "one empty entry"
    );
}
