//! A plugin as an author outside the repository would write it (issue 13's
//! test case), kept in the size gate to show that string work and resource
//! reading stay small when done with the SDK's helpers:
//!
//! * Filter: the pod's annotation `kguest.dev/node-labels` is a
//!   `key=value,...` list; the node must carry each label with that value
//!   (`key` alone: the label must exist).
//! * Score: the node's allocatable memory in GiB, at most 100.
//!
//! (`kguest::text::selector_matches` takes full label selectors; it is a
//! parser, about 2.5 KB more.)

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::text::{self, Labels};
use kguest::{Cycle, Filter, Plugin, Score, Status};

pub const LABELS: &str = "kguest.dev/node-labels";
const GIB: i64 = 1 << 30;

pub struct AnnotationMemory;

impl Plugin for AnnotationMemory {
    fn new() -> Self {
        AnnotationMemory
    }
}

impl Filter for AnnotationMemory {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let wanted = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.annotations().get(LABELS));
        let Some(wanted) = wanted else {
            return Status::success();
        };
        let Some(labels) = cx.node().and_then(|n| n.metadata()).map(|m| m.labels()) else {
            return Status::error("node not found");
        };
        for (key, value) in text::pairs(wanted) {
            let ok = match labels.label(key) {
                Some(have) => value.is_empty() || have == value,
                None => false,
            };
            if !ok {
                return Status::unresolvable(
                    "node(s) didn't match the pod's node-labels annotation",
                );
            }
        }
        Status::success()
    }
}

impl Score for AnnotationMemory {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let Some(node) = cx.node() else {
            return Err(Status::error("node not found"));
        };
        let memory = node.status().and_then(|s| s.allocatable().get("memory"));
        let bytes = match memory.and_then(|q| q.string_bytes()) {
            // Whole bytes (scale 0), rounded up as the scheduler does.
            Some(q) => {
                kguest::k8s::quantity::scaled(q, 0).ok_or(Status::error("bad memory quantity"))?
            }
            None => 0,
        };
        Ok((bytes / GIB).clamp(0, 100) as i32)
    }
}

kguest::export!(AnnotationMemory => [filter, score]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Code;
    use kguest::testing::TestHost;
    use kguest::testing::proto::{NodeBuilder, PodBuilder};

    fn host(annotations: &[(&str, &str)]) -> TestHost {
        let host = TestHost::new();
        let mut pod = PodBuilder::new("p");
        for (k, v) in annotations {
            pod = pod.annotation(k, v);
        }
        host.set_pod(pod.build());
        host.add_node(
            "eu",
            NodeBuilder::new("eu")
                .label("zone", "eu-1")
                .label("disk", "ssd")
                .allocatable("memory", "64Gi")
                .build(),
        );
        host.add_node(
            "us",
            NodeBuilder::new("us")
                .label("zone", "us-1")
                .label("spot", "true")
                .allocatable("memory", "512Gi")
                .build(),
        );
        host
    }

    fn fits(host: &TestHost) -> Vec<(i32, String)> {
        ["eu", "us"]
            .iter()
            .map(|n| {
                let out = host.filter_node(&mut AnnotationMemory, n);
                (out.code, out.reason().to_string())
            })
            .collect()
    }

    #[test]
    fn label_list() {
        let h = host(&[(LABELS, " zone=eu-1 , disk ")]);
        let f = fits(&h);
        assert_eq!(f[0].0, 0);
        assert_eq!(f[1].0, Code::UnschedulableAndUnresolvable as i32);
        assert!(f[1].1.contains("node-labels"));
        assert!(fits(&host(&[])).iter().all(|(c, _)| *c == 0));
    }

    #[test]
    fn values_must_match_exactly() {
        let h = host(&[(LABELS, "zone=eu")]);
        assert!(fits(&h).iter().all(|(c, _)| *c == 3));
        let h = host(&[(LABELS, ",,")]);
        assert!(fits(&h).iter().all(|(c, _)| *c == 0));
    }

    #[test]
    fn memory_score() {
        let h = host(&[]);
        assert_eq!(h.score_node(&mut AnnotationMemory, "eu").0, 64);
        assert_eq!(h.score_node(&mut AnnotationMemory, "us").0, 100);
        assert_eq!(
            h.score_node(&mut AnnotationMemory, "gone").1.code(),
            Ok(Code::Error)
        );
    }
}
