//! The one module with `unsafe` code: host imports (or their native
//! stand-ins), the input buffers, the plugin instance cell and the panic
//! handler. Everything else in the crate is safe and talks to the host only
//! through the functions here.
//!
//! # Buffer model
//!
//! Each input the host can hand over (current pod, node, node name, target
//! pod, config, one JSON list) has its own [`Slot`]. A slot starts on a static
//! array and, when the host reports a larger object, moves to fresh pages
//! obtained with `memory.grow` (native builds leak a `Vec`). Slots never
//! shrink and grown pages are never returned, as in the Go SDK.
//!
//! Soundness rests on one rule: **a slot is only refilled while no view into
//! it can exist.** Views borrow the [`Cycle`](crate::Cycle) handle, which the
//! shims create per host call, so they die when the call returns. Within a
//! call a slot is filled at most once (the `filled` flag), and the per-call
//! and per-cycle resets run in [`begin_call`] and [`new_cycle`], before the
//! plugin runs. A nested call is refused (trap), so the resets cannot run
//! under a live view.

#![allow(unsafe_code)]

use core::ptr::NonNull;

/// The largest object the SDK will make room for (the host has no limit;
/// realistic Pods and Nodes stay far below 1.5 MiB).
pub const MAX_OBJECT: usize = 16 << 20;

/// Which host getter fills a slot.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Getter {
    CurrentPod,
    TargetPod,
    NodeName,
    Config,
    FilteredNodeList,
    NodeScoreList,
    NodeToStatusMap,
}

/// A growable input buffer and what it currently holds.
struct Slot {
    ptr: NonNull<u8>,
    cap: usize,
    len: usize,
    filled: bool,
}

impl Slot {
    const fn empty() -> Slot {
        Slot { ptr: NonNull::dangling(), cap: 0, len: 0, filled: false }
    }

    /// The held bytes. The `'static` is a lie the callers narrow to the
    /// lifetime of the `Cycle` borrow (see the module docs).
    fn bytes(&self) -> &'static [u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr..ptr+len` was written by the host (or stand-in) into
        // memory this slot owns exclusively, and is only rewritten when no
        // view exists (module docs).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Makes room for `needed` bytes.
    fn grow(&mut self, needed: usize) -> bool {
        if needed > MAX_OBJECT {
            return false;
        }
        match fresh_region(needed) {
            Some((ptr, cap)) => {
                self.ptr = ptr;
                self.cap = cap;
                true
            }
            None => false,
        }
    }

    /// Fills the slot with `get`, growing once or twice as the host asks.
    /// A failed fill leaves the slot empty but marked filled, so a broken
    /// host is asked only once per call.
    fn fill(&mut self, mut get: impl FnMut(*mut u8, u32) -> u32) -> &'static [u8] {
        self.filled = true;
        self.len = 0;
        for _ in 0..3 {
            let limit = u32::try_from(self.cap).unwrap_or(u32::MAX);
            let n = get(self.ptr.as_ptr(), limit) as usize;
            if n <= self.cap {
                self.len = n;
                return self.bytes();
            }
            if !self.grow(n) {
                break;
            }
        }
        &[]
    }
}

/// All mutable SDK state.
struct State {
    in_call: bool,
    pod: Slot,
    target: Slot,
    node: Slot,
    node_name: Slot,
    config: Slot,
    aux: Slot,
    aux_getter: Option<Getter>,
    /// Name of the node held in `node`; `node_key_len == usize::MAX` means none.
    node_key: [u8; 256],
    node_key_len: usize,
    severity: Option<i32>,
}

impl State {
    const fn new() -> State {
        State {
            in_call: false,
            pod: Slot::empty(),
            target: Slot::empty(),
            node: Slot::empty(),
            node_name: Slot::empty(),
            config: Slot::empty(),
            aux: Slot::empty(),
            aux_getter: None,
            node_key: [0; 256],
            node_key_len: usize::MAX,
            severity: None,
        }
    }

