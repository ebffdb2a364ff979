//! The scheduler extender's wire types (`k8s.io/kube-scheduler/extender/v1`),
//! as kube-scheduler's extender client marshals and reads them.
//!
//! Go's structs carry no JSON tags, so members are spelled as the Go field
//! names (`Pod`, `NodeNames`, ...); Go's decoder matches them without regard
//! to case, and the lower-case spellings are accepted here as well.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// `ExtenderArgs`: the body of a filter or prioritize request. The Pod and
/// the Nodes stay JSON text here; they are encoded to protobuf once.
#[derive(Debug, Deserialize)]
pub struct ExtenderArgs<'a> {
    #[serde(rename = "Pod", alias = "pod", borrow)]
    pub pod: Option<&'a RawValue>,
    /// With `nodeCacheCapable: false`: the candidate Nodes.
    #[serde(rename = "Nodes", alias = "nodes", borrow, default)]
    pub nodes: Option<NodeListArg<'a>>,
    /// With `nodeCacheCapable: true`: the candidates' names.
    #[serde(
        rename = "NodeNames",
        alias = "nodenames",
        alias = "nodeNames",
        default
    )]
    pub node_names: Option<Vec<String>>,
}

/// A `v1.NodeList` in a request: only its items are read.
#[derive(Debug, Deserialize)]
pub struct NodeListArg<'a> {
    #[serde(borrow, default)]
    pub items: Option<Vec<&'a RawValue>>,
}

/// `ExtenderFilterResult`.
#[derive(Debug, Default, Serialize)]
pub struct ExtenderFilterResult<'a> {
    /// The Nodes that passed (when the request carried Nodes).
    #[serde(rename = "Nodes", skip_serializing_if = "Option::is_none")]
    pub nodes: Option<NodeListOut<'a>>,
    /// The names that passed (when the request carried names).
    #[serde(rename = "NodeNames", skip_serializing_if = "Option::is_none")]
    pub node_names: Option<Vec<String>>,
    /// Rejected nodes and why; preemption may help them.
    #[serde(rename = "FailedNodes")]
    pub failed_nodes: BTreeMap<String, String>,
    /// Rejected nodes and why; preemption cannot help them.
    #[serde(rename = "FailedAndUnresolvableNodes")]
    pub failed_and_unresolvable_nodes: BTreeMap<String, String>,
    /// Non-empty: the request failed as a whole.
    #[serde(rename = "Error")]
    pub error: String,
}

/// The `v1.NodeList` of a filter answer: the request's own items, as sent.
#[derive(Debug, Serialize)]
pub struct NodeListOut<'a> {
    pub metadata: BTreeMap<String, String>,
    pub items: Vec<&'a RawValue>,
}

/// `HostPriority`: one entry of the `HostPriorityList` prioritize answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostPriority {
    #[serde(rename = "Host")]
    pub host: String,
    /// `0..=MAX_EXTENDER_PRIORITY`.
    #[serde(rename = "Score")]
    pub score: i64,
}

/// `extenderv1.MaxExtenderPriority`: kube-scheduler multiplies an
/// extender's priority by `MaxNodeScore / MaxExtenderPriority` (10) and by
/// the extender's weight.
pub const MAX_EXTENDER_PRIORITY: i64 = 10;
