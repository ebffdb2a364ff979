//! kguest's JSON front-end and views judged by Kubernetes' own Go
//! marshallers (the Go judge, `tests/go-judge`), on objects of several kinds.
//!
//! Input: the first byte picks the kind (`KINDS`), whether both sides decode
//! strictly (`fieldValidation=Strict`, else as Go's decoder, dropping unknown
//! fields) and whether the rest is JSON text as is (the corpus holds the
//! upstream fixtures) or bytes driving the schema-guided generator
//! (`kguest_fuzz::generate`). For each object:
//! 1. Go and kguest agree on whether the text decodes at all;
//! 2. when both decode it, kguest's protobuf is byte for byte the message Go
//!    writes (Go's protobuf output is deterministic: fields in number order,
//!    map entries sorted by key);
//! 3. and kguest's views turn Go's message into the JSON text Go writes for
//!    it, byte for byte (compact, as the API server sends an object it
//!    stored as protobuf: Go is asked a second time, with its own protobuf,
//!    since the object it decoded from JSON can hold what protobuf cannot,
//!    such as an empty list that is not nil).

#![no_main]

use arbitrary::Unstructured;
use kguest_fuzz::generate::gen_message;
use kguest_fuzz::go_judge::{GoAnswer, ask};
use kguest_json::{Encoder, FieldValidation, Style};
use kguest_k8s_io::json::{encode_object_text, schema_for_api_version, write_object};
use kguest_test_support::diff::{first_mismatch, hex_prefix, text_around};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The kinds the generator makes, by `apiVersion` and `kind`.
const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "Node"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "Event"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("batch/v1", "Job"),
    ("networking.k8s.io/v1", "Ingress"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("storage.k8s.io/v1", "StorageClass"),
];

fn check(text: &str, strict: bool) {
    let validation = if strict {
        FieldValidation::Strict
    } else {
        FieldValidation::Ignore
    };
    let mut raw = Vec::new();
    let ours = encode_object_text(
        &mut Encoder::with_field_validation(validation),
        text,
        &mut raw,
    );
    let theirs = ask("json", text.as_bytes(), strict);
    let shown = || format!("strict: {strict}\ninput JSON: {text}");
    let (go_raw, go_json) = match (ours, theirs) {
        (_, GoAnswer::NoAnswer(_)) | (Err(_), GoAnswer::Refused(_)) => return,
        // A kind outside client-go's scheme: Go cannot answer.
        (_, GoAnswer::Refused(go)) if go.contains(" is registered for version ") => return,
        (Ok(_), GoAnswer::Refused(go)) => panic!(
            "kguest encodes what Go refuses ({go})\nkguest wrote {}\n{}",
            hex_prefix(&raw, 256),
            shown()
        ),
        // Documented: two objects for one message, which Go merges and
        // kguest refuses (`duplicate_members_follow_go` in json_text.rs).
        (Err(err), GoAnswer::Decoded { .. })
            if err.to_string().contains("appears twice: Go merges") =>
        {
            return;
        }
        (Err(err), GoAnswer::Decoded { .. }) => {
            panic!("kguest refuses what Go decodes: {err}\n{}", shown())
        }
        (Ok(_), GoAnswer::Decoded { raw, pb, .. }) => {
            let json = match ask("pb", &pb, false) {
                GoAnswer::Decoded { json, .. } => json,
                // Go cannot read or write its own protobuf of it.
                GoAnswer::NoAnswer(_) | GoAnswer::Refused(_) => return,
            };
            (raw, json)
        }
    };
    if raw != go_raw {
        let at = first_mismatch(&raw, &go_raw);
        panic!(
            "kguest's protobuf differs from Go's at byte {at}\nkguest {}\nGo     {}\nGo's JSON: {go_json}\n{}",
            hex_prefix(&raw[at.saturating_sub(16)..], 256),
            hex_prefix(&go_raw[at.saturating_sub(16)..], 256),
            shown()
        );
    }
    let object: Value = serde_json::from_str(text).expect("kguest read it as JSON");
    let (api_version, kind) = (
        object["apiVersion"].as_str().unwrap_or_default(),
        object["kind"].as_str().unwrap_or_default(),
    );
    let schema = schema_for_api_version(api_version, kind).expect("kguest found its schema");
    let mut json = Vec::new();
    if let Err(err) = write_object(
        api_version,
        kind,
        schema,
        &go_raw,
        Style::Compact,
        &mut json,
    ) {
        panic!(
            "the views cannot write Go's message as JSON: {err}\nGo's JSON: {go_json}\n{}",
            shown()
        );
    }
    let json = String::from_utf8(json).expect("write_object writes UTF-8");
    if json.trim_end() != go_json.trim_end() {
        let at = first_mismatch(json.as_bytes(), go_json.as_bytes());
        let near = |s: &str| text_around(s, at, 40, 40).to_string();
        panic!(
            "the views' JSON differs from Go's at byte {at}\nkguest …{}…\nGo     …{}…\n{}",
            near(&json),
            near(&go_json),
            shown()
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let strict = mode & 0x80 != 0;
    if mode & 0x40 != 0 {
        if let Ok(text) = std::str::from_utf8(rest) {
            check(text, strict);
        }
        return;
    }
    let (api_version, kind) = KINDS[usize::from(mode & 0x3f) % KINDS.len()];
    let schema = schema_for_api_version(api_version, kind).expect("a kind kguest knows");
    let Ok(Value::Object(members)) = gen_message(schema, &mut Unstructured::new(rest), 0) else {
        return;
    };
    let mut object = serde_json::Map::new();
    object.insert("apiVersion".into(), api_version.into());
    object.insert("kind".into(), kind.into());
    object.extend(members);
    check(&Value::Object(object).to_string(), strict);
});
