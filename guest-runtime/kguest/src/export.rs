//! The [`export!`] macro and the compile-time check of which hook sets the
//! KSW host accepts.
//!
//! # Which hook sets are accepted
//!
//! The host (`scheduler/plugin/mask.go`) looks at the exported function
//! names. Its rules, as enforced here at compile time:
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

/// Hook bits used by the compile-time check.
#[doc(hidden)]
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
    pub const MAIN: u32 = FILTER | SCORE | RESERVE | PERMIT | BIND;
}

use bits::*;

/// Main-hook sets `mask.go` does not enumerate (rule 1).
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

/// Why a hook list is refused, or `None` if the host accepts it.
pub const fn hook_set_error(hooks: &[u32]) -> Option<&'static str> {
    let mut mask = 0u32;
    let mut i = 0;
    while i < hooks.len() {
        if mask & hooks[i] != 0 {
            return Some("kguest::export!: a hook is listed twice");
        }
        mask |= hooks[i];
        i += 1;
    }
    let main = mask & MAIN;
    if main == 0 {
        return Some("kguest::export!: list at least one of filter, score, reserve, permit, bind");
    }
    let mut j = 0;
    while j < REJECTED_MAIN.len() {
        if REJECTED_MAIN[j] == main {
            return Some(
                "kguest::export!: the KSW host rejects this combination of filter/score/reserve/permit/bind (see kguest::export docs)",
            );
        }
        j += 1;
    }
    if mask & (POSTFILTER | ADDPOD | REMOVEPOD) != 0 && mask & FILTER == 0 {
        return Some("kguest::export!: postfilter, addpod and removepod need filter");
    }
    if mask & (PRESCORE | NORMALIZESCORE) != 0 && mask & SCORE == 0 {
        return Some("kguest::export!: prescore and normalizescore need score");
    }
    if mask & (PREBIND | POSTBIND) != 0 && mask & BIND == 0 {
        return Some("kguest::export!: prebind and postbind need bind");
    }
    None
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
/// `postbind`, `enqueue`. Each needs the matching trait. `prefilter` is
/// exported even when not listed (see the [module docs](crate::export)
/// for the accepted sets, checked at compile time).
///
/// Exports exist only on `wasm32`; native builds get nothing, so tests use
/// [`testing`](crate::testing).
#[macro_export]
macro_rules! export {
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
    use super::*;
    use std::vec::Vec;

    /// Every main-hook subset, against the list of sets `mask.go` enumerates.
    #[test]
    fn main_sets_match_the_host_switch() {
        let accepted = [
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
        let singles = [FILTER, SCORE, RESERVE, PERMIT, BIND];
        for set in 1u32..32 {
            let hooks: Vec<u32> = singles
                .iter()
                .copied()
                .filter(|b| set & (1 << b.trailing_zeros()) != 0)
                .collect();
            let ok = hook_set_error(&hooks).is_none();
            assert_eq!(ok, accepted.contains(&set), "set {set:#b}");
        }
    }

    #[test]
    fn coupled_hooks_and_duplicates() {
        assert!(hook_set_error(&[]).is_some());
        assert!(hook_set_error(&[PREFILTER]).is_some());
        assert!(hook_set_error(&[FILTER, FILTER]).is_some());
        assert!(hook_set_error(&[FILTER, PRESCORE]).is_some());
        assert!(hook_set_error(&[SCORE, PRESCORE, NORMALIZESCORE, ENQUEUE, PREFILTER]).is_none());
        assert!(hook_set_error(&[SCORE, POSTFILTER]).is_some());
        assert!(hook_set_error(&[FILTER, POSTFILTER, ADDPOD, REMOVEPOD]).is_none());
        assert!(hook_set_error(&[PERMIT, PREBIND]).is_some());
        assert!(hook_set_error(&[BIND, PREBIND, POSTBIND]).is_none());
    }
}
