//! Our own realistic objects (`tests/data/*.yaml`: a Deployment's Pod with a
//! sidecar, probes, volumes, affinity and tolerations; a Node with 21 images
//! and a full status) survive YAML → protobuf → views → JSON, and the views
//! read the fields a scheduler plugin reads.

use std::path::PathBuf;

use kguest_k8s::api::core::v1::{Node, Pod};
use kguest_k8s_io::json::{object_from_json, object_to_json, schema_for_api_version};
use serde::Deserialize;
use serde_json::Value;

use kguest_test_support::json::without_empty;

fn load(name: &str) -> Value {
    let path = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("../data")
    .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Value::deserialize(serde_norway::Deserializer::from_str(&text)).expect("YAML")
}

fn round_trip(name: &str) -> Vec<u8> {
    let json = load(name);
    let object = object_from_json(&json).expect("encode");
    let schema = schema_for_api_version(&object.api_version, &object.kind).expect("schema");
    let back =
        object_to_json(&object.api_version, &object.kind, schema, &object.raw).expect("decode");
    assert_eq!(
        without_empty(&back),
        without_empty(&json),
        "{name} changed in the round trip"
    );
    // Encoding what we decoded gives the same bytes.
    assert_eq!(object_from_json(&back).expect("re-encode").raw, object.raw);
    object.raw
}

#[test]
fn realistic_pod_round_trips_and_reads() {
    let raw = round_trip("pod.yaml");
    let pod = Pod::from_bytes(&raw);
    let spec = pod.spec().expect("spec");
    assert_eq!(spec.containers().count(), 2);
    assert_eq!(spec.tolerations().count(), 3);
    let checkout = spec.containers().next().expect("container");
    let requests = checkout.resources().expect("resources").requests();
    let cpu = requests
        .get("cpu")
        .expect("cpu request")
        .parse()
        .expect("quantity");
    assert_eq!(cpu.milli_value(), Some(500));
    let labels = pod.metadata().expect("metadata").labels();
    assert_eq!(labels.get("team"), Some("payments"));
    // Go writes non-pointer fields even when the YAML leaves them out, so an
    // unset nodeName is present and empty, while pointer fields stay absent.
    assert_eq!(spec.node_name(), Some(""));
    assert_eq!(spec.active_deadline_seconds(), None);
}

#[test]
fn realistic_node_round_trips_and_reads() {
    let raw = round_trip("node.yaml");
    let node = Node::from_bytes(&raw);
    let status = node.status().expect("status");
    assert_eq!(status.images().count(), 21);
    let allocatable = status
        .allocatable()
        .get("cpu")
        .expect("cpu")
        .parse()
        .expect("quantity");
    assert_eq!(allocatable.milli_value(), Some(7910));
    let taint = node.spec().expect("spec").taints().next().expect("taint");
    assert_eq!(
        (taint.key(), taint.effect()),
        (Some("dedicated"), Some("NoSchedule"))
    );
    assert_eq!(
        status
            .daemon_endpoints()
            .and_then(|d| d.kubelet_endpoint())
            .and_then(|e| e.port()),
        Some(10250)
    );
}
