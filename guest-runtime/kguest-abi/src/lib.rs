//! The [kube-scheduler-wasm-extension] (KSW) plugin ABI as data: the
//! functions the host provides ([`IMPORTS`]), the hook functions a plugin
//! exports ([`HOOKS`]), the status codes ([`code`]), the cluster-event
//! resources and actions ([`event`]) and which sets of hooks the scheduler
//! accepts ([`ksw_load`]).
//!
//! The one copy of these facts in kguest: the SDK (`kguest`, its
//! `export!` check and its status and event types), the wasmtime host
//! (`kguest-host`: its hook enum, hook sets, status codes, event constants,
//! its load rule and its linker, which a test holds equal to [`IMPORTS`]),
//! `kguest check` and `kguest new` all read them from here.
//!
//! `no_std`, no dependencies, no allocation. The facts were read from KSW at
//! commit 9b2791f (`scheduler/plugin/host.go`, `guest.go`, `mask.go`).
//!
//! # Two hook-set rules
//!
//! **What KSW's host loads** ([`ksw_load`]), from the exported names
//! (`guest.go` `detectInterfaces`, then `mask.go` `maskInterfaces`):
//!
//! 1. Each known export sets an interface bit; `reserve` and `unreserve`
//!    set the **same** one (ReservePlugin), `addpod` and `removepod` set
//!    PreFilterExtensions.
//! 2. No known export at all: refused, `wasm: guest does not export any
//!    plugin functions`.
//! 3. The "main" interfaces are Filter, Score, Reserve, Permit, Bind. If at
//!    least one is there, the set of them must be one the host enumerates:
//!    every non-empty set is accepted **except** `reserve+permit`,
//!    `filter+reserve+permit`, `filter+reserve+bind`, `filter+permit+bind`,
//!    `score+reserve+permit`, `filter+score+reserve+permit`,
//!    `filter+reserve+permit+bind` and `score+reserve+permit+bind`, which
//!    are refused with `wasm: filter, score, reserve, permit or bind must
//!    be exported`.
//! 4. With no main interface, only exactly PreFilter, or exactly
//!    PreFilterExtensions, loads; anything else gets the same error.
//!
//! So KSW **loads** a guest exporting `reserve` without `unreserve` (or the
//! reverse). It then calls the missing function when the scheduler runs
//! that half of the Reserve interface, and its `guest.go` does so without
//! checking that the export exists: read from its source (KSW's host could
//! not be run here), that is a Go nil-function panic in the scheduler, not a
//! status. [`ksw_warning`] reports it; `kguest check` prints it as a
//! warning (the module loads), and kguest's host, which loads the guest as
//! KSW does, treats the missing half as not exported and calls nothing.
//!
//! The other hooks are called only beside their main hook: `postfilter`
//! with `filter`; `prescore` and `normalizescore` with `score`; `prebind`
//! and `postbind` with `bind` ([`never_called`] lists the others).
//!
//! **The SDK's rule** for `export!` lists ([`hook_set_error`]) is stricter
//! on purpose: it is checked where the plugin is written, so it refuses
//! what KSW would load but never call, or call and crash on: rule 3, plus
//! the coupling above made an error, `addpod` and `removepod` requiring
//! `filter`, and at least one main hook (a plugin of only `prefilter` does
//! nothing). `prefilter` and `enqueue` go with anything; each hook at most
//! once. (`export!` pairs `unreserve` with `reserve` itself, so an SDK
//! guest never has the unpaired set.)
//!
//! [kube-scheduler-wasm-extension]: https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension

#![no_std]
#![forbid(unsafe_code)]

/// One bit per hook, for hook sets.
pub mod bits {
    pub const FILTER: u32 = 1;
    pub const SCORE: u32 = 1 << 1;
    pub const RESERVE: u32 = 1 << 2;
    pub const PERMIT: u32 = 1 << 3;
    pub const BIND: u32 = 1 << 4;
    pub const PREFILTER: u32 = 1 << 5;
    pub const POSTFILTER: u32 = 1 << 6;
    pub const PRESCORE: u32 = 1 << 7;
    pub const NORMALIZESCORE: u32 = 1 << 8;
    pub const PREBIND: u32 = 1 << 9;
    pub const POSTBIND: u32 = 1 << 10;
    pub const ADDPOD: u32 = 1 << 11;
    pub const REMOVEPOD: u32 = 1 << 12;
    pub const ENQUEUE: u32 = 1 << 13;
    /// Only in sets of exported names: the SDK's `reserve` exports both.
    pub const UNRESERVE: u32 = 1 << 14;
    /// The hooks one of which a plugin must have.
    pub const MAIN: u32 = FILTER | SCORE | RESERVE | PERMIT | BIND;
}

