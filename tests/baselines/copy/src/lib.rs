//! Baseline (e): a Filter that pulls the Pod, the node name and the Node
//! into static buffers and returns Success without looking at them. Its
//! latency is the cost of the calls plus the copies: the copy floor.

#![cfg_attr(target_arch = "wasm32", no_std)]

#[cfg(target_arch = "wasm32")]
mod abi {
    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        // SAFETY: one pull of each per call; the slices die with the call.
        unsafe {
            let Some((_pod, name)) = test_guest_ffi::pod_and_node_name() else {
                return 1;
            };
            if test_guest_ffi::node(name).is_none() {
                return 1;
            }
        }
        0
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}
