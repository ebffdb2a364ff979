//! Per-cycle state: data derived from the Pod once per scheduling cycle and
//! reused for every node, as upstream's `CycleState` is used, without an
//! allocator.
//!
//! The Pod's bytes stay in place for the whole scheduling cycle (the SDK
//! refills them only when the next cycle starts), so data computed from Pod
//! views may keep borrowing them across calls. [`CycleState`] holds such data
//! in the plugin struct and knows which cycle it belongs to: reading it in a
//! later cycle recomputes it, so no reset is needed in
//! [`Plugin::new_cycle`](crate::Plugin::new_cycle).
//!
//! ```
//! use kguest::k8s::api::core::v1::Pod;
//! use kguest::{Cycle, CycleState, Filter, PerCycle, Plugin, Status};
//!
//! /// The pod's first toleration key, found once per cycle.
//! struct FirstKey;
//! impl PerCycle for FirstKey {
//!     type Data<'p> = Option<&'p str>;
//!     fn shorten<'a, 'b: 'a>(data: &'a Option<&'b str>) -> &'a Option<&'a str> { data }
//! }
//!
//! fn first_key(pod: Pod<'_>) -> Option<&str> {
//!     pod.spec()?.tolerations().next()?.key()
//! }
//!
//! struct MyPlugin { key: CycleState<FirstKey> }
//!
//! impl Plugin for MyPlugin {
//!     fn new() -> Self { MyPlugin { key: CycleState::new() } }
//! }
//!
//! impl Filter for MyPlugin {
//!     fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
//!         // Computed on the first node of the cycle, reused for the others.
//!         match self.key.get(cx, first_key) {
//!             Some(k) if *k == cx.node_name() => Status::unschedulable("reserved"),
//!             _ => Status::success(),
//!         }
//!     }
//! }
//! ```

use core::marker::PhantomData;

use kguest_k8s::api::core::v1::Pod;

use crate::Cycle;
use crate::sys;

/// A family of per-cycle data types, one per lifetime of the Pod's bytes.
///
/// Implement it on a marker type. `Data<'p>` may borrow from the Pod (`&'p
/// str`, views such as `Toleration<'p>`, arrays of them), must be `Copy` and
/// must be covariant in `'p`; [`PerCycle::shorten`] proves the latter: write
/// its body as `{ data }` (it compiles only for covariant types).
pub trait PerCycle: 'static {
    type Data<'p>: Copy;

    /// The identity, written `{ data }`.
    fn shorten<'a, 'b: 'a>(data: &'a Self::Data<'b>) -> &'a Self::Data<'a>;
}

/// Declares a [`PerCycle`] marker type for data that may borrow the Pod,
/// naming the Pod's lifetime: `per_cycle!(struct FirstKey<'p> = Option<&'p
/// str>);` writes the struct and the impl (with `shorten`), which compiles
/// only when the type is covariant in `'p`, as [`PerCycle`] needs.
///
/// ```
/// use kguest::k8s::api::core::v1::Pod;
/// use kguest::{Cycle, CycleState, Filter, Plugin, Status};
///
/// kguest::per_cycle!(struct FirstKey<'p> = Option<&'p str>);
///
/// fn first_key(pod: Pod<'_>) -> Option<&str> {
///     pod.spec()?.tolerations().next()?.key()
/// }
///
/// struct MyPlugin { key: CycleState<FirstKey> }
///
/// impl Plugin for MyPlugin {
///     fn new() -> Self { MyPlugin { key: CycleState::new() } }
/// }
///
/// impl Filter for MyPlugin {
///     fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
///         match self.key.get(cx, first_key) {
///             Some(k) if *k == cx.node_name() => Status::unschedulable("reserved"),
///             _ => Status::success(),
///         }
///     }
/// }
/// ```
///
/// A type that is not covariant is refused at compile time:
///
/// ```compile_fail
/// kguest::per_cycle!(struct Bad<'p> = fn(&'p str));
/// ```
#[macro_export]
macro_rules! per_cycle {
    ($(#[$attr:meta])* $vis:vis struct $name:ident<$p:lifetime> = $data:ty $(;)?) => {
        $(#[$attr])*
        $vis struct $name;

        impl $crate::PerCycle for $name {
            type Data<$p> = $data;

            #[inline]
            fn shorten<'short, 'long: 'short>(
                data: &'short Self::Data<'long>,
            ) -> &'short Self::Data<'short> {
                data
            }
        }
    };
}

/// Per-cycle data for owned values (no borrowing from the Pod):
/// `CycleState<Owned<u32>>`.
pub struct Owned<T>(PhantomData<T>);

impl<T: Copy + 'static> PerCycle for Owned<T> {
    type Data<'p> = T;

    fn shorten<'a, 'b: 'a>(data: &'a T) -> &'a T {
        data
    }
}

/// Data of type `S::Data` computed once per scheduling cycle.
///
/// Keep it in the plugin struct. [`CycleState::get`] computes the data from
/// the cycle's Pod on first use in a cycle (PreFilter, or the first Filter
/// or Score) and returns the stored value afterwards. Not `Send`: the data
/// may borrow the guest's input buffers.
pub struct CycleState<S: PerCycle> {
    /// `cycle_epoch() + 1` of the stored data; 0 when empty.
    epoch: u64,
    data: Option<S::Data<'static>>,
    _not_send: PhantomData<*const ()>,
}

impl<S: PerCycle> CycleState<S> {
    pub const fn new() -> Self {
        CycleState {
            epoch: 0,
            data: None,
            _not_send: PhantomData,
        }
    }

    /// This cycle's data, computed by `init` from the Pod on the first call
    /// of the cycle (an empty view when the host sent no Pod). `init` may
    /// read only the Pod (and `'static` values such as the config): its
    /// result cannot borrow anything else.
    #[inline]
    pub fn get<'c>(
        &'c mut self,
        cx: &'c Cycle,
        init: impl for<'p> FnOnce(Pod<'p>) -> S::Data<'p>,
    ) -> &'c S::Data<'c> {
        let now = current();
        if self.epoch != now {
            self.data = None;
            self.epoch = now;
        }
        let data = self
            .data
            .get_or_insert_with(|| sys::widen::<S>(init(Pod::from_bytes(cx.pod_bytes()))));
        S::shorten(data)
    }

    /// This cycle's data if [`CycleState::get`] computed it in this cycle.
    #[inline]
    pub fn peek<'c>(&'c self, _cx: &'c Cycle) -> Option<&'c S::Data<'c>> {
        match &self.data {
            Some(data) if self.epoch == current() => Some(S::shorten(data)),
            _ => None,
        }
    }

    /// Forgets the data (the next [`CycleState::get`] recomputes it).
    pub fn clear(&mut self) {
        self.data = None;
        self.epoch = 0;
    }
}

/// The stored epoch for "now": never 0, which marks an empty state.
#[inline]
fn current() -> u64 {
    sys::cycle_epoch().wrapping_add(1)
}

impl<S: PerCycle> Default for CycleState<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: PerCycle> core::fmt::Debug for CycleState<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CycleState")
    }
}
