//! The per-call handle through which hooks read their inputs.

use kguest_k8s::api::core::v1::{Node, NodeList, Pod};

use crate::images::ImageStates;

use crate::sys::{self, Setter, getter};

/// Inputs of the current host call, fetched lazily and cached.
///
/// * The Pod being scheduled is fetched at most once per scheduling cycle
///   (the cache is dropped by the `prefilter` export).
/// * The current node name, the target pod and the JSON lists are fetched at
///   most once per call.
/// * The Node is fetched only when [`Cycle::node`] is called, and kept while
///   the node name stays the same within the cycle.
/// * The node list is fetched at most once per scheduling cycle; the
///   current node's image states at most once per call.
///
/// Views borrow the handle, so none outlives the call.
pub struct Cycle {
    _not_send: core::marker::PhantomData<*const ()>,
}

impl Cycle {
    pub(crate) fn new() -> Cycle {
        Cycle {
            _not_send: core::marker::PhantomData,
        }
    }

    /// The pod being scheduled; `None` when the host sent nothing.
    #[inline]
    pub fn pod(&self) -> Option<Pod<'_>> {
        non_empty(sys::input(getter::CURRENT_POD)).map(Pod::from_bytes)
    }

    /// The pod's protobuf bytes (empty when none).
    #[inline]
    pub fn pod_bytes(&self) -> &[u8] {
        sys::input(getter::CURRENT_POD)
    }

    /// The node this call is about (Filter, Score, Reserve, Permit, the bind
    /// hooks, AddPod/RemovePod); `""` when none or not UTF-8.
    #[inline]
    pub fn node_name(&self) -> &str {
        kguest_wire::utf8::to_str(self.node_name_bytes()).unwrap_or("")
    }

    #[inline]
    pub fn node_name_bytes(&self) -> &[u8] {
        sys::input(getter::NODE_NAME)
    }

    /// The Node named by [`Cycle::node_name`], fetched on first use.
    #[inline]
    pub fn node(&self) -> Option<Node<'_>> {
        non_empty(sys::current_node()).map(Node::from_bytes)
    }

    /// Every node of the cluster snapshot (`k8s.io/api.nodeList`), fetched
    /// on first use and kept for the scheduling cycle, as the Go SDK's
    /// `sharedlister.NodeInfos().List()` does. `None` when the host sent
    /// nothing. The whole list is copied into the guest: on large clusters,
    /// prefer [`Cycle::node`] when one node is enough.
    #[inline]
    pub fn node_list(&self) -> Option<NodeList<'_>> {
        non_empty(sys::input(getter::NODE_LIST)).map(NodeList::from_bytes)
    }

    /// The image states of [`Cycle::node_name`]
    /// (`k8s.io/scheduler.nodeImageStates`), fetched on first use in the call;
    /// empty when the node has none.
    #[inline]
    pub fn image_states(&self) -> ImageStates<'_> {
        ImageStates::new(sys::current_image_states())
    }

    /// The other pod of AddPod/RemovePod.
    #[inline]
    pub fn target_pod(&self) -> Option<Pod<'_>> {
        non_empty(sys::input(getter::TARGET_POD)).map(Pod::from_bytes)
    }

    /// PreScore: JSON array of the node names that passed Filter. See
    /// [`crate::json`] to read it.
    ///
    /// One call can read one of the three JSON lists; another one returns
    /// empty bytes (they share a buffer).
    #[inline]
    pub fn filtered_node_list(&self) -> &[u8] {
        sys::input(getter::FILTERED_NODE_LIST)
    }

    /// NormalizeScore: JSON object `{node: score}`.
    #[inline]
    pub fn node_score_list(&self) -> &[u8] {
        sys::input(getter::NODE_SCORE_LIST)
    }

    /// PostFilter: JSON object `{node: status code}`.
    #[inline]
    pub fn node_to_status_map(&self) -> &[u8] {
        sys::input(getter::NODE_TO_STATUS_MAP)
    }

    /// The plugin configuration (see [`crate::config`]).
    #[inline]
    pub fn config(&self) -> &[u8] {
        crate::config()
    }

    /// PreFilter: restrict the cycle to these nodes, given as NUL-terminated
    /// names (`b"node-a\0node-b\0"`). Not calling it means all nodes.
    #[inline]
    pub fn set_node_names(&self, nul_terminated: &[u8]) {
        sys::set(Setter::NodeNames, nul_terminated);
    }

    /// NormalizeScore: the new JSON object `{node: score}`.
    #[inline]
    pub fn set_normalized_score_list(&self, json: &[u8]) {
        sys::set(Setter::NormalizedScoreList, json);
    }
}

impl core::fmt::Debug for Cycle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Cycle")
    }
}

#[inline(always)]
fn non_empty(b: &[u8]) -> Option<&[u8]> {
    if b.is_empty() { None } else { Some(b) }
}
