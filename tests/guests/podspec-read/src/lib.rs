//! A size probe for one-pass reads: a views-only `filter` (like
//! `nodename-view`, no SDK) that reads four fields of a Pod's spec with one
//! `PodSpec::read`: `nodeName`, `containers`, `initContainers`, `overhead`.
//! Built with `--features accessors` it reads the same fields through the
//! accessors, so the two sizes show what the one-pass read costs in bytes.
//!
//! The decision: a pod bound to another node is unresolvable; a pod with
//! more than [`MAX_REQUESTS`] resource requests (every container's, plus
//! the overhead) is unschedulable; anything else fits.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest_k8s::api::core::v1::{Container, Pod};

/// Status codes of the scheduler framework.
pub const SUCCESS: i32 = 0;
pub const ERROR: i32 = 1;
pub const UNSCHEDULABLE: i32 = 2;
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: i32 = 3;

/// The most resource requests a pod may carry.
pub const MAX_REQUESTS: usize = 32;

fn requests(c: Container<'_>) -> usize {
    c.resources().map_or(0, |r| r.requests().count())
}

/// The decision, kept apart from the ABI so it can be tested natively.
pub fn decide(pod: &[u8], node_name: &[u8]) -> i32 {
    let Some(spec) = Pod::from_bytes(pod).spec() else {
        return SUCCESS;
    };
    #[cfg(not(feature = "accessors"))]
    let (bound_to, containers, init_containers, overhead) = {
        use kguest_k8s::api::core::v1::PodSpec;
        spec.read((
            PodSpec::NODE_NAME.bytes(),
            PodSpec::CONTAINERS,
            PodSpec::INIT_CONTAINERS,
            PodSpec::OVERHEAD,
        ))
    };
    #[cfg(feature = "accessors")]
    let (bound_to, containers, init_containers, overhead) = (
        spec.node_name_bytes(),
        spec.containers(),
        spec.init_containers(),
        spec.overhead(),
    );
    if bound_to.is_some_and(|name| !name.is_empty() && name != node_name) {
        return UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
    let total = containers.map(requests).sum::<usize>()
        + init_containers.map(requests).sum::<usize>()
        + overhead.count();
    if total > MAX_REQUESTS {
        UNSCHEDULABLE
    } else {
        SUCCESS
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

    fn varint(out: &mut Vec<u8>, mut v: usize) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn field(out: &mut Vec<u8>, number: usize, body: &[u8]) {
        varint(out, number << 3 | 2);
        varint(out, body.len());
        out.extend_from_slice(body);
    }

    /// A Pod whose spec has `nodeName`, one container per entry of
    /// `containers` with that many requests, and `overhead` entries.
    fn pod(node_name: &str, containers: &[usize], overhead: usize) -> Vec<u8> {
        let mut spec = Vec::new();
        for (i, &n) in containers.iter().enumerate() {
            let mut requests = Vec::new();
            for r in 0..n {
                let mut entry = Vec::new();
                field(&mut entry, 1, format!("r{r}").as_bytes());
                field(&mut entry, 2, &[0x0a, 0x01, b'1']);
                field(&mut requests, 2, &entry);
            }
            let mut container = Vec::new();
            field(&mut container, 1, format!("c{i}").as_bytes());
            field(&mut container, 8, &requests);
            // Alternate containers (field 2) and init containers (field 20).
            field(&mut spec, if i % 2 == 0 { 2 } else { 20 }, &container);
        }
        field(&mut spec, 10, node_name.as_bytes());
        for r in 0..overhead {
            let mut entry = Vec::new();
            field(&mut entry, 1, format!("o{r}").as_bytes());
            field(&mut spec, 32, &entry);
        }
        let mut pod = Vec::new();
        field(&mut pod, 2, &spec);
        pod
    }

    #[test]
    fn decisions() {
        assert_eq!(decide(&pod("", &[2, 3], 1), b"n"), SUCCESS);
        assert_eq!(decide(&pod("n", &[2], 0), b"n"), SUCCESS);
        assert_eq!(
            decide(&pod("other", &[2], 0), b"n"),
            UNSCHEDULABLE_AND_UNRESOLVABLE
        );
        assert_eq!(decide(&pod("", &[20, 10, 3], 0), b"n"), UNSCHEDULABLE);
        assert_eq!(decide(&pod("", &[20, 10], 3), b"n"), UNSCHEDULABLE);
        assert_eq!(decide(&pod("", &[20, 10], 2), b"n"), SUCCESS);
        assert_eq!(decide(&[], b"n"), SUCCESS);
    }
}
