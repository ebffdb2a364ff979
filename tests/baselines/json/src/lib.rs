//! Baseline (b): the `nodename` Filter over **JSON**: the host hands a JSON Pod
//! through `currentPod` (kguest-host passes bytes through unchanged); the guest
//! deserializes all of it into a `k8s-openapi` Pod with `serde_json` and
//! compares `spec.nodeName`. Uses `std` and the default wasm32 allocator.

use k8s_openapi::api::core::v1::Pod;

pub const SUCCESS: i32 = 0;
pub const ERROR: i32 = 1;
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: i32 = 3;
pub const REASON: &str = "node(s) didn't match the requested node name";

/// The decision: a status code, plus whether the reason applies.
pub fn decide(pod: &[u8], node_name: &[u8]) -> i32 {
    let Ok(pod) = serde_json::from_slice::<Pod>(pod) else {
        return ERROR;
    };
    match pod.spec.and_then(|spec| spec.node_name) {
        None => SUCCESS,
        Some(name) if name.is_empty() || name.as_bytes() == node_name => SUCCESS,
        Some(_) => UNSCHEDULABLE_AND_UNRESOLVABLE,
    }
}

#[cfg(target_arch = "wasm32")]
mod abi {
    use test_guest_ffi::{current_node_name, current_pod, pull_into_vec, status_reason};

    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        let mut pod = Vec::with_capacity(2048);
        let mut node = Vec::with_capacity(64);
        pull_into_vec(current_pod, &mut pod);
        pull_into_vec(current_node_name, &mut node);
        let code = super::decide(&pod, &node);
        if code == super::UNSCHEDULABLE_AND_UNRESOLVABLE {
            status_reason(super::REASON);
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions() {
        let pod = br#"{"apiVersion":"v1","kind":"Pod","spec":{"nodeName":"a","containers":[]}}"#;
        assert_eq!(decide(pod, b"a"), SUCCESS);
        assert_eq!(decide(pod, b"b"), UNSCHEDULABLE_AND_UNRESOLVABLE);
        assert_eq!(decide(br#"{"spec":{"containers":[]}}"#, b"b"), SUCCESS);
        assert_eq!(decide(b"{}", b"b"), SUCCESS);
        assert_eq!(decide(b"[", b"b"), ERROR);
    }
}