    fn slot(&mut self, g: Getter) -> &mut Slot {
        match g {
            Getter::CurrentPod => &mut self.pod,
            Getter::TargetPod => &mut self.target,
            Getter::NodeName => &mut self.node_name,
            Getter::Config => &mut self.config,
            Getter::FilteredNodeList | Getter::NodeScoreList | Getter::NodeToStatusMap => {
                &mut self.aux
            }
        }
    }
}

// ---------------------------------------------------------------------------
// State storage: one static on wasm32 (single-threaded), one per thread on
// native builds so that `cargo test` threads do not share it.

#[cfg(target_arch = "wasm32")]
mod storage {
    use super::State;

    static mut STATE: State = State::new();

    /// Initial capacities, in bytes, of the slots that start on static
    /// arrays. Zero-initialised statics cost nothing in the `.wasm` file.
    const POD_CAP: usize = 16 * 1024;
    const NODE_CAP: usize = 16 * 1024;
    const NAME_CAP: usize = 256;
    const CONFIG_CAP: usize = 512;
    static mut POD_BUF: [u8; POD_CAP] = [0; POD_CAP];
    static mut NODE_BUF: [u8; NODE_CAP] = [0; NODE_CAP];
    static mut NAME_BUF: [u8; NAME_CAP] = [0; NAME_CAP];
    static mut CONFIG_BUF: [u8; CONFIG_CAP] = [0; CONFIG_CAP];
    static mut READY: bool = false;

