//! The one module with `unsafe` code: host imports (or their native
//! stand-ins), the input buffers, the plugin instance cell and the panic
//! handler. Everything else in the crate is safe and talks to the host only
//! through the functions here.
//!
//! # Buffer model
//!
//! Each input the host can hand over (current pod, node, node name, target
//! pod, config, one JSON list) has its own [`Slot`]. A slot starts without a
//! buffer: the first getter call (limit 0) only learns the size. The slot
//! then takes a region of about 8 KiB or more, carved from a 64 KiB static
//! scratch arena while it lasts and afterwards from fresh pages obtained with
//! `memory.grow` (native builds leak a `Vec`), and asks again. Later objects
//! that fit take one host call. Slots never shrink and old regions are never
//! reused, as in the Go SDK (whose first 2 KiB buffer also costs large pods a
//! second call).
//!
//! Soundness rests on one rule: **a slot is only refilled while no view into
//! it can exist.** Views borrow the [`Cycle`](crate::Cycle) handle, which the
//! shims create per host call, so they die when the call returns. Within a
//! call a slot is filled at most once (the `filled` flag); the per-call
//! reset runs in [`exit`], once the hook has returned and its views are
//! gone, and the per-cycle one in [`new_cycle`], before the plugin runs. A
//! nested call is refused (trap), so the resets cannot run under a live
//! view, and the plugin instance is never borrowed twice.

#![allow(unsafe_code)]

/// A slot grows to at least `MIN_REGION - 1` bytes (wasm32; native tests
/// grow to the exact size to exercise growth). A power of two.
#[cfg(target_arch = "wasm32")]
const MIN_REGION: usize = 8 * 1024;
#[cfg(not(target_arch = "wasm32"))]
const MIN_REGION: usize = 1;

/// Input ids; ids from `FILTERED_NODE_LIST` up share the `aux` slot.
pub(crate) mod getter {
    pub const CURRENT_POD: u8 = 1;
    pub const TARGET_POD: u8 = 2;
    pub const NODE_NAME: u8 = 3;
    pub const CONFIG: u8 = 4;
    pub const NODE: u8 = 5;
    pub const NODE_LIST: u8 = 6;
    pub const IMAGE_STATES: u8 = 7;
    pub const FILTERED_NODE_LIST: u8 = 8;
    pub const NODE_SCORE_LIST: u8 = 9;
    pub const NODE_TO_STATUS_MAP: u8 = 10;
}

/// A host getter, called through a function pointer to the import itself
/// (no adapter): plain `(buf, limit) -> len`, or keyed by a node name
/// `(name, name_len, buf, limit) -> len` (`node`, `nodeImageStates`).
/// Which field is set follows from the key: keyed getters are only called
/// with a non-empty name, plain ones with none.
#[derive(Clone, Copy)]
union Get {
    plain: PlainGet,
    keyed: KeyedGet,
}

#[cfg(target_arch = "wasm32")]
type PlainGet = unsafe extern "C" fn(*mut u8, u32) -> u32;
#[cfg(target_arch = "wasm32")]
type KeyedGet = unsafe extern "C" fn(*const u8, u32, *mut u8, u32) -> u32;
#[cfg(not(target_arch = "wasm32"))]
type PlainGet = unsafe fn(*mut u8, u32) -> u32;
#[cfg(not(target_arch = "wasm32"))]
type KeyedGet = unsafe fn(*const u8, u32, *mut u8, u32) -> u32;

/// A growable input buffer and what it currently holds.
struct Slot {
    /// Null until the slot gets a buffer (then `cap > 0`).
    ptr: *mut u8,
    cap: usize,
    len: usize,
}

impl Slot {
    const fn empty() -> Slot {
        Slot {
            ptr: core::ptr::null_mut(),
            cap: 0,
            len: 0,
        }
    }

