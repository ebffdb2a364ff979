//! Plain values that cross the host API: status codes, hooks, cluster events.
//! The numbers, names and the hook-set rule come from `kguest_abi`, the one
//! copy of the ABI.

use std::fmt;

use kguest_abi as abi;
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
    pub const SUCCESS: Code = Code(abi::code::SUCCESS as i32);
    /// An internal plugin error.
    pub const ERROR: Code = Code(abi::code::ERROR as i32);
    /// The pod does not fit, but preemption may help.
    pub const UNSCHEDULABLE: Code = Code(abi::code::UNSCHEDULABLE as i32);
    /// The pod does not fit and preemption will not help.
    pub const UNSCHEDULABLE_AND_UNRESOLVABLE: Code =
        Code(abi::code::UNSCHEDULABLE_AND_UNRESOLVABLE as i32);
    /// Permit: wait for the returned timeout.
    pub const WAIT: Code = Code(abi::code::WAIT as i32);
    /// The plugin opts out of this extension point for this pod.
    pub const SKIP: Code = Code(abi::code::SKIP as i32);

    /// Whether the value is one of the six codes the scheduler framework defines.
    pub const fn is_known(self) -> bool {
        self.name().is_some()
    }

    /// The framework's name for a known code.
    pub const fn name(self) -> Option<&'static str> {
        abi::code::name(self.0 as i64)
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
    pub const POD: EventResource = EventResource(abi::event::POD);
    /// Nodes.
    pub const NODE: EventResource = EventResource(abi::event::NODE);
    /// PersistentVolumes.
    pub const PERSISTENT_VOLUME: EventResource = EventResource(abi::event::PERSISTENT_VOLUME);
    /// PersistentVolumeClaims.
    pub const PERSISTENT_VOLUME_CLAIM: EventResource =
        EventResource(abi::event::PERSISTENT_VOLUME_CLAIM);
    /// PodSchedulingContexts.
    pub const POD_SCHEDULING_CONTEXT: EventResource =
        EventResource(abi::event::POD_SCHEDULING_CONTEXT);
    /// ResourceClaims.
    pub const RESOURCE_CLAIM: EventResource = EventResource(abi::event::RESOURCE_CLAIM);
    /// StorageClasses.
    pub const STORAGE_CLASS: EventResource = EventResource(abi::event::STORAGE_CLASS);
    /// CSINodes.
    pub const CSI_NODE: EventResource = EventResource(abi::event::CSI_NODE);
    /// CSIDrivers.
    pub const CSI_DRIVER: EventResource = EventResource(abi::event::CSI_DRIVER);
    /// CSIStorageCapacities.
    pub const CSI_STORAGE_CAPACITY: EventResource = EventResource(abi::event::CSI_STORAGE_CAPACITY);
    /// Any resource.
    pub const WILDCARD: EventResource = EventResource(abi::event::WILDCARD);
}

/// Action bits of a cluster event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct ActionType(pub u32);

impl ActionType {
    /// Object added.
    pub const ADD: ActionType = ActionType(abi::event::ADD);
    /// Object deleted.
    pub const DELETE: ActionType = ActionType(abi::event::DELETE);
    /// Node allocatable changed.
    pub const UPDATE_NODE_ALLOCATABLE: ActionType = ActionType(abi::event::UPDATE_NODE_ALLOCATABLE);
    /// Node labels changed.
    pub const UPDATE_NODE_LABEL: ActionType = ActionType(abi::event::UPDATE_NODE_LABEL);
    /// Node taints changed.
    pub const UPDATE_NODE_TAINT: ActionType = ActionType(abi::event::UPDATE_NODE_TAINT);
    /// Node conditions changed.
    pub const UPDATE_NODE_CONDITION: ActionType = ActionType(abi::event::UPDATE_NODE_CONDITION);
    /// Every action.
    pub const ALL: ActionType = ActionType(abi::event::ALL);
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
    /// no events: Pod, Node, CSINode, PV, PVC and StorageClass, with the
    /// scheduler framework's `All` actions (8191 at Kubernetes 1.33.4).
    pub fn defaults() -> Vec<ClusterEvent> {
        abi::event::DEFAULT_RESOURCES
            .into_iter()
            .map(|resource| ClusterEvent {
                resource: EventResource(resource),
                action: ActionType(abi::event::HOST_DEFAULT_ACTIONS),
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
    /// Every hook, in the order `kguest_abi::HOOKS` lists them (the order
    /// the scheduler calls them).
    pub const ALL: [Hook; 15] = {
        let mut all = [Hook::Enqueue; 15];
        let mut i = 0;
        while i < all.len() {
            all[i] = match Hook::from_bit(abi::HOOKS[i].bit) {
                Some(hook) => hook,
                None => panic!("kguest_abi::HOOKS has a hook kguest-host does not know"),
            };
            i += 1;
        }
        all
    };

    /// This hook's bit in `kguest_abi::bits` (the one mapping between the
    /// enum and the ABI table).
    pub const fn bit(self) -> u32 {
        use abi::bits;
        match self {
            Hook::Enqueue => bits::ENQUEUE,
            Hook::PreFilter => bits::PREFILTER,
            Hook::Filter => bits::FILTER,
            Hook::PostFilter => bits::POSTFILTER,
            Hook::PreScore => bits::PRESCORE,
            Hook::Score => bits::SCORE,
            Hook::NormalizeScore => bits::NORMALIZESCORE,
            Hook::Reserve => bits::RESERVE,
            Hook::Unreserve => bits::UNRESERVE,
            Hook::Permit => bits::PERMIT,
            Hook::PreBind => bits::PREBIND,
            Hook::Bind => bits::BIND,
            Hook::PostBind => bits::POSTBIND,
            Hook::AddPod => bits::ADDPOD,
            Hook::RemovePod => bits::REMOVEPOD,
        }
    }

    const fn from_bit(bit: u32) -> Option<Hook> {
        const VARIANTS: [Hook; 15] = [
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
        let mut i = 0;
        while i < VARIANTS.len() {
            if VARIANTS[i].bit() == bit {
                return Some(VARIANTS[i]);
            }
            i += 1;
        }
        None
    }

    /// The ABI table's entry for this hook.
    const fn spec(self) -> &'static abi::Hook {
        let bit = self.bit();
        let mut i = 0;
        while i < abi::HOOKS.len() {
            if abi::HOOKS[i].bit == bit {
                return &abi::HOOKS[i];
            }
            i += 1;
        }
        // Every variant is in the table (`ALL` is built from it).
        &abi::HOOKS[0]
    }

    /// The export name.
    pub const fn export_name(self) -> &'static str {
        self.spec().name
    }

    /// The hook whose export has this name.
    pub fn from_export_name(name: &str) -> Option<Hook> {
        abi::find_hook(name).and_then(|h| Hook::from_bit(h.bit))
    }

    /// The exact result type KSW requires.
    pub const fn result(self) -> HookResult {
        match self.spec().result {
            None => HookResult::Unit,
            Some(abi::ValType::I32) => HookResult::I32,
            Some(abi::ValType::I64) => HookResult::I64,
        }
    }
}

impl fmt::Display for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.export_name())
    }
}

/// The set of hooks a guest exports (a `kguest_abi::bits` set).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HookSet(u32);

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

    /// The set as `kguest_abi::bits`.
    pub const fn bits(self) -> u32 {
        self.0
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
