//! Every `unsafe` of the crate: the bump arena that stands in for an
//! allocator, and the three WASI preview1 imports a function needs
//! (`fd_read`, `fd_write`, `proc_exit`).
//!
//! The arena hands out non-overlapping byte ranges of one region and never
//! frees or reuses them, so a `&'a mut [u8]` it returns is never aliased.
//! On wasm32 the region is memory that `memory.grow` added past everything
//! the module had (this crate is the only caller of `memory.grow`: a KRM
//! function built with it has no allocator); natively it is one zeroed
//! heap block owned by the arena.

use core::cell::Cell;
use core::marker::PhantomData;
use core::mem::{align_of, size_of};

/// A bump allocator over one contiguous region. Allocation never fails by
/// panicking: it returns `None` when the region cannot grow.
pub struct Arena {
    base: *mut u8,
    used: Cell<usize>,
    cap: Cell<usize>,
    #[cfg(not(target_arch = "wasm32"))]
    _block: std::boxed::Box<[u8]>,
}

impl core::fmt::Debug for Arena {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Arena")
            .field("used", &self.used.get())
            .field("cap", &self.cap.get())
            .finish()
    }
}

#[cfg(target_arch = "wasm32")]
const PAGE: usize = 64 * 1024;

impl Arena {
    /// The arena of a wasm function: starts empty at the current end of
    /// linear memory and grows with `memory.grow`.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn wasm() -> Arena {
        let pages = core::arch::wasm32::memory_size(0);
        Arena {
            base: (pages * PAGE) as *mut u8,
            used: Cell::new(0),
            cap: Cell::new(0),
        }
    }

    /// A native arena of `capacity` bytes (zeroed lazily by the OS).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_capacity(capacity: usize) -> Arena {
        let mut block = std::vec![0u8; capacity.max(16)].into_boxed_slice();
        let base = block.as_mut_ptr();
        Arena {
            base,
            used: Cell::new(0),
            cap: Cell::new(block.len()),
            _block: block,
        }
    }

    /// Bytes handed out so far.
    pub fn used(&self) -> usize {
        self.used.get()
    }

    /// Makes sure `extra` more bytes fit past `used`.
    fn reserve(&self, extra: usize) -> bool {
        let used = self.used.get();
        let Some(need) = used.checked_add(extra) else {
            return false;
        };
        if need <= self.cap.get() {
            return true;
        }
        self.grow(need)
    }

    #[cfg(target_arch = "wasm32")]
    fn grow(&self, need: usize) -> bool {
        let missing = need - self.cap.get();
        // At least 1 MiB at a time: fewer calls for big inputs.
        let pages = missing.div_ceil(PAGE).max(16);
        if core::arch::wasm32::memory_grow(0, pages) == usize::MAX {
            return false;
        }
        self.cap.set(self.cap.get() + pages * PAGE);
        true
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn grow(&self, _need: usize) -> bool {
        false
    }

    /// `len` fresh bytes aligned to `align` (a power of two).
    // A bump allocator hands out `&mut` from `&self`: every range is fresh
    // and never handed out again (see the module docs).
    #[allow(clippy::mut_from_ref)]
    #[inline(never)]
    pub fn alloc_aligned(&self, len: usize, align: usize) -> Option<&mut [u8]> {
        let used = self.used.get();
        let addr = (self.base as usize).wrapping_add(used);
        let pad = addr.wrapping_neg() & (align - 1);
        if !self.reserve(pad.checked_add(len)?) {
            return None;
        }
        let start = used + pad;
        self.used.set(start + len);
        // SAFETY: [start, start + len) lies inside the region (reserved
        // above), was never handed out before (`used` only grows past it),
        // and is initialised (zeroed pages or a zeroed block).
        Some(unsafe { core::slice::from_raw_parts_mut(self.base.add(start), len) })
    }

    /// `len` fresh bytes.
    #[allow(clippy::mut_from_ref)]
    pub fn alloc(&self, len: usize) -> Option<&mut [u8]> {
        self.alloc_aligned(len, 1)
    }

    /// A copy of `bytes` that lives as long as the arena.
    pub fn copy<'s>(&'s self, bytes: &[u8]) -> Option<&'s [u8]> {
        let out = self.alloc(bytes.len())?;
        crate::bytes::copy(out, bytes);
        Some(out)
    }

    /// A copy of `s` that lives as long as the arena.
    pub fn copy_str<'s>(&'s self, s: &str) -> Option<&'s str> {
        core::str::from_utf8(self.copy(s.as_bytes())?).ok()
    }

    /// Gives back the tail of the most recent allocation, which started at
    /// `start` (an offset from [`Arena::used`] before it) and keeps `keep`
    /// bytes. Does nothing if something was allocated since.
    fn truncate_last(&self, end_before: usize, keep_end: usize) {
        if self.used.get() == end_before && keep_end <= end_before {
            self.used.set(keep_end);
        }
    }

    /// A slice of `n` copies of `value`.
    #[allow(clippy::mut_from_ref)]
    pub fn fill<T: Copy>(&self, n: usize, value: T) -> Option<&mut [T]> {
        let bytes = n.checked_mul(size_of::<T>())?;
        let raw = self.alloc_aligned(bytes, align_of::<T>())?;
        let ptr = raw.as_mut_ptr().cast::<T>();
        for i in 0..n {
            // SAFETY: `raw` holds n properly aligned T-sized slots.
            unsafe { ptr.add(i).write(value) };
        }
        // SAFETY: all n slots were just written.
        Some(unsafe { core::slice::from_raw_parts_mut(ptr, n) })
    }
}

