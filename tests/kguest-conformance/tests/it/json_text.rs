//! JSON and YAML text encode straight to the bytes Go writes (no
//! `serde_json::Value` on the way), and views → JSON text prints exactly
//! what Go's `encoding/json` printed into the upstream fixtures.

use std::path::PathBuf;

use kguest_json::{Encoder, FieldValidation, JsonError, from_json_text};
use kguest_k8s::envelope;
use kguest_k8s_io::json::{
    object_from_json, object_from_json_text, object_to_json, schema_for_api_version,
};
use kguest_k8s_io::load::Loader;
use kguest_test_support::diff::byte_difference;
use kguest_test_support::fixtures;
use serde::Deserialize;
use serde_json::Value;

/// JSON text without the whitespace between tokens, as the API server
/// receives and writes it. Go keeps embedded JSON (`RawExtension`,
/// `FieldsV1`) as written, so the indented fixture file would give indented
/// embedded bytes; the fixture's `.pb`, written from the object, holds them
/// compact.
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

#[test]
fn every_fixture_json_text_encodes_to_its_pb() {
    fixtures::check_every(
        "JSON text -> protobuf",
        "byte-identical to upstream .pb (raw and enveloped)",
        |fixture| {
            let text = compact(&fixtures::text(&fixture.name, "json"));
            let expected = envelope::unwrap(&fixture.pb).expect("fixture envelope");
            let (raw, enveloped) = if fixture.json.get("apiVersion").is_some() {
                let object = object_from_json_text(&text).map_err(|e| e.to_string())?;
                let enveloped = object.enveloped();
                (object.raw, enveloped)
            } else {
                let raw = from_json_text(fixture.schema(), &text).map_err(|e| e.to_string())?;
                let enveloped = envelope::wrap(expected.api_version, expected.kind, &raw);
                (raw, enveloped)
            };
            if raw != expected.raw {
                return Err(format!("raw {}", byte_difference(&raw, expected.raw, "Go")));
            }
            if enveloped != fixture.pb {
                return Err("envelope differs".into());
            }
            Ok(())
        },
    );
}

#[test]
fn every_fixture_yaml_encodes_to_its_pb() {
    fixtures::check_every(
        "YAML text -> protobuf",
        "byte-identical to upstream .pb",
        |fixture| {
            let text = fixtures::text(&fixture.name, "yaml");
            let expected = envelope::unwrap(&fixture.pb).expect("fixture envelope");
            let mut loader = Loader::new(&fixture.name, &text);
            if fixture.json.get("apiVersion").is_none() {
                loader = loader.with_schema(fixture.schema());
            }
            let objects = loader.load_all().map_err(|e| e.to_string())?;
            let [object] = objects.as_slice() else {
                return Err(format!("{} objects", objects.len()));
            };
            if object.raw != expected.raw {
                return Err(byte_difference(&object.raw, expected.raw, "Go"));
            }
            Ok(())
        },
    );
}

#[test]
fn every_fixture_decodes_to_exactly_its_json() {
    fixtures::check_every(
        "views -> JSON (exact)",
        "equal to upstream .json, member for member",
        |fixture| {
            let env = envelope::unwrap(&fixture.pb).map_err(|e| e.as_str().to_string())?;
            let ours = object_to_json(env.api_version, env.kind, fixture.schema(), env.raw)
                .map_err(|e| e.to_string())?;
            if ours != fixture.json {
                return Err(format!(
                    "differs:\nours {}\ngo   {}",
                    serde_json::to_string(&ours).unwrap_or_default(),
                    serde_json::to_string(&fixture.json).unwrap_or_default()
                ));
            }
            Ok(())
        },
    );
}

