//! The bodies of the exported functions, as safe generic functions over the
//! plugin. [`export!`](crate::export!) wraps them in `extern "C"` exports; the
//! native test host calls them directly, so tests run the same code.
//!
//! Not for plugins to call: these run *inside* a host call, which
//! `Instance::with` (or the test host) opens.
//!
//! Every shim is `#[inline]`, and so is what an export runs around it
//! (`Instance::with`, `sys::enter`/`exit`): an inline item is compiled as a
//! local copy in the plugin's crate, which LTO may fold into the export.
//! Without it, a plugin crate that is also an `rlib` (as the examples and
//! `kguest new`'s template are) keeps every generic instance (rustc shares
//! generics at `opt-level = "z"`) and every function reachable from an
//! inline one as an exported symbol, which LTO must not inline away.

use crate::hooks::*;
use crate::sys::{self, Setter};
use crate::{Code, Cycle, Status};

/// Runs a hook. The caller has entered the call (`Instance::with`, or the
/// test host).
#[inline(always)]
fn call<R>(f: impl FnOnce(&Cycle) -> R) -> R {
    f(&Cycle::new())
}

/// Sends the reason (only for a non-success code with a non-empty reason,
/// like the Go SDK) and returns the code as the ABI integer.
#[inline]
fn finish(st: &Status<'_>) -> u32 {
    if !st.is_success() && !st.reason.is_empty() {
        sys::set(Setter::StatusReason, st.reason.as_bytes());
    }
    st.code as u32
}

#[inline]
fn code(st: Status<'_>) -> i32 {
    finish(&st) as i32
}

/// `prefilter` for a plugin without [`PreFilter`]: start a new cycle.
#[inline]
pub fn prefilter_reset<P: Plugin>(p: &mut P) -> i32 {
    call(|_| {
        sys::new_cycle();
        p.new_cycle();
        Code::Success as i32
    })
}

/// `prefilter` for a plugin with [`PreFilter`].
#[inline]
pub fn prefilter<P: PreFilter>(p: &mut P) -> i32 {
    call(|cx| {
        sys::new_cycle();
        p.new_cycle();
        code(p.pre_filter(cx))
    })
}

#[inline]
pub fn filter<P: Filter>(p: &mut P) -> i32 {
    call(|cx| code(p.filter(cx)))
}

#[inline]
pub fn addpod<P: PreFilterExtensions>(p: &mut P) -> i32 {
    call(|cx| code(p.add_pod(cx)))
}

#[inline]
pub fn removepod<P: PreFilterExtensions>(p: &mut P) -> i32 {
    call(|cx| code(p.remove_pod(cx)))
}

/// High 32 bits: nominating mode; low 32 bits: status code.
#[inline]
pub fn postfilter<P: PostFilter>(p: &mut P) -> i64 {
    call(|cx| {
        let r = p.post_filter(cx);
        if let Some(name) = r.nominated_node_name {
            sys::set(Setter::NominatedNodeName, name.as_bytes());
        }
        let c = finish(&r.status);
        (((r.mode as u32 as u64) << 32) | u64::from(c)) as i64
    })
}

#[inline]
pub fn prescore<P: PreScore>(p: &mut P) -> i32 {
    call(|cx| code(p.pre_score(cx)))
}

/// High 32 bits: score (as i32); low 32 bits: status code.
#[inline]
pub fn score<P: Score>(p: &mut P) -> i64 {
    call(|cx| {
        let (score, c) = match p.score(cx) {
            Ok(s) => (s, Code::Success as u32),
            Err(st) => (0, finish(&st)),
        };
        (((score as u32 as u64) << 32) | u64::from(c)) as i64
    })
}

#[inline]
pub fn normalizescore<P: NormalizeScore>(p: &mut P) -> i32 {
    call(|cx| code(p.normalize_score(cx)))
}

#[inline]
pub fn reserve<P: Reserve>(p: &mut P) -> i32 {
    call(|cx| code(p.reserve(cx)))
}

#[inline]
pub fn unreserve<P: Reserve>(p: &mut P) {
    call(|cx| p.unreserve(cx))
}

/// Reversed packing: high 32 bits status code, low 32 bits timeout (ms).
#[inline]
pub fn permit<P: Permit>(p: &mut P) -> i64 {
    call(|cx| {
        let r = p.permit(cx);
        let c = finish(&r.status);
        ((u64::from(c) << 32) | u64::from(r.timeout_ms)) as i64
    })
}

#[inline]
pub fn prebind<P: PreBind>(p: &mut P) -> i32 {
    call(|cx| code(p.pre_bind(cx)))
}

#[inline]
pub fn bind<P: Bind>(p: &mut P) -> i32 {
    call(|cx| code(p.bind(cx)))
}

#[inline]
pub fn postbind<P: PostBind>(p: &mut P) {
    call(|cx| p.post_bind(cx))
}

#[inline]
pub fn enqueue<P: EnqueueExtensions>(p: &mut P) {
    call(|_| {
        let events = p.events();
        if !events.is_empty() {
            sys::set_cluster_events(events);
        }
    })
}
