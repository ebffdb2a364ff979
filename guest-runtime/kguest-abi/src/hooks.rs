//! The hook functions a plugin may export.

use crate::ValType::{self, I32, I64};
use crate::bits::*;

/// A hook function a plugin may export. Hooks take no parameters.
#[derive(Debug)]
pub struct Hook {
    /// The export name.
    pub name: &'static str,
    /// Its bit in a hook set ([`bits`](crate::bits)).
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
