//! Caller-side inputs: the cluster snapshot, the per-cycle data and a cache
//! of encoded Node bytes.
//!
//! The host never encodes Kubernetes objects itself: the caller hands in
//! protobuf/JSON bytes as `Arc<[u8]>`, which are shared (not copied) by every
//! instance and every call until they are written into guest memory.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// One node as the guest sees it.
#[derive(Clone, Debug)]
pub struct SnapshotNode {
    /// `metadata.name`.
    pub name: Arc<str>,
    /// `metadata.resourceVersion` the bytes were encoded from.
    pub resource_version: Arc<str>,
    /// Protobuf `k8s.io.api.core.v1.Node` (served by `k8s.io/api.node`).
    pub node: Arc<[u8]>,
    /// JSON image states (served by `k8s.io/scheduler.nodeImageStates`);
    /// empty means "none" and makes the getter return 0.
    pub image_states: Arc<[u8]>,
}

/// The nodes visible to the plugin during a scheduling cycle.
///
/// Node order is insertion order; it is the order of `nodeList` items.
#[derive(Debug, Default)]
pub struct Snapshot {
    nodes: Vec<SnapshotNode>,
    index: HashMap<Box<[u8]>, usize>,
    node_list: OnceLock<Arc<[u8]>>,
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Snapshot {
        Snapshot::default()
    }

    /// Adds a node, replacing any node with the same name (keeping its position).
    pub fn insert(&mut self, node: SnapshotNode) {
        self.node_list = OnceLock::new();
        let key: Box<[u8]> = node.name.as_bytes().into();
        match self.index.get(&key) {
            Some(&i) => self.nodes[i] = node,
            None => {
                self.index.insert(key, self.nodes.len());
                self.nodes.push(node);
            }
        }
    }

    /// Looks a node up by name.
    pub fn get(&self, name: &str) -> Option<&SnapshotNode> {
        self.get_bytes(name.as_bytes())
    }

    pub(crate) fn get_bytes(&self, name: &[u8]) -> Option<&SnapshotNode> {
        self.index.get(name).map(|&i| &self.nodes[i])
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Nodes in insertion order.
    pub fn nodes(&self) -> &[SnapshotNode] {
        &self.nodes
    }

    /// Protobuf `NodeList` with every node as `items` (field 2), built once
    /// on first use by framing the cached Node bytes; no re-encoding.
    pub fn node_list(&self) -> &Arc<[u8]> {
        self.node_list.get_or_init(|| {
            let total: usize = self
                .nodes
                .iter()
                .map(|n| 1 + varint_len(n.node.len() as u64) + n.node.len())
                .sum();
            let mut out = Vec::with_capacity(total);
            for n in &self.nodes {
                out.push(0x12); // field 2, length-delimited
                push_varint(&mut out, n.node.len() as u64);
                out.extend_from_slice(&n.node);
            }
            out.into()
        })
    }
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

type CachedNode = (Arc<str>, Arc<[u8]>);

/// Caches encoded Node bytes per `(name, resourceVersion)` so a node is
/// encoded once per change rather than once per pod.
///
/// An empty resource version is never trusted: such nodes are re-encoded
/// on every lookup.
#[derive(Debug, Default)]
pub struct NodeCache {
    /// name -> (resource version, encoded bytes)
    entries: HashMap<Arc<str>, CachedNode>,
    encodes: u64,
}

impl NodeCache {
    /// An empty cache.
    pub fn new() -> NodeCache {
        NodeCache::default()
    }

    /// Returns the cached bytes for `name` at `resource_version`, calling
    /// `encode` only when the version differs from the cached one.
    pub fn node_bytes(
        &mut self,
        name: &str,
        resource_version: &str,
        encode: impl FnOnce() -> Vec<u8>,
    ) -> SnapshotNode {
        if let Some((name_arc, (rv, bytes))) = self.entries.get_key_value(name)
            && !resource_version.is_empty()
            && &**rv == resource_version
        {
            return SnapshotNode {
                name: name_arc.clone(),
                resource_version: rv.clone(),
                node: bytes.clone(),
                image_states: Arc::default(),
            };
        }
        self.encodes += 1;
        let name: Arc<str> = name.into();
        let rv: Arc<str> = resource_version.into();
        let bytes: Arc<[u8]> = encode().into();
        self.entries
            .insert(name.clone(), (rv.clone(), bytes.clone()));
        SnapshotNode {
            name,
            resource_version: rv,
            node: bytes,
            image_states: Arc::default(),
        }
    }

    /// Drops entries for nodes that no longer exist.
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.entries.retain(|name, _| keep(name));
    }

    /// Number of cached nodes.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many times `encode` has been called (cache misses).
    pub fn encode_count(&self) -> u64 {
        self.encodes
    }
}

static NEXT_CYCLE: AtomicU64 = AtomicU64::new(1);

#[derive(Debug)]
pub(crate) struct CycleData {
    pub id: u64,
    pub pod: Arc<[u8]>,
    pub snapshot: Arc<Snapshot>,
}

/// One scheduling cycle: the pod being scheduled plus the snapshot.
///
/// Cheap to clone. Each `Cycle::new` gets a fresh identity; the host uses it
/// to make sure every instance has run `prefilter` for this cycle (which is
/// how KSW guests reset per-cycle caches) before any other hook runs on it.
#[derive(Clone, Debug)]
pub struct Cycle(pub(crate) Arc<CycleData>);

impl Cycle {
    /// `pod` is the protobuf `v1.Pod` served by `currentPod`.
    pub fn new(pod: Arc<[u8]>, snapshot: Arc<Snapshot>) -> Cycle {
        Cycle(Arc::new(CycleData {
            id: NEXT_CYCLE.fetch_add(1, Ordering::Relaxed),
            pod,
            snapshot,
        }))
    }

    /// The unique cycle id.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The pod bytes.
    pub fn pod(&self) -> &Arc<[u8]> {
        &self.0.pod
    }

    /// The snapshot.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.0.snapshot
    }
}