    /// The held bytes. The `'static` is a lie the callers narrow to the
    /// lifetime of the `Cycle` borrow (see the module docs).
    #[inline(always)]
    fn bytes(&self) -> &'static [u8] {
        // Never null: a slot without a buffer holds nothing (`len == 0`),
        // and its null pointer becomes 1, which is enough for no bytes.
        let ptr = self.ptr.map_addr(|a| a | usize::from(self.len == 0));
        // SAFETY: `ptr..ptr+len` was written by the host (or stand-in) into
        // memory this slot owns exclusively, and is only rewritten when no
        // view exists (module docs); `ptr` is not null.
        unsafe { core::slice::from_raw_parts(ptr, self.len) }
    }

    /// Makes room for `needed` bytes.
    #[inline(always)]
    fn grow(&mut self, needed: usize) -> bool {
        // At least `MIN_REGION - 1` bytes (rounded up to a multiple of
        // `MIN_REGION`, less one): an `or` instead of a `max`.
        match fresh_region(needed | (MIN_REGION - 1)) {
            Some((ptr, cap)) => {
                self.ptr = ptr;
                self.cap = cap;
                true
            }
            None => false,
        }
    }

    /// Fills the slot with `get`: one host call when the object fits the
    /// buffer, else the slot grows to the size the host answered and asks
    /// again. A slot without a buffer asks with limit 0, so it takes a
    /// region only once it knows the size, and none for an empty input.
    /// Two calls at most: a failed fill leaves the slot empty (the caller
    /// has already marked it filled, so a broken host is asked only once
    /// per call).
    ///
    /// # Safety
    /// `key..key+key_len` must be readable; `get` holds `keyed` when
    /// `key_len != 0`, else `plain`.
    #[inline]
    unsafe fn fill(&mut self, get: Get, key: *const u8, key_len: u32) {
        self.len = 0;
        for _ in 0..2 {
            // `cap` fits u32: wasm32, or a test-sized native buffer.
            let limit = self.cap as u32;
            // SAFETY: the buffer is ours with `cap` writable bytes (none
            // while it is null); the key is readable and the union field is
            // the one set, per the caller.
            let n = unsafe {
                if key_len == 0 {
                    (get.plain)(self.ptr, limit)
                } else {
                    (get.keyed)(key, key_len, self.ptr, limit)
                }
            } as usize;
            if n <= self.cap {
                self.len = n;
                return;
            }
            if !self.grow(n) {
                return;
            }
        }
    }
}

/// Slot indexes: the input ids below `FILTERED_NODE_LIST`, then `AUX` for
/// the three JSON lists, then `SCRATCH` for JSON the guest sends (events).
/// Bit `i` of `State::flags` says slot `i` is filled; bit 0 (no slot) says a
/// host call is running; bits 16 and up count scheduling cycles (the epoch:
/// 48 bits never wrap in practice).
const AUX: usize = 8;
const SCRATCH: usize = 9;
/// Slots in `State` (those past `SCRATCH` are never used): a power of two.
const SLOTS: usize = 16;
const IN_CALL: u64 = 1;
const EPOCH_SHIFT: u32 = 16;
const PER_CALL: u64 =
    (1 << getter::TARGET_POD) | (1 << getter::NODE_NAME) | (1 << getter::IMAGE_STATES) | (1 << AUX);
const PER_CYCLE: u64 = (1 << getter::CURRENT_POD) | (1 << getter::NODE) | (1 << getter::NODE_LIST);

/// All mutable SDK state. Everything starts zeroed, so it lives in `.bss`.
struct State {
    flags: u64,
    /// Indexed by slot index masked with `SLOTS - 1` (no bounds check).
    slots: [Slot; SLOTS],
    /// The input whose list `AUX` holds (meaningful while `AUX` is filled).
    aux_getter: u8,
    /// Name of the node held in slot `NODE` (valid while it is filled);
    /// `node_key_len == 0` means none.
    node_key: [u8; 256],
    node_key_len: usize,
    severity: Option<i32>,
}

