//! SDK behaviour through the native test host: caching, ABI packing,
//! reasons, logs, config; the Go SDK parity APIs (`parity`) and per-cycle
//! state (`cycle_state`).

mod cycle_state;
mod parity;

use kguest::testing::TestHost;
use kguest::testing::proto::{NodeBuilder, PodBuilder};
use kguest::*;

/// Records what it saw; every hook is implemented so every shim is reachable.
#[derive(Default)]
struct Probe {
    cycles: u32,
    reason: ReasonBuf<32>,
    node_reads: u32,
}

impl Plugin for Probe {
    fn new() -> Self {
        Probe::default()
    }

    fn new_cycle(&mut self) {
        self.cycles += 1;
    }
}

impl PreFilter for Probe {
    fn pre_filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        cx.set_node_names(b"n1\0n2\0");
        Status::success()
    }
}

impl Filter for Probe {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let pod_name = cx.pod().and_then(|p| p.metadata()).and_then(|m| m.name());
        match pod_name {
            Some("reject") => {
                self.reason
                    .clear()
                    .push_str("rejected on ")
                    .push_str(cx.node_name());
                Status::unschedulable(self.reason.as_str())
            }
            // A reason borrowed from the pod itself.
            Some("borrow") => Status::unresolvable(
                cx.pod()
                    .and_then(|p| p.metadata())
                    .and_then(|m| m.name())
                    .unwrap_or(""),
            ),
            Some("silent") => Status::success(),
            Some("node") => {
                self.node_reads += 1;
                let a = cx.node().and_then(|n| n.metadata()).and_then(|m| m.name());
                let b = cx.node().and_then(|n| n.metadata()).and_then(|m| m.name());
                if a == b && a == Some(cx.node_name()) {
                    Status::success()
                } else {
                    Status::error("node mismatch")
                }
            }
            _ => Status::new(Code::Skip, "ignored for skip? no: sent"),
        }
    }
}

impl Score for Probe {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        match cx.node_name() {
            "neg" => Ok(-7),
            "err" => Err(Status::error("cannot score")),
            n => Ok(n.len() as i32),
        }
    }
}

impl PreScore for Probe {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let n = json::elements(cx.filtered_node_list()).count();
        // A second list in the same call is refused (shared buffer).
        if !cx.node_score_list().is_empty() {
            return Status::error("second list served");
        }
        if n == 3 {
            Status::success()
        } else {
            Status::error("wrong count")
        }
    }
}

impl NormalizeScore for Probe {
    fn normalize_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let total: i64 = json::entries(cx.node_score_list())
            .filter_map(|(_, v)| json::as_i64(v))
            .sum();
        cx.set_normalized_score_list(if total > 10 {
            br#"{"a":100}"#
        } else {
            br#"{"a":0}"#
        });
        Status::success()
    }
}

impl PostFilter for Probe {
    fn post_filter<'a>(&'a mut self, cx: &'a Cycle) -> PostFilterResult<'a> {
        let first = json::entries(cx.node_to_status_map())
            .next()
            .map(|(k, _)| k);
        match first {
            Some(n) => PostFilterResult::nominate(n),
            None => PostFilterResult::status(Status::unschedulable("nothing to preempt")),
        }
    }
}

impl PreFilterExtensions for Probe {
    fn add_pod<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        match cx.target_pod() {
            Some(_) => Status::success(),
            None => Status::error("no target"),
        }
    }

    fn remove_pod<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::unschedulable("no removal")
    }
}

impl Reserve for Probe {
    fn reserve<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}

impl Permit for Probe {
    fn permit<'a>(&'a mut self, cx: &'a Cycle) -> PermitResult<'a> {
        match cx.node_name() {
            "wait" => PermitResult::wait(1500),
            "deny" => PermitResult::reject(Status::unschedulable("denied")),
            _ => PermitResult::allow(),
        }
    }
}

impl PreBind for Probe {
    fn pre_bind<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}

impl Bind for Probe {
    fn bind<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::skip()
    }
}

impl PostBind for Probe {
    fn post_bind(&mut self, _cx: &Cycle) {
        log::logs(log::Severity::Info, "bound", &[("pod", "p"), ("node", "n")]);
    }
}

static EVENTS: [ClusterEvent; 2] = [
    ClusterEvent::new(Resource::NODE, ActionType::ADD),
    ClusterEvent::new(Resource::POD, ActionType::DELETE.or(ActionType::ADD)),
];