/// Scheduler status codes as they cross the ABI (`framework.Code`): a
/// hook's `i32` result, or its half of a packed `i64`.
pub mod code {
    /// The plugin accepts the pod / node.
    pub const SUCCESS: u32 = 0;
    /// An internal plugin error.
    pub const ERROR: u32 = 1;
    /// The pod does not fit; preemption may help.
    pub const UNSCHEDULABLE: u32 = 2;
    /// The pod does not fit and preemption will not help.
    pub const UNSCHEDULABLE_AND_UNRESOLVABLE: u32 = 3;
    /// Permit: wait for the returned timeout.
    pub const WAIT: u32 = 4;
    /// The plugin opts out of this extension point for this pod.
    pub const SKIP: u32 = 5;

    /// The framework's name of each code, indexed by code.
    pub const NAMES: [&str; 6] = [
        "Success",
        "Error",
        "Unschedulable",
        "UnschedulableAndUnresolvable",
        "Wait",
        "Skip",
    ];

    /// The framework's name of `code`, if it is one of the six.
    pub const fn name(code: i64) -> Option<&'static str> {
        if code >= 0 && code < NAMES.len() as i64 {
            Some(NAMES[code as usize])
        } else {
            None
        }
    }
}

/// Cluster events as `result.cluster_events` carries them: 8-byte records
/// of a resource and an action set, little-endian `u32`s
/// (`scheduler/plugin/clusterevent.go`).
pub mod event {
    /// Pods.
    pub const POD: u32 = 0;
    /// Nodes.
    pub const NODE: u32 = 1;
    /// PersistentVolumes.
    pub const PERSISTENT_VOLUME: u32 = 2;
    /// PersistentVolumeClaims.
    pub const PERSISTENT_VOLUME_CLAIM: u32 = 3;
    /// PodSchedulingContexts.
    pub const POD_SCHEDULING_CONTEXT: u32 = 4;
    /// ResourceClaims.
    pub const RESOURCE_CLAIM: u32 = 5;
    /// StorageClasses.
    pub const STORAGE_CLASS: u32 = 6;
    /// CSINodes.
    pub const CSI_NODE: u32 = 7;
    /// CSIDrivers.
    pub const CSI_DRIVER: u32 = 8;
    /// CSIStorageCapacities.
    pub const CSI_STORAGE_CAPACITY: u32 = 9;
    /// Any resource.
    pub const WILDCARD: u32 = 10;

    /// Object added.
    pub const ADD: u32 = 1;
    /// Object deleted.
    pub const DELETE: u32 = 1 << 1;
    /// Node allocatable changed.
    pub const UPDATE_NODE_ALLOCATABLE: u32 = 1 << 2;
    /// Node labels changed.
    pub const UPDATE_NODE_LABEL: u32 = 1 << 3;
    /// Node taints changed.
    pub const UPDATE_NODE_TAINT: u32 = 1 << 4;
    /// Node conditions changed.
    pub const UPDATE_NODE_CONDITION: u32 = 1 << 5;
    /// Every action.
    pub const ALL: u32 = ADD
        | DELETE
        | UPDATE_NODE_ALLOCATABLE
        | UPDATE_NODE_LABEL
        | UPDATE_NODE_TAINT
        | UPDATE_NODE_CONDITION;

    /// The resources KSW registers when a guest exports no `enqueue` or
    /// reports no events (each with [`HOST_DEFAULT_ACTIONS`]).
    pub const DEFAULT_RESOURCES: [u32; 6] = [
        POD,
        NODE,
        CSI_NODE,
        PERSISTENT_VOLUME,
        PERSISTENT_VOLUME_CLAIM,
        STORAGE_CLASS,
    ];