impl State {
    const fn new() -> State {
        State {
            flags: 0,
            slots: [const { Slot::empty() }; SLOTS],
            aux_getter: 0,
            node_key: [0; 256],
            node_key_len: 0,
            severity: None,
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

    /// Runs `f` on the state. Callers never nest `with` (each public
    /// function in `sys` takes it once, briefly).
    #[inline(always)]
    pub(super) fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
        // SAFETY: wasm32 guests are single-threaded, `with` is not re-entered
        // (no closure passed to it calls back into `with`), so this is the
        // only reference to STATE.
        let state: *mut State = &raw mut STATE;
        f(unsafe { &mut *state })
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

    /// Forgets everything (a fresh guest instance) and starts a new cycle
    /// epoch, so per-cycle data from before is not taken as current.
    /// Leaked buffers stay leaked.
    pub(crate) fn reset() {
        with(|s| {
            let epoch = s.flags >> super::EPOCH_SHIFT;
            *s = State::new();
            s.flags = epoch.wrapping_add(1) << super::EPOCH_SHIFT;
        });
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use storage::reset;

/// Size of the static scratch region slots are carved from first.
/// Zero-initialised, so it costs nothing in the `.wasm` file.
#[cfg(target_arch = "wasm32")]
const ARENA: usize = 64 * 1024;

/// A new region of at least `needed` bytes that nothing else uses: carved
/// from the static arena while it lasts, then whole pages from
/// `memory.grow`. Never null: the arena is a static, and `memory.grow`
/// returns pages past the statics (page 0 holds the stack).
#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn fresh_region(needed: usize) -> Option<(*mut u8, usize)> {
    static mut SCRATCH: [u8; ARENA] = [0; ARENA];
    static mut USED: usize = 0;
    const PAGE: usize = 64 * 1024;
    // SAFETY: single-threaded; `USED` only grows, so carved ranges never
    // overlap, and `SCRATCH` is reached only through the slots.
    unsafe {
        let used = USED;
        if needed <= ARENA - used {
            USED = used + needed;
            return Some(((&raw mut SCRATCH as *mut u8).add(used), needed));
        }
    }
    // Wrapping: a size near 4 GiB asks for too few pages, and the caller
    // then finds the region too small.
    let pages = needed.wrapping_add(PAGE - 1) / PAGE;
    let old = core::arch::wasm32::memory_grow(0, pages);
    if old == usize::MAX {
        return None;
    }
    // The pages past the old end belong to nobody else: this crate has no
    // allocator and is the only caller of memory.grow.
    Some(((old * PAGE) as *mut u8, pages * PAGE))
}

#[cfg(not(target_arch = "wasm32"))]
fn fresh_region(needed: usize) -> Option<(*mut u8, usize)> {
    let region: &'static mut [u8] = std::vec![0u8; needed.max(1)].leak();
    Some((region.as_mut_ptr(), region.len()))
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
        #[link_name = "nodeImageStates"]
        pub fn node_image_states(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32;
        #[link_name = "handle.eventrecorder.eventf"]
        pub fn eventf(ptr: *const u8, len: u32);
        #[link_name = "handle.reject_waiting_pod"]
        pub fn reject_waiting_pod(uid: *const u8, uid_len: u32, out: *mut u8, limit: u32);
        #[link_name = "handle.get_waiting_pod"]
        pub fn get_waiting_pod(uid: *const u8, uid_len: u32, out: *mut u8, limit: u32);
    }

    #[link(wasm_import_module = "k8s.io/api")]
    unsafe extern "C" {
        #[link_name = "node"]
        pub fn node(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32;
        #[link_name = "nodeList"]
        pub fn node_list(buf: *mut u8, limit: u32) -> u32;
    }

    // Only `Load` plugins that refuse their config link it (see `refuse`).
    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    unsafe extern "C" {
        #[link_name = "fd_write"]
        pub fn fd_write(fd: i32, iovs: *const [u32; 2], iovs_len: u32, nwritten: *mut u32) -> i32;
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

/// Native stand-ins with the same signatures, backed by the test host's
/// thread-local state (`testing/host_state.rs`, which reaches no import).
#[cfg(not(target_arch = "wasm32"))]
mod host {
    use crate::testing::host_state::{
        Input, Record, host_read, host_record, host_reject_waiting_pod, host_severity,
        host_waiting_pod,
    };

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
    getter!(node_list, NodeList);

    pub unsafe fn node(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32 {
        // SAFETY: forwarded from the caller.
        let name = unsafe { read(name, name_len) };
        // SAFETY: forwarded from the caller.
        host_read(Input::Node, Some(name), |src| unsafe {
            put(src, buf, limit)
        })
    }

    pub unsafe fn node_image_states(
        name: *const u8,
        name_len: u32,
        buf: *mut u8,
        limit: u32,
    ) -> u32 {
        // SAFETY: forwarded from the caller.
        let name = unsafe { read(name, name_len) };
        // SAFETY: forwarded from the caller.
        host_read(Input::ImageStates, Some(name), |src| unsafe {
            put(src, buf, limit)
        })
    }

    /// Writes the `u64` little-endian `v` at `out` (the host ignores the
    /// limit; the SDK always passes 8 writable bytes).
    ///
    /// # Safety
    /// `out` must be valid for 8 bytes of writes.
    unsafe fn put_u64(out: *mut u8, v: u64) {
        let b = v.to_le_bytes();
        // SAFETY: guaranteed by the caller.
        unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), out, b.len()) };
    }

    pub unsafe fn reject_waiting_pod(uid: *const u8, uid_len: u32, out: *mut u8, _limit: u32) {
        // SAFETY: forwarded from the caller.
        let uid = unsafe { read(uid, uid_len) };
        let rejected = host_reject_waiting_pod(uid);
        // SAFETY: forwarded from the caller.
        unsafe { put_u64(out, u64::from(rejected)) };
    }

    /// Like the KSW host: `u64` 0 when there is no such pod, else the Pod's
    /// bytes if they fit `limit`, else nothing. No length is returned.
    pub unsafe fn get_waiting_pod(uid: *const u8, uid_len: u32, out: *mut u8, limit: u32) {
        // SAFETY: forwarded from the caller.
        let uid = unsafe { read(uid, uid_len) };
        match host_waiting_pod(uid) {
            // SAFETY: the SDK passes at least 8 writable bytes.
            None => unsafe { put_u64(out, 0) },
            Some(pod) => {
                if pod.len() <= limit as usize {
                    // SAFETY: `limit` writable bytes, per the caller.
                    unsafe { core::ptr::copy_nonoverlapping(pod.as_ptr(), out, pod.len()) };
                }
            }
        }
    }

    macro_rules! setter {
        ($name:ident, $what:ident) => {
            pub unsafe fn $name(ptr: *const u8, len: u32) {
                // SAFETY: forwarded from the caller.
                host_record(Record::$what(unsafe { read(ptr, len) }));
            }
        };
    }
    setter!(status_reason, Reason);
    setter!(cluster_events, ClusterEvents);
    setter!(node_names, NodeNames);
    setter!(nominated_node_name, NominatedNodeName);
    setter!(normalized_score_list, NormalizedScoreList);
    setter!(eventf, Event);

    pub unsafe fn log(severity: i32, msg: *const u8, len: u32) {
        // SAFETY: forwarded from the caller.
        host_record(Record::Log(severity, unsafe { read(msg, len) }, &[]));
    }

    pub unsafe fn logs(severity: i32, msg: *const u8, len: u32, kvs: *const u8, kvs_len: u32) {
        // SAFETY: forwarded from the caller.
        let (msg, kvs) = unsafe { (read(msg, len), read(kvs, kvs_len)) };
        host_record(Record::Log(severity, msg, kvs));
    }

    pub unsafe fn severity() -> i32 {
        host_severity()
    }
}

// ---------------------------------------------------------------------------
// Safe wrappers, one per import.

/// The getter of input `id` (a constant at every call site).
#[inline(always)]
fn getter_of(id: u8) -> Get {
    Get {
        plain: match id {
            getter::CURRENT_POD => host::current_pod,
            getter::TARGET_POD => host::target_pod,
            getter::NODE_NAME => host::current_node_name,
            getter::CONFIG => host::get_config,
            getter::NODE_LIST => host::node_list,
            getter::FILTERED_NODE_LIST => host::filtered_node_list,
            getter::NODE_SCORE_LIST => host::node_score_list,
            _ => host::node_to_status_map,
        },
    }
}

/// The bytes of input `id`, fetched on first use and kept as long as the
/// slot's cache rule allows (see [`exit`], [`new_cycle`]).
#[inline(always)]
pub(crate) fn input(id: u8) -> &'static [u8] {
    let get = getter_of(id);
    let slot = if usize::from(id) >= AUX {
        fetch_list(id, get)
    } else {
        fetch(usize::from(id), get)
    };
    // SAFETY: `slot` points into the state, which outlives the program
    // (wasm32) or the thread, and no `storage::with` has run since `fetch`
    // returned it.
    unsafe { (*slot).bytes() }
}

/// Fills slot `idx` unless it is filled; returns where it is (slot 0, never
/// filled, for nothing), so the caller reads the slot's pointer and length
/// itself: one scalar comes back in a register, a slice would go through
/// the stack.
#[inline]
fn fetch(idx: usize, get: Get) -> *const Slot {
    storage::with(|s| {
        let idx = idx & (SLOTS - 1);
        let bit = 1u32 << idx;
        let Some(slot) = s.slots.get_mut(idx) else {
            return s.slots.as_ptr();
        };
        // In 32 bits: the slot bits are the low 16.
        if s.flags as u32 & bit == 0 {
            s.flags |= u64::from(bit);
            // SAFETY: no key.
            unsafe { slot.fill(get, core::ptr::null(), 0) };
        }
        slot
    })
}

/// The JSON lists share the `AUX` slot: the first one asked for in a call
/// gets it; another one in the same call reads as empty (refilling would
/// invalidate live borrows).
#[inline]
fn fetch_list(id: u8, get: Get) -> *const Slot {
    let taken = storage::with(|s| {
        if s.flags & (1 << AUX) == 0 {
            s.aux_getter = id;
        }
        (s.aux_getter != id).then_some(s.slots.as_ptr())
    });
    taken.unwrap_or_else(|| fetch(AUX, get))
}

/// The current node's protobuf, fetched with `k8s.io/api.node` on first use
/// and reused while the node name stays the same within a cycle.
#[inline(always)]
pub(crate) fn current_node() -> &'static [u8] {
    let slot = fetch_node();
    // SAFETY: as in `input`.
    unsafe { (*slot).bytes() }
}

/// [`current_node`]'s slot (see [`fetch`]).
#[inline]
fn fetch_node() -> *const Slot {
    let name = input(getter::NODE_NAME);
    storage::with(|s| {
        const BIT: u64 = 1 << getter::NODE;
        let Some(slot) = s.slots.get_mut(usize::from(getter::NODE)) else {
            return s.slots.as_ptr();
        };
        let cached = s.flags & BIT != 0;
        if cached
            && s.node_key_len != 0
            && s.node_key.get(..s.node_key_len).is_some_and(|k| k == name)
        {
            return slot;
        }
        // A different node: no view into the old one is alive, because the
        // node name only changes between calls.
        if name.is_empty() {
            s.flags &= !BIT;
            slot.len = 0;
            return slot;
        }
        s.flags |= BIT;
        let name_len = u32::try_from(name.len()).unwrap_or(u32::MAX);
        // SAFETY: `name` is readable.
        unsafe { slot.fill(Get { keyed: host::node }, name.as_ptr(), name_len) };
        s.node_key_len = match s.node_key.get_mut(..name.len()) {
            Some(key) => {
                copy(key, name);
                name.len()
            }
            // Names over 256 bytes (invalid in Kubernetes) are not cached.
            None => 0,
        };
        slot
    })
}

/// `nodeImageStates` of the current node (JSON), fetched once per call.
#[inline]
pub(crate) fn current_image_states() -> &'static [u8] {
    let name = input(getter::NODE_NAME);
    storage::with(|s| -> &'static [u8] {
        const BIT: u64 = 1 << getter::IMAGE_STATES;
        let Some(slot) = s.slots.get_mut(usize::from(getter::IMAGE_STATES)) else {
            return &[];
        };
        if s.flags & BIT == 0 {
            s.flags |= BIT;
            slot.len = 0;
            if !name.is_empty() {
                let name_len = u32::try_from(name.len()).unwrap_or(u32::MAX);
                // SAFETY: `name` is readable.
                unsafe {
                    slot.fill(
                        Get {
                            keyed: host::node_image_states,
                        },
                        name.as_ptr(),
                        name_len,
                    )
                };
            }
        }
        slot.bytes()
    })
}

