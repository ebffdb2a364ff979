//! A native stand-in for the KSW host, so plugins unit-test with `cargo test`.
//!
//! [`TestHost`] holds what the host would hand over (pod, nodes, node name,
//! config, JSON lists) in thread-local state that the SDK's import
//! stand-ins read; each hook method runs the same code path as the wasm
//! export and returns what the host would see. [`proto`] builds the
//! protobuf bytes of test pods and nodes.
//!
//! ```
//! use kguest::testing::{TestHost, proto::PodBuilder};
//! let host = TestHost::new();
//! host.set_pod(PodBuilder::new("p").node_name("n1").build());
//! host.set_node_name("n1");
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use crate::hooks::*;
use crate::{Code, UnknownCode, rt};

pub mod proto;

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
struct HostState {
    pod: Option<Vec<u8>>,
    target_pod: Option<Vec<u8>>,
    node_name: Option<Vec<u8>>,
    config: Option<Vec<u8>>,
    filtered_node_list: Option<Vec<u8>>,
    node_score_list: Option<Vec<u8>>,
    node_to_status_map: Option<Vec<u8>>,
    /// Nodes in the order added (the order of the node list).
    nodes: Vec<(Vec<u8>, Vec<u8>)>,
    node_list: Option<Vec<u8>>,
    image_states: BTreeMap<Vec<u8>, Vec<u8>>,
    waiting: BTreeMap<Vec<u8>, Vec<u8>>,
    rejected: Vec<String>,
    severity: i32,
    calls: BTreeMap<&'static str, usize>,
    // Per call.
    reason: Option<String>,
    node_names: Option<Vec<String>>,
    nominated: Option<String>,
    normalized: Option<Vec<u8>>,
    events: Option<Vec<(u32, u32)>>,
    // Whole test.
    logs: Vec<LogLine>,
    recorded_events: Vec<String>,
    /// Built on first use from `nodes` (see `derived`).
    derived_list: Option<Vec<u8>>,
    derived_states: Option<BTreeMap<Vec<u8>, Vec<u8>>>,
}

std::thread_local! {
    static HOST: RefCell<HostState> = RefCell::new(HostState::default());
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
            .map(|(k, v)| std::format!("{}:{v}", crate::handle::json_string(k)))
            .collect();
        out.insert(
            node_name.to_vec(),
            std::format!("{{{}}}", body.join(",")).into_bytes(),
        );
    }
    out
}

fn text(b: &[u8]) -> String {
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

/// What the host sees after a hook returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The raw status code.
    pub code: i32,
    /// The reason sent with `result.status_reason`, if any.
    pub reason: Option<String>,
}

impl Outcome {
    pub fn code(&self) -> Result<Code, UnknownCode> {
        Code::try_from(self.code)
    }

    pub fn is_success(&self) -> bool {
        self.code == 0
    }

    /// The reason, or `""`.
    pub fn reason(&self) -> &str {
        self.reason.as_deref().unwrap_or("")
    }
}

/// The native test host. Creating one resets the thread's host and SDK
/// state (a fresh guest instance).
#[derive(Debug)]
pub struct TestHost {
    _private: (),
}

impl Default for TestHost {
    fn default() -> Self {
        Self::new()
    }
}

impl TestHost {
    pub fn new() -> TestHost {
        HOST.with(|h| *h.borrow_mut() = HostState::default());
        crate::sys::reset();
        TestHost { _private: () }
    }

    fn with<R>(&self, f: impl FnOnce(&mut HostState) -> R) -> R {
        HOST.with(|h| f(&mut h.borrow_mut()))
    }

    /// The plugin config (`PluginConfig.GuestConfig`).
    pub fn set_config(&self, bytes: impl Into<Vec<u8>>) -> &Self {
        let b = bytes.into();
        self.with(|h| h.config = Some(b));
        self
    }

    /// The pod being scheduled, as protobuf bytes.
    pub fn set_pod(&self, bytes: impl Into<Vec<u8>>) -> &Self {
        let b = bytes.into();
        self.with(|h| h.pod = Some(b));
        self
    }