    /// The actions of those default events: the host's own `framework.All`
    /// (Kubernetes 1.33.4: thirteen action bits, 8191), wider than the
    /// guest-side [`ALL`], which covers only the actions a guest can name.
    pub const HOST_DEFAULT_ACTIONS: u32 = (1 << 13) - 1;
}

use bits::*;

/// A wasm value type; only numbers cross the ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValType {
    I32,
    I64,
}

impl ValType {
    pub const fn as_str(self) -> &'static str {
        match self {
            I32 => "i32",
            I64 => "i64",
        }
    }
}

/// The host module with the Kubernetes objects.
pub const MODULE_API: &str = "k8s.io/api";
/// The host module with klog.
pub const MODULE_KLOG: &str = "k8s.io/klog";
/// The host module with the scheduling inputs and results.
pub const MODULE_SCHEDULER: &str = "k8s.io/scheduler";
/// WASI preview 1, which KSW instantiates when a guest imports it (TinyGo
/// guests do; kguest guests never need it).
pub const MODULE_WASI: &str = "wasi_snapshot_preview1";

/// A function the host provides.
#[derive(Debug)]
pub struct Import {
    pub module: &'static str,
    pub name: &'static str,
    pub params: &'static [ValType],
    pub results: &'static [ValType],
    /// `params -> results` as text, e.g. `(i32, i32) -> i32` (a test holds
    /// it equal to the two lists).
    pub signature: &'static str,
}

impl Import {
    /// Whether this is a WASI function rather than a KSW one.
    pub fn is_wasi(&self) -> bool {
        self.module == MODULE_WASI
    }
}

use ValType::{I32, I64};

const fn f(
    module: &'static str,
    name: &'static str,
    params: &'static [ValType],
    results: &'static [ValType],
    signature: &'static str,
) -> Import {
    Import {
        module,
        name,
        params,
        results,
        signature,
    }
}

/// Every function the host provides, with its signature.
pub static IMPORTS: &[Import] = &[
    f(
        MODULE_API,
        "node",
        &[I32, I32, I32, I32],
        &[I32],
        "(i32, i32, i32, i32) -> i32",
    ),
    f(
        MODULE_API,
        "nodeList",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_KLOG,
        "log",
        &[I32, I32, I32],
        &[],
        "(i32, i32, i32) -> ()",
    ),
    f(
        MODULE_KLOG,
        "logs",
        &[I32, I32, I32, I32, I32],
        &[],
        "(i32, i32, i32, i32, i32) -> ()",
    ),
    f(MODULE_KLOG, "severity", &[], &[I32], "() -> i32"),
    f(
        MODULE_SCHEDULER,
        "get_config",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "currentPod",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "targetPod",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "currentNodeName",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "filteredNodeList",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "nodeImageStates",
        &[I32, I32, I32, I32],
        &[I32],
        "(i32, i32, i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "nodeToStatusMap",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "nodeScoreList",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "result.status_reason",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.cluster_events",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.node_names",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.nominated_node_name",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.normalized_score_list",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "handle.eventrecorder.eventf",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "handle.reject_waiting_pod",
        &[I32, I32, I32, I32],
        &[],
        "(i32, i32, i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "handle.get_waiting_pod",
        &[I32, I32, I32, I32],
        &[],
        "(i32, i32, i32, i32) -> ()",
    ),
    f(
        MODULE_WASI,
        "fd_write",
        &[I32, I32, I32, I32],
        &[I32],
        "(i32, i32, i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "clock_time_get",
        &[I32, I64, I32],
        &[I32],
        "(i32, i64, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "random_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "args_sizes_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "args_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "environ_sizes_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "environ_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(MODULE_WASI, "proc_exit", &[I32], &[], "(i32) -> ()"),
];

/// The host function `module`.`name`, if the host provides it.
pub fn import(module: &str, name: &str) -> Option<&'static Import> {
    IMPORTS
        .iter()
        .find(|i| i.module == module && i.name == name)
}

/// A hook function a plugin may export. Hooks take no parameters.
#[derive(Debug)]
pub struct Hook {
    /// The export name.
    pub name: &'static str,
    /// Its bit in a hook set ([`bits`]).
    pub bit: u32,
    /// Its result, if it has one.
    pub result: Option<ValType>,
}

