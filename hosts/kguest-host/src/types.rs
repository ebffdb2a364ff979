//! Plain values that cross the host API: status codes, hooks, cluster events.

use std::fmt;
use std::time::Duration;

/// A scheduler status code as returned by the guest.
///
/// This is an open enum: KSW's Go host passes any `int32` straight into
/// `framework.Code`, so unknown values are kept rather than rejected.
/// Use [`Code::is_known`] (or `PluginConfig::strict_status`) to police them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Code(pub i32);

impl Code {
    /// The plugin accepts the pod / node.
    pub const SUCCESS: Code = Code(0);
    /// An internal plugin error.
    pub const ERROR: Code = Code(1);
    /// The pod does not fit, but preemption may help.
    pub const UNSCHEDULABLE: Code = Code(2);
    /// The pod does not fit and preemption will not help.
    pub const UNSCHEDULABLE_AND_UNRESOLVABLE: Code = Code(3);
    /// Permit: wait for the returned timeout.
    pub const WAIT: Code = Code(4);
    /// The plugin opts out of this extension point for this pod.
    pub const SKIP: Code = Code(5);

    /// Whether the value is one of the six codes the scheduler framework defines.
    pub const fn is_known(self) -> bool {
        matches!(self.0, 0..=5)
    }

    /// The framework's name for a known code.
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "Success",
            1 => "Error",
            2 => "Unschedulable",
            3 => "UnschedulableAndUnresolvable",
            4 => "Wait",
            5 => "Skip",
            _ => return None,
        })
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "Code({})", self.0),
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The outcome of a hook: a code plus the reason the guest reported through
/// `k8s.io/scheduler.result.status_reason` during the same call (if any).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Status {
    /// The status code returned by the export.
    pub code: Code,
    /// The reason string, decoded as lossy UTF-8.
    pub reason: Option<String>,
}

impl Status {
    /// A success status without a reason.
    pub const fn success() -> Status {
        Status {
            code: Code::SUCCESS,
            reason: None,
        }
    }

    /// Whether the code is [`Code::SUCCESS`].
    pub fn is_success(&self) -> bool {
        self.code == Code::SUCCESS
    }
}

/// PreFilter result: status plus the optional node-name restriction the
/// guest reported through `result.node_names` (`None` means all nodes).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PreFilterResult {
    /// Status of the call.
    pub status: Status,
    /// Nodes to consider, or `None` for all of them.
    pub node_names: Option<Vec<String>>,
}

/// PostFilter nominating mode (high 32 bits of the `postfilter` result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct NominatingMode(pub i32);

impl NominatingMode {
    /// Leave the nomination unchanged.
    pub const NOOP: NominatingMode = NominatingMode(0);
    /// Replace the nomination with `nominated_node_name`.
    pub const OVERRIDE: NominatingMode = NominatingMode(1);
}

/// PostFilter result.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PostFilterResult {
    /// Status of the call (low 32 bits of the result).
    pub status: Status,
    /// Nominating mode (high 32 bits of the result).
    pub mode: NominatingMode,
    /// Set through `result.nominated_node_name`, if the guest called it.
    pub nominated_node_name: Option<String>,
}

/// NormalizeScore result.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NormalizeScoreResult {
    /// Status of the call.
    pub status: Status,
    /// The `{nodeName: score}` map the guest passed to
    /// `result.normalized_score_list`, in the guest's order; `None` (or
    /// empty) keeps the input scores, as KSW does.
    pub scores: Option<Vec<(String, i64)>>,
}

impl NormalizeScoreResult {
    /// Applies the normalized scores to `scores` by node name, as KSW does
    /// (a node the guest did not mention keeps its score). Returns the
    /// names the guest gave that are not in `scores`.
    pub fn apply<S: AsRef<str>>(&self, scores: &mut [(S, i64)]) -> Vec<String> {
        let Some(normalized) = &self.scores else {
            return Vec::new();
        };
        let mut unknown = Vec::new();
        for (name, score) in normalized {
            match scores.iter_mut().find(|(n, _)| n.as_ref() == name) {
                Some((_, s)) => *s = *score,
                None => unknown.push(name.clone()),
            }
        }
        unknown
    }
}

/// Permit result. Note KSW's reversed packing: code in the high half.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PermitResult {
    /// Status of the call (high 32 bits of the result).
    pub status: Status,
    /// Wait timeout (low 32 bits, milliseconds, unsigned).
    pub timeout: Duration,
}

