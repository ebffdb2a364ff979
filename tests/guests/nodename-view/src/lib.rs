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
    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        // SAFETY: one pull per call; the slices die with the call.
        let Some((pod, node)) = (unsafe { test_guest_ffi::pod_and_node_name() }) else {
            return super::ERROR;
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
