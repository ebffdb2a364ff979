//! Caller-side inputs: the cluster snapshot, the per-cycle data and a cache
//! of encoded Node bytes.
//!
//! The host never encodes Kubernetes objects itself: the caller hands in
//! protobuf bytes as `Arc<[u8]>` (raw messages or the API server's
//! envelope, unwrapped without a copy), which are shared by every instance
//! and every call until they are written into guest memory.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use kguest_k8s::api::core::v1::Node;
use kguest_wire::encode::{put_bytes, varint_len};

use crate::gojson;
use crate::input::{Bytes, InputError};

/// One image a node lists in `status.images`: one of its `names` and the
/// image's `sizeBytes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeImage {
    /// One entry of `status.images[].names`.
    pub name: Arc<str>,
    /// `status.images[].sizeBytes`.
    pub size: i64,
}

/// One node as the guest sees it: its protobuf bytes and what the
/// scheduler's cache derives from them.
#[derive(Clone, Debug)]
pub struct SnapshotNode {
    name: Arc<str>,
    resource_version: Arc<str>,
    node: Bytes,
    images: Arc<[NodeImage]>,
}

impl SnapshotNode {
    /// A node from its protobuf bytes: a raw `v1.Node` message or the API
    /// server's envelope (unwrapped without a copy; another kind is an
    /// error). The name, resource version and images are read from it.
    pub fn from_node(bytes: Arc<[u8]>) -> Result<SnapshotNode, InputError> {
        let node = Bytes::object(bytes, "Node")?;
        let view = Node::from_bytes(&node);
        let meta = view.metadata();
        let name = meta
            .and_then(|m| m.name())
            .filter(|n| !n.is_empty())
            .ok_or(InputError::NodeWithoutName)?;
        let resource_version = meta.and_then(|m| m.resource_version()).unwrap_or("");
        Ok(SnapshotNode {
            name: name.into(),
            resource_version: resource_version.into(),
            images: images(view),
            node,
        })
    }

    /// A node under a name the caller gives, for bytes that need not carry
    /// it (an envelope is still unwrapped, and images are read if the bytes
    /// decode as a Node).
    pub fn with_name(
        name: &str,
        resource_version: &str,
        bytes: Arc<[u8]>,
    ) -> Result<SnapshotNode, InputError> {
        let node = Bytes::object(bytes, "Node")?;
        Ok(SnapshotNode {
            name: name.into(),
            resource_version: resource_version.into(),
            images: images(Node::from_bytes(&node)),
            node,
        })
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `metadata.resourceVersion`.
    pub fn resource_version(&self) -> &str {
        &self.resource_version
    }

    /// The `v1.Node` message served by `k8s.io/api.node` (unwrapped when an
    /// envelope was given).
    pub fn node_bytes(&self) -> &[u8] {
        &self.node
    }

    /// The images of `status.images`, one entry per name.
    pub fn images(&self) -> &[NodeImage] {
        &self.images
    }
}

fn images(node: Node<'_>) -> Arc<[NodeImage]> {
    let Some(status) = node.status() else {
        return Arc::default();
    };
    let mut out = Vec::new();
    for image in status.images() {
        let size = image.size_bytes().unwrap_or(0);
        for name in image.names() {
            out.push(NodeImage {
                name: name.into(),
                size,
            });
        }
    }
    out.into()
}

/// The nodes visible to the plugin during a scheduling cycle.
///
/// Node order is insertion order; it is the order of `nodeList` items.
/// Image states (`nodeImageStates`) are computed over all nodes as the
/// scheduler's cache does: per image name, the size from the first node
/// listing it and the number of nodes listing it.
#[derive(Debug, Default)]
pub struct Snapshot {
    nodes: Vec<SnapshotNode>,
    index: HashMap<Box<[u8]>, usize>,
    node_list: OnceLock<Arc<[u8]>>,
    image_states: OnceLock<Vec<Arc<[u8]>>>,
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Snapshot {
        Snapshot::default()
    }

