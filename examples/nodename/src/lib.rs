//! Filter: a pod that names a node in `spec.nodeName` fits only that node;
//! a pod that names none fits every node. The smallest SDK plugin, kept as
//! the size benchmark (goal: 1,600 bytes of wasm, `size-budgets.toml`).

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::{Cycle, Filter, Plugin, Status};

pub struct NodeName;

impl Plugin for NodeName {
    fn new() -> Self {
        NodeName
    }
}

impl Filter for NodeName {
    // Lets the `filter` export take this body in (about 100 bytes): this
    // crate is also an rlib (the benchmarks link it), which keeps its
    // functions exported symbols LTO leaves out of line. A `cdylib`-only
    // plugin crate needs no hint.
    #[inline]
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let wanted = cx
            .pod()
            .and_then(|p| p.spec())
            .and_then(|s| s.node_name_bytes());
        match wanted {
            None | Some(b"") => Status::success(),
            Some(name) if name == cx.node_name_bytes() => Status::success(),
            Some(_) => Status::unresolvable("node(s) didn't match the requested node name"),
        }
    }
}

kguest::export!(NodeName => [filter]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Code;
    use kguest::testing::TestHost;
    use kguest::testing::proto::PodBuilder;

    fn run(pod: Vec<u8>, node: &str) -> kguest::testing::Outcome {
        let host = TestHost::new();
        host.set_pod(pod);
        host.filter_node(&mut NodeName::new(), node)
    }

    #[test]
    fn pod_naming_this_node_fits() {
        assert!(run(PodBuilder::new("p").node_name("node-a").build(), "node-a").is_success());
    }

    #[test]
    fn pod_naming_another_node_is_unresolvable() {
        let out = run(PodBuilder::new("p").node_name("node-a").build(), "node-b");
        assert_eq!(out.code(), Ok(Code::UnschedulableAndUnresolvable));
        assert_eq!(out.reason(), "node(s) didn't match the requested node name");
    }

    #[test]
    fn pod_without_node_name_fits_everywhere() {
        assert!(run(PodBuilder::new("p").build(), "node-b").is_success());
        assert!(run(PodBuilder::new("p").node_name("").build(), "node-b").is_success());
        assert!(run(Vec::new(), "node-b").is_success());
    }

    #[test]
    fn names_are_compared_exactly() {
        assert!(!run(PodBuilder::new("p").node_name("node-a").build(), "node-a2").is_success());
        assert!(!run(PodBuilder::new("p").node_name("node-a").build(), "").is_success());
    }

    #[test]
    fn pod_is_read_once_per_cycle() {
        let host = TestHost::new();
        let mut p = NodeName::new();
        host.set_pod(PodBuilder::new("p").node_name("n2").build());
        host.new_cycle(&mut p);
        let fits: Vec<bool> = ["n1", "n2", "n3"]
            .iter()
            .map(|n| host.filter_node(&mut p, n).is_success())
            .collect();
        assert_eq!(fits, [false, true, false]);
        assert_eq!(host.calls("currentPod"), 2);
    }
}