/// Resource kind of a cluster event (`gvk` field of `result.cluster_events`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct EventResource(pub u32);

impl EventResource {
    /// Pods.
    pub const POD: EventResource = EventResource(0);
    /// Nodes.
    pub const NODE: EventResource = EventResource(1);
    /// PersistentVolumes.
    pub const PERSISTENT_VOLUME: EventResource = EventResource(2);
    /// PersistentVolumeClaims.
    pub const PERSISTENT_VOLUME_CLAIM: EventResource = EventResource(3);
    /// PodSchedulingContexts.
    pub const POD_SCHEDULING_CONTEXT: EventResource = EventResource(4);
    /// ResourceClaims.
    pub const RESOURCE_CLAIM: EventResource = EventResource(5);
    /// StorageClasses.
    pub const STORAGE_CLASS: EventResource = EventResource(6);
    /// CSINodes.
    pub const CSI_NODE: EventResource = EventResource(7);
    /// CSIDrivers.
    pub const CSI_DRIVER: EventResource = EventResource(8);
    /// CSIStorageCapacities.
    pub const CSI_STORAGE_CAPACITY: EventResource = EventResource(9);
    /// Any resource.
    pub const WILDCARD: EventResource = EventResource(10);
}

/// Action bits of a cluster event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct ActionType(pub u32);

impl ActionType {
    /// Object added.
    pub const ADD: ActionType = ActionType(1);
    /// Object deleted.
    pub const DELETE: ActionType = ActionType(2);
    /// Node allocatable changed.
    pub const UPDATE_NODE_ALLOCATABLE: ActionType = ActionType(4);
    /// Node labels changed.
    pub const UPDATE_NODE_LABEL: ActionType = ActionType(8);
    /// Node taints changed.
    pub const UPDATE_NODE_TAINT: ActionType = ActionType(16);
    /// Node conditions changed.
    pub const UPDATE_NODE_CONDITION: ActionType = ActionType(32);
    /// Every action.
    pub const ALL: ActionType = ActionType(63);
}

/// One event the plugin wants to be re-queued on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClusterEvent {
    /// What kind of object.
    pub resource: EventResource,
    /// Which actions.
    pub action: ActionType,
}

impl ClusterEvent {
    /// The set KSW registers when the guest exports no `enqueue` or reports
    /// no events: Pod, Node, CSINode, PV, PVC and StorageClass, all actions.
    pub fn defaults() -> Vec<ClusterEvent> {
        [
            EventResource::POD,
            EventResource::NODE,
            EventResource::CSI_NODE,
            EventResource::PERSISTENT_VOLUME,
            EventResource::PERSISTENT_VOLUME_CLAIM,
            EventResource::STORAGE_CLASS,
        ]
        .into_iter()
        .map(|resource| ClusterEvent {
            resource,
            action: ActionType::ALL,
        })
        .collect()
    }
}

/// A guest export the host knows how to call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    /// `enqueue: () -> ()`
    Enqueue,
    /// `prefilter: () -> i32`
    PreFilter,
    /// `filter: () -> i32`
    Filter,
    /// `postfilter: () -> i64`
    PostFilter,
    /// `prescore: () -> i32`
    PreScore,
    /// `score: () -> i64`
    Score,
    /// `normalizescore: () -> i32`
    NormalizeScore,
    /// `reserve: () -> i32`
    Reserve,
    /// `unreserve: () -> ()`
    Unreserve,
    /// `permit: () -> i64`
    Permit,
    /// `prebind: () -> i32`
    PreBind,
    /// `bind: () -> i32`
    Bind,
    /// `postbind: () -> ()`
    PostBind,
    /// `addpod: () -> i32`
    AddPod,
    /// `removepod: () -> i32`
    RemovePod,
}

/// Result type of a hook export (all hooks take no parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookResult {
    /// `() -> ()`
    Unit,
    /// `() -> i32`
    I32,
    /// `() -> i64`
    I64,
}

impl Hook {
    /// Every hook, in scheduling-framework order.
    pub const ALL: [Hook; 15] = [
        Hook::Enqueue,
        Hook::PreFilter,
        Hook::Filter,
        Hook::PostFilter,
        Hook::PreScore,
        Hook::Score,
        Hook::NormalizeScore,
        Hook::Reserve,
        Hook::Unreserve,
        Hook::Permit,
        Hook::PreBind,
        Hook::Bind,
        Hook::PostBind,
        Hook::AddPod,
        Hook::RemovePod,
    ];

