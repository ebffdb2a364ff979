//! Score + PreScore + EnqueueExtensions: a port of kube-scheduler-wasm-extension's
//! `examples/nodenumber` (its `main.go` at commit 9b2791f), deciding,
//! logging and recording events as it does.
//!
//! * PreScore reads the last character of the **pod's name**. When it is a
//!   digit, it keeps the digit for the cycle and records the event
//!   `PreScore` / `match lastNumber` / `Continue`; otherwise it records
//!   `PreScore` / `not match lastNumber` / `Skip`. Both regard the pod.
//! * Score gives 10 to a node whose name ends in the kept digit and 0 to the
//!   others; without a kept digit (no PreScore this cycle, or a pod name
//!   without a final digit) every node matches. Config `{"reverse": true}`
//!   swaps the two scores. Only the last character counts: `node99` is
//!   treated as `node9`.
//! * EventsToRegister: Node/Add.
//! * klog: `NodeNumberArgs is successfully applied` when a config is given.
//!   Upstream also logs `execute PreScore on NodeNumber plugin` and
//!   `execute Score on NodeNumber plugin` with `pod=<namespace>/<name>` on
//!   every call; this port leaves those two out, which keeps it under
//!   8 KiB (they cost about 0.8 KB: see `kguest::log::logs_parts` and
//!   `kguest::log::kobj` to add them back).
//!
//! Config is decoded as Go's `json.Unmarshal` into `{Reverse bool
//! "json:reverse"}` decodes it (keys matched case-insensitively, `null`
//! ignored). A config Go would refuse stops the load, as upstream's guest
//! panics in `main`: the plugin is a [`kguest::Load`], so the host's error
//! (and the scheduler's refusal to start) carries the reason.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::handle::{self, ObjectRef};
use kguest::k8s::api::core::v1::Pod;
use kguest::{
    ActionType, ClusterEvent, Cycle, CycleState, EnqueueExtensions, Load, Owned, PreScore, Refusal,
    Resource, Score, Status, json, log,
};

/// The config, decoded as upstream decodes it: `Ok(reverse)`, or the
/// reason Go's decoder would fail. `None` when there is no config.
///
/// Go's `json.Unmarshal` into `{Reverse bool "json:reverse"}`: `null` or an
/// object; keys matched case-insensitively; `true`/`false` set the field,
/// `null` leaves it, anything else is an error; the last key wins; other
/// keys are ignored. The object's structure is checked (quotes, colons,
/// commas, nothing after it), the values of other keys only for where they
/// end.
pub fn decode_config(config: &[u8]) -> Option<Result<bool, &'static str>> {
    if config.is_empty() {
        return None;
    }
    const BAD: &str = "decode arg into NodeNumberArgs: malformed JSON object";
    let value = config;
    if json::as_null(value) {
        return Some(Ok(false));
    }
    let mut entries = json::raw_entries(value);
    let mut reverse = false;
    for (key, v) in entries.by_ref() {
        if !json::key_matches(key, "reverse") {
            continue;
        }
        match json::as_bool(v) {
            Some(b) => reverse = b,
            None if json::as_null(v) => {}
            None => return Some(Err("decode arg into NodeNumberArgs: reverse is not a bool")),
        }
    }
    Some(match entries.rest() {
        Some(rest) if json::is_blank(rest) => Ok(reverse),
        _ => Err(BAD),
    })
}

/// The numeric value of the last byte of `name`, if it is an ASCII digit.
pub fn last_digit(name: &[u8]) -> Option<u8> {
    match name.last() {
        Some(c @ b'0'..=b'9') => Some(c - b'0'),
        _ => None,
    }
}

pub struct NodeNumber {
    reverse: bool,
    /// PreScore's digit for this cycle (upstream's `preScoreState`), present
    /// only when PreScore ran this cycle and found one.
    digit: CycleState<Owned<Option<u8>>>,
}

impl Load for NodeNumber {
    fn load(config: &'static [u8]) -> Result<Self, Refusal> {
        let reverse = match decode_config(config) {
            None => false,
            Some(Ok(reverse)) => {
                log::info("NodeNumberArgs is successfully applied\n");
                reverse
            }
            Some(Err(why)) => return Err(why.into()),
        };
        Ok(NodeNumber {
            reverse,
            digit: CycleState::new(),
        })
    }
}

impl PreScore for NodeNumber {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let pod = cx.pod().unwrap_or(Pod::from_bytes(&[]));
        let name = pod.metadata().and_then(|m| m.name_bytes()).unwrap_or(b"");
        let regarding = ObjectRef::pod(&pod);
        match last_digit(name) {
            None => {
                handle::eventf(
                    Some(&regarding),
                    None,
                    "PreScore",
                    "not match lastNumber",
                    "Skip",
                    "",
                );
            }
            Some(d) => {
                handle::eventf(
                    Some(&regarding),
                    None,
                    "PreScore",
                    "match lastNumber",
                    "Continue",
                    "",
                );
                self.digit.get(cx, |_| Some(d));
            }
        }
        Status::success()
    }
}

impl Score for NodeNumber {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let matched = match self.digit.peek(cx).copied().flatten() {
            Some(d) => last_digit(cx.node_name_bytes()) == Some(d),
            None => true,
        };
        Ok(if matched != self.reverse { 10 } else { 0 })
    }
}

