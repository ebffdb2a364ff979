//! The smallest useful guest: a kube-scheduler-wasm-extension `filter` that
//! reads a Pod's `spec.nodeName` through the views and nothing else. It proves
//! that `kguest-k8s` builds for `wasm32-unknown-unknown` without `std` or an
//! allocator, and measures the floor of generated code size.
//!
//! Pods that do not fit the static buffer are reported as an error rather
//! than truncated; the SDK (`guest-runtime/kguest`) grows its buffer instead.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest_k8s::api::core::v1::Pod;

/// Status codes of the scheduler framework.
pub const SUCCESS: i32 = 0;
pub const ERROR: i32 = 1;
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: i32 = 3;

/// The decision, kept apart from the ABI so it can be tested natively.
pub fn decide(pod: &[u8], node_name: &[u8]) -> i32 {
    let wanted = Pod::from_bytes(pod)
        .spec()
        .and_then(|spec| spec.node_name_bytes());
    match wanted {
        None | Some(b"") => SUCCESS,
        Some(name) if name == node_name => SUCCESS,
        Some(_) => UNSCHEDULABLE_AND_UNRESOLVABLE,
    }
}

#[cfg(target_arch = "wasm32")]
mod abi {
    use core::ptr::addr_of_mut;

    const POD_CAP: usize = 64 * 1024;
    const NODE_CAP: usize = 256;
    static mut POD: [u8; POD_CAP] = [0; POD_CAP];
    static mut NODE: [u8; NODE_CAP] = [0; NODE_CAP];

    #[link(wasm_import_module = "k8s.io/scheduler")]
    unsafe extern "C" {
        #[link_name = "currentPod"]
        fn current_pod(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "currentNodeName"]
        fn current_node_name(buf: *mut u8, limit: u32) -> u32;
    }

    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        // SAFETY: wasm guests are single-threaded and these statics are only
        // touched here; the host writes at most `limit` bytes.
        let (pod, node) = unsafe {
            let pod = &mut *addr_of_mut!(POD);
            let node = &mut *addr_of_mut!(NODE);
            let pod_len = current_pod(pod.as_mut_ptr(), POD_CAP as u32) as usize;
            let node_len = current_node_name(node.as_mut_ptr(), NODE_CAP as u32) as usize;
            match (pod.get(..pod_len), node.get(..node_len)) {
                (Some(pod), Some(node)) => (&*pod, &*node),
                _ => return super::ERROR,
            }
        };
        super::decide(pod, node)
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Pod { spec (2) { nodeName (10): name } }
    fn pod(name: &[u8]) -> Vec<u8> {
        let mut spec = vec![0x52, name.len() as u8];
        spec.extend_from_slice(name);
        let mut pod = vec![0x12, spec.len() as u8];
        pod.extend(spec);
        pod
    }

    #[test]
    fn decisions() {
        assert_eq!(decide(&pod(b"node-a"), b"node-a"), SUCCESS);
        assert_eq!(
            decide(&pod(b"node-a"), b"node-b"),
            UNSCHEDULABLE_AND_UNRESOLVABLE
        );
        assert_eq!(decide(&pod(b""), b"node-b"), SUCCESS);
        assert_eq!(decide(&[], b"node-b"), SUCCESS);
    }
}