    /// A snapshot of these nodes (protobuf `v1.Node`s, raw or enveloped),
    /// in this order. A repeated name replaces the earlier node.
    pub fn from_nodes<I>(nodes: I) -> Result<Snapshot, InputError>
    where
        I: IntoIterator,
        I::Item: Into<Arc<[u8]>>,
    {
        let mut snapshot = Snapshot::new();
        for bytes in nodes {
            snapshot.insert(SnapshotNode::from_node(bytes.into())?);
        }
        Ok(snapshot)
    }

    /// Adds a node, replacing any node with the same name (keeping its position).
    pub fn insert(&mut self, node: SnapshotNode) {
        self.node_list = OnceLock::new();
        self.image_states = OnceLock::new();
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
        self.position(name.as_bytes()).map(|i| &self.nodes[i])
    }

    fn position(&self, name: &[u8]) -> Option<usize> {
        self.index.get(name).copied()
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
    pub fn node_list(&self) -> &[u8] {
        self.node_list.get_or_init(|| {
            // Each item: the one-byte key of field 2, length-delimited.
            let total: usize = self
                .nodes
                .iter()
                .map(|n| 1 + varint_len(n.node.len() as u64) + n.node.len())
                .sum();
            let mut out = Vec::with_capacity(total);
            for n in &self.nodes {
                put_bytes(&mut out, 2, &n.node);
            }
            out.into()
        })
    }

    /// The JSON `nodeImageStates` serves for `name`:
    /// `{"<image>":{"Size":<bytes>,"NumNodes":<count>,"Nodes":null},...}`
    /// with sorted keys, as KSW marshals the node's `ImageStates` (`{}` for
    /// a node without images); `None` for an unknown node.
    pub fn image_states(&self, name: &str) -> Option<&[u8]> {
        self.image_states_at(self.position(name.as_bytes())?)
    }

    pub(crate) fn image_states_bytes(&self, name: &[u8]) -> &[u8] {
        self.position(name)
            .and_then(|i| self.image_states_at(i))
            .unwrap_or_default()
    }

    fn image_states_at(&self, index: usize) -> Option<&[u8]> {
        let all = self
            .image_states
            .get_or_init(|| self.compute_image_states());
        all.get(index).map(|s| &s[..])
    }

    fn compute_image_states(&self) -> Vec<Arc<[u8]>> {
        // name -> (size from the first node listing it, nodes listing it)
        let mut states: HashMap<&str, (i64, usize)> = HashMap::new();
        for node in &self.nodes {
            let mut seen = std::collections::HashSet::new();
            for image in node.images.iter() {
                if !seen.insert(&*image.name) {
                    continue;
                }
                states
                    .entry(&image.name)
                    .and_modify(|(_, count)| *count += 1)
                    .or_insert((image.size, 1));
            }
        }
        self.nodes
            .iter()
            .map(|node| {
                let mine: BTreeMap<&str, (i64, usize)> = node
                    .images
                    .iter()
                    .filter_map(|image| Some((&*image.name, *states.get(&*image.name)?)))
                    .collect();
                // An empty map is `{}`, as Go marshals a node's (never nil)
                // ImageStates; TinyGo guests fail to parse empty bytes.
                let mut json = String::from("{");
                for (i, (name, (size, count))) in mine.into_iter().enumerate() {
                    if i > 0 {
                        json.push(',');
                    }
                    gojson::push_string(&mut json, name);
                    // The snapshot's summaries leave the node set out: `Nodes` is nil.
                    json.push_str(&format!(
                        ":{{\"Size\":{size},\"NumNodes\":{count},\"Nodes\":null}}"
                    ));
                }
                json.push('}');
                Arc::from(json.into_bytes())
            })
            .collect()
    }

    pub(crate) fn node_bytes(&self, name: &[u8]) -> &[u8] {
        self.position(name)
            .map(|i| &self.nodes[i].node[..])
            .unwrap_or_default()
    }
}

/// Caches nodes per `(name, resourceVersion)` so a node is encoded (and its
/// images read) once per change rather than once per pod.
///
/// An empty resource version is never trusted: such nodes are re-encoded
/// on every lookup.
#[derive(Debug, Default)]
pub struct NodeCache {
    entries: HashMap<Arc<str>, SnapshotNode>,
    encodes: u64,
}

impl NodeCache {
    /// An empty cache.
    pub fn new() -> NodeCache {
        NodeCache::default()
    }

