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

use std::string::String;
use std::vec::Vec;

use crate::hooks::*;
use crate::{Code, UnknownCode, rt};

pub(crate) mod host_state;
pub mod proto;

use host_state::{HOST, HostState, text};
pub use host_state::{LogLine, image_states};

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
