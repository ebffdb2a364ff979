//! What the SDK-free guests under `tests/` share: the few KSW imports they
//! call, and the two ways they pull a value (into a static buffer, or into a
//! growing `Vec`). The SDK's own imports live in `guest-runtime/kguest`; these
//! guests exist to measure what a guest costs without it, so they get only
//! the raw calls. Each is `#[inline(always)]` so a guest's bytes are what they
//! were when it declared the imports itself: the baselines are measured.
//!
//! Everything here is wasm32-only: off wasm the guests' decision functions
//! are tested natively and there is no host to call.

#![no_std]

#[cfg(all(target_arch = "wasm32", feature = "alloc"))]
extern crate alloc;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use core::ptr::addr_of_mut;

    #[link(wasm_import_module = "k8s.io/scheduler")]
    unsafe extern "C" {
        #[link_name = "currentPod"]
        pub fn current_pod(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "currentNodeName"]
        pub fn current_node_name(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "result.status_reason"]
        fn result_status_reason(ptr: *const u8, len: u32);
    }

    #[link(wasm_import_module = "k8s.io/api")]
    unsafe extern "C" {
        #[link_name = "node"]
        fn api_node(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32;
    }

    /// Room for the current Pod, and for a Node pulled by name.
    pub const OBJECT_CAP: usize = 64 * 1024;
    /// Room for a node name.
    pub const NAME_CAP: usize = 256;

    static mut POD: [u8; OBJECT_CAP] = [0; OBJECT_CAP];
    static mut NAME: [u8; NAME_CAP] = [0; NAME_CAP];
    static mut NODE: [u8; OBJECT_CAP] = [0; OBJECT_CAP];

    /// Fills `buf` through a getter; `None` when the value did not fit.
    ///
    /// # Safety
    /// `buf` must not be read or written by anything else meanwhile.
    #[inline(always)]
    unsafe fn pull(
        getter: unsafe extern "C" fn(*mut u8, u32) -> u32,
        buf: &'static mut [u8],
    ) -> Option<&'static [u8]> {
        // SAFETY: the host writes at most `buf.len()` bytes at the pointer.
        let len = unsafe { getter(buf.as_mut_ptr(), buf.len() as u32) } as usize;
        let filled: &'static [u8] = buf;
        filled.get(..len)
    }

    /// The current Pod and node name, pulled into static buffers; `None`
    /// when either did not fit.
    ///
    /// # Safety
    /// Call once per hook call and drop the slices before the next call:
    /// each call overwrites the same buffers (a wasm guest is
    /// single-threaded, so nothing else touches them meanwhile).
    #[inline(always)]
    pub unsafe fn pod_and_node_name() -> Option<(&'static [u8], &'static [u8])> {
        // SAFETY: the caller keeps no earlier slice, so these are the only
        // references to the statics.
        unsafe {
            let pod = pull(current_pod, &mut *addr_of_mut!(POD))?;
            let name = pull(current_node_name, &mut *addr_of_mut!(NAME))?;
            Some((pod, name))
        }
    }

    /// The Node named `name` through `k8s.io/api.node`, into a static
    /// buffer; `None` when it did not fit.
    ///
    /// # Safety
    /// As [`pod_and_node_name`], for the Node's buffer.
    #[inline(always)]
    pub unsafe fn node(name: &[u8]) -> Option<&'static [u8]> {
        // SAFETY: the only reference to NODE; the host writes at most
        // OBJECT_CAP bytes.
        unsafe {
            let buf = &mut *addr_of_mut!(NODE);
            let len = api_node(
                name.as_ptr(),
                name.len() as u32,
                buf.as_mut_ptr(),
                OBJECT_CAP as u32,
            ) as usize;
            let filled: &'static [u8] = buf;
            filled.get(..len)
        }
    }

    /// Sets the status reason of the current result.
    #[inline(always)]
    pub fn status_reason(reason: &str) {
        // SAFETY: the host copies the reason before returning.
        unsafe { result_status_reason(reason.as_ptr(), reason.len() as u32) }
    }

    /// Pulls a value through a getter into `buf`, growing it when the host
    /// says the value is larger.
    #[cfg(feature = "alloc")]
    #[inline(always)]
    pub fn pull_into_vec(
        getter: unsafe extern "C" fn(*mut u8, u32) -> u32,
        buf: &mut alloc::vec::Vec<u8>,
    ) {
        loop {
            let cap = buf.capacity();
            // SAFETY: the host writes at most `cap` bytes at the pointer.
            let len = unsafe { getter(buf.as_mut_ptr(), cap as u32) } as usize;
            if len <= cap {
                // SAFETY: the host wrote exactly `len` bytes.
                unsafe { buf.set_len(len) };
                return;
            }
            buf.reserve(len);
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub use wasm::*;