    /// Runs `f` on the state. Callers never nest `with` (each public
    /// function in `sys` takes it once, briefly).
    pub(super) fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
        // SAFETY: wasm32 guests are single-threaded, `with` is not re-entered
        // (no closure passed to it calls back into `with`), so this is the
        // only reference to STATE.
        let s = unsafe { &mut *(&raw mut STATE) };
        // SAFETY: as above, and the buffers are only reached through the slots.
        unsafe {
            if !READY {
                READY = true;
                place(&mut s.pod, &raw mut POD_BUF as *mut u8, POD_CAP);
                place(&mut s.node, &raw mut NODE_BUF as *mut u8, NODE_CAP);
                place(&mut s.node_name, &raw mut NAME_BUF as *mut u8, NAME_CAP);
                place(&mut s.config, &raw mut CONFIG_BUF as *mut u8, CONFIG_CAP);
            }
        }
        f(s)
    }

    fn place(slot: &mut super::Slot, ptr: *mut u8, cap: usize) {
        if let Some(p) = core::ptr::NonNull::new(ptr) {
            slot.ptr = p;
            slot.cap = cap;
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod storage {
    use super::State;
    use core::cell::UnsafeCell;

    std::thread_local! {
        static STATE: UnsafeCell<State> = const { UnsafeCell::new(State::new()) };
    }

    pub(super) fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
        // SAFETY: thread-local, and `with` is never re-entered on a thread
        // (no closure passed to it calls back into `with`).
        STATE.with(|s| f(unsafe { &mut *s.get() }))
    }

    /// Forgets everything (a fresh guest instance). Leaked buffers stay leaked.
    pub(crate) fn reset() {
        with(|s| *s = State::new());
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use storage::reset;

/// A new region of at least `needed` bytes that nothing else uses.
#[cfg(target_arch = "wasm32")]
fn fresh_region(needed: usize) -> Option<(NonNull<u8>, usize)> {
    const PAGE: usize = 64 * 1024;
    let pages = needed.div_ceil(PAGE);
    let old = core::arch::wasm32::memory_grow(0, pages);
    if old == usize::MAX {
        return None;
    }
    let base = old.checked_mul(PAGE)?;
    // The pages past the old end belong to nobody else: this crate has no
    // allocator and is the only caller of memory.grow.
    Some((NonNull::new(base as *mut u8)?, pages.checked_mul(PAGE)?))
}

#[cfg(not(target_arch = "wasm32"))]
fn fresh_region(needed: usize) -> Option<(NonNull<u8>, usize)> {
    let region: &'static mut [u8] = std::vec![0u8; needed.max(1)].leak();
    Some((NonNull::from(&mut region[0]), region.len()))
}

// ---------------------------------------------------------------------------
// Host imports.

#[cfg(target_arch = "wasm32")]
mod host {
    #[link(wasm_import_module = "k8s.io/scheduler")]
    unsafe extern "C" {
        #[link_name = "currentPod"]
        pub fn current_pod(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "targetPod"]
        pub fn target_pod(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "currentNodeName"]
        pub fn current_node_name(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "get_config"]
        pub fn get_config(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "filteredNodeList"]
        pub fn filtered_node_list(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "nodeScoreList"]
        pub fn node_score_list(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "nodeToStatusMap"]
        pub fn node_to_status_map(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "result.status_reason"]
        pub fn status_reason(ptr: *const u8, len: u32);
        #[link_name = "result.cluster_events"]
        pub fn cluster_events(ptr: *const u8, len: u32);
        #[link_name = "result.node_names"]
        pub fn node_names(ptr: *const u8, len: u32);
        #[link_name = "result.nominated_node_name"]
        pub fn nominated_node_name(ptr: *const u8, len: u32);
        #[link_name = "result.normalized_score_list"]
        pub fn normalized_score_list(ptr: *const u8, len: u32);
    }

    #[link(wasm_import_module = "k8s.io/api")]
    unsafe extern "C" {
        #[link_name = "node"]
        pub fn node(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32;
    }

    #[link(wasm_import_module = "k8s.io/klog")]
    unsafe extern "C" {
        #[link_name = "log"]
        pub fn log(severity: i32, msg: *const u8, len: u32);
        #[link_name = "logs"]
        pub fn logs(severity: i32, msg: *const u8, len: u32, kvs: *const u8, kvs_len: u32);
        #[link_name = "severity"]
        pub fn severity() -> i32;
    }
}

/// Native stand-ins with the same signatures, backed by the thread-local
/// test host in [`crate::testing`].
#[cfg(not(target_arch = "wasm32"))]
mod host {
    use crate::testing::{Input, host_read, host_record};

    /// Copies `src` to `buf` if it fits `limit`; returns `src.len()` (the
    /// getter contract).
    ///
    /// # Safety
    /// `buf` must be valid for `limit` bytes of writes.
    unsafe fn put(src: Option<&[u8]>, buf: *mut u8, limit: u32) -> u32 {
        let Some(src) = src else { return 0 };
        let n = u32::try_from(src.len()).unwrap_or(u32::MAX);
        if n <= limit && n > 0 {
            // SAFETY: the caller guarantees `buf` has `limit >= n` bytes.
            unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), buf, src.len()) };
        }
        n
    }

    /// # Safety
    /// `ptr..ptr+len` must be readable.
    unsafe fn read<'a>(ptr: *const u8, len: u32) -> &'a [u8] {
        if len == 0 {
            return &[];
        }
        // SAFETY: guaranteed by the caller.
        unsafe { core::slice::from_raw_parts(ptr, len as usize) }
    }

    macro_rules! getter {
        ($name:ident, $input:ident) => {
            pub unsafe fn $name(buf: *mut u8, limit: u32) -> u32 {
                // SAFETY: forwarded from the caller.
                host_read(Input::$input, None, |src| unsafe { put(src, buf, limit) })
            }
        };
    }
    getter!(current_pod, CurrentPod);
    getter!(target_pod, TargetPod);
    getter!(current_node_name, NodeName);
    getter!(get_config, Config);
    getter!(filtered_node_list, FilteredNodeList);
    getter!(node_score_list, NodeScoreList);
    getter!(node_to_status_map, NodeToStatusMap);

    pub unsafe fn node(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32 {
        // SAFETY: forwarded from the caller.
        let name = unsafe { read(name, name_len) };
        // SAFETY: forwarded from the caller.
        host_read(Input::Node, Some(name), |src| unsafe { put(src, buf, limit) })
    }

    macro_rules! setter {
        ($name:ident, $what:ident) => {
            pub unsafe fn $name(ptr: *const u8, len: u32) {
                // SAFETY: forwarded from the caller.
                host_record(crate::testing::Record::$what(unsafe { read(ptr, len) }));
            }
        };
    }
    setter!(status_reason, Reason);
    setter!(cluster_events, ClusterEvents);
    setter!(node_names, NodeNames);
    setter!(nominated_node_name, NominatedNodeName);
    setter!(normalized_score_list, NormalizedScoreList);

    pub unsafe fn log(severity: i32, msg: *const u8, len: u32) {
        // SAFETY: forwarded from the caller.
        host_record(crate::testing::Record::Log(severity, unsafe { read(msg, len) }, &[]));
    }

    pub unsafe fn logs(severity: i32, msg: *const u8, len: u32, kvs: *const u8, kvs_len: u32) {
        // SAFETY: forwarded from the caller.
        let (msg, kvs) = unsafe { (read(msg, len), read(kvs, kvs_len)) };
        host_record(crate::testing::Record::Log(severity, msg, kvs));
    }

    pub unsafe fn severity() -> i32 {
        crate::testing::host_severity()
    }
}

// ---------------------------------------------------------------------------
// Safe wrappers, one per import.

fn getter_fn(g: Getter) -> unsafe fn(*mut u8, u32) -> u32 {
    match g {
        Getter::CurrentPod => host::current_pod,
        Getter::TargetPod => host::target_pod,
        Getter::NodeName => host::current_node_name,
        Getter::Config => host::get_config,
        Getter::FilteredNodeList => host::filtered_node_list,
        Getter::NodeScoreList => host::node_score_list,
        Getter::NodeToStatusMap => host::node_to_status_map,
    }
}

/// The bytes of input `g`, fetched on first use and kept as long as the
/// slot's cache rule allows (see [`begin_call`], [`new_cycle`]).
pub(crate) fn input(g: Getter) -> &'static [u8] {
    storage::with(|s| -> &'static [u8] {
        let aux = matches!(
            g,
            Getter::FilteredNodeList | Getter::NodeScoreList | Getter::NodeToStatusMap
        );
        if aux && s.aux_getter != Some(g) {
            // The aux slot holds one JSON list per call; another list can only
            // be asked for if none was fetched yet in this call (a refill
            // would invalidate live borrows).
            if s.aux_getter.is_some() {
                return &[];
            }
            s.aux_getter = Some(g);
            s.aux.filled = false;
        }
        let slot = s.slot(g);
        if slot.filled {
            return slot.bytes();
        }
        let get = getter_fn(g);
        // SAFETY: the slot hands out a buffer it owns with its true capacity.
        slot.fill(|buf, limit| unsafe { get(buf, limit) })
    })
}

