//! Baseline (e): a Filter that pulls the Pod, the node name and the Node
//! into static buffers and returns Success without looking at them. Its
//! latency is the cost of the calls plus the copies: the copy floor.

#![cfg_attr(target_arch = "wasm32", no_std)]

#[cfg(target_arch = "wasm32")]
mod abi {
    use core::ptr::addr_of_mut;

    const CAP: usize = 64 * 1024;
    const NAME_CAP: usize = 256;
    static mut POD: [u8; CAP] = [0; CAP];
    static mut NODE: [u8; CAP] = [0; CAP];
    static mut NAME: [u8; NAME_CAP] = [0; NAME_CAP];

    #[link(wasm_import_module = "k8s.io/scheduler")]
    unsafe extern "C" {
        #[link_name = "currentPod"]
        fn current_pod(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "currentNodeName"]
        fn current_node_name(buf: *mut u8, limit: u32) -> u32;
    }

    #[link(wasm_import_module = "k8s.io/api")]
    unsafe extern "C" {
        fn node(name: *const u8, name_len: u32, buf: *mut u8, limit: u32) -> u32;
    }

    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        // SAFETY: single-threaded guest; the statics are only touched here and
        // the host writes at most `limit` bytes.
        unsafe {
            let pod = &mut *addr_of_mut!(POD);
            let nodebuf = &mut *addr_of_mut!(NODE);
            let name = &mut *addr_of_mut!(NAME);
            let pod_len = current_pod(pod.as_mut_ptr(), CAP as u32);
            let name_len = current_node_name(name.as_mut_ptr(), NAME_CAP as u32);
            if pod_len as usize > CAP || name_len as usize > NAME_CAP {
                return 1;
            }
            let node_len = node(name.as_ptr(), name_len, nodebuf.as_mut_ptr(), CAP as u32);
            if node_len as usize > CAP {
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
