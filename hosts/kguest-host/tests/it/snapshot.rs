//! Snapshot, node cache and input bytes: raw messages, API-server envelopes
//! (unwrapped without a copy) and typed refusals.

use std::sync::Arc;

use kguest_host::{Cycle, InputError, NodeCache, NodeImage, Plugin, Snapshot, SnapshotNode};
use kguest_k8s::envelope;

use crate::util::{bytes, config, guest, node, real_node, rt};

/// A protobuf Pod named `name`.
fn real_pod(name: &str) -> Vec<u8> {
    let json = serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    });
    kguest_k8s_io::json::object_from_json(&json).unwrap().raw
}

#[test]
fn node_cache_encodes_once_per_resource_version() {
    let mut cache = NodeCache::new();
    let a1 = cache.node_bytes("a", "1", || b"A1".to_vec()).unwrap();
    let a1_again = cache
        .node_bytes("a", "1", || panic!("must be cached"))
        .unwrap();
    assert_eq!(a1.node_bytes().as_ptr(), a1_again.node_bytes().as_ptr());
    let a2 = cache.node_bytes("a", "2", || b"A2".to_vec()).unwrap();
    assert_eq!(a2.node_bytes(), b"A2");
    assert_eq!(cache.encode_count(), 2);
    // Empty resource versions are never trusted.
    cache.node_bytes("b", "", || b"B".to_vec()).unwrap();
    cache.node_bytes("b", "", || b"B".to_vec()).unwrap();
    assert_eq!(cache.encode_count(), 4);
    cache.retain(|n| n == "a");
    assert_eq!(cache.len(), 1);
    // An encoder returning enveloped bytes gets them unwrapped.
    let raw = real_node("c", &[]);
    let wrapped = envelope::wrap("v1", "Node", &raw);
    let c = cache.node_bytes("c", "1", || wrapped).unwrap();
    assert_eq!(c.node_bytes(), &raw[..]);
    let err = cache.node_bytes("d", "1", Vec::new).unwrap_err();
    assert_eq!(err, InputError::Empty { expected: "Node" });
}

#[test]
fn snapshot_replaces_nodes_in_place_and_frames_node_list() {
    let mut snap = Snapshot::new();
    snap.insert(node("a", b"AA"));
    snap.insert(node("b", &[7u8; 200]));
    assert_eq!(snap.node_list().len(), (2 + 2) + (3 + 200));
    snap.insert(node("a", b"A"));
    assert_eq!(snap.len(), 2);
    assert_eq!(snap.nodes()[0].node_bytes(), b"A");
    let list = snap.node_list().to_vec();
    assert_eq!(&list[..3], &[0x12, 1, b'A']);
    // 200 needs a two-byte varint.
    assert_eq!(&list[3..6], &[0x12, 0xc8, 0x01]);
}

#[test]
fn cycles_have_distinct_ids() {
    let snap = Arc::new(Snapshot::new());
    let a = Cycle::new(Arc::from(&b"p"[..]), snap.clone()).unwrap();
    let b = Cycle::new(Arc::from(&b"p"[..]), snap).unwrap();
    assert_ne!(a.id(), b.id());
    assert_eq!(a.clone().id(), a.id());
}

#[test]
fn an_enveloped_pod_is_unwrapped_without_a_copy() {
    let raw = real_pod("p1");
    let wrapped: Arc<[u8]> = envelope::wrap("v1", "Pod", &raw).into();
    let cycle = Cycle::new(wrapped.clone(), Arc::new(Snapshot::new())).unwrap();
    assert_eq!(cycle.pod(), &raw[..]);
    assert!(cycle.pod_was_enveloped());
    // The pod is a window into the caller's buffer, not a copy.
    let inside = wrapped.as_ptr_range();
    assert!(inside.contains(&cycle.pod().as_ptr()));

    // The guest sees the Pod message itself: it echoes currentPod's bytes
    // through the status reason.
    let wasm = guest(
        r#"(func (export "filter") (result i32)
          (call $reason (i32.const 0) (call $currentPod (i32.const 0) (i32.const 60000)))
          (i32.const 0))"#,
    );
    let plugin = Plugin::load(rt(), &wasm, config()).unwrap();
    let seen = plugin.filter(&cycle, "n").unwrap().reason.unwrap();
    assert_eq!(seen.as_bytes(), String::from_utf8_lossy(&raw).as_bytes());

    // Raw bytes are served as they are.
    let plain = Cycle::new(raw.clone().into(), Arc::new(Snapshot::new())).unwrap();
    assert_eq!(plain.pod(), &raw[..]);
    assert!(!plain.pod_was_enveloped());
}

