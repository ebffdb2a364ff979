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

pub mod bits;
pub mod code;
pub mod event;
mod hooks;
mod imports;
mod load_rule;
mod sdk_rule;
#[cfg(test)]
mod tests;

pub use hooks::{HOOKS, Hook, find_hook, hook_names};
pub use imports::{
    IMPORTS, Import, MODULE_API, MODULE_KLOG, MODULE_SCHEDULER, MODULE_WASI, ValType, import,
};
pub use load_rule::{
    KswRefusal, KswWarning, ksw_load, ksw_warning, never_called, registered_points,
};
pub use sdk_rule::{HookSetError, hook_set_error};
