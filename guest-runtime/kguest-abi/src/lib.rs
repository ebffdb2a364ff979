//! The [kube-scheduler-wasm-extension] (KSW) plugin ABI as data: the
//! functions the host provides ([`IMPORTS`]), the hook functions a plugin
//! exports ([`HOOKS`]) and which sets of hooks the scheduler accepts.
//!
//! One table for every part of kguest that needs it: the SDK's
//! `kguest::export!` checks its hook list at compile time with
//! [`hook_set_error`], and `kguest check` and the size gate read a built
//! module against [`IMPORTS`], [`HOOKS`] and [`scheduler_error`].
//!
//! `no_std`, no dependencies, no allocation. The facts were read from KSW at
//! commit 9b2791f (`scheduler/plugin/host.go`, `guest.go`, `mask.go`).
//!
//! # Two hook-set rules
//!
//! KSW decides from the exported names which scheduler interfaces a plugin
//! implements (`mask.go`). Its rule, applied to a built module's exports by
//! [`scheduler_error`]:
//!
//! 1. The "main" hooks are `filter`, `score`, `reserve`, `permit`, `bind`.
//!    If at least one is exported, the set of them must be one the host
//!    enumerates: every non-empty set is accepted **except**
//!    `reserve+permit`, `filter+reserve+permit`, `filter+reserve+bind`,
//!    `filter+permit+bind`, `score+reserve+permit`,
//!    `filter+score+reserve+permit`, `filter+reserve+permit+bind` and
//!    `score+reserve+permit+bind`.
//! 2. With no main hook, only a lone `prefilter`, or only `addpod` and/or
//!    `removepod`, is accepted.
//! 3. `reserve` and `unreserve` are one interface: KSW calls both, so both
//!    must be exported.
//!
//! The other hooks are called only beside their main hook: `postfilter`
//! with `filter`; `prescore` and `normalizescore` with `score`; `prebind`
//! and `postbind` with `bind` ([`never_called`] lists the others).
//!
//! The SDK's rule for `export!` lists ([`hook_set_error`]) is rule 1 plus
//! that coupling, made an error, and requiring `filter` for `addpod` and
//! `removepod` too. `prefilter` and `enqueue` go with anything; each hook
//! at most once. (`export!` always exports `prefilter` and pairs
//! `unreserve` with `reserve` itself.)
//!
//! [kube-scheduler-wasm-extension]: https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension

#![no_std]

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
) -> Import {
    Import {
        module,
        name,
        params,
        results,
    }
}

