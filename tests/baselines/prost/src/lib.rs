//! Baseline (a): the `nodename` Filter written the conventional way, with
//! `k8s-pb` + `prost`: pull the whole Pod into a `Vec`, decode all of it,
//! compare `spec.nodeName`. Uses `std` and the default wasm32 allocator.

use k8s_pb::api::core::v1::Pod;
use prost::Message;

pub const SUCCESS: i32 = 0;
pub const ERROR: i32 = 1;
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: i32 = 3;
pub const REASON: &str = "node(s) didn't match the requested node name";

/// The decision: a status code, plus whether the reason applies.
pub fn decide(pod: &[u8], node_name: &[u8]) -> i32 {
    let Ok(pod) = Pod::decode(pod) else {
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
    use k8s_pb::api::core::v1::PodSpec;

    fn pod(name: Option<&str>) -> Vec<u8> {
        Pod {
            spec: Some(PodSpec {
                node_name: name.map(String::from),
                ..Default::default()
            }),
            ..Default::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn decisions() {
        assert_eq!(decide(&pod(Some("a")), b"a"), SUCCESS);
        assert_eq!(
            decide(&pod(Some("a")), b"b"),
            UNSCHEDULABLE_AND_UNRESOLVABLE
        );
        assert_eq!(decide(&pod(None), b"b"), SUCCESS);
        assert_eq!(decide(&[], b"b"), SUCCESS);
        assert_eq!(decide(&[0xff], b"b"), ERROR);
    }
}