static EVENTS: [ClusterEvent; 1] = [ClusterEvent::new(Resource::NODE, ActionType::ADD)];

impl EnqueueExtensions for NodeNumber {
    fn events(&mut self) -> &[ClusterEvent] {
        &EVENTS
    }
}

kguest::export!(NodeNumber => [load, enqueue, prescore, score]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Plugin;
    use kguest::testing::TestHost;
    use kguest::testing::proto::PodBuilder;

    /// Runs a cycle (prefilter, prescore) for a pod named `pod` and returns
    /// the scores of `nodes`.
    fn scores(config: Option<&str>, pod: &str, nodes: &[&str]) -> Vec<i32> {
        let host = TestHost::new();
        if let Some(c) = config {
            host.set_config(c);
        }
        host.set_pod(PodBuilder::new(pod).build());
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
            scores(None, "pod1", &["node1", "node2", "node11", "node"]),
            [10, 0, 10, 0]
        );
    }

    #[test]
    fn reverse_swaps_scores() {
        let cfg = Some(r#"{"reverse": true}"#);
        assert_eq!(
            scores(cfg, "pod1", &["node1", "node2", "node"]),
            [0, 10, 10]
        );
        assert_eq!(
            scores(Some(r#"{"reverse": false}"#), "p3", &["x3", "x4"]),
            [10, 0]
        );
    }

    #[test]
    fn pod_name_without_digit_matches_every_node() {
        assert_eq!(scores(None, "pod", &["node1", "nodeA"]), [10, 10]);
        assert_eq!(scores(None, "", &["node1", ""]), [10, 10]);
        assert_eq!(scores(Some(r#"{"reverse":true}"#), "pod", &["node1"]), [0]);
    }

    #[test]
    fn state_is_dropped_at_the_next_cycle() {
        let host = TestHost::new();
        let mut p = NodeNumber::new();
        host.set_pod(PodBuilder::new("a7").build());
        host.new_cycle(&mut p);
        host.pre_score(&mut p);
        assert_eq!(host.score_node(&mut p, "m8").0, 0);
        // Next cycle, before PreScore runs: no state, so everything matches.
        host.new_cycle(&mut p);
        assert_eq!(host.score_node(&mut p, "m8").0, 10);
    }

    #[test]
    fn config_decodes_as_go_does() {
        let d = |s: &str| decode_config(s.as_bytes());
        assert_eq!(d(""), None);
        assert_eq!(d("null"), Some(Ok(false)));
        assert_eq!(d(" {} "), Some(Ok(false)));
        assert_eq!(d(r#"{"reverse":true}"#), Some(Ok(true)));
        assert_eq!(d(r#"{"Reverse":true}"#), Some(Ok(true)));
        assert_eq!(d(r#"{"REVERSE":true,"reverse":null}"#), Some(Ok(true)));
        assert_eq!(d(r#"{"reverse":true,"reverse":false}"#), Some(Ok(false)));
        assert_eq!(
            d(r#"{"other":[1,{"x":"y"}],"reverse":true}"#),
            Some(Ok(true))
        );
        for bad in [
            "not json",
            r#"{"reverse":"yes"}"#,
            r#"{"reverse":1}"#,
            "true",
            "[]",
            r#"{"reverse":true} x"#,
            r#"{"reverse":true,}"#,
            r#"{reverse:true}"#,
            r#"{"reverse":true"#,
        ] {
            assert!(matches!(d(bad), Some(Err(_))), "{bad}");
        }
    }

    #[test]
    fn bad_config_refuses_the_load() {
        let host = TestHost::new();
        host.set_config(r#"{"reverse":"yes"}"#);
        let err = host.load::<NodeNumber>().err();
        assert_eq!(
            err.as_deref(),
            Some("decode arg into NodeNumberArgs: reverse is not a bool")
        );
        let host = TestHost::new();
        host.set_config(r#"{"reverse":true}"#);
        assert!(host.load::<NodeNumber>().is_ok_and(|p| p.reverse));
    }

    #[test]
    fn events_and_config_log_as_upstream() {
        let host = TestHost::new();
        host.set_config("{}");
        host.set_pod(PodBuilder::new("web-3").namespace("prod").uid("u").build());
        let mut p = NodeNumber::new();
        host.new_cycle(&mut p);
        host.pre_score(&mut p);
        host.score_node(&mut p, "n3");
        let ev = host.events();
        assert_eq!(ev.len(), 1);
        assert!(ev[0].starts_with(
            r#"{"RegardingReference":{"Kind":"Pod","APIVersion":"v1","Name":"web-3","Namespace":"prod","UID":"u","ResourceVersion":""},"#
        ));
        assert!(ev[0].ends_with(
            r#""Eventtype":"PreScore","Reason":"match lastNumber","Action":"Continue","Note":""}"#
        ));
        let logs: Vec<String> = host.logs().into_iter().map(|l| l.msg).collect();
        assert_eq!(logs, ["NodeNumberArgs is successfully applied\n"]);
        host.set_pod(PodBuilder::new("web").build());
        host.new_cycle(&mut p);
        host.pre_score(&mut p);
        assert!(host.events()[1].contains(r#""Reason":"not match lastNumber","Action":"Skip""#));
    }
}
