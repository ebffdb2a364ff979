//! Version skew: guests built on these views, and the encoder, against
//! objects written by other Kubernetes releases.
//!
//! - Views read what older releases send: every `.pb` fixture of 1.33.0
//!   through 1.36.0 (the k8s.io/api module's `testdata/v1.*`), of 1.36.3
//!   (`proto-vendor/previous/testdata`, the previous pin) and of the pinned
//!   release (`testdata/`) decodes, and the Pod and Node fields scheduler
//!   plugins read equal what the same release's `.json` fixture says (the
//!   three encodings of a fixture are one object, upstream's rule).
//!   kube-scheduler-wasm-extension's host is built on 1.33 and sends 1.33
//!   protobuf; an API server of the pinned release sends its own.
//! - The encoder treats objects of those releases as the pinned release's
//!   API server does under each `fieldValidation`: `Strict` refuses an
//!   object with a field the release does not have, naming it (the first
//!   one `Warn` reports); `Warn` and `Ignore` both drop such fields and
//!   give the bytes the server stores for the object it was sent as
//!   protobuf (where unknown fields are skipped), and the pinned release's
//!   own objects pass `Strict` untouched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kguest_json::{FieldValidation, Style};
use kguest_k8s::api::core::v1::{Node, Pod};
use kguest_k8s::envelope;
use kguest_k8s_io::json::{schema_by_type_name, schema_for_api_version, to_json, write_object};
use kguest_k8s_io::load::Loader;
use kguest_test_support::vendor;
use serde_json::Value;

/// The older releases' fixtures in the k8s.io/api module of the pinned
/// release, oldest first.
const MODULE_RELEASES: &[&str] = &["v1.33.0", "v1.34.0", "v1.35.0", "v1.36.0"];

/// (label, fixture dir) of every release the skew tests read.
fn releases() -> Vec<(String, PathBuf)> {
    let testdata = vendor::k8s_api_dir().join("testdata");
    let mut out: Vec<(String, PathBuf)> = MODULE_RELEASES
        .iter()
        .map(|r| (r.to_string(), testdata.join(r)))
        .collect();
    out.push(("1.36.3".into(), vendor::previous_testdata_dir()));
    out.push(("pinned".into(), vendor::testdata_dir()));
    out
}

fn read(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap_or_else(|err| panic!("{}/{file}: {err}", dir.display()))
}

fn json_fixture(dir: &Path, file: &str) -> Value {
    serde_json::from_slice(&read(dir, file)).expect("fixture JSON")
}

fn raw_of(pb: &[u8]) -> Vec<u8> {
    envelope::unwrap(pb).expect("k8s envelope").raw.to_vec()
}

fn str_at<'a>(json: &'a Value, pointer: &str) -> Option<&'a str> {
    json.pointer(pointer).and_then(Value::as_str)
}

