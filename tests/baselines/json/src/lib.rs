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
    #[link(wasm_import_module = "k8s.io/scheduler")]
    unsafe extern "C" {
        #[link_name = "currentPod"]
        fn current_pod(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "currentNodeName"]
        fn current_node_name(buf: *mut u8, limit: u32) -> u32;
        #[link_name = "result.status_reason"]
        fn status_reason(ptr: *const u8, len: u32);
    }

    /// Pulls a value through a getter, growing `buf` when the host says so.
    fn pull(getter: unsafe extern "C" fn(*mut u8, u32) -> u32, buf: &mut Vec<u8>) {
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

    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        let mut pod = Vec::with_capacity(2048);
        let mut node = Vec::with_capacity(64);
        pull(current_pod, &mut pod);
        pull(current_node_name, &mut node);
        let code = super::decide(&pod, &node);
        if code == super::UNSCHEDULABLE_AND_UNRESOLVABLE {
            // SAFETY: the host copies the reason right away.
            unsafe { status_reason(super::REASON.as_ptr(), super::REASON.len() as u32) };
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
