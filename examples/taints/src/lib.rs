//! Filter: the pod must tolerate every `NoSchedule` and `NoExecute` taint
//! of the node (`PreferNoSchedule` taints are ignored), as Kubernetes'
//! TaintToleration filter does.
//!
//! A toleration tolerates a taint when its effect is empty or equal to the
//! taint's, and either its key is empty with operator `Exists` (everything
//! matches), or its key equals the taint's and the operator is `Exists`
//! (any value) or `Equal` / unset (values equal).

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::k8s::api::core::v1::{Taint, Toleration};
use kguest::{Cycle, Filter, Plugin, ReasonBuf, Status};

pub struct Taints {
    reason: ReasonBuf<160>,
}

impl Plugin for Taints {
    fn new() -> Self {
        Taints {
            reason: ReasonBuf::new(),
        }
    }
}

/// Kubernetes' `Toleration.ToleratesTaint`.
pub fn tolerates(t: &Toleration<'_>, taint: &Taint<'_>) -> bool {
    let effect = t.effect().unwrap_or("");
    if !effect.is_empty() && effect != taint.effect().unwrap_or("") {
        return false;
    }
    let key = t.key().unwrap_or("");
    if !key.is_empty() && key != taint.key().unwrap_or("") {
        return false;
    }
    match t.operator().unwrap_or("") {
        "Exists" => true,
        "" | "Equal" => !key.is_empty() && t.value().unwrap_or("") == taint.value().unwrap_or(""),
        _ => false,
    }
}

impl Filter for Taints {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let Some(node) = cx.node() else {
            return Status::error("node not found");
        };
        let Some(spec) = node.spec() else {
            return Status::success();
        };
        let tolerations = cx.pod().and_then(|p| p.spec()).map(|s| s.tolerations());
        for taint in spec.taints() {
            let effect = taint.effect().unwrap_or("");
            if effect != "NoSchedule" && effect != "NoExecute" {
                continue;
            }
            let tolerated = tolerations.is_some_and(|mut ts| ts.any(|t| tolerates(&t, &taint)));
            if !tolerated {
                self.reason
                    .clear()
                    .push_str("node(s) had untolerated taint {")
                    .push_str(taint.key().unwrap_or(""))
                    .push_str(": ")
                    .push_str(taint.value().unwrap_or(""))
                    .push_str("}");
                return Status::unresolvable(self.reason.as_str());
            }
        }
        Status::success()
    }
}

kguest::export!(Taints => [filter]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Code;
    use kguest::testing::TestHost;
    use kguest::testing::proto::{NodeBuilder, PodBuilder};

    type Tol = (&'static str, &'static str, &'static str, &'static str);

    fn run(taints: &[(&str, &str, &str)], tolerations: &[Tol]) -> kguest::testing::Outcome {
        let host = TestHost::new();
        let mut node = NodeBuilder::new("n");
        for (k, v, e) in taints {
            node = node.taint(k, v, e);
        }
        host.add_node("n", node.build());
        let mut pod = PodBuilder::new("p");
        for (k, op, v, e) in tolerations {
            pod = pod.toleration(k, op, v, e);
        }
        host.set_pod(pod.build());
        host.filter_node(&mut Taints::new(), "n")
    }

    #[test]
    fn untainted_node_fits_everything() {
        assert!(run(&[], &[]).is_success());
    }

    #[test]
    fn untolerated_taint_is_reported() {
        let out = run(&[("dedicated", "gpu", "NoSchedule")], &[]);
        assert_eq!(out.code(), Ok(Code::UnschedulableAndUnresolvable));
        assert_eq!(
            out.reason(),
            "node(s) had untolerated taint {dedicated: gpu}"
        );
        assert!(!run(&[("k", "", "NoExecute")], &[]).is_success());
    }

    #[test]
    fn prefer_no_schedule_is_ignored() {
        assert!(run(&[("k", "v", "PreferNoSchedule")], &[]).is_success());
    }

    #[test]
    fn equal_needs_same_key_and_value() {
        let taint = [("dedicated", "gpu", "NoSchedule")];
        assert!(run(&taint, &[("dedicated", "Equal", "gpu", "NoSchedule")]).is_success());
        // Operator defaults to Equal.
        assert!(run(&taint, &[("dedicated", "", "gpu", "NoSchedule")]).is_success());
        assert!(!run(&taint, &[("dedicated", "Equal", "cpu", "NoSchedule")]).is_success());
        assert!(!run(&taint, &[("other", "Equal", "gpu", "NoSchedule")]).is_success());
        // Empty key with Equal matches nothing.
        assert!(
            !run(
                &[("", "", "NoSchedule")],
                &[("", "Equal", "", "NoSchedule")]
            )
            .is_success()
        );
    }

    #[test]
    fn exists_ignores_the_value_and_empty_key_matches_all() {
        let taint = [("dedicated", "gpu", "NoSchedule")];
        assert!(run(&taint, &[("dedicated", "Exists", "", "NoSchedule")]).is_success());
        assert!(run(&taint, &[("", "Exists", "", "")]).is_success());
        assert!(
            run(
                &[("a", "1", "NoSchedule"), ("b", "2", "NoExecute")],
                &[("", "Exists", "", "")]
            )
            .is_success()
        );
        assert!(!run(&taint, &[("", "Exists", "", "NoExecute")]).is_success());
        assert!(!run(&taint, &[("dedicated", "Bogus", "gpu", "NoSchedule")]).is_success());
    }

    #[test]
    fn empty_effect_matches_all_effects() {
        let taints = [("k", "v", "NoSchedule"), ("k", "v", "NoExecute")];
        assert!(run(&taints, &[("k", "Equal", "v", "")]).is_success());
        let out = run(&taints, &[("k", "Equal", "v", "NoSchedule")]);
        assert_eq!(out.reason(), "node(s) had untolerated taint {k: v}");
    }

    #[test]
    fn missing_node_is_an_error() {
        let host = TestHost::new();
        host.set_pod(PodBuilder::new("p").build());
        assert_eq!(
            host.filter_node(&mut Taints::new(), "gone").code(),
            Ok(Code::Error)
        );
    }
}
