//! Every fixture that k8s-openapi has a type for: its `.json`, read into the
//! k8s-openapi value, encodes through the generated `Encode` impls to the
//! fixture's `.pb` bytes.
//!
//! Two fixtures cannot go through k8s-openapi, for k8s-openapi's own reasons;
//! the test pins exactly how:
//! - `WatchEvent`: k8s-openapi models it as a generic enum over a typed
//!   object with a closed set of event types, not as the protobuf message
//!   (`type` + `RawExtension`), so there is no struct to encode from.
//! - `PodDisruptionBudget`: the fixture's `status.disruptedPods` holds a
//!   `null` time, which k8s-openapi's `Time` rejects when reading the JSON.
//!
//! (StatefulSet, whose JSON does not round-trip through k8s-openapi because
//! `volumeClaimTemplates` gain apiVersion/kind, encodes exactly: protobuf
//! carries no TypeMeta for embedded objects.)

use kguest_k8s::envelope;
use kguest_k8s_encode::encode_json_as_openapi;

use kguest_test_support::fixtures;

#[test]
fn k8s_openapi_values_encode_like_go() {
    let mut typed = 0;
    let mut identical = 0;
    let mut failures = Vec::new();
    for fixture in fixtures::all() {
        let expected = envelope::unwrap(&fixture.pb).expect("fixture envelope");
        let name = fixture.schema().name();
        let outcome = encode_json_as_openapi(name, fixture.json.clone());
        match (fixture.name.as_str(), outcome) {
            ("core.v1.WatchEvent", None) => continue,
            ("core.v1.WatchEvent", Some(_)) => {
                failures.push("WatchEvent unexpectedly has an encoder".into())
            }
            ("policy.v1.PodDisruptionBudget", Some(Err(err))) => {
                typed += 1;
                assert!(
                    err.to_string()
                        .contains("invalid type: null, expected a timestamp string"),
                    "PodDisruptionBudget fails differently: {err}"
                );
            }
            (_, None) => {}
            (_, Some(result)) => {
                typed += 1;
                match result {
                    Ok(raw) if raw == expected.raw => identical += 1,
                    Ok(raw) => failures.push(format!(
                        "{}: {} B vs Go {} B",
                        fixture.name,
                        raw.len(),
                        expected.raw.len()
                    )),
                    Err(err) => failures.push(format!(
                        "{}: k8s-openapi rejects the JSON: {err}",
                        fixture.name
                    )),
                }
            }
        }
    }
    println!(
        "k8s-openapi -> protobuf: {identical}/{} fixtures byte-identical ({typed} have a k8s-openapi type; \
         PodDisruptionBudget's null time is rejected by k8s-openapi; WatchEvent has no struct)",
        typed - 1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        identical,
        typed - 1,
        "every typed fixture but PodDisruptionBudget is byte-identical"
    );
}

#[test]
fn encode_to_slice_and_envelope() {
    use k8s_openapi::api::core::v1::{Pod, PodSpec};
    use kguest_k8s_encode::{BufferTooSmall, Encode, encode_enveloped};

    let pod = Pod {
        spec: Some(PodSpec {
            node_name: Some("node-a".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let bytes = pod.encode_to_vec();
    assert_eq!(bytes.len(), pod.encoded_len());
    let mut buf = vec![0u8; bytes.len()];
    assert_eq!(pod.encode_to_slice(&mut buf), Ok(bytes.len()));
    assert_eq!(buf, bytes);
    let mut small = [0u8; 4];
    assert_eq!(
        pod.encode_to_slice(&mut small),
        Err(BufferTooSmall {
            needed: bytes.len(),
            available: 4
        })
    );
    let enveloped = encode_enveloped(&pod);
    let env = envelope::unwrap(&enveloped).expect("envelope");
    assert_eq!(
        (env.api_version, env.kind, env.raw),
        ("v1", "Pod", bytes.as_slice())
    );
    // Go writes the unset non-pointer parts of a Pod: metadata, status, and in
    // the spec every non-pointer field, so the JSON front-end agrees byte for byte.
    let json =
        serde_json::json!({"apiVersion": "v1", "kind": "Pod", "spec": {"nodeName": "node-a"}});
    assert_eq!(
        kguest_k8s_io::json::object_from_json(&json)
            .expect("encode")
            .raw,
        bytes
    );
}