/// A vector that grows at the end of the arena while nothing else is
/// allocated: the tape of a parse, the bytes of standard input, an edited
/// text. [`Growing::push`] fails (returns false) if the arena ran out or
/// something else was allocated in between.
pub struct Growing<'a, T: Copy> {
    arena: &'a Arena,
    /// Offset of element 0 from the arena base.
    start: usize,
    len: usize,
    _t: PhantomData<&'a mut [T]>,
}

impl<'a, T: Copy> Growing<'a, T> {
    pub fn new(arena: &'a Arena) -> Option<Growing<'a, T>> {
        let head = arena.alloc_aligned(0, align_of::<T>())?;
        let start = (head.as_ptr() as usize).wrapping_sub(arena.base as usize);
        Some(Growing {
            arena,
            start,
            len: 0,
            _t: PhantomData,
        })
    }

    fn end(&self) -> usize {
        self.start + self.len * size_of::<T>()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    #[must_use]
    #[inline(never)]
    pub fn push(&mut self, value: T) -> bool {
        if self.arena.used.get() != self.end() || !self.arena.reserve(size_of::<T>()) {
            return false;
        }
        let end = self.end();
        self.arena.used.set(end + size_of::<T>());
        // SAFETY: the slot [end, end + size) is reserved, aligned (the
        // vector started aligned and grows by whole elements) and ours.
        unsafe { self.arena.base.add(end).cast::<T>().write(value) };
        self.len += 1;
        true
    }

    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `len` elements were written from `start`.
        unsafe {
            core::slice::from_raw_parts(self.arena.base.add(self.start).cast::<T>(), self.len)
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above; `&mut self` makes the access unique.
        unsafe {
            core::slice::from_raw_parts_mut(self.arena.base.add(self.start).cast::<T>(), self.len)
        }
    }

    /// Drops elements past `len`, giving their memory back when nothing
    /// was allocated after the vector.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            let before = self.end();
            self.len = len;
            self.arena.truncate_last(before, self.end());
        }
    }

    /// Ends the vector; its elements live as long as the arena.
    pub fn finish(self) -> &'a mut [T] {
        // SAFETY: as above; the vector is consumed, so this is the only
        // reference to its elements.
        unsafe {
            core::slice::from_raw_parts_mut(self.arena.base.add(self.start).cast::<T>(), self.len)
        }
    }
}

impl<'a> Growing<'a, u8> {
    #[inline(never)]
    pub fn extend(&mut self, bytes: &[u8]) -> bool {
        let Some(spare) = self.spare(bytes.len()) else {
            return false;
        };
        crate::bytes::copy(spare, bytes);
        self.commit(bytes.len());
        true
    }