#[test]
fn views_read_pods_and_nodes_of_every_release() {
    let mut read_from = Vec::new();
    for (release, dir) in releases() {
        let raw = raw_of(&read(&dir, "core.v1.Pod.pb"));
        let json = json_fixture(&dir, "core.v1.Pod.json");
        let pod = Pod::from_bytes(&raw);
        let meta = pod.metadata().expect("metadata");
        let spec = pod.spec().expect("spec");
        let container = spec.containers().next().expect("a container");
        let status = pod.status().expect("status");
        let got = [
            ("name", meta.name()),
            ("namespace", meta.namespace()),
            ("nodeName", spec.node_name()),
            ("schedulerName", spec.scheduler_name()),
            ("container", container.name()),
            ("image", container.image()),
            (
                "toleration",
                spec.tolerations().next().and_then(|t| t.key()),
            ),
            ("phase", status.phase()),
        ];
        let want = [
            str_at(&json, "/metadata/name"),
            str_at(&json, "/metadata/namespace"),
            str_at(&json, "/spec/nodeName"),
            str_at(&json, "/spec/schedulerName"),
            str_at(&json, "/spec/containers/0/name"),
            str_at(&json, "/spec/containers/0/image"),
            str_at(&json, "/spec/tolerations/0/key"),
            str_at(&json, "/status/phase"),
        ];
        for ((what, got), want) in got.iter().zip(want) {
            assert!(want.is_some(), "{release}: the Pod fixture has no {what}");
            assert_eq!(*got, want, "{release}: Pod {what}");
        }
        let requests = container.resources().expect("resources").requests();
        let json_requests = json
            .pointer("/spec/containers/0/resources/requests")
            .and_then(Value::as_object)
            .expect("requests in the fixture");
        for (key, value) in json_requests {
            assert_eq!(
                requests.get(key.as_str()).and_then(|q| q.string()),
                value.as_str(),
                "{release}: request {key}"
            );
        }

        let raw = raw_of(&read(&dir, "core.v1.Node.pb"));
        let json = json_fixture(&dir, "core.v1.Node.json");
        let node = Node::from_bytes(&raw);
        let spec = node.spec().expect("spec");
        let status = node.status().expect("status");
        let info = status.node_info().expect("nodeInfo");
        let got = [
            ("name", node.metadata().and_then(|m| m.name())),
            ("taint", spec.taints().next().and_then(|t| t.key())),
            ("kubeletVersion", info.kubelet_version()),
            (
                "image",
                status.images().next().and_then(|i| i.names().next()),
            ),
        ];
        let want = [
            str_at(&json, "/metadata/name"),
            str_at(&json, "/spec/taints/0/key"),
            str_at(&json, "/status/nodeInfo/kubeletVersion"),
            str_at(&json, "/status/images/0/names/0"),
        ];
        for ((what, got), want) in got.iter().zip(want) {
            assert!(want.is_some(), "{release}: the Node fixture has no {what}");
            assert_eq!(*got, want, "{release}: Node {what}");
        }
        let allocatable = json
            .pointer("/status/allocatable")
            .and_then(Value::as_object)
            .expect("allocatable in the fixture");
        for (key, value) in allocatable {
            assert_eq!(
                status
                    .allocatable()
                    .get(key.as_str())
                    .and_then(|q| q.string()),
                value.as_str(),
                "{release}: allocatable {key}"
            );
        }
        read_from.push(release);
    }
    println!(
        "skew: Pod and Node views read the fixtures of {}",
        read_from.join(", ")
    );
}

/// Every `.pb` fixture of a kind the pinned release serves decodes whole
/// through the views (unknown fields of older releases skipped).
#[test]
fn views_decode_every_fixture_of_every_release() {
    let mut counts = Vec::new();
    for (release, dir) in releases() {
        let (mut decoded, mut not_served) = (0, Vec::new());
        for file in pb_files(&dir) {
            let bytes = read(&dir, &file);
            let env = envelope::unwrap(&bytes).expect("k8s envelope");
            // WatchEvent carries no kind of its own: it is read as the type
            // its file is named for.
            let by_name = schema_by_type_name(file.trim_end_matches(".pb"))
                .filter(|_| file.ends_with("WatchEvent.pb"));
            let Some(schema) = schema_for_api_version(env.api_version, env.kind).or(by_name) else {
                not_served.push(file);
                continue;
            };
            to_json(schema, env.raw).unwrap_or_else(|err| panic!("{release}/{file}: {err}"));
            decoded += 1;
        }
        assert!(decoded > 100, "{release}: only {decoded} fixtures");
        if release == "pinned" {
            assert_eq!(
                not_served,
                [] as [String; 0],
                "the pinned release serves all its fixtures"
            );
        }
        counts.push(format!(
            "{release} {decoded} (+{} not served)",
            not_served.len()
        ));
    }
    println!("skew: views decode {}", counts.join(", "));
}

fn pb_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".pb") && !f.contains(".after_roundtrip."))
        .collect();
    files.sort();
    files
}

/// One object of JSON text under `mode`: its bytes and warnings, or the error.
fn encode(name: &str, text: &str, mode: FieldValidation) -> Result<(Vec<u8>, Vec<String>), String> {
    let mut objects = Loader::new(name, text).field_validation(mode);
    let object = objects
        .next()
        .ok_or_else(|| format!("{name}: no object"))?
        .map_err(|err| err.to_string())?;
    Ok((object.raw, object.warnings))
}