/// Every object of the realistic YAML files encodes the same through the
/// streaming YAML path as through `serde_norway` values.
#[test]
fn yaml_loader_agrees_with_serde_values() {
    let dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("../data");
    let mut checked = 0;
    for name in ["pod.yaml", "node.yaml", "nodes.yaml", "wasm-pod.yaml"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("read");
        let ours = Loader::new(name, &text).load_all().expect("loads");
        let values: Vec<Value> = serde_norway::Deserializer::from_str(&text)
            .map(|doc| Value::deserialize(doc).expect("YAML"))
            .filter(|v| !v.is_null())
            .flat_map(|v| {
                if v["kind"] == "List" {
                    v["items"].as_array().cloned().unwrap_or_default()
                } else {
                    vec![v]
                }
            })
            .collect();
        assert_eq!(ours.len(), values.len(), "{name}");
        for (object, value) in ours.iter().zip(&values) {
            let reference = object_from_json(value).expect("serde path");
            assert_eq!(object.raw, reference.raw, "{name}: {}", object.origin);
            assert_eq!(
                (&object.api_version, &object.kind),
                (&reference.api_version, &reference.kind)
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}

/// JSON members may come in any order: the bytes are Go's field order.
#[test]
fn member_order_does_not_matter() {
    use kguest_wire::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};
    /// The field a member names: one of `schema`'s, or of a message inlined
    /// into it.
    fn field_of(schema: &MessageSchema, name: &str) -> Option<&'static FieldSchema> {
        schema.fields.iter().find_map(|f| match f.kind {
            Kind::Message(inner) if f.inline => field_of(inner, name),
            _ if f.json_name() == name => Some(f),
            _ => None,
        })
    }
    fn message_of(field: &FieldSchema) -> Option<&'static MessageSchema> {
        match field.kind {
            Kind::Message(m) => Some(m),
            _ => None,
        }
    }
    /// The value with the members of every message reversed; embedded JSON
    /// is kept in its order (Go stores it as written, so its order is data).
    fn reversed(value: &Value, schema: Option<&MessageSchema>) -> String {
        let Some(schema) = schema.filter(|s| s.json == JsonForm::Object) else {
            return value.to_string();
        };
        let Value::Object(map) = value else {
            return value.to_string();
        };
        let members: Vec<String> = map
            .iter()
            .rev()
            .map(|(k, v)| {
                let field = field_of(schema, k);
                let inner = field.and_then(message_of);
                let text = match (field.map(|f| f.label), v) {
                    (Some(Label::Repeated), Value::Array(items)) => {
                        let items: Vec<String> = items.iter().map(|i| reversed(i, inner)).collect();
                        format!("[{}]", items.join(","))
                    }
                    (Some(Label::Map), Value::Object(entries)) => {
                        let value_schema = inner.and_then(|e| e.fields.get(1)).and_then(message_of);
                        let entries: Vec<String> = entries
                            .iter()
                            .rev()
                            .map(|(k, v)| {
                                format!(
                                    "{}:{}",
                                    Value::String(k.clone()),
                                    reversed(v, value_schema)
                                )
                            })
                            .collect();
                        format!("{{{}}}", entries.join(","))
                    }
                    _ => reversed(v, inner),
                };
                format!("{}:{text}", Value::String(k.clone()))
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }
    fixtures::check_every(
        "reversed members -> protobuf",
        "byte-identical to upstream .pb",
        |fixture| {
            let text = reversed(&fixture.json, Some(fixture.schema()));
            let expected = envelope::unwrap(&fixture.pb).expect("fixture envelope");
            let raw = if fixture.json.get("apiVersion").is_some() {
                object_from_json_text(&text).map_err(|e| e.to_string())?.raw
            } else {
                from_json_text(fixture.schema(), &text).map_err(|e| e.to_string())?
            };
            if raw != expected.raw {
                return Err(byte_difference(&raw, expected.raw, "Go"));
            }
            Ok(())
        },
    );
}

const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"x"}]}}"#;

#[test]
fn escaped_text_decodes_before_encoding() {
    let plain = object_from_json_text(POD).expect("encodes").raw;
    let escaped = object_from_json_text(
        r#"{"apiVersion":"v1","kind":"Pod","metad\u0061ta":{"name":"\u0061"},"spec":{"containers":[{"name":"c","image":"x"}]}}"#,
    )
    .expect("encodes")
    .raw;
    assert_eq!(plain, escaped);
}

/// The errors of the text path name the same field paths as the value path.
#[test]
fn errors_name_the_field_path() {
    let cases = [
        (
            r#"{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":7}]}}"#,
            "spec.containers[0].name: expected a string, found a number",
        ),
        (
            r#"{"apiVersion":"v1","kind":"Pod","spec":{"bogus":1}}"#,
            "spec.bogus: unknown field",
        ),
        (
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":1}}}"#,
            r#"metadata.labels["a"]: expected a string, found a number"#,
        ),
        (
            r#"{"apiVersion":"v1","kind":"Pod","spec":{"priority":3000000000}}"#,
            "spec.priority: 3000000000 is not an integer in -2147483648..=2147483647",
        ),
        (
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"yesterday"}}"#,
            "metadata.creationTimestamp: `yesterday` is not an RFC 3339 time",
        ),
    ];
    for (text, want) in cases {
        let from_text = object_from_json_text(text).expect_err(text).to_string();
        let value: Value = serde_json::from_str(text).expect("JSON");
        let from_value = object_from_json(&value).expect_err(text).to_string();
        assert_eq!(from_text, want, "{text}");
        assert_eq!(from_value, want, "{text}");
    }
}

