//! One filter or prioritize request, from its JSON body to its JSON answer
//! (no I/O: the server runs this on a blocking thread).

use std::sync::Arc;

use kguest_host::{Cycle, Profile, Snapshot, SnapshotNode};
use kguest_json::{Encoder, FieldValidation};
use kguest_wire::schema::MessageSchema;

use crate::api::{ExtenderArgs, ExtenderFilterResult, HostPriority, NodeListOut};
use crate::decide::{self, Calls};
use crate::nodes::NodeStore;

/// The extender's two verbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Filter,
    Prioritize,
}

impl Verb {
    pub fn name(self) -> &'static str {
        match self {
            Verb::Filter => "filter",
            Verb::Prioritize => "prioritize",
        }
    }
}

/// Why a request cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// Not JSON, or not an `ExtenderArgs`.
    Malformed(String),
    /// Well-formed, but not something the plugins can run on (no Pod, a
    /// Pod or Node that does not encode, unknown node names, ...).
    Invalid(String),
    /// Node names sent, but the node cache is off or not synced yet.
    NoCache(String),
    /// The request's deadline passed before the plugins were done (the
    /// configured request timeout).
    Deadline(std::time::Duration),
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Malformed(m) => write!(f, "malformed request: {m}"),
            RequestError::Invalid(m) => write!(f, "invalid request: {m}"),
            RequestError::NoCache(m) => write!(f, "node cache unavailable: {m}"),
            RequestError::Deadline(d) => write!(f, "request deadline exceeded ({d:?})"),
        }
    }
}

/// What answering a request needs.
pub struct Context<'a> {
    pub profile: &'a Profile,
    pub nodes: Option<&'a NodeStore>,
    pub field_validation: FieldValidation,
    /// No guest call runs past this; an answer not ready by then is
    /// [`RequestError::Deadline`].
    pub deadline: std::time::Instant,
    /// The request timeout the deadline came from (for the error).
    pub timeout: std::time::Duration,
}

/// An answer and what it cost.
#[derive(Debug)]
pub struct Answer {
    pub body: Vec<u8>,
    pub calls: Calls,
    /// Unknown fields dropped under `warn` (one line each).
    pub warnings: Vec<String>,
    /// Time spent reading the body into protobuf and a snapshot.
    pub decode: std::time::Duration,
    /// Time spent in the plugins and writing the answer.
    pub plugins: std::time::Duration,
}

fn schema(full_name: &str) -> &'static MessageSchema {
    // Both are in every generated registry.
    kguest_k8s_io::json::schema_by_full_name(full_name)
        .unwrap_or_else(|| panic!("{full_name} missing from kguest-k8s's registry"))
}

/// The request's pod and nodes, ready for the plugins.
pub struct Inputs<'a> {
    pub cycle: Cycle,
    /// Candidate names, in request order.
    pub names: Vec<String>,
    /// With a full NodeList: its items as sent (filter answers with them).
    pub items: Option<Vec<&'a serde_json::value::RawValue>>,
    pub warnings: Vec<String>,
}