    /// The node `name` at `resource_version`, calling `encode` (which
    /// returns the Node's protobuf, raw or enveloped) only when the version
    /// differs from the cached one.
    pub fn node_bytes(
        &mut self,
        name: &str,
        resource_version: &str,
        encode: impl FnOnce() -> Vec<u8>,
    ) -> Result<SnapshotNode, InputError> {
        if let Some(cached) = self.entries.get(name)
            && !resource_version.is_empty()
            && cached.resource_version() == resource_version
        {
            return Ok(cached.clone());
        }
        self.encodes += 1;
        let node = SnapshotNode::with_name(name, resource_version, encode().into())?;
        self.entries.insert(node.name.clone(), node.clone());
        Ok(node)
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
    pub pod: Bytes,
    pub snapshot: Arc<Snapshot>,
    /// No guest call of the cycle runs past this.
    pub deadline: Option<Instant>,
}

/// One scheduling cycle: the pod being scheduled plus the snapshot.
///
/// Cheap to clone. Each `Cycle::new` gets a fresh identity; the host uses it
/// to make sure every instance has run `prefilter` for this cycle (which is
/// how KSW guests reset per-cycle caches) before any other hook runs on it,
/// and to keep a cycle on the instance that ran it.
#[derive(Clone, Debug)]
pub struct Cycle(pub(crate) Arc<CycleData>);

impl Cycle {
    /// `pod` is served by `currentPod`: a protobuf `v1.Pod` message, or the
    /// API server's envelope of one, which is unwrapped without a copy (an
    /// envelope holding anything else is an error, so a guest never sees an
    /// empty Pod). Other bytes are served as they are, for guests that read
    /// another encoding. Empty bytes are refused.
    pub fn new(pod: Arc<[u8]>, snapshot: Arc<Snapshot>) -> Result<Cycle, InputError> {
        Cycle::build(pod, snapshot, None)
    }

    /// [`Cycle::new`] with a deadline: every guest call of the cycle stops
    /// (as a timeout) by `deadline`, or by the plugin's call timeout if
    /// that comes first, so a server can bound a whole request.
    pub fn with_deadline(
        pod: Arc<[u8]>,
        snapshot: Arc<Snapshot>,
        deadline: Instant,
    ) -> Result<Cycle, InputError> {
        Cycle::build(pod, snapshot, Some(deadline))
    }

    fn build(
        pod: Arc<[u8]>,
        snapshot: Arc<Snapshot>,
        deadline: Option<Instant>,
    ) -> Result<Cycle, InputError> {
        Ok(Cycle(Arc::new(CycleData {
            id: NEXT_CYCLE.fetch_add(1, Ordering::Relaxed),
            pod: Bytes::object(pod, "Pod")?,
            snapshot,
            deadline,
        })))
    }

    /// The cycle's deadline, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.0.deadline
    }

    /// Whether the cycle's deadline has passed.
    pub fn expired(&self) -> bool {
        self.0.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The unique cycle id.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The pod bytes the guest sees (the message inside an envelope).
    pub fn pod(&self) -> &[u8] {
        &self.0.pod
    }

    /// Whether the pod was given in the API server's envelope.
    pub fn pod_was_enveloped(&self) -> bool {
        self.0.pod.is_window()
    }

    /// The snapshot.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.0.snapshot
    }
}