#[test]
fn syntax_errors_name_line_and_column() {
    let err =
        object_from_json_text("{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\",\n \"spec\": {,}}")
            .expect_err("bad JSON");
    assert_eq!(
        err,
        JsonError::Syntax {
            line: 3,
            column: 11,
            reason: "expected a member name in double quotes".into()
        }
    );
    let err = object_from_json_text(&format!("{POD} {{}}")).expect_err("trailing");
    assert!(matches!(err, JsonError::Syntax { .. }), "{err}");
}

#[test]
fn type_meta_is_found_wherever_it_is() {
    let last = object_from_json_text(
        r#"{"metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"x"}]},"kind":"Pod","apiVersion":"v1"}"#,
    )
    .expect("encodes");
    assert_eq!(
        (last.api_version.as_str(), last.kind.as_str()),
        ("v1", "Pod")
    );
    assert_eq!(last.raw, object_from_json_text(POD).expect("encodes").raw);
    for (text, want) in [
        (r#"{"kind":"Pod"}"#, "missing `apiVersion`"),
        (
            r#"{"apiVersion":"v1","kind":""}"#,
            "`kind` must be a non-empty string",
        ),
        (
            r#"{"apiVersion":"v1","kind":7}"#,
            "`kind` must be a non-empty string",
        ),
        (
            r#"{"apiVersion":"v9","kind":"Pod"}"#,
            "unknown apiVersion `v9` / kind `Pod`",
        ),
    ] {
        let err = object_from_json_text(text).expect_err(text).to_string();
        assert!(err.contains(want), "{text}: {err}");
    }
}

/// A StatefulSet's volume claim templates often carry `apiVersion` and
/// `kind` (Go's types embed `TypeMeta`); protobuf does not keep them.
#[test]
fn nested_objects_may_carry_type_meta() {
    let with = object_from_json_text(
        r#"{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"volumeClaimTemplates":[
            {"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"}}]}}"#,
    )
    .expect("encodes");
    let without = object_from_json_text(
        r#"{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"volumeClaimTemplates":[
            {"metadata":{"name":"data"}}]}}"#,
    )
    .expect("encodes");
    assert_eq!(with.raw, without.raw);
}

#[test]
fn lists_and_streams_load_with_origins() {
    let list = r#"{"apiVersion":"v1","kind":"List","metadata":{},"items":[
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}},
        {"kind":"List","apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b"}}]},
        {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"c"}}]}"#;
    let objects = Loader::new("list.json", list).load_all().expect("loads");
    let got: Vec<(&str, &str)> = objects
        .iter()
        .map(|o| (o.origin.as_str(), o.kind.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("list.json, item 1", "ConfigMap"),
            ("list.json, item 2, item 1", "Secret"),
            ("list.json, item 3", "Namespace"),
        ]
    );
    // kubectl's YAML puts `items` before `kind: List`.
    let yaml = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\nkind: List\n---\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: c}\n";
    let objects = Loader::new("s.yaml", yaml).load_all().expect("loads");
    let got: Vec<(&str, &str)> = objects
        .iter()
        .map(|o| (o.origin.as_str(), o.kind.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("s.yaml, document 1, item 1", "ConfigMap"),
            ("s.yaml, document 3", "Namespace")
        ]
    );
    let err = Loader::new("s.yaml", "apiVersion: v1\nkind: Pod\n---\nkind: Pod\n")
        .load_all()
        .expect_err("missing apiVersion");
    assert_eq!(
        err.to_string(),
        "s.yaml, document 2: .: missing `apiVersion`"
    );
    let err = Loader::new("l.json", r#"{"apiVersion":"v1","kind":"List"}"#)
        .load_all()
        .expect_err("no items");
    assert_eq!(err.to_string(), "l.json: .: a List without `items`");
}

/// A stream of many YAML documents is read from a reader one document at a
/// time, and every object comes out in order.
#[test]
fn a_long_yaml_stream_loads_document_by_document() {
    let n = 10_000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  index: \"{i}\"\n"
        ));
    }
    let reader: Box<dyn std::io::BufRead> = Box::new(std::io::Cursor::new(text.into_bytes()));
    let mut count = 0;
    for (i, object) in Loader::from_reader("stream.yaml", reader).enumerate() {
        let object = object.expect("loads");
        assert_eq!(object.origin, format!("stream.yaml, document {}", i + 1));
        count += 1;
    }
    assert_eq!(count, n);
}

