//! The [`export!`](crate::export!) macro and the compile-time check of which hook sets the
//! KSW host accepts.
//!
//! # Which hook sets are accepted
//!
//! The KSW host (`scheduler/plugin/mask.go`) looks at the exported function
//! names; `export!` checks its hook list at compile time with
//! [`hook_set_error`], the rule `kguest-abi` documents and `kguest new` and
//! `kguest check` share:
//!
//! 1. The "main" hooks are `filter`, `score`, `reserve`, `permit`, `bind`.
//!    At least one must be listed, and the set must be one the host
//!    enumerates. Every non-empty set is accepted **except**:
//!    `reserve+permit`, `filter+reserve+permit`, `filter+reserve+bind`,
//!    `filter+permit+bind`, `score+reserve+permit`,
//!    `filter+score+reserve+permit`, `filter+reserve+permit+bind` and
//!    `score+reserve+permit+bind`.
//! 2. The other hooks only work beside their main hook, so the SDK requires
//!    it: `postfilter`, `addpod`, `removepod` need `filter`; `prescore` and
//!    `normalizescore` need `score`; `prebind` and `postbind` need `bind`.
//!    (`unreserve` always comes with `reserve`.)
//! 3. `prefilter` and `enqueue` may go with anything. `prefilter` is
//!    **always** exported: it marks a new scheduling cycle, which is when
//!    the SDK drops its cached Pod. Listing it only adds the plugin's own
//!    [`PreFilter`](crate::PreFilter) call.
//! 4. Each hook at most once.
//!
//! This is stricter than what KSW's host loads (`kguest_abi::ksw_load`, the
//! rule `kguest check` and kguest's host use): KSW also loads hooks without
//! their main hook (and never calls them), and `reserve` without
//! `unreserve` (and then calls the missing one). The check runs where the
//! plugin is written, so it refuses every set that would load but not work
//! as written, rather than only the sets KSW refuses.
//!
//! Why `prefilter` is always exported, although KSW's host calls only the
//! hooks a guest exports (one call per cycle it could save): it is the only
//! call that tells the guest a new scheduling cycle began. KSW keeps one
//! guest instance for consecutive pods, and the SDK keeps the cycle's Pod,
//! Node and node list (and every [`CycleState`](crate::CycleState)) until
//! that call; without it a Filter for the next pod would read the previous
//! pod's cached bytes. Re-reading the Pod on every call instead costs more
//! per node than the one `prefilter` call costs per cycle.

/// Hook bits used by the compile-time check.
#[doc(hidden)]
pub use kguest_abi::bits;

/// Why a hook list is refused, or `None` if the host accepts it.
pub const fn hook_set_error(hooks: &[u32]) -> Option<&'static str> {
    match kguest_abi::hook_set_error(hooks) {
        Some(err) => Some(err.as_str()),
        None => None,
    }
}

/// Fails compilation (when used in a `const`) for a refused hook list.
#[doc(hidden)]
pub const fn check_hooks(hooks: &[u32]) {
    if let Some(msg) = hook_set_error(hooks) {
        panic!("{}", msg);
    }
}