/// Marks the start of a host→guest call: refuses nesting. Returns the
/// flags as they are now, which spares [`new_cycle_at`] reading them again.
#[inline]
pub(crate) fn enter() -> u64 {
    storage::with(|s| {
        if s.flags as u32 & IN_CALL as u32 != 0 {
            trap();
        }
        s.flags |= IN_CALL;
        s.flags
    })
}

/// Marks the end of a host→guest call, once the hook's views are gone, and
/// forgets the per-call inputs.
#[inline]
pub(crate) fn exit() {
    storage::with(|s| s.flags &= !(IN_CALL | PER_CALL));
}

/// Forgets the per-cycle inputs (the Pod, the cached Node, the node list)
/// and starts a new cycle epoch. Called by the `prefilter` shim inside a
/// call, before the plugin runs.
#[inline]
pub(crate) fn new_cycle() {
    new_cycle_at(storage::with(|s| s.flags));
}

/// [`new_cycle`] when the flags are known to be `flags` (what [`enter`]
/// returned).
#[inline(always)]
fn new_cycle_at(flags: u64) {
    storage::with(|s| s.flags = (flags & !PER_CYCLE).wrapping_add(1 << EPOCH_SHIFT));
}

/// The current scheduling cycle's number. The per-cycle inputs (the Pod and
/// the node list) keep their bytes in place until it changes, which is what
/// lets [`CycleState`](crate::CycleState) keep views into them across calls.
#[inline]
pub(crate) fn cycle_epoch() -> u64 {
    storage::with(|s| s.flags >> EPOCH_SHIFT)
}