/// One encoder encodes object after object; each result is the same as a
/// fresh encoder's.
#[test]
fn an_encoder_is_reusable() {
    let texts = [
        POD,
        r#"{"apiVersion":"v1","kind":"ConfigMap","data":{"b":"2","a":"1"}}"#,
        POD,
    ];
    let mut encoder = Encoder::new();
    for text in texts {
        let mut out = Vec::new();
        kguest_k8s_io::json::encode_object_text(&mut encoder, text, &mut out).expect("encodes");
        assert_eq!(out, object_from_json_text(text).expect("encodes").raw);
    }
}

/// Go hands embedded JSON to `RawExtension.UnmarshalJSON` as written and
/// stores those bytes (the Go judge's smallest case): member order, number
/// spelling, escapes and inner whitespace are kept.
#[test]
fn embedded_json_text_is_kept_as_written() {
    let data = r#"{"kind":"A", "apiVersion":"b","x":1.50,"s":"\u003e"}"#;
    let text = format!(r#"{{"apiVersion":"apps/v1","kind":"ControllerRevision","data":{data}}}"#);
    let raw = object_from_json_text(&text).expect("encodes").raw;
    let needle = data.as_bytes();
    assert!(
        raw.windows(needle.len()).any(|w| w == needle),
        "the embedded value is not stored as written: {:?}",
        String::from_utf8_lossy(&raw)
    );
    // A serde_json::Value has no text: its embedded JSON is written as Go's
    // json.Marshal writes a decoded value (sorted members, Go's escapes).
    let value: Value = serde_json::from_str(&text).unwrap();
    let raw = object_from_json(&value).expect("encodes").raw;
    let canonical = br#"{"apiVersion":"b","kind":"A","s":"\u003e","x":1.5}"#;
    assert!(
        raw.windows(canonical.len()).any(|w| w == canonical),
        "{:?}",
        String::from_utf8_lossy(&raw)
    );
}

/// Quantities are read from the JSON text as Go's `Quantity.UnmarshalJSON`
/// reads them: the text between the quotes, spaces around it trimmed, never
/// unescaped (the Go fuzz oracle's Pod with the request `"1 "`).
#[test]
fn quantities_are_read_as_go_reads_them() {
    let pod = |q: &str| {
        format!(r#"{{"apiVersion":"v1","kind":"Pod","spec":{{"overhead":{{"cpu":"{q}"}}}}}}"#)
    };
    let read_back = |q: &str| {
        let encoded = object_from_json_text(&pod(q)).map_err(|err| err.to_string())?;
        let schema = schema_for_api_version("v1", "Pod").expect("the Pod schema");
        let json = object_to_json(&encoded.api_version, &encoded.kind, schema, &encoded.raw)
            .map_err(|err| err.to_string())?;
        Ok::<_, String>(
            json["spec"]["overhead"]["cpu"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        )
    };
    assert_eq!(read_back("1 "), Ok("1".to_string()));
    assert_eq!(read_back(" 500m\u{a0}"), Ok("500m".to_string()));
    let err = read_back("\\u0031").expect_err("an escaped quantity");
    assert!(err.contains("is not a quantity"), "{err}");
    let err = read_back("1 k").expect_err("a space inside");
    assert!(err.contains("is not a quantity"), "{err}");
}

/// A member given twice, as Go's decoder handles it (each expectation is
/// what the Go judge answered for the same text): strict decoding refuses
/// it; otherwise the last member wins, maps merge their entries (after the
/// last `null`), and two objects for one message, which Go merges, are
/// refused with a clear error rather than encoded differently.
#[test]
fn duplicate_members_follow_go() {
    let strict = |text: &str| {
        object_from_json_text(text)
            .map(|_| ())
            .map_err(|err| err.to_string())
    };
    assert_eq!(
        strict(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}"#),
        Err(r#"metadata: duplicate field "name""#.to_string())
    );
    assert_eq!(
        strict(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"1","a":"2"}}}"#),
        Err(r#"metadata: duplicate field "labels.a""#.to_string())
    );
    let lenient = |text: &str| {
        let mut raw = Vec::new();
        let mut encoder = Encoder::with_field_validation(FieldValidation::Ignore);
        kguest_k8s_io::json::encode_object_text(&mut encoder, text, &mut raw)
            .map_err(|err| err.to_string())?;
        let schema = schema_for_api_version("v1", "Pod").expect("the Pod schema");
        let json = object_to_json("v1", "Pod", schema, &raw).map_err(|err| err.to_string())?;
        Ok::<_, String>(json["metadata"].to_string())
    };
    assert_eq!(
        lenient(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}"#),
        Ok(r#"{"name":"b"}"#.to_string())
    );
    assert_eq!(
        lenient(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"1","b":"3"},"labels":{"a":"2"}}}"#
        ),
        Ok(r#"{"labels":{"a":"2","b":"3"}}"#.to_string())
    );
    assert_eq!(
        lenient(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"1","b":"3"},"labels":null,"labels":{"a":"2"}}}"#
        ),
        Ok(r#"{"labels":{"a":"2"}}"#.to_string())
    );
    let refused = lenient(
        r#"{"apiVersion":"v1","kind":"Pod","spec":{"securityContext":{"runAsUser":1},"securityContext":{"runAsGroup":2}}}"#,
    )
    .expect_err("two objects for one message");
    assert!(
        refused.starts_with("spec: `securityContext` appears twice: Go merges"),
        "{refused}"
    );
    let refused =
        lenient(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"metadata":null}"#)
            .expect_err("null after an object for a value field");
    assert!(refused.contains("`metadata` appears twice"), "{refused}");
}

