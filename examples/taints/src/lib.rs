//! Filter: the pod must tolerate every `NoSchedule` and `NoExecute` taint
//! of the node (`PreferNoSchedule` taints are ignored), as Kubernetes'
//! TaintToleration filter does.
//!
//! A toleration tolerates a taint when its effect is empty or equal to the
//! taint's, and either its key is empty with operator `Exists` (everything
//! matches), or its key equals the taint's and the operator is `Exists`
//! (any value) or `Equal` / unset (values equal).
//!
//! The pod's tolerations are read once per scheduling cycle (kept in a
//! [`CycleState`]); per node only the node's taints are read.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::k8s::api::core::v1::{Pod, Taint, Toleration};
use kguest::{Cycle, CycleState, Filter, Plugin, ReasonBuf, Status};

/// Tolerations kept per cycle; a pod with more is read again for every
/// node (same result, slower).
pub const MAX_TOLERATIONS: usize = 16;

/// A toleration's fields, read once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tol<'p> {
    pub key: &'p str,
    pub operator: &'p str,
    pub value: &'p str,
    pub effect: &'p str,
}

impl<'p> Tol<'p> {
    pub fn new(t: &Toleration<'p>) -> Self {
        Tol {
            key: t.key().unwrap_or(""),
            operator: t.operator().unwrap_or(""),
            value: t.value().unwrap_or(""),
            effect: t.effect().unwrap_or(""),
        }
    }

    /// Kubernetes' `Toleration.ToleratesTaint`.
    pub fn tolerates(&self, taint: &TaintFields<'_>) -> bool {
        if !self.effect.is_empty() && self.effect != taint.effect {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator {
            "Exists" => true,
            "" | "Equal" => !self.key.is_empty() && self.value == taint.value,
            _ => false,
        }
    }
}

/// A taint's fields, read once per taint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaintFields<'n> {
    pub key: &'n str,
    pub value: &'n str,
    pub effect: &'n str,
}

impl<'n> TaintFields<'n> {
    pub fn new(t: &Taint<'n>) -> Self {
        TaintFields {
            key: t.key().unwrap_or(""),
            value: t.value().unwrap_or(""),
            effect: t.effect().unwrap_or(""),
        }
    }
}

/// Does the toleration `t` tolerate `taint`?
pub fn tolerates(t: &Toleration<'_>, taint: &Taint<'_>) -> bool {
    Tol::new(t).tolerates(&TaintFields::new(taint))
}

/// The pod's tolerations, read once.
#[derive(Debug, Clone, Copy)]
pub struct PodTolerations<'p> {
    /// `None` past the last one (an all-zero default: no data segment).
    tols: [Option<Tol<'p>>; MAX_TOLERATIONS],
    /// More than [`MAX_TOLERATIONS`]: read them from the pod per node.
    overflow: bool,
}

impl<'p> PodTolerations<'p> {
    pub fn new(pod: Pod<'p>) -> Self {
        let mut out = PodTolerations {
            tols: [None; MAX_TOLERATIONS],
            overflow: false,
        };
        let mut slots = out.tols.iter_mut();
        for t in pod.spec().into_iter().flat_map(|s| s.tolerations()) {
            match slots.next() {
                Some(slot) => *slot = Some(Tol::new(&t)),
                None => {
                    out.overflow = true;
                    break;
                }
            }
        }
        out
    }

    /// Does some toleration tolerate `taint`? `pod` is read only when the
    /// tolerations did not all fit.
    pub fn tolerate(&self, pod: Option<Pod<'_>>, taint: &TaintFields<'_>) -> bool {
        let mut stored = self.tols.iter().map_while(|t| *t);
        let mut read = pod
            .and_then(|p| p.spec())
            .filter(|_| self.overflow)
            .map(|s| s.tolerations());
        loop {
            let t = match read.as_mut() {
                Some(ts) => ts.next().map(|t| Tol::new(&t)),
                None => stored.next(),
            };
            match t {
                Some(t) if t.tolerates(taint) => return true,
                Some(_) => {}
                None => return false,
            }
        }
    }
}

/// The pod's tolerations (a free function: it is higher-ranked in the
/// lifetime, as [`CycleState::get`] needs; `PodTolerations::new` is not).
pub fn tolerations(pod: Pod<'_>) -> PodTolerations<'_> {
    PodTolerations::new(pod)
}

kguest::per_cycle!(
    /// The cycle's tolerations, borrowed from the Pod (`'p`).
    pub struct PerPod<'p> = PodTolerations<'p>
);

pub struct Taints {
    tolerations: CycleState<PerPod>,
    reason: ReasonBuf<160>,
}

impl Plugin for Taints {
    fn new() -> Self {
        Taints {
            tolerations: CycleState::new(),
            reason: ReasonBuf::new(),
        }
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
        let pod = self.tolerations.get(cx, tolerations);
        for taint in spec.taints() {
            let taint = TaintFields::new(&taint);
            if taint.effect != "NoSchedule" && taint.effect != "NoExecute" {
                continue;
            }
            if !pod.tolerate(cx.pod(), &taint) {
                self.reason
                    .clear()
                    .push_str("node(s) had untolerated taint {")
                    .push_str(taint.key)
                    .push_str(": ")
                    .push_str(taint.value)
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
    fn many_tolerations_take_the_slow_path() {
        let taint = [("k", "v", "NoSchedule")];
        let filler: Vec<Tol> = (0..MAX_TOLERATIONS + 3)
            .map(|_| ("other", "Exists", "", ""))
            .collect();
        assert!(!run(&taint, &filler).is_success());
        let mut ok = filler.clone();
        ok.push(("k", "Equal", "v", ""));
        assert!(run(&taint, &ok).is_success());
    }

    #[test]
    fn tolerations_are_read_once_per_cycle() {
        let host = TestHost::new();
        for n in ["a", "b"] {
            host.add_node(n, NodeBuilder::new(n).taint("k", "v", "NoSchedule").build());
        }
        host.set_pod(
            PodBuilder::new("p")
                .toleration("k", "Exists", "", "")
                .build(),
        );
        let mut p = Taints::new();
        host.new_cycle(&mut p);
        assert!(host.filter_node(&mut p, "a").is_success());
        assert!(host.filter_node(&mut p, "b").is_success());
        host.set_pod(PodBuilder::new("p").build());
        host.new_cycle(&mut p);
        assert!(
            !host.filter_node(&mut p, "a").is_success(),
            "recomputed for the new pod"
        );
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