#[test]
fn bad_envelopes_and_empty_objects_are_typed_errors() {
    let snap = || Arc::new(Snapshot::new());
    let node = real_node("n", &[]);
    let err = Cycle::new(envelope::wrap("v1", "Node", &node).into(), snap()).unwrap_err();
    assert_eq!(
        err,
        InputError::WrongKind {
            expected: "Pod",
            found: "v1/Node".into()
        }
    );
    let err = Cycle::new(envelope::wrap("apps/v1", "Pod", b"x").into(), snap()).unwrap_err();
    assert!(matches!(err, InputError::WrongKind { .. }), "{err:?}");
    // `k8s\0` followed by bytes that are not a runtime.Unknown.
    let err = Cycle::new(bytes(b"k8s\0\x0a\xff"), snap()).unwrap_err();
    assert!(
        matches!(
            err,
            InputError::Envelope {
                expected: "Pod",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("malformed API-server envelope for a Pod")
    );
    // A content type after the raw bytes (field 4; the last occurrence wins).
    let mut json_typed = envelope::wrap("v1", "Pod", &real_pod("p"));
    json_typed.extend_from_slice(b"\x22\x10application/json");
    let err = Cycle::new(json_typed.into(), snap()).unwrap_err();
    assert!(matches!(err, InputError::Encoding { .. }), "{err:?}");
    // An envelope with no object in it, and no bytes at all.
    let err = Cycle::new(envelope::wrap("v1", "Pod", b"").into(), snap()).unwrap_err();
    assert_eq!(err, InputError::Empty { expected: "Pod" });
    let err = Cycle::new(bytes(b""), snap()).unwrap_err();
    assert_eq!(err, InputError::Empty { expected: "Pod" });

    let err =
        SnapshotNode::from_node(envelope::wrap("v1", "Pod", &real_pod("p")).into()).unwrap_err();
    assert!(
        matches!(
            err,
            InputError::WrongKind {
                expected: "Node",
                ..
            }
        ),
        "{err:?}"
    );
    let err = SnapshotNode::from_node(real_node("", &[]).into()).unwrap_err();
    assert_eq!(err, InputError::NodeWithoutName);
}

#[test]
fn snapshot_from_nodes_reads_names_and_computes_image_states() {
    let a = real_node("a", &[(&["img:1", "img@sha256:x"], 10), (&["other"], 3)]);
    let b = real_node("b", &[(&["img:1"], 11)]);
    let c = real_node("c", &[]);
    let snap = Snapshot::from_nodes([envelope::wrap("v1", "Node", &a), b.clone(), c]).unwrap();
    let names: Vec<&str> = snap.nodes().iter().map(|n| n.name()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(snap.get("a").unwrap().node_bytes(), &a[..]);
    assert_eq!(snap.get("b").unwrap().resource_version(), "7");
    assert_eq!(
        snap.get("a").unwrap().images(),
        &[
            NodeImage {
                name: "img:1".into(),
                size: 10
            },
            NodeImage {
                name: "img@sha256:x".into(),
                size: 10
            },
            NodeImage {
                name: "other".into(),
                size: 3
            },
        ]
    );
    let states = |n: &str| String::from_utf8(snap.image_states(n).unwrap().to_vec()).unwrap();
    assert_eq!(
        states("a"),
        r#"{"img:1":{"Size":10,"NumNodes":2,"Nodes":null},"img@sha256:x":{"Size":10,"NumNodes":1,"Nodes":null},"other":{"Size":3,"NumNodes":1,"Nodes":null}}"#
    );
    // The size is the first node's, as in the scheduler's cache.
    assert_eq!(
        states("b"),
        r#"{"img:1":{"Size":10,"NumNodes":2,"Nodes":null}}"#
    );
    assert_eq!(states("c"), "{}");
    assert_eq!(snap.image_states("zz"), None);
    // A node without a name stops the snapshot with a typed error.
    let unnamed = real_node("", &[]);
    assert_eq!(
        Snapshot::from_nodes([b, unnamed]).unwrap_err(),
        InputError::NodeWithoutName
    );
}