const fn hook(name: &'static str, bit: u32, result: Option<ValType>) -> Hook {
    Hook { name, bit, result }
}

/// Every hook export, in the order the scheduler calls them. (A `const`,
/// so `const fn`s such as the host's `Hook::export_name` can read it.)
pub const HOOKS: &[Hook] = &[
    hook("enqueue", ENQUEUE, None),
    hook("prefilter", PREFILTER, Some(I32)),
    hook("addpod", ADDPOD, Some(I32)),
    hook("removepod", REMOVEPOD, Some(I32)),
    hook("filter", FILTER, Some(I32)),
    hook("postfilter", POSTFILTER, Some(I64)),
    hook("prescore", PRESCORE, Some(I32)),
    hook("score", SCORE, Some(I64)),
    hook("normalizescore", NORMALIZESCORE, Some(I32)),
    hook("reserve", RESERVE, Some(I32)),
    hook("unreserve", UNRESERVE, None),
    hook("permit", PERMIT, Some(I64)),
    hook("prebind", PREBIND, Some(I32)),
    hook("bind", BIND, Some(I32)),
    hook("postbind", POSTBIND, None),
];

/// The hook exported as `name`, if it is one.
pub fn find_hook(name: &str) -> Option<&'static Hook> {
    HOOKS.iter().find(|h| h.name == name)
}

/// The names of the hooks in `set`, in [`HOOKS`] order.
pub fn hook_names(set: u32) -> impl Iterator<Item = &'static str> {
    HOOKS
        .iter()
        .filter(move |h| set & h.bit != 0)
        .map(|h| h.name)
}

/// Why the SDK's rule ([`hook_set_error`]) refuses an `export!` list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookSetError {
    /// A hook appears twice in a list.
    Duplicate,
    /// None of filter, score, reserve, permit, bind.
    NoMainHook,
    /// A combination of main hooks KSW does not enumerate.
    RejectedCombination,
    /// postfilter, addpod or removepod without filter.
    NeedsFilter,
    /// prescore or normalizescore without score.
    NeedsScore,
    /// prebind or postbind without bind.
    NeedsBind,
}

impl HookSetError {
    /// One line saying what is wrong.
    pub const fn as_str(self) -> &'static str {
        match self {
            HookSetError::Duplicate => "a hook is listed twice",
            HookSetError::NoMainHook => {
                "at least one of filter, score, reserve, permit, bind is needed"
            }
            HookSetError::RejectedCombination => {
                "kube-scheduler-wasm-extension rejects this combination of filter/score/reserve/permit/bind"
            }
            HookSetError::NeedsFilter => "postfilter, addpod and removepod need filter",
            HookSetError::NeedsScore => "prescore and normalizescore need score",
            HookSetError::NeedsBind => "prebind and postbind need bind",
        }
    }
}

/// Why KSW's host refuses to load a module ([`ksw_load`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KswRefusal {
    /// No hook export at all.
    NoPluginFunctions,
    /// Hooks, but none of filter, score, reserve, permit, bind, and not
    /// exactly `prefilter` or exactly prefilter extensions.
    NoMainHook,
    /// A combination of main hooks `mask.go`'s switch does not enumerate.
    RejectedCombination,
}

impl KswRefusal {
    /// KSW's error, word for word (`NoMainHook` and `RejectedCombination`
    /// share it).
    pub const fn ksw_message(self) -> &'static str {
        match self {
            KswRefusal::NoPluginFunctions => "wasm: guest does not export any plugin functions",
            KswRefusal::NoMainHook | KswRefusal::RejectedCombination => {
                "wasm: filter, score, reserve, permit or bind must be exported"
            }
        }
    }

    /// What KSW's message means for this module, in kguest's words.
    pub const fn explanation(self) -> &'static str {
        match self {
            KswRefusal::NoPluginFunctions => "the module exports no hook function",
            KswRefusal::NoMainHook => {
                "no filter, score, reserve, permit or bind, and not exactly `prefilter` \
                 or exactly `addpod`/`removepod`"
            }
            KswRefusal::RejectedCombination => {
                "kube-scheduler-wasm-extension does not register this combination of \
                 filter/score/reserve/permit/bind"
            }
        }
    }
}