/// Exports a plugin type's hooks to the KSW host.
///
/// ```text
/// struct NodeName;
/// impl kguest::Plugin for NodeName { fn new() -> Self { NodeName } }
/// impl kguest::Filter for NodeName { /* ... */ }
/// kguest::export!(NodeName => [filter]);
/// ```
///
/// Hook names are the export names: `prefilter`, `filter`, `postfilter`,
/// `addpod`, `removepod`, `prescore`, `score`, `normalizescore`, `reserve`
/// (exports `reserve` and `unreserve`), `permit`, `prebind`, `bind`,
/// `postbind`, `enqueue`. Each needs the matching trait. `load`, first in
/// the list, is not a hook: it exports `_start` for a
/// [`Load`](crate::Load) plugin, built (or refused) when the host loads the
/// guest. `prefilter` is
/// exported even when not listed (see the [module docs](mod@crate::export)
/// for the accepted sets, checked at compile time).
///
/// Exports exist only on `wasm32`; native builds get nothing, so tests use
/// [`testing`](crate::testing).
#[macro_export]
macro_rules! export {
    ($plugin:ty => [load $(, $hook:ident)* $(,)?]) => {
        const _: () = $crate::__private::check_hooks(&[$($crate::__hook_bit!($hook)),*]);
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            static INSTANCE: $crate::__private::Instance<$plugin, true> =
                $crate::__private::Instance::new();
            #[unsafe(no_mangle)]
            extern "C" fn _start() {
                INSTANCE.start()
            }
            $crate::__export_munch!(INSTANCE, [], $($hook)*);
        };
    };
    ($plugin:ty => [$($hook:ident),* $(,)?]) => {
        const _: () = $crate::__private::check_hooks(&[$($crate::__hook_bit!($hook)),*]);
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            static INSTANCE: $crate::__private::Instance<$plugin> =
                $crate::__private::Instance::new();
            $crate::__export_munch!(INSTANCE, [], $($hook)*);
        };
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hook_bit {
    (prefilter) => {
        $crate::__private::bits::PREFILTER
    };
    (filter) => {
        $crate::__private::bits::FILTER
    };
    (postfilter) => {
        $crate::__private::bits::POSTFILTER
    };
    (addpod) => {
        $crate::__private::bits::ADDPOD
    };
    (removepod) => {
        $crate::__private::bits::REMOVEPOD
    };
    (prescore) => {
        $crate::__private::bits::PRESCORE
    };
    (score) => {
        $crate::__private::bits::SCORE
    };
    (normalizescore) => {
        $crate::__private::bits::NORMALIZESCORE
    };
    (reserve) => {
        $crate::__private::bits::RESERVE
    };
    (permit) => {
        $crate::__private::bits::PERMIT
    };
    (prebind) => {
        $crate::__private::bits::PREBIND
    };
    (bind) => {
        $crate::__private::bits::BIND
    };
    (postbind) => {
        $crate::__private::bits::POSTBIND
    };
    (enqueue) => {
        $crate::__private::bits::ENQUEUE
    };
    (load) => {
        compile_error!("`load` is not a hook: list it first, `export!(P => [load, ...])`")
    };
}

/// Walks the hook list; remembers whether `prefilter` was listed and emits
/// the one `prefilter` export at the end.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_munch {
    ($inst:ident, [$($pf:tt)*], prefilter $($rest:ident)*) => {
        $crate::__export_munch!($inst, [listed], $($rest)*);
    };
    ($inst:ident, [$($pf:tt)*], $hook:ident $($rest:ident)*) => {
        $crate::__export_one!($inst, $hook);
        $crate::__export_munch!($inst, [$($pf)*], $($rest)*);
    };
    ($inst:ident, [], ) => {
        #[unsafe(no_mangle)]
        extern "C" fn prefilter() -> i32 {
            $inst.new_cycle()
        }
    };
    ($inst:ident, [listed], ) => {
        #[unsafe(no_mangle)]
        extern "C" fn prefilter() -> i32 {
            $inst.with($crate::__private::rt::prefilter)
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __export_one {
    ($inst:ident, reserve) => {
        $crate::__export_fn!($inst, reserve -> i32);
        $crate::__export_fn!($inst, unreserve);
    };
    ($inst:ident, filter) => { $crate::__export_fn!($inst, filter -> i32); };
    ($inst:ident, postfilter) => { $crate::__export_fn!($inst, postfilter -> i64); };
    ($inst:ident, addpod) => { $crate::__export_fn!($inst, addpod -> i32); };
    ($inst:ident, removepod) => { $crate::__export_fn!($inst, removepod -> i32); };
    ($inst:ident, prescore) => { $crate::__export_fn!($inst, prescore -> i32); };
    ($inst:ident, score) => { $crate::__export_fn!($inst, score -> i64); };
    ($inst:ident, normalizescore) => { $crate::__export_fn!($inst, normalizescore -> i32); };
    ($inst:ident, permit) => { $crate::__export_fn!($inst, permit -> i64); };
    ($inst:ident, prebind) => { $crate::__export_fn!($inst, prebind -> i32); };
    ($inst:ident, bind) => { $crate::__export_fn!($inst, bind -> i32); };
    ($inst:ident, postbind) => { $crate::__export_fn!($inst, postbind); };
    ($inst:ident, enqueue) => { $crate::__export_fn!($inst, enqueue); };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __export_fn {
    ($inst:ident, $name:ident -> $ret:ty) => {
        #[unsafe(no_mangle)]
        extern "C" fn $name() -> $ret {
            $inst.with($crate::__private::rt::$name)
        }
    };
    ($inst:ident, $name:ident) => {
        #[unsafe(no_mangle)]
        extern "C" fn $name() {
            $inst.with($crate::__private::rt::$name)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::bits::*;
    use super::hook_set_error;

    #[test]
    fn refusals_are_explained() {
        assert_eq!(hook_set_error(&[FILTER, PREFILTER]), None);
        assert_eq!(
            hook_set_error(&[FILTER, PRESCORE]),
            Some("prescore and normalizescore need score")
        );
        assert_eq!(
            hook_set_error(&[FILTER, FILTER]),
            Some("a hook is listed twice")
        );
    }
}
