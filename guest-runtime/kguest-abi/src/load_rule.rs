//! What KSW's host loads, and what it loads but mishandles (see the
//! crate docs).

use crate::bits::*;

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
pub(crate) const fn main_set_accepted(main: u32) -> bool {
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

/// The extension points KSW registers a module exporting `set` at, as
/// hook bits (each point by its own hook: `prefilter`, `filter`,
/// `postfilter`, `prescore`, `score`, `reserve`, `permit`, `prebind`,
/// `bind`, `postbind`). Its interface mask (`mask.go`) makes every plugin
/// a PreFilter plugin (to reset the cycle state), and each main hook brings
/// its group's points whether or not the module exports them: `filter`
/// with `postfilter`, `score` with `prescore`, `bind` with `prebind` and
/// `postbind`; `unreserve` alone is a Reserve plugin. kube-scheduler's
/// configuration then enables or disables the plugin point by point.
pub const fn registered_points(set: u32) -> u32 {
    let mut out = PREFILTER;
    if set & FILTER != 0 {
        out |= FILTER | POSTFILTER;
    }
    if set & SCORE != 0 {
        out |= PRESCORE | SCORE;
    }
    if set & (RESERVE | UNRESERVE) != 0 {
        out |= RESERVE;
    }
    if set & PERMIT != 0 {
        out |= PERMIT;
    }
    if set & BIND != 0 {
        out |= PREBIND | BIND | POSTBIND;
    }
    out
}

/// KSW's load decision for a module exporting the hook functions in
/// `exports` (a [`bits`](crate::bits) set, each with the right signature; see the crate
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