#[test]
fn field_validation_on_objects_of_every_release() {
    let mut report = Vec::new();
    let mut differs = Vec::new();
    for (release, dir) in releases() {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for pb in pb_files(&dir) {
            let name = pb.trim_end_matches(".pb");
            let Ok(text) = std::fs::read_to_string(dir.join(format!("{name}.json"))) else {
                continue;
            };
            let bytes = read(&dir, &pb);
            let env = envelope::unwrap(&bytes).expect("k8s envelope");
            if schema_for_api_version(env.api_version, env.kind).is_none() {
                continue; // a kind the pinned release does not serve (compatibility.rs)
            }
            if serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("apiVersion").cloned())
                .is_none()
            {
                continue; // WatchEvent-style fixtures without a kind
            }
            // Go keeps embedded raw JSON (RawExtension) as the text it read;
            // the protobuf fixtures hold it compact, so the JSON is compacted
            // first (Go's json.Compact) to compare the two forms.
            let compact = compact(&text);
            let ignored = encode(name, &compact, FieldValidation::Ignore)
                .unwrap_or_else(|err| panic!("{release}/{name}: Ignore failed: {err}"));
            let warned = encode(name, &compact, FieldValidation::Warn)
                .unwrap_or_else(|err| panic!("{release}/{name}: Warn failed: {err}"));
            assert!(ignored.1.is_empty(), "{release}/{name}: Ignore warned");
            assert_eq!(
                ignored.0, warned.0,
                "{release}/{name}: Warn and Ignore differ"
            );
            // The object the server stores from the protobuf form: unknown
            // fields skipped by the views, written again from their JSON.
            // (as text: embedded raw JSON keeps its bytes)
            let mut text_pb = Vec::new();
            write_object(
                env.api_version,
                env.kind,
                schema_for_api_version(env.api_version, env.kind).expect("served"),
                env.raw,
                Style::Compact,
                &mut text_pb,
            )
            .unwrap_or_else(|err| panic!("{release}/{name}: views -> JSON: {err}"));
            let text_pb = String::from_utf8(text_pb).expect("UTF-8 JSON");
            let via_pb = encode(name, &text_pb, FieldValidation::Ignore)
                .unwrap_or_else(|err| panic!("{release}/{name}: views -> JSON -> pb: {err}"));
            if via_pb.0 == ignored.0 {
                *counts.entry("same as protobuf").or_default() += 1;
            } else {
                differs.push(format!("{release}/{name}"));
            }
            match encode(name, &compact, FieldValidation::Strict) {
                Ok((raw, _)) => {
                    assert!(
                        warned.1.is_empty(),
                        "{release}/{name}: Strict passed what Warn warned about: {:?}",
                        warned.1
                    );
                    assert_eq!(raw, ignored.0, "{release}/{name}: Strict bytes");
                    *counts.entry("strict ok").or_default() += 1;
                }
                Err(err) => {
                    let first = warned.1.first().unwrap_or_else(|| {
                        panic!("{release}/{name}: Strict failed, Warn silent: {err}")
                    });
                    let path = first
                        .strip_prefix("unknown field \"")
                        .and_then(|p| p.strip_suffix('"'))
                        .unwrap_or(first);
                    assert!(
                        err.contains(path) && !err.contains('\n'),
                        "{release}/{name}: Strict error `{err}` does not name `{path}`"
                    );
                    *counts.entry("strict refused").or_default() += 1;
                }
            }
        }
        if release == "pinned" {
            assert_eq!(
                counts.get("strict refused"),
                None,
                "the pinned release's own objects pass Strict"
            );
        }
        let line: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        report.push(format!("{release}: {}", line.join(", ")));
    }
    println!("skew: fieldValidation {}", report.join("; "));
    assert!(
        differs.is_empty(),
        "{} fixture(s): JSON under Ignore and the protobuf form give other objects: {}",
        differs.len(),
        differs.join(", ")
    );
}

/// Go's `json.Compact`: the text without whitespace outside strings.
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