    /// The export name.
    pub const fn export_name(self) -> &'static str {
        match self {
            Hook::Enqueue => "enqueue",
            Hook::PreFilter => "prefilter",
            Hook::Filter => "filter",
            Hook::PostFilter => "postfilter",
            Hook::PreScore => "prescore",
            Hook::Score => "score",
            Hook::NormalizeScore => "normalizescore",
            Hook::Reserve => "reserve",
            Hook::Unreserve => "unreserve",
            Hook::Permit => "permit",
            Hook::PreBind => "prebind",
            Hook::Bind => "bind",
            Hook::PostBind => "postbind",
            Hook::AddPod => "addpod",
            Hook::RemovePod => "removepod",
        }
    }

    /// The hook whose export has this name.
    pub fn from_export_name(name: &str) -> Option<Hook> {
        Hook::ALL.into_iter().find(|h| h.export_name() == name)
    }

    /// The exact result type KSW requires.
    pub const fn result(self) -> HookResult {
        match self {
            Hook::Enqueue | Hook::Unreserve | Hook::PostBind => HookResult::Unit,
            Hook::PostFilter | Hook::Score | Hook::Permit => HookResult::I64,
            _ => HookResult::I32,
        }
    }

    const fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

impl fmt::Display for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.export_name())
    }
}

/// The set of hooks a guest exports.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HookSet(u16);

impl HookSet {
    /// The empty set.
    pub const EMPTY: HookSet = HookSet(0);

    /// Whether `hook` is in the set.
    pub const fn contains(self, hook: Hook) -> bool {
        self.0 & hook.bit() != 0
    }

    /// Adds `hook`.
    pub const fn with(self, hook: Hook) -> HookSet {
        HookSet(self.0 | hook.bit())
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Iterates in [`Hook::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Hook> {
        Hook::ALL.into_iter().filter(move |h| self.contains(*h))
    }
}

impl FromIterator<Hook> for HookSet {
    fn from_iter<I: IntoIterator<Item = Hook>>(iter: I) -> Self {
        iter.into_iter().fold(HookSet::EMPTY, HookSet::with)
    }
}

impl fmt::Debug for HookSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for HookSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for hook in self.iter() {
            if !first {
                f.write_str("|")?;
            }
            first = false;
            f.write_str(hook.export_name())?;
        }
        if first {
            f.write_str("(none)")?;
        }
        Ok(())
    }
}

/// KSW's registration rule (`scheduler/plugin/mask.go`), re-derived.
///
/// Exports map onto framework interfaces (`unreserve` counts as Reserve,
/// `addpod`/`removepod` as PreFilterExtensions). The "coupled" interfaces
/// (enqueue, prefilter, prefilter extensions, postfilter, prescore,
/// normalizescore, prebind, postbind) are masked away and the remaining
/// {filter, score, reserve, permit, bind} combination must be one KSW
/// enumerates. If nothing remains, only a guest whose *entire* export set
/// is `prefilter`, or is only prefilter extensions, is accepted.
pub(crate) fn ksw_accepts(hooks: HookSet) -> bool {
    const F: u8 = 1;
    const S: u8 = 2;
    const R: u8 = 4;
    const P: u8 = 8;
    const B: u8 = 16;
    let mut main = 0u8;
    let mut filter_only = true; // exports are prefilter only
    let mut ext_only = true; // exports are addpod/removepod only
    for hook in hooks.iter() {
        match hook {
            Hook::Filter => main |= F,
            Hook::Score => main |= S,
            Hook::Reserve | Hook::Unreserve => main |= R,
            Hook::Permit => main |= P,
            Hook::Bind => main |= B,
            _ => {}
        }
        if hook != Hook::PreFilter {
            filter_only = false;
        }
        if !matches!(hook, Hook::AddPod | Hook::RemovePod) {
            ext_only = false;
        }
    }
    const ACCEPTED: [u8; 23] = [
        F,
        F | S,
        F | S | B,
        R,
        P,
        B,
        F | R,
        F | P,
        F | B,
        S,
        S | R,
        S | P,
        S | B,
        R | B,
        P | B,
        F | S | R,
        F | S | P,
        F | S | B | R,
        F | S | B | P,
        S | R | B,
        S | P | B,
        R | P | B,
        F | S | R | P | B,
    ];
    if main != 0 {
        return ACCEPTED.contains(&main);
    }
    !hooks.is_empty() && (filter_only || ext_only)
}