    /// The other pod of AddPod/RemovePod.
    pub fn set_target_pod(&self, bytes: impl Into<Vec<u8>>) -> &Self {
        let b = bytes.into();
        self.with(|h| h.target_pod = Some(b));
        self
    }

    pub fn set_node_name(&self, name: &str) -> &Self {
        let b = name.as_bytes().to_vec();
        self.with(|h| h.node_name = Some(b));
        self
    }

    /// A node the `k8s.io/api.node` stand-in can return. Added nodes also
    /// make up the node list (`k8s.io/api.nodeList`, in the order added)
    /// and the image states (`nodeImageStates`, computed as the scheduler
    /// does), unless those are set explicitly.
    pub fn add_node(&self, name: &str, bytes: impl Into<Vec<u8>>) -> &Self {
        let b = bytes.into();
        self.with(|h| {
            h.nodes.push((name.as_bytes().to_vec(), b));
            h.derived_list = None;
            h.derived_states = None;
        });
        self
    }

    /// The bytes `k8s.io/api.nodeList` returns (a protobuf `NodeList`),
    /// instead of the list built from [`TestHost::add_node`].
    pub fn set_node_list(&self, bytes: impl Into<Vec<u8>>) -> &Self {
        let b = bytes.into();
        self.with(|h| h.node_list = Some(b));
        self
    }

    /// The JSON `nodeImageStates` returns for `node`, instead of the states
    /// computed from the added nodes.
    pub fn set_image_states(&self, node: &str, json: &str) -> &Self {
        let b = json.as_bytes().to_vec();
        self.with(|h| h.image_states.insert(node.as_bytes().to_vec(), b));
        self
    }

    /// A pod waiting on Permit: `handle.get_waiting_pod` returns `bytes`
    /// for `uid`, and `handle.reject_waiting_pod` answers true for it.
    pub fn add_waiting_pod(&self, uid: &str, bytes: impl Into<Vec<u8>>) -> &Self {
        let b = bytes.into();
        self.with(|h| h.waiting.insert(uid.as_bytes().to_vec(), b));
        self
    }

    /// The UIDs passed to `handle.reject_waiting_pod` so far.
    pub fn rejected_waiting_pods(&self) -> Vec<String> {
        self.with(|h| h.rejected.clone())
    }

    /// The `EventMessage` JSONs sent with `handle.eventrecorder.eventf`.
    pub fn events(&self) -> Vec<String> {
        self.with(|h| h.recorded_events.clone())
    }

    pub fn set_filtered_node_list(&self, json: &str) -> &Self {
        let b = json.as_bytes().to_vec();
        self.with(|h| h.filtered_node_list = Some(b));
        self
    }

    pub fn set_node_score_list(&self, json: &str) -> &Self {
        let b = json.as_bytes().to_vec();
        self.with(|h| h.node_score_list = Some(b));
        self
    }

    pub fn set_node_to_status_map(&self, json: &str) -> &Self {
        let b = json.as_bytes().to_vec();
        self.with(|h| h.node_to_status_map = Some(b));
        self
    }

    /// The klog threshold the `severity` import reports (default 0, info).
    pub fn set_log_severity(&self, severity: i32) -> &Self {
        self.with(|h| h.severity = severity);
        self
    }

    /// How many times the guest called a getter, by import name
    /// (`"currentPod"`, `"node"`, ...), counting retries after a grow.
    pub fn calls(&self, import: &str) -> usize {
        self.with(|h| h.calls.get(import).copied().unwrap_or(0))
    }

    /// Log lines sent so far.
    pub fn logs(&self) -> Vec<LogLine> {
        self.with(|h| h.logs.clone())
    }

    /// PreFilter's `result.node_names` from the last call, if sent.
    pub fn node_names(&self) -> Option<Vec<String>> {
        self.with(|h| h.node_names.clone())
    }

    /// NormalizeScore's `result.normalized_score_list` from the last call.
    pub fn normalized_score_list(&self) -> Option<String> {
        self.with(|h| h.normalized.as_deref().map(text))
    }

    /// `result.cluster_events` from the last call, as `(resource, action)`.
    pub fn cluster_events(&self) -> Option<Vec<(u32, u32)>> {
        self.with(|h| h.events.clone())
    }

