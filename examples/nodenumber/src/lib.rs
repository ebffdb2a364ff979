//! Score + PreScore: a port of the kube-scheduler-wasm-extension
//! `nodenumber` example.
//!
//! PreScore reads the last character of the pod's `spec.nodeName`; when it
//! is a digit, Score gives 10 to nodes whose name ends in the same digit and
//! 0 to the others. When the pod's `spec.nodeName` does not end in a digit
//! (or is unset), every node matches. Config `{"reverse": true}` swaps the
//! two scores. Only the last character counts: `node99` is treated as `node9`.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::{Cycle, Plugin, PreScore, Score, Status, json};

pub struct NodeNumber {
    reverse: bool,
    /// The digit PreScore found for this cycle, if any.
    pod_digit: Option<u8>,
}

/// The numeric value of the last byte of `name`, if it is an ASCII digit.
fn last_digit(name: &[u8]) -> Option<u8> {
    match name.last() {
        Some(c @ b'0'..=b'9') => Some(c - b'0'),
        _ => None,
    }
}

impl Plugin for NodeNumber {
    fn new() -> Self {
        let reverse = json::get(kguest::config(), "reverse").and_then(json::as_bool);
        NodeNumber {
            reverse: reverse.unwrap_or(false),
            pod_digit: None,
        }
    }

    fn new_cycle(&mut self) {
        self.pod_digit = None;
    }
}

impl PreScore for NodeNumber {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let node_name = cx
            .pod()
            .and_then(|p| p.spec())
            .and_then(|s| s.node_name_bytes());
        self.pod_digit = node_name.and_then(last_digit);
        Status::success()
    }
}

impl Score for NodeNumber {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let matched = match self.pod_digit {
            Some(d) => last_digit(cx.node_name_bytes()) == Some(d),
            None => true,
        };
        Ok(if matched != self.reverse { 10 } else { 0 })
    }
}

kguest::export!(NodeNumber => [prescore, score]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::testing::TestHost;
    use kguest::testing::proto::PodBuilder;

    /// Runs a cycle (prefilter, prescore) for a pod with `spec.nodeName`
    /// and returns the scores of `nodes`.
    fn scores(config: Option<&str>, pod_node_name: Option<&str>, nodes: &[&str]) -> Vec<i32> {
        let host = TestHost::new();
        if let Some(c) = config {
            host.set_config(c);
        }
        let mut pod = PodBuilder::new("pod1");
        if let Some(n) = pod_node_name {
            pod = pod.node_name(n);
        }
        host.set_pod(pod.build());
        let mut p = NodeNumber::new();
        assert!(host.new_cycle(&mut p).is_success());
        assert!(host.pre_score(&mut p).is_success());
        nodes
            .iter()
            .map(|n| {
                let (score, out) = host.score_node(&mut p, n);
                assert!(out.is_success());
                score
            })
            .collect()
    }

    #[test]
    fn matching_suffix_scores_ten() {
        assert_eq!(
            scores(None, Some("node1"), &["node1", "node2", "node11", "node"]),
            [10, 0, 10, 0]
        );
    }

    #[test]
    fn reverse_swaps_scores() {
        let cfg = Some(r#"{"reverse": true}"#);
        assert_eq!(
            scores(cfg, Some("node1"), &["node1", "node2", "node"]),
            [0, 10, 10]
        );
        assert_eq!(
            scores(Some(r#"{"reverse": false}"#), Some("n3"), &["x3", "x4"]),
            [10, 0]
        );
    }

    #[test]
    fn pod_without_digit_matches_every_node() {
        assert_eq!(scores(None, Some("node"), &["node1", "nodeA"]), [10, 10]);
        assert_eq!(scores(None, None, &["node1", ""]), [10, 10]);
        let cfg = Some(r#"{"reverse":true}"#);
        assert_eq!(scores(cfg, None, &["node1"]), [0]);
    }

    #[test]
    fn prescore_state_is_dropped_at_the_next_cycle() {
        let host = TestHost::new();
        let mut p = NodeNumber::new();
        host.set_pod(PodBuilder::new("a").node_name("n7").build());
        host.new_cycle(&mut p);
        host.pre_score(&mut p);
        assert_eq!(host.score_node(&mut p, "m8").0, 0);
        // Next cycle, before PreScore runs: no state, so everything matches.
        host.set_pod(PodBuilder::new("b").build());
        host.new_cycle(&mut p);
        assert_eq!(host.score_node(&mut p, "m8").0, 10);
    }

    #[test]
    fn malformed_config_means_defaults() {
        assert_eq!(scores(Some("not json"), Some("n1"), &["n1"]), [10]);
        assert_eq!(
            scores(Some(r#"{"reverse":"yes"}"#), Some("n1"), &["n1"]),
            [10]
        );
    }
}