impl EnqueueExtensions for Probe {
    fn events(&mut self) -> &[ClusterEvent] {
        &EVENTS
    }
}

// The full hook set compiles (exports exist only on wasm32).
kguest::export!(Probe => [prefilter, filter, postfilter, addpod, removepod, prescore, score,
    normalizescore, reserve, permit, prebind, bind, postbind, enqueue]);

fn pod(name: &str) -> Vec<u8> {
    PodBuilder::new(name).build()
}

#[test]
fn pod_is_fetched_once_per_cycle() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_pod(pod("silent"));
    assert!(host.pre_filter(&mut p).is_success());
    for n in ["a", "b", "c"] {
        assert!(host.filter_node(&mut p, n).is_success());
    }
    // Zero initial capacity natively: one call to learn the size, one to copy.
    assert_eq!(host.calls("currentPod"), 2);
    assert_eq!(host.calls("currentNodeName"), 0);
    // A new cycle with another pod refetches.
    host.set_pod(pod("reject"));
    host.new_cycle(&mut p);
    let out = host.filter_node(&mut p, "b");
    assert_eq!(out.code(), Ok(Code::Unschedulable));
    assert_eq!(out.reason(), "rejected on b");
    assert!(host.calls("currentPod") >= 3);
    assert_eq!(p.cycles, 2);
    assert_eq!(host.node_names(), None);
}

#[test]
fn large_pods_grow_the_buffer() {
    let host = TestHost::new();
    let mut p = Probe::new();
    let big = "x".repeat(2 << 20);
    host.set_pod(PodBuilder::new("silent").annotation("big", &big).build());
    assert!(host.filter_node(&mut p, "n").is_success());
    host.set_pod(
        PodBuilder::new("reject")
            .annotation("big", &big)
            .annotation("more", &big)
            .build(),
    );
    host.new_cycle(&mut p);
    assert_eq!(
        host.filter_node(&mut p, "n").code(),
        Ok(Code::Unschedulable)
    );
}

#[test]
fn reasons_are_sent_only_for_failures() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_pod(pod("silent"));
    let out = host.filter_node(&mut p, "n");
    assert_eq!(out.reason, None);
    host.set_pod(pod("borrow"));
    host.new_cycle(&mut p);
    let out = host.filter_node(&mut p, "n");
    assert_eq!((out.code, out.reason()), (3, "borrow"));
    // Success with an empty reason and missing pod: default branch.
    host.set_pod(Vec::new());
    host.new_cycle(&mut p);
    let out = host.filter_node(&mut p, "n");
    assert_eq!(out.code(), Ok(Code::Skip));
    assert_eq!(out.reason(), "ignored for skip? no: sent");
}

#[test]
fn node_is_fetched_on_demand_and_cached_per_name() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_pod(pod("silent"));
    host.add_node("n1", NodeBuilder::new("n1").build());
    host.add_node("n2", NodeBuilder::new("n2").build());
    host.filter_node(&mut p, "n1");
    assert_eq!(host.calls("node"), 0);
    host.set_pod(pod("node"));
    host.new_cycle(&mut p);
    assert!(host.filter_node(&mut p, "n1").is_success());
    assert_eq!(host.calls("node"), 2);
    assert!(host.filter_node(&mut p, "n1").is_success());
    assert_eq!(host.calls("node"), 2, "same node, same cycle: cached");
    assert!(host.filter_node(&mut p, "n2").is_success());
    // The buffer already fits n2 (same size as n1): one call.
    assert_eq!(host.calls("node"), 3);
    // Unknown node: empty, so the plugin sees None.
    assert_eq!(host.filter_node(&mut p, "gone").code(), Ok(Code::Error));
    assert_eq!(p.node_reads, 4);
}

#[test]
fn prefilter_result_and_score_packing() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.pre_filter(&mut p);
    assert_eq!(
        host.node_names(),
        Some(vec!["n1".to_string(), "n2".to_string()])
    );
    assert_eq!(
        host.score_node(&mut p, "abcd"),
        (
            4,
            testing::Outcome {
                code: 0,
                reason: None
            }
        )
    );
    let (s, out) = host.score_node(&mut p, "neg");
    assert_eq!((s, out.code), (-7, 0));
    let (s, out) = host.score_node(&mut p, "err");
    assert_eq!((s, out.code, out.reason()), (0, 1, "cannot score"));
}

