//! Views → JSON prints what the API server prints: realistic objects shaped
//! as `kubectl get -o json` shows them round-trip (JSON → protobuf → JSON) to
//! exactly the same members and values, and so do objects printed by Go
//! itself (`kubectl create --dry-run=client -o json`). The rules one by one
//! are tested in `kguest_json` on a schema built for each.

use std::path::PathBuf;

use kguest_k8s_io::json::{object_from_json_text, object_to_json, schema_for_api_version};
use serde_json::Value;

fn data(dir: &str) -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("tests/data")
    .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("data dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no JSON in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read");
            (p, text)
        })
        .collect()
}

/// JSON text → protobuf → JSON value.
fn round_trip(text: &str) -> Value {
    let object = object_from_json_text(text).expect("encodes");
    let schema = schema_for_api_version(&object.api_version, &object.kind).expect("schema");
    object_to_json(&object.api_version, &object.kind, schema, &object.raw).expect("decodes")
}

/// Every path where the two values differ.
fn differences(path: &str, ours: &Value, want: &Value, out: &mut Vec<String>) {
    match (ours, want) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let at = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differences(&at, x, y, out),
                    (Some(x), None) => out.push(format!("{at}: extra {x}")),
                    (None, Some(y)) => out.push(format!("{at}: missing {y}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ if ours == want => {}
        _ => out.push(format!("{path}: {ours} instead of {want}")),
    }
}

fn check_exact(dir: &str, adjust: impl Fn(&mut Value)) -> usize {
    let mut failures = Vec::new();
    let files = data(dir);
    for (path, text) in &files {
        let mut want: Value = serde_json::from_str(text).expect("JSON");
        adjust(&mut want);
        let mut diffs = Vec::new();
        differences("", &round_trip(text), &want, &mut diffs);
        if !diffs.is_empty() {
            failures.push(format!("{}:\n  {}", path.display(), diffs.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files.len()
}

#[test]
fn api_server_shaped_objects_round_trip_exactly() {
    let n = check_exact("api-server", |_| {});
    println!("api-server objects: {n}/{n} round-trip exactly");
}

/// `"creationTimestamp": null` is gone since Kubernetes 1.33 (`omitzero`).
fn drop_null_creation_timestamps(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("creationTimestamp") == Some(&Value::Null) {
                map.remove("creationTimestamp");
            }
            map.values_mut().for_each(drop_null_creation_timestamps);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_creation_timestamps),
        _ => {}
    }
}

#[test]
fn objects_printed_by_go_round_trip_exactly() {
    let n = check_exact("kubectl", drop_null_creation_timestamps);
    println!("kubectl-printed objects: {n}/{n} round-trip exactly");
}

/// The realistic objects in `tests/data` are written by hand, with zero
/// values Go would leave out; decoding them gives Go's form, which is then
/// a fixed point.
#[test]
fn decoded_json_is_a_fixed_point() {
    use kguest_k8s_io::load::Loader;
    let dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("../data");
    for name in ["pod.yaml", "node.yaml", "nodes.yaml"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("read");
        for object in Loader::new(name, &text) {
            let object = object.expect("loads");
            let schema = schema_for_api_version(&object.api_version, &object.kind).expect("schema");
            let once = object_to_json(&object.api_version, &object.kind, schema, &object.raw)
                .expect("decodes");
            let again = round_trip(&once.to_string());
            assert_eq!(again, once, "{}", object.origin);
            assert_eq!(
                object_from_json_text(&once.to_string())
                    .expect("encodes")
                    .raw,
                object.raw,
                "{}",
                object.origin
            );
        }
    }
}

/// A few of the rules on real types, as `kubectl get -o json` shows them.
#[test]
fn kubernetes_fields_follow_their_go_tags() {
    let out = round_trip(
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
            "spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":0}],
              "env":[{"name":"X","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}}]}],
              "priority":0},
            "status":{"containerStatuses":[{"name":"c"}],"conditions":[{"type":"Ready","status":"True"}]}}"#,
    );
    let container = &out["spec"]["containers"][0];
    // int32 `json:"hostPort,omitempty"` at zero: left out; containerPort has no omitempty.
    assert_eq!(
        container["ports"][0],
        serde_json::json!({"containerPort": 80})
    );
    // A struct with omitempty is still written: `resources: {}`; a Quantity struct as "0".
    assert_eq!(container["resources"], serde_json::json!({}));
    assert_eq!(
        container["env"][0]["valueFrom"]["resourceFieldRef"]["divisor"],
        "0"
    );
    // A pointer set to zero is written.
    assert_eq!(out["spec"]["priority"], 0);
    // ContainerStatus: name, ready, restartCount, image, imageID have no omitempty.
    assert_eq!(
        out["status"]["containerStatuses"][0],
        serde_json::json!({"name": "c", "ready": false, "restartCount": 0, "image": "",
                           "imageID": "", "state": {}, "lastState": {}})
    );
    // A zero metav1.Time in a struct prints null.
    assert_eq!(out["status"]["conditions"][0]["lastProbeTime"], Value::Null);
    assert_eq!(
        out["status"]["conditions"][0]["lastTransitionTime"],
        Value::Null
    );
    // metadata.creationTimestamp has `omitzero`: no zero time is printed.
    assert!(out["metadata"].get("creationTimestamp").is_none());

    // []Container `json:"containers"` (no omitempty): an empty list is null.
    let out = round_trip(r#"{"apiVersion":"v1","kind":"Pod","spec":{}}"#);
    assert_eq!(out["spec"]["containers"], Value::Null);
    assert!(out["spec"].get("volumes").is_none());

    // *string `json:"apiGroup"` (no omitempty): unset prints null.
    let out = round_trip(
        r#"{"apiVersion":"v1","kind":"PersistentVolumeClaim","spec":{"dataSource":{"kind":"VolumeSnapshot","name":"s"}}}"#,
    );
    assert_eq!(out["spec"]["dataSource"]["apiGroup"], Value::Null);

    // An IntOrString struct prints 0; a Service's status struct prints {"loadBalancer": {}}.
    let out = round_trip(r#"{"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":80}]}}"#);
    assert_eq!(
        out["spec"]["ports"][0],
        serde_json::json!({"port": 80, "targetPort": 0})
    );
    assert_eq!(out["status"], serde_json::json!({"loadBalancer": {}}));
}