/// Every function the host provides, with its signature.
pub static IMPORTS: &[Import] = &[
    f(MODULE_API, "node", &[I32, I32, I32, I32], &[I32]),
    f(MODULE_API, "nodeList", &[I32, I32], &[I32]),
    f(MODULE_KLOG, "log", &[I32, I32, I32], &[]),
    f(MODULE_KLOG, "logs", &[I32, I32, I32, I32, I32], &[]),
    f(MODULE_KLOG, "severity", &[], &[I32]),
    f(MODULE_SCHEDULER, "get_config", &[I32, I32], &[I32]),
    f(MODULE_SCHEDULER, "currentPod", &[I32, I32], &[I32]),
    f(MODULE_SCHEDULER, "targetPod", &[I32, I32], &[I32]),
    f(MODULE_SCHEDULER, "currentNodeName", &[I32, I32], &[I32]),
    f(MODULE_SCHEDULER, "filteredNodeList", &[I32, I32], &[I32]),
    f(
        MODULE_SCHEDULER,
        "nodeImageStates",
        &[I32, I32, I32, I32],
        &[I32],
    ),
    f(MODULE_SCHEDULER, "nodeToStatusMap", &[I32, I32], &[I32]),
    f(MODULE_SCHEDULER, "nodeScoreList", &[I32, I32], &[I32]),
    f(MODULE_SCHEDULER, "result.status_reason", &[I32, I32], &[]),
    f(MODULE_SCHEDULER, "result.cluster_events", &[I32, I32], &[]),
    f(MODULE_SCHEDULER, "result.node_names", &[I32, I32], &[]),
    f(
        MODULE_SCHEDULER,
        "result.nominated_node_name",
        &[I32, I32],
        &[],
    ),
    f(
        MODULE_SCHEDULER,
        "result.normalized_score_list",
        &[I32, I32],
        &[],
    ),
    f(
        MODULE_SCHEDULER,
        "handle.eventrecorder.eventf",
        &[I32, I32],
        &[],
    ),
    f(
        MODULE_SCHEDULER,
        "handle.reject_waiting_pod",
        &[I32, I32, I32, I32],
        &[],
    ),
    f(
        MODULE_SCHEDULER,
        "handle.get_waiting_pod",
        &[I32, I32, I32, I32],
        &[],
    ),
    f(MODULE_WASI, "fd_write", &[I32, I32, I32, I32], &[I32]),
    f(MODULE_WASI, "clock_time_get", &[I32, I64, I32], &[I32]),
    f(MODULE_WASI, "random_get", &[I32, I32], &[I32]),
    f(MODULE_WASI, "args_sizes_get", &[I32, I32], &[I32]),
    f(MODULE_WASI, "args_get", &[I32, I32], &[I32]),
    f(MODULE_WASI, "environ_sizes_get", &[I32, I32], &[I32]),
    f(MODULE_WASI, "environ_get", &[I32, I32], &[I32]),
    f(MODULE_WASI, "proc_exit", &[I32], &[]),
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

/// Every hook export, in the order the scheduler calls them.
pub static HOOKS: &[Hook] = &[
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

/// Why a hook set is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookSetError {
    /// A hook appears twice in a list.
    Duplicate,
    /// Nothing is exported at all.
    NoHooks,
    /// None of filter, score, reserve, permit, bind.
    NoMainHook,
    /// A combination of main hooks KSW does not enumerate.
    RejectedCombination,
    /// postfilter, addpod or removepod without filter (SDK rule).
    NeedsFilter,
    /// prescore or normalizescore without score (SDK rule).
    NeedsScore,
    /// prebind or postbind without bind (SDK rule).
    NeedsBind,
    /// Only one of reserve and unreserve is exported.
    UnpairedReserve,
}

impl HookSetError {
    /// One line saying what is wrong.
    pub const fn as_str(self) -> &'static str {
        match self {
            HookSetError::Duplicate => "a hook is listed twice",
            HookSetError::NoHooks => "no hook function is exported",
            HookSetError::NoMainHook => {
                "at least one of filter, score, reserve, permit, bind is needed"
            }
            HookSetError::RejectedCombination => {
                "kube-scheduler-wasm-extension rejects this combination of filter/score/reserve/permit/bind"
            }
            HookSetError::NeedsFilter => "postfilter, addpod and removepod need filter",
            HookSetError::NeedsScore => "prescore and normalizescore need score",
            HookSetError::NeedsBind => "prebind and postbind need bind",
            HookSetError::UnpairedReserve => {
                "reserve and unreserve must be exported together (the scheduler calls both)"
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

/// KSW's rule for a module exporting the hooks in `exports` (see the crate
/// docs): why the scheduler refuses to load it, or `None`.
pub const fn scheduler_error(exports: u32) -> Option<HookSetError> {
    if exports == 0 {
        return Some(HookSetError::NoHooks);
    }
    let reserve = exports & (RESERVE | UNRESERVE);
    if reserve != 0 && reserve != RESERVE | UNRESERVE {
        return Some(HookSetError::UnpairedReserve);
    }
    let main = exports & MAIN;
    if main != 0 {
        return if main_set_accepted(main) {
            None
        } else {
            Some(HookSetError::RejectedCombination)
        };
    }
    if exports == PREFILTER || exports & !(ADDPOD | REMOVEPOD) == 0 {
        return None;
    }
    Some(HookSetError::NoMainHook)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The main-hook sets `mask.go`'s switch enumerates.
    const ACCEPTED: [u32; 23] = [
        FILTER,
        FILTER | SCORE,
        FILTER | SCORE | BIND,
        RESERVE,
        PERMIT,
        BIND,
        FILTER | RESERVE,
        FILTER | PERMIT,
        FILTER | BIND,
        SCORE,
        SCORE | RESERVE,
        SCORE | PERMIT,
        SCORE | BIND,
        RESERVE | BIND,
        PERMIT | BIND,
        FILTER | SCORE | RESERVE,
        FILTER | SCORE | PERMIT,
        FILTER | SCORE | BIND | RESERVE,
        FILTER | SCORE | BIND | PERMIT,
        SCORE | RESERVE | BIND,
        SCORE | PERMIT | BIND,
        RESERVE | PERMIT | BIND,
        FILTER | SCORE | RESERVE | PERMIT | BIND,
    ];

    /// Every main-hook subset, both rules, against the enumerated list.
    #[test]
    fn main_sets_match_the_host_switch() {
        let singles = [FILTER, SCORE, RESERVE, PERMIT, BIND];
        for set in 1u32..32 {
            let hooks: Vec<u32> = singles
                .iter()
                .copied()
                .filter(|b| set & (1 << b.trailing_zeros()) != 0)
                .collect();
            let main: u32 = hooks.iter().sum();
            let expected = ACCEPTED.contains(&main);
            assert_eq!(hook_set_error(&hooks).is_none(), expected, "{set:#b}");
            let mut exports = main | PREFILTER;
            if exports & RESERVE != 0 {
                exports |= UNRESERVE;
            }
            assert_eq!(scheduler_error(exports).is_none(), expected, "{set:#b}");
        }
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
    }

    #[test]
    fn scheduler_rule_special_cases() {
        assert_eq!(scheduler_error(0), Some(HookSetError::NoHooks));
        // A lone prefilter, or only prefilter extensions, loads.
        assert!(scheduler_error(PREFILTER).is_none());
        assert!(scheduler_error(ADDPOD | REMOVEPOD).is_none());
        assert!(scheduler_error(ADDPOD).is_none());
        // Coupled hooks without their main hook do not make a plugin.
        assert_eq!(
            scheduler_error(PREFILTER | PRESCORE),
            Some(HookSetError::NoMainHook)
        );
        assert_eq!(
            scheduler_error(PREFILTER | ADDPOD),
            Some(HookSetError::NoMainHook)
        );
        assert_eq!(scheduler_error(ENQUEUE), Some(HookSetError::NoMainHook));
        // Beside a main hook they load, but are never called.
        assert!(scheduler_error(FILTER | PRESCORE).is_none());
        assert_eq!(never_called(FILTER | PRESCORE), PRESCORE);
        assert_eq!(
            never_called(SCORE | POSTFILTER | PREBIND),
            POSTFILTER | PREBIND
        );
        assert_eq!(never_called(FILTER | POSTFILTER | ADDPOD), 0);
        // reserve and unreserve come together.
        assert_eq!(
            scheduler_error(RESERVE),
            Some(HookSetError::UnpairedReserve)
        );
        assert_eq!(
            scheduler_error(FILTER | UNRESERVE),
            Some(HookSetError::UnpairedReserve)
        );
        // TinyGo's nodenumber exports every hook.
        let every = HOOKS.iter().fold(0, |set, h| set | h.bit);
        assert!(scheduler_error(every).is_none());
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
        }
        assert_eq!(
            import(MODULE_SCHEDULER, "currentPod").map(|i| i.params.len()),
            Some(2)
        );
        assert!(import(MODULE_API, "currentPod").is_none());
        assert_eq!(IMPORTS.iter().filter(|i| !i.is_wasi()).count(), 21);
        let names: Vec<&str> = hook_names(SCORE | PRESCORE | UNRESERVE).collect();
        assert_eq!(names, ["prescore", "score", "unreserve"]);
    }
}
