//! Snapshot and node cache behaviour.

use std::sync::Arc;

use kguest_host::{Cycle, NodeCache, Snapshot};

use crate::util::node;

#[test]
fn node_cache_encodes_once_per_resource_version() {
    let mut cache = NodeCache::new();
    let a1 = cache.node_bytes("a", "1", || b"A1".to_vec());
    let a1_again = cache.node_bytes("a", "1", || panic!("must be cached"));
    assert!(Arc::ptr_eq(&a1.node, &a1_again.node));
    let a2 = cache.node_bytes("a", "2", || b"A2".to_vec());
    assert_eq!(&*a2.node, b"A2");
    assert_eq!(cache.encode_count(), 2);
    // Empty resource versions are never trusted.
    cache.node_bytes("b", "", || b"B".to_vec());
    cache.node_bytes("b", "", || b"B".to_vec());
    assert_eq!(cache.encode_count(), 4);
    cache.retain(|n| n == "a");
    assert_eq!(cache.len(), 1);
}

#[test]
fn snapshot_replaces_nodes_in_place_and_frames_node_list() {
    let mut snap = Snapshot::new();
    snap.insert(node("a", b"AA", b""));
    snap.insert(node("b", &[7u8; 200], b""));
    assert_eq!(snap.node_list().len(), (2 + 2) + (3 + 200));
    snap.insert(node("a", b"A", b""));
    assert_eq!(snap.len(), 2);
    assert_eq!(snap.nodes()[0].node.as_ref(), b"A");
    let list = snap.node_list().clone();
    assert_eq!(&list[..3], &[0x12, 1, b'A']);
    // 200 needs a two-byte varint.
    assert_eq!(&list[3..6], &[0x12, 0xc8, 0x01]);
}

#[test]
fn cycles_have_distinct_ids() {
    let snap = Arc::new(Snapshot::new());
    let a = Cycle::new(Arc::from(&b"p"[..]), snap.clone());
    let b = Cycle::new(Arc::from(&b"p"[..]), snap);
    assert_ne!(a.id(), b.id());
    assert_eq!(a.clone().id(), a.id());
}
