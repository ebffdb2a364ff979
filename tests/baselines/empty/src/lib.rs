//! Baseline (d): a Filter that returns Success without reading anything.
//! Its latency is the cost of one host→guest call: the call floor.

#![cfg_attr(target_arch = "wasm32", no_std)]

#[cfg(target_arch = "wasm32")]
mod abi {
    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        0
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}