/// Legal for KSW's host but unsafe at run time ([`ksw_warning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KswWarning {
    /// `reserve` without `unreserve`.
    ReserveWithoutUnreserve,
    /// `unreserve` without `reserve`.
    UnreserveWithoutReserve,
}

impl KswWarning {
    /// One line: what KSW does, and what kguest's host does instead.
    pub const fn as_str(self) -> &'static str {
        match self {
            KswWarning::ReserveWithoutUnreserve => {
                "exports `reserve` without `unreserve`: kube-scheduler-wasm-extension loads it \
                 (both set its Reserve interface) but calls the missing `unreserve` when a later \
                 step rejects the pod, which its source shows as an unchecked nil function (a \
                 scheduler panic; not run); kguest's host calls nothing there"
            }
            KswWarning::UnreserveWithoutReserve => {
                "exports `unreserve` without `reserve`: kube-scheduler-wasm-extension loads it \
                 (both set its Reserve interface) but calls the missing `reserve` for every \
                 scheduled pod, which its source shows as an unchecked nil function (a scheduler \
                 panic; not run); kguest's host calls nothing there"
            }
        }
    }
}

/// Main-hook sets `mask.go` does not enumerate.
const REJECTED_MAIN: [u32; 8] = [
    RESERVE | PERMIT,
    FILTER | RESERVE | PERMIT,
    FILTER | RESERVE | BIND,
    FILTER | PERMIT | BIND,
    SCORE | RESERVE | PERMIT,
    FILTER | SCORE | RESERVE | PERMIT,
    FILTER | RESERVE | PERMIT | BIND,
    SCORE | RESERVE | PERMIT | BIND,
];

/// Rule 1: whether KSW enumerates the main-hook set `main` (non-empty).
const fn main_set_accepted(main: u32) -> bool {
    let mut j = 0;
    while j < REJECTED_MAIN.len() {
        if REJECTED_MAIN[j] == main {
            return false;
        }
        j += 1;
    }
    true
}

/// The hooks in `set` the scheduler never calls because their main hook
/// is missing: postfilter without filter, prescore/normalizescore without
/// score, prebind/postbind without bind.
pub const fn never_called(set: u32) -> u32 {
    let mut out = 0;
    if set & FILTER == 0 {
        out |= set & POSTFILTER;
    }
    if set & SCORE == 0 {
        out |= set & (PRESCORE | NORMALIZESCORE);
    }
    if set & BIND == 0 {
        out |= set & (PREBIND | POSTBIND);
    }
    out
}

/// The SDK's rule for an `export!` hook list (see the crate docs): why
/// `hooks` (one bit each) is refused, or `None`.
pub const fn hook_set_error(hooks: &[u32]) -> Option<HookSetError> {
    let mut set = 0u32;
    let mut i = 0;
    while i < hooks.len() {
        if set & hooks[i] != 0 {
            return Some(HookSetError::Duplicate);
        }
        set |= hooks[i];
        i += 1;
    }
    let main = set & MAIN;
    if main == 0 {
        return Some(HookSetError::NoMainHook);
    }
    if !main_set_accepted(main) {
        return Some(HookSetError::RejectedCombination);
    }
    if set & (ADDPOD | REMOVEPOD) != 0 && set & FILTER == 0 {
        return Some(HookSetError::NeedsFilter);
    }
    let orphans = never_called(set);
    if orphans & POSTFILTER != 0 {
        return Some(HookSetError::NeedsFilter);
    }
    if orphans & (PRESCORE | NORMALIZESCORE) != 0 {
        return Some(HookSetError::NeedsScore);
    }
    if orphans & (PREBIND | POSTBIND) != 0 {
        return Some(HookSetError::NeedsBind);
    }
    None
}