/// A `null` value in a map of bytes is Go's nil `[]byte`, which Go's
/// protobuf writes as an entry with its key alone (the Go fuzz oracle's
/// ConfigMap); in a map of strings it is `""`, written.
#[test]
fn a_null_bytes_map_value_is_nil() {
    let raw = |text: &str| object_from_json_text(text).expect(text).raw;
    let nil = raw(r#"{"apiVersion":"v1","kind":"ConfigMap","binaryData":{"k":null}}"#);
    assert!(nil.ends_with(&[0x1a, 0x03, 0x0a, 0x01, b'k']), "{nil:02x?}");
    let empty = raw(r#"{"apiVersion":"v1","kind":"ConfigMap","binaryData":{"k":""}}"#);
    assert!(
        empty.ends_with(&[0x1a, 0x05, 0x0a, 0x01, b'k', 0x12, 0x00]),
        "{empty:02x?}"
    );
    let string = raw(r#"{"apiVersion":"v1","kind":"ConfigMap","data":{"k":null}}"#);
    assert!(
        string.ends_with(&[0x12, 0x05, 0x0a, 0x01, b'k', 0x12, 0x00]),
        "{string:02x?}"
    );
}

/// The API server finds `apiVersion` and `kind` with Go's `encoding/json`,
/// which ignores ASCII case in member names, then decodes the object
/// case-sensitively (the Go fuzz oracle's Lease with `apiVersiOn`): the
/// type is found, and the member itself is unknown to the object.
#[test]
fn type_meta_is_found_without_regard_to_case() {
    let text =
        r#"{"kind":"Lease","apiVersiOn":"coordination.k8s.io/v1","spec":{"holderIdentity":"a"}}"#;
    let err = object_from_json_text(text).expect_err("strict: apiVersiOn is unknown");
    assert_eq!(err.to_string(), "apiVersiOn: unknown field");
    let mut raw = Vec::new();
    let mut encoder = Encoder::with_field_validation(FieldValidation::Ignore);
    let (api_version, kind) =
        kguest_k8s_io::json::encode_object_text(&mut encoder, text, &mut raw).expect("encodes");
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("coordination.k8s.io/v1", "Lease")
    );
}

/// Go's `encoding/json` reads a `[]byte` from an array of numbers as well
/// as from base64 (the Go fuzz oracle's ConfigMap); each expectation is the
/// Go judge's answer for the same text.
#[test]
fn bytes_read_from_an_array_of_numbers() {
    let read = |value: &str| {
        let text =
            format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","binaryData":{{"k":{value}}}}}"#);
        let encoded = object_from_json_text(&text).map_err(|err| err.to_string())?;
        let schema = schema_for_api_version("v1", "ConfigMap").expect("the ConfigMap schema");
        let json = object_to_json("v1", "ConfigMap", schema, &encoded.raw)
            .map_err(|err| err.to_string())?;
        Ok::<_, String>(json["binaryData"]["k"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(read("[null,1,255]"), Ok("AAH/".to_string()));
    assert_eq!(read("[]"), Ok(String::new()));
    for bad in ["[256]", r#"["a"]"#, "[1.5]"] {
        assert!(read(bad).is_err(), "{bad}");
    }
}