    /// `n` writable bytes past the end, already reserved; [`Growing::commit`]
    /// keeps the first `k` of them.
    pub fn spare(&mut self, n: usize) -> Option<&mut [u8]> {
        if self.arena.used.get() != self.end() || !self.arena.reserve(n) {
            return None;
        }
        let end = self.end();
        self.arena.used.set(end + n);
        // SAFETY: [end, end + n) is reserved for this vector only.
        Some(unsafe { core::slice::from_raw_parts_mut(self.arena.base.add(end), n) })
    }

    /// Keeps `k` bytes of the last [`Growing::spare`] and returns the rest.
    pub fn commit(&mut self, k: usize) {
        let before = self.arena.used.get();
        let end = self.end();
        if before >= end && k <= before - end {
            self.len += k;
            self.arena.truncate_last(before, self.end());
        }
    }
}

/// The arena of the running function, which lives until the process exits.
/// Called once, by the entry point.
#[cfg(target_arch = "wasm32")]
pub(crate) fn leak_arena() -> &'static Arena {
    static mut ARENA: Option<Arena> = None;
    // SAFETY: wasm32 functions are single-threaded and the entry point
    // calls this once, before anything else can reach `ARENA`.
    unsafe { (*(&raw mut ARENA)).insert(Arena::wasm()) }
}

// ---------------------------------------------------------------------------
// WASI preview1.

#[cfg(target_arch = "wasm32")]
mod wasi {
    #[repr(C)]
    pub struct Iovec {
        pub ptr: *mut u8,
        pub len: usize,
    }

    #[repr(C)]
    pub struct Ciovec {
        pub ptr: *const u8,
        pub len: usize,
    }

    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    unsafe extern "C" {
        pub fn fd_read(fd: u32, iovs: *const Iovec, iovs_len: usize, nread: *mut usize) -> u32;
        pub fn fd_write(fd: u32, iovs: *const Ciovec, iovs_len: usize, nwritten: *mut usize)
        -> u32;
        pub fn proc_exit(code: u32) -> !;
    }
}

/// Reads from standard input into `buf`; `Ok(0)` at end of input.
#[cfg(target_arch = "wasm32")]
pub(crate) fn read_stdin(buf: &mut [u8]) -> Result<usize, ()> {
    let iov = wasi::Iovec {
        ptr: buf.as_mut_ptr(),
        len: buf.len(),
    };
    let mut n = 0usize;
    // SAFETY: the iovec describes `buf`, which we borrow mutably.
    let errno = unsafe { wasi::fd_read(0, &iov, 1, &mut n) };
    if errno == 0 && n <= buf.len() {
        Ok(n)
    } else {
        Err(())
    }
}

/// Writes all of `bytes` to `fd` (1 = stdout, 2 = stderr).
#[cfg(target_arch = "wasm32")]
pub(crate) fn write_fd(fd: u32, mut bytes: &[u8]) -> Result<(), ()> {
    while !bytes.is_empty() {
        let iov = wasi::Ciovec {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
        };
        let mut n = 0usize;
        // SAFETY: the iovec describes `bytes`, which we borrow.
        let errno = unsafe { wasi::fd_write(fd, &iov, 1, &mut n) };
        if errno != 0 || n == 0 {
            return Err(());
        }
        bytes = bytes.get(n..).ok_or(())?;
    }
    Ok(())
}

/// Ends the process with `code`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn exit(code: u32) -> ! {
    // SAFETY: proc_exit does not return.
    unsafe { wasi::proc_exit(code) }
}

// The compiler lowers slice and string comparisons to `memcmp`, which the
// wasm32-wasip1 target leaves to libc (wasm32-unknown-unknown gets it from
// compiler-builtins). The target ships wasi-libc; only `memcmp`'s object
// is taken from it.
#[cfg(all(target_arch = "wasm32", target_os = "wasi"))]
#[link(name = "c", kind = "static", modifiers = "-bundle")]
unsafe extern "C" {}

#[cfg(all(target_arch = "wasm32", feature = "panic-handler"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