    /// Clears per-call results, runs `f`, and collects the reason.
    fn run<R>(&self, f: impl FnOnce() -> R) -> (R, Option<String>) {
        self.with(|h| {
            h.reason = None;
            h.node_names = None;
            h.nominated = None;
            h.normalized = None;
            h.events = None;
        });
        crate::sys::enter();
        let r = f();
        crate::sys::exit();
        (r, self.with(|h| h.reason.clone()))
    }

    fn status(&self, f: impl FnOnce() -> i32) -> Outcome {
        let (code, reason) = self.run(f);
        Outcome { code, reason }
    }

    /// Builds a [`Load`](crate::Load) plugin from the config set with
    /// [`set_config`](Self::set_config), as its `_start` export does;
    /// `Err` is the message the guest would refuse the load with.
    #[allow(clippy::result_large_err)] // see `Load::load`
    pub fn load<P: crate::Load>(&self) -> Result<P, String> {
        let (r, _) = self.run(|| P::load(crate::config()));
        r.map_err(|e| e.parts().collect())
    }

    /// The `prefilter` export of a plugin that does not list `prefilter`:
    /// starts a new scheduling cycle.
    pub fn new_cycle<P: Plugin>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::prefilter_reset(p))
    }

    /// The `prefilter` export of a plugin that lists `prefilter`.
    pub fn pre_filter<P: PreFilter>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::prefilter(p))
    }

    pub fn filter<P: Filter>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::filter(p))
    }

    /// Sets the node name, then runs `filter`.
    pub fn filter_node<P: Filter>(&self, p: &mut P, node: &str) -> Outcome {
        self.set_node_name(node);
        self.filter(p)
    }

    pub fn add_pod<P: PreFilterExtensions>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::addpod(p))
    }

    pub fn remove_pod<P: PreFilterExtensions>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::removepod(p))
    }

    /// Returns the outcome, the nominating mode and the nominated node.
    pub fn post_filter<P: PostFilter>(&self, p: &mut P) -> (Outcome, u32, Option<String>) {
        let (packed, reason) = self.run(|| rt::postfilter(p));
        let nominated = self.with(|h| h.nominated.clone());
        (
            Outcome {
                code: packed as i32,
                reason,
            },
            (packed as u64 >> 32) as u32,
            nominated,
        )
    }

    pub fn pre_score<P: PreScore>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::prescore(p))
    }

    /// Returns the score and the outcome, unpacked from the `i64`.
    pub fn score<P: Score>(&self, p: &mut P) -> (i32, Outcome) {
        let (packed, reason) = self.run(|| rt::score(p));
        (
            (packed as u64 >> 32) as u32 as i32,
            Outcome {
                code: packed as i32,
                reason,
            },
        )
    }

    /// Sets the node name, then runs `score`.
    pub fn score_node<P: Score>(&self, p: &mut P, node: &str) -> (i32, Outcome) {
        self.set_node_name(node);
        self.score(p)
    }

    pub fn normalize_score<P: NormalizeScore>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::normalizescore(p))
    }

    pub fn reserve<P: Reserve>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::reserve(p))
    }

    pub fn unreserve<P: Reserve>(&self, p: &mut P) {
        self.run(|| rt::unreserve(p));
    }

    /// Returns the outcome and the timeout in milliseconds.
    pub fn permit<P: Permit>(&self, p: &mut P) -> (Outcome, u32) {
        let (packed, reason) = self.run(|| rt::permit(p));
        let packed = packed as u64;
        (
            Outcome {
                code: (packed >> 32) as u32 as i32,
                reason,
            },
            packed as u32,
        )
    }

    pub fn pre_bind<P: PreBind>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::prebind(p))
    }

    pub fn bind<P: Bind>(&self, p: &mut P) -> Outcome {
        self.status(|| rt::bind(p))
    }

    pub fn post_bind<P: PostBind>(&self, p: &mut P) {
        self.run(|| rt::postbind(p));
    }

    pub fn enqueue<P: EnqueueExtensions>(&self, p: &mut P) -> Option<Vec<(u32, u32)>> {
        self.run(|| rt::enqueue(p));
        self.cluster_events()
    }
}