/// Runs `f` on a scratch buffer of at least `min` bytes (for JSON the guest
/// sends); `None` when memory cannot grow. `f` must not call back into
/// `with_scratch`.
#[inline]
pub(crate) fn with_scratch<R>(min: usize, f: impl FnOnce(&mut [u8]) -> R) -> Option<R> {
    let (ptr, cap) = storage::with(|s| {
        let slot = s.slots.get_mut(SCRATCH)?;
        if (slot.ptr.is_null() || slot.cap < min) && !slot.grow(min) {
            return None;
        }
        Some((slot.ptr, slot.cap))
    })?;
    // SAFETY: the region is owned by the scratch slot, which nothing else
    // reads or writes, and callers do not nest (see above).
    let buf = unsafe { core::slice::from_raw_parts_mut(ptr, cap) };
    Some(f(buf))
}

/// Stores per-cycle data computed from views of this cycle's inputs, with
/// their lifetime widened to `'static`. Sound because the data is `Copy`
/// (no destructor ever sees stale bytes), covariant in its lifetime (checked
/// by [`PerCycle::shorten`](crate::PerCycle::shorten)), borrows nothing but
/// the per-cycle inputs (the closure producing it is higher-ranked), and
/// [`CycleState`](crate::CycleState) hands it out only while
/// [`cycle_epoch`] is unchanged, i.e. before those inputs are refilled.
pub(crate) fn widen<S: crate::PerCycle>(data: S::Data<'_>) -> S::Data<'static> {
    let data = core::mem::ManuallyDrop::new(data);
    // SAFETY: lifetimes do not change layout; validity as argued above.
    unsafe { core::ptr::read((&raw const *data).cast::<S::Data<'static>>()) }
}

/// Stops the guest: a wasm trap, or a panic in native tests.
#[inline(always)]
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

/// Stops the guest with `why` on stderr, as a TinyGo guest's panic does:
/// both hosts put what the guest wrote before the trap into the error
/// (`wasm: instantiate error: <why>` when it happens in `_start`). A panic
/// with the message in native tests.
#[cold]
pub(crate) fn refuse(why: &crate::Refusal) -> ! {
    #[cfg(target_arch = "wasm32")]
    {
        // One `fd_write` of one iovec per piece (the hosts write stderr to
        // a buffer whole; a short write only shortens the message).
        let mut iovs = [[0u32; 2]; crate::Refusal::PARTS];
        for (iov, part) in iovs.iter_mut().zip(why.all_parts()) {
            *iov = [part.as_ptr() as u32, len32(part.as_bytes())];
        }
        let mut written = 0u32;
        // SAFETY: every iovec names readable bytes; the host writes `written`.
        unsafe { host::fd_write(2, iovs.as_ptr(), iovs.len() as u32, &mut written) };
        core::arch::wasm32::unreachable()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        panic!("{}", why.parts().collect::<std::string::String>())
    }
}

/// Copies `min(dst.len(), src.len())` bytes: one `memory.copy` in wasm,
/// where a byte loop or `copy_from_slice` (whose length-mismatch panic
/// would pull in `core::fmt`) costs more code.
#[inline]
pub(crate) fn copy(dst: &mut [u8], src: &[u8]) {
    let n = dst.len().min(src.len());
    // SAFETY: both ranges have at least `n` bytes, and a `&mut` never
    // overlaps a `&`.
    unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr(), n) }
}

/// A slice length for the ABI. Slices handed to the host live in wasm32
/// memory (or are test-sized natively), so the length fits.
#[inline(always)]
fn len32(b: &[u8]) -> u32 {
    b.len() as u32
}

/// A `result.*` setter.
#[derive(Clone, Copy)]
pub(crate) enum Setter {
    StatusReason,
    NodeNames,
    NominatedNodeName,
    NormalizedScoreList,
}

#[inline(always)]
pub(crate) fn set(which: Setter, bytes: &[u8]) {
    let (ptr, len) = (bytes.as_ptr(), len32(bytes));
    // SAFETY: the host copies `len` readable bytes right away.
    unsafe {
        match which {
            Setter::StatusReason => host::status_reason(ptr, len),
            Setter::NodeNames => host::node_names(ptr, len),
            Setter::NominatedNodeName => host::nominated_node_name(ptr, len),
            Setter::NormalizedScoreList => host::normalized_score_list(ptr, len),
        }
    }
}

/// `handle.eventrecorder.eventf`: sends an `EventMessage` JSON.
#[inline]
pub(crate) fn send_event(json: &[u8]) {
    // SAFETY: the host copies `len` readable bytes right away.
    unsafe { host::eventf(json.as_ptr(), len32(json)) }
}

/// `handle.reject_waiting_pod`: true when the host rejected a waiting pod
/// with this UID.
#[inline]
pub(crate) fn reject_waiting_pod(uid: &[u8]) -> bool {
    let mut out = [0u8; 8];
    // SAFETY: `uid` is readable; `out` has the 8 bytes the host always
    // writes (it ignores the limit).
    unsafe { host::reject_waiting_pod(uid.as_ptr(), len32(uid), out.as_mut_ptr(), 8) };
    u64::from_le_bytes(out) == 1
}

/// `handle.get_waiting_pod` into `buf` (at least 8 bytes, so that the
/// host's 8-byte "none" answer fits whatever the limit says).
#[inline]
pub(crate) fn get_waiting_pod(uid: &[u8], buf: &mut [u8]) {
    if buf.len() < 8 {
        return;
    }
    // SAFETY: `uid` is readable and `buf` writable for `buf.len() >= 8` bytes.
    unsafe {
        host::get_waiting_pod(
            uid.as_ptr(),
            len32(uid),
            buf.as_mut_ptr(),
            u32::try_from(buf.len()).unwrap_or(u32::MAX),
        )
    }
}

#[inline]
pub(crate) fn set_cluster_events(events: &[crate::ClusterEvent]) {
    let len = events
        .len()
        .saturating_mul(size_of::<crate::ClusterEvent>());
    // SAFETY: `ClusterEvent` is `repr(C)` of two `u32`s, exactly the host's
    // 8-byte record on little-endian wasm32, and the host copies right away.
    unsafe {
        host::cluster_events(
            events.as_ptr().cast::<u8>(),
            u32::try_from(len).unwrap_or(0),
        )
    }
}

/// The host's log severity threshold, asked once.
#[inline]
pub(crate) fn severity() -> i32 {
    if let Some(v) = storage::with(|s| s.severity) {
        return v;
    }
    // SAFETY: no arguments, no memory.
    let v = unsafe { host::severity() };
    storage::with(|s| s.severity = Some(v));
    v
}

#[inline]
pub(crate) fn log(severity: i32, msg: &[u8]) {
    // SAFETY: the host reads `msg` right away.
    unsafe { host::log(severity, msg.as_ptr(), len32(msg)) }
}

#[inline]
pub(crate) fn logs(severity: i32, msg: &[u8], kvs: &[u8]) {
    // SAFETY: the host reads both ranges right away.
    unsafe { host::logs(severity, msg.as_ptr(), len32(msg), kvs.as_ptr(), len32(kvs)) }
}

// ---------------------------------------------------------------------------
// The plugin instance.

/// Holds the plugin of a guest; the [`export!`](crate::export) macro declares
/// one as a `static`. Only wasm32 guests have one (single-threaded).
/// `LOADED`: the plugin is a [`Load`](crate::Load), built by `_start`
/// ([`Instance::start`]), so hooks never build it.
#[doc(hidden)]
pub struct Instance<T, const LOADED: bool = false> {
    /// Whether `plugin` holds a value. Kept apart from it (rather than an
    /// `Option<T>`, whose `None` may be a non-zero niche) so that the static
    /// is all zeros and lands in `.bss`, not in the file's data section.
    created: core::cell::Cell<bool>,
    plugin: core::cell::UnsafeCell<core::mem::MaybeUninit<T>>,
}

// SAFETY: wasm32 guests are single-threaded; the type is only used there
// (native builds declare no exports and hence no instance).
#[cfg(target_arch = "wasm32")]
unsafe impl<T, const LOADED: bool> Sync for Instance<T, LOADED> {}

impl<T: crate::Plugin, const LOADED: bool> Instance<T, LOADED> {
    pub const fn new() -> Self {
        Instance {
            created: core::cell::Cell::new(false),
            plugin: core::cell::UnsafeCell::new(core::mem::MaybeUninit::uninit()),
        }
    }

    /// The plugin, if created. Only called between `enter` and `exit`.
    #[allow(clippy::mut_from_ref)] // one call at a time: see `enter`
    fn get(&self) -> Option<&mut T> {
        if !self.created.get() {
            return None;
        }
        // SAFETY: `created` says it was written; `enter` admits one call at
        // a time, so this is the only reference until `exit`.
        Some(unsafe { (*self.plugin.get()).assume_init_mut() })
    }

    /// Runs one host call on the plugin, creating it on first use (a
    /// `LOADED` one traps instead: its `_start` did not run). A nested call
    /// traps (in [`enter`]) before the plugin is borrowed again.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        enter();
        if LOADED && !self.created.get() {
            trap();
        }
        if !LOADED && !self.created.get() {
            // SAFETY: as in `get`; not created yet, so nothing is
            // overwritten (and nothing needs dropping).
            unsafe { (*self.plugin.get()).write(T::new()) };
        }
        // Set whether or not it was: a plugin whose `new` does nothing then
        // costs one store, not a test.
        self.created.set(true);
        // SAFETY: created above or before; `enter` admits one call at a
        // time, so this is the only reference until `exit`.
        let plugin = unsafe { (*self.plugin.get()).assume_init_mut() };
        let r = f(plugin);
        exit();
        r
    }

    /// The `_start` export of a [`Load`](crate::Load) plugin: builds it
    /// from its config while the host instantiates the guest; a refusal
    /// traps there (see [`refuse`]).
    #[inline]
    pub fn start(&self)
    where
        T: crate::Load,
    {
        enter();
        if !self.created.get() {
            // SAFETY: as in `with`.
            unsafe { (*self.plugin.get()).write(T::new()) };
            self.created.set(true);
        }
        exit();
    }

    /// The `prefilter` export of a plugin without its own PreFilter: a new
    /// cycle starts. A plugin not created yet has no cycle state, so it is
    /// not created here.
    #[inline]
    pub fn new_cycle(&self) -> i32 {
        new_cycle_at(enter());
        if let Some(p) = self.get() {
            p.new_cycle();
        }
        exit();
        0
    }
}

impl<T: crate::Plugin, const LOADED: bool> Default for Instance<T, LOADED> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(target_arch = "wasm32", feature = "panic-handler"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