/// The current node's protobuf, fetched with `k8s.io/api.node` on first use
/// and reused while the node name stays the same within a cycle.
pub(crate) fn current_node() -> &'static [u8] {
    let name = input(Getter::NodeName);
    storage::with(|s| -> &'static [u8] {
        if s.node.filled && s.node_key.get(..s.node_key_len) == Some(name) {
            return s.node.bytes();
        }
        // A different node: no view into the old one is alive, because the
        // node name only changes between calls.
        if name.is_empty() {
            s.node.filled = false;
            s.node.len = 0;
            return &[];
        }
        let name_len = u32::try_from(name.len()).unwrap_or(u32::MAX);
        let bytes =
            // SAFETY: `name` is readable, the slot's buffer is ours.
            s.node.fill(|buf, limit| unsafe { host::node(name.as_ptr(), name_len, buf, limit) });
        match s.node_key.get_mut(..name.len()) {
            Some(key) => {
                key.copy_from_slice(name);
                s.node_key_len = name.len();
            }
            // Names over 256 bytes (invalid in Kubernetes) are not cached.
            None => s.node_key_len = usize::MAX,
        }
        bytes
    })
}

/// Marks the start of a host→guest call: refuses nesting and forgets the
/// per-call inputs.
pub(crate) fn begin_call() {
    let nested = storage::with(|s| {
        let nested = s.in_call;
        s.in_call = true;
        s.node_name.filled = false;
        s.target.filled = false;
        s.aux.filled = false;
        s.aux_getter = None;
        nested
    });
    if nested {
        trap();
    }
}