#[test]
fn json_lists() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_filtered_node_list(r#"["a","b","c"]"#)
        .set_node_score_list(r#"{"a":5,"b":6}"#);
    assert!(host.pre_score(&mut p).is_success());
    assert!(host.normalize_score(&mut p).is_success());
    assert_eq!(
        host.normalized_score_list().as_deref(),
        Some(r#"{"a":100}"#)
    );
    host.set_node_to_status_map(r#"{"victim":2}"#);
    let (out, mode, nominated) = host.post_filter(&mut p);
    assert_eq!(
        (out.code, mode, nominated.as_deref()),
        (0, 1, Some("victim"))
    );
    host.set_node_to_status_map("{}");
    let (out, mode, nominated) = host.post_filter(&mut p);
    assert_eq!((out.code, mode, nominated), (2, 0, None));
    assert_eq!(out.reason(), "nothing to preempt");
}

#[test]
fn permit_packs_status_high() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_node_name("wait");
    let (out, timeout) = host.permit(&mut p);
    assert_eq!((out.code(), timeout), (Ok(Code::Wait), 1500));
    host.set_node_name("deny");
    let (out, timeout) = host.permit(&mut p);
    assert_eq!((out.code, out.reason(), timeout), (2, "denied", 0));
    host.set_node_name("ok");
    assert_eq!(host.permit(&mut p).0.code, 0);
}

#[test]
fn other_hooks() {
    let host = TestHost::new();
    let mut p = Probe::new();
    assert_eq!(host.add_pod(&mut p).code, 1);
    host.set_target_pod(pod("t"));
    assert_eq!(host.add_pod(&mut p).code, 0);
    assert_eq!(host.remove_pod(&mut p).reason(), "no removal");
    assert_eq!(host.reserve(&mut p).code, 0);
    host.unreserve(&mut p);
    assert_eq!(host.pre_bind(&mut p).code, 0);
    assert_eq!(host.bind(&mut p).code(), Ok(Code::Skip));
    assert_eq!(host.enqueue(&mut p), Some(vec![(1, 1), (0, 3)]));
}

#[test]
fn logs_are_gated_by_severity() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.post_bind(&mut p);
    log::error("boom");
    let logs = host.logs();
    assert_eq!(logs.len(), 2);
    assert_eq!(logs[0].msg, "bound");
    assert_eq!(
        logs[0].kvs,
        vec![("pod".into(), "p".into()), ("node".into(), "n".into())]
    );
    assert_eq!((logs[1].severity, logs[1].msg.as_str()), (2, "boom"));

    let host = TestHost::new();
    host.set_log_severity(2);
    log::info("dropped");
    log::logs(log::Severity::Warning, "dropped too", &[("k", "v")]);
    log::log(log::Severity::Fatal, "kept");
    assert_eq!(
        host.logs()
            .iter()
            .map(|l| l.msg.as_str())
            .collect::<Vec<_>>(),
        ["kept"]
    );
    assert!(!log::enabled(log::Severity::Info));
}

#[test]
fn structured_log_pairs_that_do_not_fit_are_dropped() {
    let host = TestHost::new();
    let long = "v".repeat(600);
    log::logs(log::Severity::Info, "m", &[("a", "1"), ("b", &long)]);
    log::logs(log::Severity::Info, "plain", &[("b", &long)]);
    let logs = host.logs();
    assert_eq!(logs[0].kvs, vec![("a".into(), "1".into())]);
    assert!(logs[1].kvs.is_empty());
}

#[test]
fn config_is_read_once() {
    let host = TestHost::new();
    host.set_config(r#"{"reverse":true}"#);
    assert_eq!(
        json::get(config(), "reverse").and_then(json::as_bool),
        Some(true)
    );
    host.set_config("{}");
    assert_eq!(config(), br#"{"reverse":true}"#);
    assert_eq!(host.calls("get_config"), 2);
    let _fresh = TestHost::new();
    assert_eq!(config(), b"");
}

/// Nesting a host call inside a hook traps (a panic natively).
struct Nested(Option<&'static TestHost>);

impl Plugin for Nested {
    fn new() -> Self {
        Nested(None)
    }
}

impl Filter for Nested {
    fn filter<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        if let Some(host) = self.0 {
            host.filter(&mut Nested(None));
        }
        Status::success()
    }
}

#[test]
fn nested_calls_trap() {
    let host: &'static TestHost = Box::leak(Box::new(TestHost::new()));
    assert!(host.filter_node(&mut Nested(None), "n").is_success());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        host.filter_node(&mut Nested(Some(host)), "n");
    }));
    assert!(r.is_err());
}
