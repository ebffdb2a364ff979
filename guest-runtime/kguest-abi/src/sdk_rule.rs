//! The SDK's rule for `export!` hook lists (see the crate docs).

use crate::bits::*;
use crate::load_rule::{main_set_accepted, never_called};

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