pub(crate) fn end_call() {
    storage::with(|s| s.in_call = false);
}

/// Forgets the per-cycle inputs (the Pod and the cached Node). Called by
/// the `prefilter` shim inside a call, before the plugin runs.
pub(crate) fn new_cycle() {
    storage::with(|s| {
        s.pod.filled = false;
        s.node.filled = false;
        s.node_key_len = usize::MAX;
    });
}

/// Stops the guest: a wasm trap, or a panic in native tests.
pub(crate) fn trap() -> ! {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::unreachable()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        panic!("kguest: guest trapped (nested host call)")
    }
}

fn len32(b: &[u8]) -> u32 {
    u32::try_from(b.len()).unwrap_or(u32::MAX)
}

/// A `result.*` setter.
#[derive(Clone, Copy)]
pub(crate) enum Setter {
    StatusReason,
    NodeNames,
    NominatedNodeName,
    NormalizedScoreList,
}

pub(crate) fn set(which: Setter, bytes: &[u8]) {
    let f: unsafe fn(*const u8, u32) = match which {
        Setter::StatusReason => host::status_reason,
        Setter::NodeNames => host::node_names,
        Setter::NominatedNodeName => host::nominated_node_name,
        Setter::NormalizedScoreList => host::normalized_score_list,
    };
    // SAFETY: the host copies `len` readable bytes right away.
    unsafe { f(bytes.as_ptr(), len32(bytes)) }
}

pub(crate) fn set_cluster_events(events: &[crate::ClusterEvent]) {
    let len = events.len().saturating_mul(size_of::<crate::ClusterEvent>());
    // SAFETY: `ClusterEvent` is `repr(C)` of two `u32`s, exactly the host's
    // 8-byte record on little-endian wasm32, and the host copies right away.
    unsafe { host::cluster_events(events.as_ptr().cast::<u8>(), u32::try_from(len).unwrap_or(0)) }
}

/// The host's log severity threshold, asked once.
pub(crate) fn severity() -> i32 {
    if let Some(v) = storage::with(|s| s.severity) {
        return v;
    }
    // SAFETY: no arguments, no memory.
    let v = unsafe { host::severity() };
    storage::with(|s| s.severity = Some(v));
    v
}

pub(crate) fn log(severity: i32, msg: &[u8]) {
    // SAFETY: the host reads `msg` right away.
    unsafe { host::log(severity, msg.as_ptr(), len32(msg)) }
}

pub(crate) fn logs(severity: i32, msg: &[u8], kvs: &[u8]) {
    // SAFETY: the host reads both ranges right away.
    unsafe { host::logs(severity, msg.as_ptr(), len32(msg), kvs.as_ptr(), len32(kvs)) }
}

// ---------------------------------------------------------------------------
// The plugin instance.

/// Holds the plugin of a guest; the [`export!`](crate::export) macro declares
/// one as a `static`. Only wasm32 guests have one (single-threaded).
#[doc(hidden)]
pub struct Instance<T> {
    cell: core::cell::UnsafeCell<Option<T>>,
    busy: core::cell::Cell<bool>,
}

// SAFETY: wasm32 guests are single-threaded; the type is only used there
// (native builds declare no exports and hence no instance).
#[cfg(target_arch = "wasm32")]
unsafe impl<T> Sync for Instance<T> {}

impl<T: crate::Plugin> Instance<T> {
    pub const fn new() -> Self {
        Instance { cell: core::cell::UnsafeCell::new(None), busy: core::cell::Cell::new(false) }
    }

    /// Runs `f` on the plugin, creating it on first use. A nested call traps.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        if self.busy.replace(true) {
            trap();
        }
        // SAFETY: `busy` guarantees this is the only live reference.
        let slot = unsafe { &mut *self.cell.get() };
        let plugin = match slot {
            Some(p) => p,
            None => slot.insert(T::new()),
        };
        let r = f(plugin);
        self.busy.set(false);
        r
    }
}

impl<T: crate::Plugin> Default for Instance<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(target_arch = "wasm32", feature = "panic-handler"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