/// Parses and encodes a request body.
pub fn inputs<'a>(cx: &Context<'_>, body: &'a [u8]) -> Result<Inputs<'a>, RequestError> {
    let args: ExtenderArgs<'a> =
        serde_json::from_slice(body).map_err(|e| RequestError::Malformed(e.to_string()))?;
    let pod = args
        .pod
        .filter(|p| p.get() != "null")
        .ok_or_else(|| RequestError::Invalid("no Pod".into()))?;
    let mut encoder = Encoder::with_field_validation(cx.field_validation);
    let mut warnings = Vec::new();
    let mut pod_bytes = Vec::new();
    encoder
        .encode_text(
            schema("k8s.io.api.core.v1.Pod"),
            pod.get(),
            TYPE_META,
            &mut pod_bytes,
        )
        .map_err(|e| RequestError::Invalid(format!("the Pod: {e}")))?;
    warnings.extend(
        encoder
            .take_warnings()
            .into_iter()
            .map(|w| format!("Pod: {w}")),
    );
    let (snapshot, names, items) = match (args.nodes, args.node_names) {
        (Some(list), _) => {
            let items = list.items.unwrap_or_default();
            let node_schema = schema("k8s.io.api.core.v1.Node");
            let mut snapshot = Snapshot::new();
            let mut names = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let mut bytes = Vec::new();
                encoder
                    .encode_text(node_schema, item.get(), TYPE_META, &mut bytes)
                    .map_err(|e| RequestError::Invalid(format!("Nodes.items[{i}]: {e}")))?;
                warnings.extend(
                    encoder
                        .take_warnings()
                        .into_iter()
                        .map(|w| format!("Nodes.items[{i}]: {w}")),
                );
                let node = SnapshotNode::from_node(bytes.into())
                    .map_err(|e| RequestError::Invalid(format!("Nodes.items[{i}]: {e}")))?;
                if snapshot.get(node.name()).is_some() {
                    return Err(RequestError::Invalid(format!(
                        "Nodes.items[{i}]: node {:?} is in the list twice",
                        node.name()
                    )));
                }
                names.push(node.name().to_string());
                snapshot.insert(node);
            }
            (Arc::new(snapshot), names, Some(items))
        }
        (None, Some(names)) => {
            let Some(store) = cx.nodes else {
                return Err(RequestError::NoCache(
                    "the request names nodes (nodeCacheCapable: true) but this extender runs \
                     without a node cache"
                        .into(),
                ));
            };
            if !store.synced() {
                return Err(RequestError::NoCache(
                    "the node cache has not synced yet".into(),
                ));
            }
            let snapshot = store.snapshot();
            let unknown: Vec<&str> = names
                .iter()
                .filter(|n| snapshot.get(n).is_none())
                .map(String::as_str)
                .collect();
            if !unknown.is_empty() {
                let shown: Vec<String> = unknown.iter().take(5).map(|n| format!("{n:?}")).collect();
                let more = if unknown.len() > 5 {
                    format!(" and {} more", unknown.len() - 5)
                } else {
                    String::new()
                };
                return Err(RequestError::Invalid(format!(
                    "{} node name(s) not in the node cache: {}{more}",
                    unknown.len(),
                    shown.join(", ")
                )));
            }
            (snapshot, names, None)
        }
        (None, None) => {
            return Err(RequestError::Invalid(
                "neither Nodes nor NodeNames is set".into(),
            ));
        }
    };
    let cycle = Cycle::with_deadline(pod_bytes.into(), snapshot, cx.deadline)
        .map_err(|e| RequestError::Invalid(format!("the Pod: {e}")))?;
    Ok(Inputs {
        cycle,
        names,
        items,
        warnings,
    })
}

/// `apiVersion` and `kind` are not message fields: an object may carry them.
const TYPE_META: &[&str] = &["apiVersion", "kind"];

/// Answers one request.
pub fn answer(cx: &Context<'_>, verb: Verb, body: &[u8]) -> Result<Answer, RequestError> {
    let start = std::time::Instant::now();
    let inputs = inputs(cx, body)?;
    let decode = start.elapsed();
    let (body, calls) = match verb {
        Verb::Filter => {
            let (outcome, calls) = decide::filter(cx.profile, &inputs.cycle, &inputs.names);
            let mut result = ExtenderFilterResult {
                failed_nodes: outcome.failed,
                failed_and_unresolvable_nodes: outcome.unresolvable,
                ..ExtenderFilterResult::default()
            };
            match &inputs.items {
                Some(items) => {
                    let passed: std::collections::HashSet<&str> =
                        outcome.passed.iter().map(String::as_str).collect();
                    let kept = inputs
                        .names
                        .iter()
                        .zip(items)
                        .filter(|(n, _)| passed.contains(n.as_str()))
                        .map(|(_, item)| *item)
                        .collect();
                    result.nodes = Some(NodeListOut {
                        metadata: Default::default(),
                        items: kept,
                    });
                }
                None => result.node_names = Some(outcome.passed),
            }
            (serde_json::to_vec(&result), calls)
        }
        Verb::Prioritize => {
            let (p, calls) = decide::prioritize(cx.profile, &inputs.cycle, &inputs.names);
            let list: Vec<HostPriority> = p
                .priorities
                .into_iter()
                .map(|(host, score)| HostPriority { host, score })
                .collect();
            (serde_json::to_vec(&list), calls)
        }
    };
    // Calls cut short by the deadline failed their plugins' nodes; the
    // request as a whole did not finish in time.
    if inputs.cycle.expired() {
        return Err(RequestError::Deadline(cx.timeout));
    }
    Ok(Answer {
        // Serializing strings, maps and raw JSON cannot fail.
        body: body.unwrap_or_default(),
        calls,
        warnings: inputs.warnings,
        decode,
        plugins: start.elapsed() - decode,
    })
}

/// The filter answer for a request that cannot be answered: kube-scheduler
/// reports `Error` as the cycle's error (the pod is retried).
pub fn filter_error(message: &str) -> Vec<u8> {
    serde_json::to_vec(&ExtenderFilterResult {
        error: message.to_string(),
        ..ExtenderFilterResult::default()
    })
    .unwrap_or_default()
}