/// KSW's load decision for a module exporting the hook functions in
/// `exports` (a [`bits`] set, each with the right signature; see the crate
/// docs): the main interfaces it registers (a subset of [`MAIN`], with
/// `unreserve` counted as [`RESERVE`]; `0` for a lone `prefilter` or
/// prefilter extensions), or why it refuses the module.
///
/// `kguest check` and kguest's host both decide with this function.
pub const fn ksw_load(exports: u32) -> Result<u32, KswRefusal> {
    if exports == 0 {
        return Err(KswRefusal::NoPluginFunctions);
    }
    let mut main = exports & MAIN;
    if exports & UNRESERVE != 0 {
        main |= RESERVE;
    }
    if main != 0 {
        return if main_set_accepted(main) {
            Ok(main)
        } else {
            Err(KswRefusal::RejectedCombination)
        };
    }
    if exports == PREFILTER || exports & !(ADDPOD | REMOVEPOD) == 0 {
        return Ok(0);
    }
    Err(KswRefusal::NoMainHook)
}

/// What is legal for KSW's host in `exports` but goes wrong when it runs:
/// one half of the Reserve interface without the other.
pub const fn ksw_warning(exports: u32) -> Option<KswWarning> {
    match (exports & RESERVE != 0, exports & UNRESERVE != 0) {
        (true, false) => Some(KswWarning::ReserveWithoutUnreserve),
        (false, true) => Some(KswWarning::UnreserveWithoutReserve),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    /// `filter|score` -> bits.
    fn set(names: &str) -> u32 {
        names
            .split('|')
            .filter(|n| !n.is_empty())
            .map(|n| find_hook(n).unwrap_or_else(|| panic!("no hook `{n}`")).bit)
            .fold(0, |s, b| s | b)
    }

    const MUST: &str = "wasm: filter, score, reserve, permit or bind must be exported";
    const NONE: &str = "wasm: guest does not export any plugin functions";

    /// The 31 main-hook rows of /var/tmp/kguest-go/ksw-hookset.md (read
    /// from KSW's `mask.go` switch): the set and whether KSW loads it.
    const MAIN_ROWS: [(&str, bool); 31] = [
        ("filter", true),
        ("score", true),
        ("reserve", true),
        ("permit", true),
        ("bind", true),
        ("filter|score", true),
        ("filter|reserve", true),
        ("filter|permit", true),
        ("filter|bind", true),
        ("score|reserve", true),
        ("score|permit", true),
        ("score|bind", true),
        ("reserve|permit", false),
        ("reserve|bind", true),
        ("permit|bind", true),
        ("filter|score|reserve", true),
        ("filter|score|permit", true),
        ("filter|score|bind", true),
        ("filter|reserve|permit", false),
        ("filter|reserve|bind", false),
        ("filter|permit|bind", false),
        ("score|reserve|permit", false),
        ("score|reserve|bind", true),
        ("score|permit|bind", true),
        ("reserve|permit|bind", true),
        ("filter|score|reserve|permit", false),
        ("filter|score|reserve|bind", true),
        ("filter|score|permit|bind", true),
        ("filter|reserve|permit|bind", false),
        ("score|reserve|permit|bind", false),
        ("filter|score|reserve|permit|bind", true),
    ];

    /// Coupled hooks that may ride along with any main set.
    const COUPLED: [&str; 6] = [
        "",
        "prefilter",
        "prefilter|enqueue",
        "postfilter|prescore|normalizescore",
        "prebind|postbind|addpod|removepod",
        "enqueue|prefilter|addpod|removepod|postfilter|prescore|normalizescore|prebind|postbind",
    ];

    fn decision(exports: u32) -> Result<u32, &'static str> {
        ksw_load(exports).map_err(KswRefusal::ksw_message)
    }

    #[test]
    fn every_main_set_row() {
        // The table covers each non-empty main set once.
        let mut seen: Vec<u32> = MAIN_ROWS.iter().map(|(r, _)| set(r)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 31);
        for (row, loads) in MAIN_ROWS {
            let main = set(row);
            for extra in COUPLED {
                let exports = main | set(extra);
                // reserve alone, reserve with unreserve, unreserve alone:
                // one interface for KSW.
                let mut variants = [exports, exports, exports];
                if main & RESERVE != 0 {
                    variants[1] |= UNRESERVE;
                    variants[2] = (exports & !RESERVE) | UNRESERVE;
                }
                for exports in variants {
                    let want = if loads { Ok(main) } else { Err(MUST) };
                    assert_eq!(decision(exports), want, "{row} + {extra}: {exports:#b}");
                    if loads {
                        // The SDK's rule agrees wherever the coupling holds.
                        let list: Vec<u32> = (0..15)
                            .map(|i| 1u32 << i)
                            .filter(|b| main & b != 0)
                            .collect();
                        assert_eq!(hook_set_error(&list), None, "{row}");
                    }
                }
            }
            if !loads {
                let list: Vec<u32> = (0..5)
                    .map(|i| 1u32 << i)
                    .filter(|b| main & b != 0)
                    .collect();
                assert_eq!(
                    hook_set_error(&list),
                    Some(HookSetError::RejectedCombination),
                    "{row}"
                );
                assert_eq!(ksw_load(main), Err(KswRefusal::RejectedCombination));
            }
        }
    }

    #[test]
    fn no_main_hook_rows() {
        assert_eq!(decision(0), Err(NONE));
        assert_eq!(decision(PREFILTER), Ok(0));
        assert_eq!(decision(ADDPOD), Ok(0));
        assert_eq!(decision(REMOVEPOD), Ok(0));
        assert_eq!(decision(ADDPOD | REMOVEPOD), Ok(0));
        for refused in [
            "prefilter|enqueue",
            "prefilter|addpod",
            "prefilter|removepod",
            "enqueue",
            "prescore",
            "normalizescore",
            "postfilter",
            "prebind",
            "postbind",
            "prescore|normalizescore|postfilter|prebind|postbind",
            "enqueue|addpod",
        ] {
            assert_eq!(decision(set(refused)), Err(MUST), "{refused}");
            assert_eq!(ksw_load(set(refused)), Err(KswRefusal::NoMainHook));
        }
        // 9b2791f's plugin_test.go: "prescore" and "normalizescore" alone
        // ("missing score") and a module with only `memory` ("not plugin").
        assert_eq!(decision(PRESCORE), Err(MUST));
        assert_eq!(decision(NORMALIZESCORE), Err(MUST));
        assert_eq!(decision(0), Err(NONE));
    }

    /// 9b2791f's `scheduler/plugin/mask_test.go` `Test_maskInterfaces`:
    /// (interfaces, error?, filter, score, reserve, permit, bind). Its
    /// interface sets are exports here (`reserve` for iReservePlugin).
    #[test]
    fn upstream_mask_test_cases() {
        type Row = (&'static str, bool, [bool; 5]);
        const T: bool = true;
        const F: bool = false;
        let cases: [Row; 10] = [
            ("prescore", T, [F; 5]),
            ("prefilter", F, [F; 5]),
            ("prefilter|filter", F, [T, F, F, F, F]),
            ("filter", F, [T, F, F, F, F]),
            ("prefilter|score", F, [F, T, F, F, F]),
            ("prescore|score", F, [F, T, F, F, F]),
            ("score", F, [F, T, F, F, F]),
            ("prefilter|filter|score", F, [T, T, F, F, F]),
            ("reserve", F, [F, F, T, F, F]),
            ("reserve|filter", F, [T, F, T, F, F]),
        ];
        for (name, error, expect) in cases {
            // iReservePlugin is set by either export.
            let spellings: Vec<u32> = if name.contains("reserve") {
                let without = set(&name.replace("reserve", "").replace("||", "|"));
                std::vec![
                    without | RESERVE,
                    without | UNRESERVE,
                    without | RESERVE | UNRESERVE
                ]
            } else {
                std::vec![set(name)]
            };
            for exports in spellings {
                match ksw_load(exports) {
                    Err(_) => assert!(error, "{name} should load"),
                    Ok(main) => {
                        assert!(!error, "{name} should be refused");
                        let have = [FILTER, SCORE, RESERVE, PERMIT, BIND].map(|b| main & b != 0);
                        assert_eq!(have, expect, "{name}");
                    }
                }
            }
        }
    }

    #[test]
    fn unpaired_reserve_warns_but_loads() {
        assert_eq!(
            ksw_warning(RESERVE | FILTER),
            Some(KswWarning::ReserveWithoutUnreserve)
        );
        assert_eq!(
            ksw_warning(UNRESERVE),
            Some(KswWarning::UnreserveWithoutReserve)
        );
        assert_eq!(ksw_warning(RESERVE | UNRESERVE), None);
        assert_eq!(ksw_warning(FILTER | SCORE), None);
        assert_eq!(ksw_load(RESERVE), Ok(RESERVE));
        assert_eq!(ksw_load(UNRESERVE | SCORE), Ok(RESERVE | SCORE));
    }

    #[test]
    fn sdk_rule_couples_hooks_and_refuses_duplicates() {
        assert_eq!(hook_set_error(&[]), Some(HookSetError::NoMainHook));
        assert_eq!(hook_set_error(&[PREFILTER]), Some(HookSetError::NoMainHook));
        assert_eq!(
            hook_set_error(&[FILTER, FILTER]),
            Some(HookSetError::Duplicate)
        );
        assert_eq!(
            hook_set_error(&[FILTER, PRESCORE]),
            Some(HookSetError::NeedsScore)
        );
        assert!(hook_set_error(&[SCORE, PRESCORE, NORMALIZESCORE, ENQUEUE, PREFILTER]).is_none());
        assert_eq!(
            hook_set_error(&[SCORE, POSTFILTER]),
            Some(HookSetError::NeedsFilter)
        );
        assert_eq!(
            hook_set_error(&[SCORE, ADDPOD]),
            Some(HookSetError::NeedsFilter)
        );
        assert!(hook_set_error(&[FILTER, POSTFILTER, ADDPOD, REMOVEPOD]).is_none());
        assert_eq!(
            hook_set_error(&[PERMIT, PREBIND]),
            Some(HookSetError::NeedsBind)
        );
        assert!(hook_set_error(&[BIND, PREBIND, POSTBIND]).is_none());
        assert_eq!(
            hook_set_error(&[RESERVE, PERMIT]),
            Some(HookSetError::RejectedCombination)
        );
        // Coupled hooks without their main hook load in KSW but are never
        // called; the SDK refuses them.
        assert!(ksw_load(FILTER | PRESCORE).is_ok());
        assert_eq!(never_called(FILTER | PRESCORE), PRESCORE);
        assert_eq!(
            never_called(SCORE | POSTFILTER | PREBIND),
            POSTFILTER | PREBIND
        );
        assert_eq!(never_called(FILTER | POSTFILTER | ADDPOD), 0);
        // TinyGo's nodenumber exports every hook.
        let every = HOOKS.iter().fold(0, |set, h| set | h.bit);
        assert_eq!(ksw_load(every), Ok(MAIN));
        assert_eq!(never_called(every), 0);
    }

    #[test]
    fn tables_are_consistent() {
        for (i, h) in HOOKS.iter().enumerate() {
            assert_eq!(h.bit.count_ones(), 1, "{}", h.name);
            assert!(
                HOOKS[i + 1..]
                    .iter()
                    .all(|o| o.bit != h.bit && o.name != h.name)
            );
            assert_eq!(find_hook(h.name).map(|f| f.bit), Some(h.bit));
        }
        assert!(find_hook("memory").is_none());
        for (i, imp) in IMPORTS.iter().enumerate() {
            assert!(
                IMPORTS[i + 1..]
                    .iter()
                    .all(|o| (o.module, o.name) != (imp.module, imp.name))
            );
            let list = |ts: &[ValType]| ts.iter().map(|t| t.as_str()).collect::<Vec<_>>();
            let results = match list(imp.results).as_slice() {
                [one] => String::from(*one),
                many => format!("({})", many.join(", ")),
            };
            let text = format!("({}) -> {results}", list(imp.params).join(", "));
            assert_eq!(imp.signature, text, "{}.{}", imp.module, imp.name);
        }
        assert_eq!(
            import(MODULE_SCHEDULER, "currentPod").map(|i| i.params.len()),
            Some(2)
        );
        assert!(import(MODULE_API, "currentPod").is_none());
        assert_eq!(IMPORTS.iter().filter(|i| !i.is_wasi()).count(), 21);
        let names: Vec<&str> = hook_names(SCORE | PRESCORE | UNRESERVE).collect();
        assert_eq!(names, ["prescore", "score", "unreserve"]);
        assert_eq!(code::name(0), Some("Success"));
        assert_eq!(code::name(i64::from(code::SKIP)), Some("Skip"));
        assert_eq!(code::name(6), None);
        assert_eq!(code::name(-1), None);
        assert_eq!(event::ALL, 63);
    }
}
