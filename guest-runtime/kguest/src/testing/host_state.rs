//! The test host's state: what [`TestHost`](super::TestHost) set for the
//! guest to read and what the guest sent, in a thread-local. The SDK's
//! native stand-ins for the host imports (`sys.rs`) serve and record
//! through the functions here; this module reaches neither the exports
//! (`rt`) nor the imports, so the arrows point one way: `TestHost` -> `rt`
//! -> `sys` -> here.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use super::proto;

/// An input the stand-in getters serve.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Input {
    CurrentPod,
    TargetPod,
    NodeName,
    Config,
    FilteredNodeList,
    NodeScoreList,
    NodeToStatusMap,
    Node,
    NodeList,
    ImageStates,
}

/// Something a guest sent to the host.
pub(crate) enum Record<'a> {
    Reason(&'a [u8]),
    ClusterEvents(&'a [u8]),
    NodeNames(&'a [u8]),
    NominatedNodeName(&'a [u8]),
    NormalizedScoreList(&'a [u8]),
    Log(i32, &'a [u8], &'a [u8]),
    Event(&'a [u8]),
}

#[derive(Default)]
pub(super) struct HostState {
    pub(super) pod: Option<Vec<u8>>,
    pub(super) target_pod: Option<Vec<u8>>,
    pub(super) node_name: Option<Vec<u8>>,
    pub(super) config: Option<Vec<u8>>,
    pub(super) filtered_node_list: Option<Vec<u8>>,
    pub(super) node_score_list: Option<Vec<u8>>,
    pub(super) node_to_status_map: Option<Vec<u8>>,
    /// Nodes in the order added (the order of the node list).
    pub(super) nodes: Vec<(Vec<u8>, Vec<u8>)>,
    pub(super) node_list: Option<Vec<u8>>,
    pub(super) image_states: BTreeMap<Vec<u8>, Vec<u8>>,
    pub(super) waiting: BTreeMap<Vec<u8>, Vec<u8>>,
    pub(super) rejected: Vec<String>,
    pub(super) severity: i32,
    pub(super) calls: BTreeMap<&'static str, usize>,
    // Per call.
    pub(super) reason: Option<String>,
    pub(super) node_names: Option<Vec<String>>,
    pub(super) nominated: Option<String>,
    pub(super) normalized: Option<Vec<u8>>,
    pub(super) events: Option<Vec<(u32, u32)>>,
    // Whole test.
    pub(super) logs: Vec<LogLine>,
    pub(super) recorded_events: Vec<String>,
    /// Built on first use from `nodes` (see `derived`).
    pub(super) derived_list: Option<Vec<u8>>,
    pub(super) derived_states: Option<BTreeMap<Vec<u8>, Vec<u8>>>,
}

std::thread_local! {
    pub(super) static HOST: RefCell<HostState> = RefCell::new(HostState::default());
}

fn input_name(i: Input) -> &'static str {
    match i {
        Input::CurrentPod => "currentPod",
        Input::TargetPod => "targetPod",
        Input::NodeName => "currentNodeName",
        Input::Config => "get_config",
        Input::FilteredNodeList => "filteredNodeList",
        Input::NodeScoreList => "nodeScoreList",
        Input::NodeToStatusMap => "nodeToStatusMap",
        Input::Node => "node",
        Input::NodeList => "nodeList",
        Input::ImageStates => "nodeImageStates",
    }
}

/// Serves a getter: `f` gets the bytes (or `None`) and copies them out.
pub(crate) fn host_read(
    what: Input,
    key: Option<&[u8]>,
    f: impl FnOnce(Option<&[u8]>) -> u32,
) -> u32 {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        *h.calls.entry(input_name(what)).or_default() += 1;
        if matches!(what, Input::NodeList | Input::ImageStates) {
            h.derive();
        }
        let src = match what {
            Input::CurrentPod => h.pod.as_deref(),
            Input::TargetPod => h.target_pod.as_deref(),
            Input::NodeName => h.node_name.as_deref(),
            Input::Config => h.config.as_deref(),
            Input::FilteredNodeList => h.filtered_node_list.as_deref(),
            Input::NodeScoreList => h.node_score_list.as_deref(),
            Input::NodeToStatusMap => h.node_to_status_map.as_deref(),
            Input::Node => key.and_then(|k| h.node(k)),
            Input::NodeList => h.node_list.as_deref().or(h.derived_list.as_deref()),
            Input::ImageStates => key.and_then(|k| {
                h.image_states
                    .get(k)
                    .or_else(|| h.derived_states.as_ref()?.get(k))
                    .map(Vec::as_slice)
            }),
        };
        f(src)
    })
}

impl HostState {
    fn node(&self, name: &[u8]) -> Option<&[u8]> {
        self.nodes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }

    /// Builds the node list and the image states from the added nodes, the
    /// way the scheduler does, unless already built.
    fn derive(&mut self) {
        if self.derived_list.is_none() {
            self.derived_list = Some(proto::node_list(self.nodes.iter().map(|(_, b)| &b[..])));
        }
        if self.derived_states.is_none() {
            let nodes: Vec<(&[u8], &[u8])> = self
                .nodes
                .iter()
                .map(|(n, b)| (n.as_slice(), b.as_slice()))
                .collect();
            self.derived_states = Some(image_states(&nodes));
        }
    }
}

/// `nodeImageStates` JSON of every node, computed as the scheduler's cache
/// does: per image name listed in `status.images[].names`, the size of the
/// first node listing it and the number of nodes listing it; keys sorted and
/// `"Nodes": null`, as Go's `json.Marshal` of the snapshot writes them.
pub fn image_states(nodes: &[(&[u8], &[u8])]) -> BTreeMap<Vec<u8>, Vec<u8>> {
    use kguest_k8s::api::core::v1::Node;
    let names_of = |bytes: &[u8]| -> Vec<(String, i64)> {
        let node = Node::from_bytes(bytes);
        let mut out = Vec::new();
        for image in node.status().into_iter().flat_map(|s| s.images()) {
            let size = image.size_bytes().unwrap_or(0);
            for name in image.names() {
                out.push((name.to_string(), size));
            }
        }
        out
    };
    // name -> (size of the first node listing it, node names listing it)
    let mut global: BTreeMap<String, (i64, Vec<&[u8]>)> = BTreeMap::new();
    for (node_name, bytes) in nodes {
        for (image, size) in names_of(bytes) {
            let entry = global.entry(image).or_insert((size, Vec::new()));
            if !entry.1.contains(node_name) {
                entry.1.push(node_name);
            }
        }
    }
    let mut out = BTreeMap::new();
    for (node_name, bytes) in nodes {
        let mut mine: BTreeMap<String, String> = BTreeMap::new();
        for (image, _) in names_of(bytes) {
            if let Some((size, on)) = global.get(&image) {
                mine.insert(
                    image.clone(),
                    std::format!(r#"{{"Size":{size},"NumNodes":{},"Nodes":null}}"#, on.len()),
                );
            }
        }
        let body: Vec<String> = mine
            .iter()
            .map(|(k, v)| std::format!("{}:{v}", crate::go_string::json_string(k)))
            .collect();
        out.insert(
            node_name.to_vec(),
            std::format!("{{{}}}", body.join(",")).into_bytes(),
        );
    }
    out
}

pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(crate) fn host_record(r: Record<'_>) {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        match r {
            Record::Reason(b) => h.reason = Some(text(b)),
            Record::NodeNames(b) => {
                h.node_names = Some(
                    b.split(|&c| c == 0)
                        .filter(|s| !s.is_empty())
                        .map(text)
                        .collect(),
                )
            }
            Record::NominatedNodeName(b) => h.nominated = Some(text(b)),
            Record::NormalizedScoreList(b) => h.normalized = Some(b.to_vec()),
            Record::ClusterEvents(b) => {
                h.events = Some(
                    b.chunks_exact(8)
                        .map(|c| {
                            let w =
                                |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                            (w(0), w(4))
                        })
                        .collect(),
                )
            }
            Record::Log(severity, msg, kvs) => {
                let mut parts: Vec<String> = kvs.split(|&c| c == 0).map(text).collect();
                // A trailing NUL leaves one empty part.
                if parts.last().is_some_and(String::is_empty) {
                    parts.pop();
                }
                let kvs = parts
                    .chunks(2)
                    .map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or_default()))
                    .collect();
                h.logs.push(LogLine {
                    severity,
                    msg: text(msg),
                    kvs,
                });
            }
            Record::Event(b) => h.recorded_events.push(text(b)),
        }
    })
}

pub(crate) fn host_reject_waiting_pod(uid: &[u8]) -> bool {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        h.rejected.push(text(uid));
        h.waiting.contains_key(uid)
    })
}

pub(crate) fn host_waiting_pod(uid: &[u8]) -> Option<Vec<u8>> {
    HOST.with(|h| h.borrow().waiting.get(uid).cloned())
}

pub(crate) fn host_severity() -> i32 {
    HOST.with(|h| h.borrow().severity)
}

/// A log line the guest sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub severity: i32,
    pub msg: String,
    pub kvs: Vec<(String, String)>,
}
