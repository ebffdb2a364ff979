//! `Profile::schedule`: several plugins in one cycle, as kube-scheduler
//! runs a profile; and `scheduler_profiles` on docs/deploy.md's
//! configuration.

use std::sync::Arc;

use kguest_host::{
    Code, CycleOutcome, ExtensionPoint, Outcome, Plugin, PluginScore, PointLists, Profile,
    ProfileError, ProfilePlugin, Snapshot, Status,
};

use crate::util::{bytes, guest, load, real_node};

/// Nodes `node-a`, `node-b`, `node-c`.
fn cycle3() -> kguest_host::Cycle {
    let nodes = ["node-a", "node-b", "node-c"].map(|n| real_node(n, &[]));
    let snap = Snapshot::from_nodes(nodes).unwrap();
    kguest_host::Cycle::new(bytes(b"pod"), Arc::new(snap)).unwrap()
}

/// `$idx`: 1, 2, 3 for node-a, -b, -c (the node name's 6th byte - 'a' + 1).
const IDX: &str = r#"
  (func $idx (result i32)
    (drop (call $currentNodeName (i32.const 100) (i32.const 64)))
    (i32.sub (i32.load8_u (i32.const 105)) (i32.const 96)))"#;

/// Filter rejects node-b (Unschedulable, with a reason).
fn reject_b() -> Plugin {
    load(&guest(&format!(
        r#"{IDX}
        (data (i32.const 300) "no b")
        (func (export "filter") (result i32)
          (if (result i32) (i32.eq (call $idx) (i32.const 2))
            (then (call $reason (i32.const 300) (i32.const 4)) (i32.const 2))
            (else (i32.const 0))))"#
    )))
}

/// Score only: `idx` (node-a 1, node-b 2, node-c 3). Scoring node-b traps,
/// so a profile that scores a node another Filter rejected fails.
fn ascending(trap_on_b: bool) -> Plugin {
    let trap = if trap_on_b {
        "(if (i32.eq (call $idx) (i32.const 2)) (then unreachable))"
    } else {
        ""
    };
    load(&guest(&format!(
        r#"{IDX}
        (func (export "score") (result i64)
          {trap}
          (i64.shl (i64.extend_i32_u (call $idx)) (i64.const 32)))"#
    )))
}

/// Score only: 4 - idx (node-a 3, node-b 2, node-c 1).
fn descending() -> Plugin {
    load(&guest(&format!(
        r#"{IDX}
        (func (export "score") (result i64)
          (i64.shl (i64.extend_i32_u (i32.sub (i32.const 4) (call $idx))) (i64.const 32)))"#
    )))
}

fn entry(name: &str, plugin: Plugin, weight: i64) -> ProfilePlugin {
    ProfilePlugin {
        name: name.into(),
        plugin,
        weight,
    }
}

fn score(report: &kguest_host::ProfileReport, node: usize, plugin: usize) -> Option<i64> {
    match &report.nodes[node].score[plugin] {
        Outcome::Ran(Ok(PluginScore { weighted, .. })) => Some(*weighted),
        _ => None,
    }
}

#[test]
fn a_point_that_disables_a_plugin_skips_its_hook_there_and_its_own_list_runs_first() {
    let lists = |point, enabled: &[&str], disabled: &[&str]| {
        (
            point,
            PointLists {
                enabled: enabled.iter().map(|n| (n.to_string(), None)).collect(),
                disabled: disabled.iter().map(|n| n.to_string()).collect(),
            },
        )
    };
    let profile = Profile::with_points(
        vec![
            entry("reject-b", reject_b(), 1),
            entry("up", ascending(false), 1),
            entry("down", descending(), 3),
        ],
        &[
            lists(ExtensionPoint::Filter, &[], &["reject-b"]),
            lists(ExtensionPoint::Score, &["up"], &["down"]),
        ],
    )
    .unwrap();
    assert_eq!(profile.at(ExtensionPoint::Filter), &[] as &[usize]);
    assert_eq!(profile.at(ExtensionPoint::PostFilter), [0]);
    assert_eq!(profile.at(ExtensionPoint::Score), [1]);
    let report = profile.schedule(&cycle3()).unwrap();
    // node-b passes: reject-b's Filter is off; `down` (weight 3) would
    // have picked node-a.
    assert!(report.nodes.iter().all(|n| n.status.is_success()));
    assert_eq!(report.nodes[1].filter[0], Outcome::Disabled);
    assert_eq!(report.nodes[0].score[2], Outcome::Disabled);
    assert_eq!(report.chosen.as_deref(), Some("node-c"));
    // A point's list naming a plugin whose guest has no such hook is
    // refused, as kube-scheduler refuses it.
    let err = Profile::with_points(
        vec![entry("up", ascending(false), 1)],
        &[lists(ExtensionPoint::Filter, &["up"], &[])],
    )
    .unwrap_err();
    assert!(
        matches!(&err, ProfileError::Points(e) if e.contains("does not extend FilterPlugin")),
        "{err}"
    );
}

#[test]
fn score_never_runs_on_a_node_another_plugins_filter_rejected() {
    let profile = Profile::new(vec![
        entry("filter", reject_b(), 1),
        entry("score", ascending(true), 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    let b = &report.nodes[1];
    assert_eq!(b.node, "node-b");
    assert_eq!(b.status.code, Code::UNSCHEDULABLE);
    assert_eq!(b.status.reason.as_deref(), Some("no b"));
    assert!(matches!(b.score[1], Outcome::NotRun(_)), "{:?}", b.score);
    assert_eq!(b.total, None);
    assert_eq!(score(&report, 0, 1), Some(1));
    assert_eq!(score(&report, 2, 1), Some(3));
    assert_eq!(report.chosen.as_deref(), Some("node-c"));
    assert_eq!(
        report.outcome,
        CycleOutcome::Bound {
            node: "node-c".into(),
            by: None
        }
    );
    // The same plugin alone scores every node (and traps on node-b).
    assert!(ascending(true).schedule(&cycle3()).is_err());
}

#[test]
fn a_plugin_without_filter_shows_not_exported_in_the_filter_column() {
    let profile = Profile::new(vec![
        entry("filter", reject_b(), 1),
        entry("score", ascending(false), 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    for node in &report.nodes {
        assert_eq!(node.filter[1], Outcome::NotExported, "{}", node.node);
        assert_eq!(node.score[0], Outcome::NotExported, "{}", node.node);
    }
    assert_eq!(report.nodes[0].filter[0], Outcome::Ran(Status::success()));
    // kube-scheduler stops at the first rejection: later Filters of a
    // rejected node are not run (here: not exported either way).
    let twice = Profile::new(vec![entry("a", reject_b(), 1), entry("b", reject_b(), 1)]).unwrap();
    let report = twice.schedule(&cycle3()).unwrap();
    assert!(matches!(report.nodes[1].filter[1], Outcome::NotRun(_)));
    assert!(matches!(report.nodes[0].filter[1], Outcome::Ran(_)));
    // No Score anywhere: the first feasible node in order, unscored.
    assert_eq!(report.chosen.as_deref(), Some("node-a"));
    assert_eq!(report.tied, 2);
    for plugin in &report.plugins {
        assert_eq!(plugin.prescore, Outcome::NotExported);
        assert_eq!(plugin.reserve, Outcome::NotExported);
        assert_eq!(plugin.bind, Outcome::NotExported);
    }
}

#[test]
fn weights_multiply_normalized_scores_and_decide() {
    let run = |w_up: i64, w_down: i64| {
        let profile = Profile::new(vec![
            entry("up", ascending(false), w_up),
            entry("down", descending(), w_down),
        ])
        .unwrap();
        profile.schedule(&cycle3()).unwrap()
    };
    // up×1 + down×2: a 1+6=7, b 2+4=6, c 3+2=5.
    let report = run(1, 2);
    let totals: Vec<Option<i64>> = report.nodes.iter().map(|n| n.total).collect();
    assert_eq!(totals, [Some(7), Some(6), Some(5)]);
    assert_eq!(score(&report, 0, 1), Some(6));
    assert_eq!(report.chosen.as_deref(), Some("node-a"));
    assert_eq!(report.tied, 1);
    // up×2 + down×1: a 5, b 6, c 7.
    let report = run(2, 1);
    assert_eq!(report.chosen.as_deref(), Some("node-c"));
    // Weight 0 is 1 (kube-scheduler's default); a tie goes to the first
    // node in order.
    let report = run(0, 1);
    let totals: Vec<Option<i64>> = report.nodes.iter().map(|n| n.total).collect();
    assert_eq!(totals, [Some(4), Some(4), Some(4)]);
    assert_eq!(report.plugins[0].weight, 1);
    assert_eq!(report.chosen.as_deref(), Some("node-a"));
    assert_eq!(report.tied, 3);
}

#[test]
fn profiles_refuse_bad_shapes() {
    assert_eq!(Profile::new(vec![]).unwrap_err(), ProfileError::Empty);
    assert_eq!(
        Profile::new(vec![
            entry("a", descending(), 1),
            entry("a", descending(), 1)
        ])
        .unwrap_err(),
        ProfileError::DuplicateName("a".into())
    );
    assert_eq!(
        Profile::new(vec![entry("a", descending(), -1)]).unwrap_err(),
        ProfileError::NegativeWeight {
            plugin: "a".into(),
            weight: -1
        }
    );
}

#[test]
fn prefilter_rejection_and_postfilter_order() {
    // Rejects the pod at PreFilter; its PostFilter fails, the next one's
    // succeeds and nominates, a third is not run.
    let rejecting = load(&guest(
        r#"(func (export "prefilter") (result i32) (i32.const 2))
        (func (export "filter") (result i32) unreachable)
        (func (export "postfilter") (result i64) (i64.const 2))"#,
    ));
    let nominating = || {
        load(&guest(
            r#"(data (i32.const 600) "node-c")
            (func (export "prefilter") (result i32) (i32.const 0))
            (func (export "filter") (result i32) unreachable)
            (func (export "postfilter") (result i64)
              (call $nominated (i32.const 600) (i32.const 6))
              (i64.const 4294967296))"#,
        ))
    };
    let profile = Profile::new(vec![
        entry("reject", rejecting, 1),
        entry("nominate", nominating(), 1),
        entry("late", nominating(), 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert_eq!(report.outcome, CycleOutcome::Unschedulable);
    assert_eq!(report.chosen, None);
    // Unschedulable at PreFilter: kube-scheduler still runs the later
    // PreFilters (for preemption).
    assert!(matches!(report.plugins[1].prefilter, Outcome::Ran(_)));
    for node in &report.nodes {
        assert_eq!(node.status.code, Code::UNSCHEDULABLE);
        assert!(node.filter.iter().all(|f| matches!(f, Outcome::NotRun(_))));
    }
    let post = |i: usize| report.plugins[i].postfilter.ran().cloned();
    assert_eq!(post(0).unwrap().status.code, Code::UNSCHEDULABLE);
    assert_eq!(
        post(1).unwrap().nominated_node_name.as_deref(),
        Some("node-c")
    );
    assert!(matches!(report.plugins[2].postfilter, Outcome::NotRun(_)));

    // UnschedulableAndUnresolvable stops PreFilter there.
    let unresolvable = load(&guest(
        r#"(func (export "prefilter") (result i32) (i32.const 3))"#,
    ));
    let trapping = load(&guest(
        r#"(func (export "prefilter") (result i32) unreachable)
        (func (export "filter") (result i32) unreachable)"#,
    ));
    let profile = Profile::new(vec![entry("u", unresolvable, 1), entry("t", trapping, 1)]).unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert!(matches!(report.plugins[1].prefilter, Outcome::NotRun(_)));
    assert!(
        report
            .nodes
            .iter()
            .all(|n| n.status.code == Code::UNSCHEDULABLE_AND_UNRESOLVABLE)
    );

    // Node names are intersected; nothing left rejects every node.
    let only = |name: &str| {
        load(&guest(&format!(
            r#"(data (i32.const 512) "{name}\00")
            (func (export "prefilter") (result i32)
              (call $node_names (i32.const 512) (i32.const 7)) (i32.const 0))
            (func (export "filter") (result i32) (i32.const 0))"#
        )))
    };
    let profile = Profile::new(vec![
        entry("a", only("node-a"), 1),
        entry("b", only("node-b"), 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert_eq!(report.outcome, CycleOutcome::Unschedulable);
    assert!(
        report
            .nodes
            .iter()
            .all(|n| n.status.code == Code::UNSCHEDULABLE_AND_UNRESOLVABLE)
    );
    let profile = Profile::new(vec![
        entry("a", only("node-a"), 1),
        entry("a2", only("node-a"), 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert_eq!(report.chosen.as_deref(), Some("node-a"));
    assert_eq!(
        report.nodes[1].status.reason.as_deref(),
        Some(kguest_host::EXCLUDED_BY_PREFILTER)
    );
}

#[test]
fn binding_phase_reserve_permit_unreserve_and_bind() {
    // reserve without unreserve: KSW loads it; Unreserve is not exported
    // here (KSW would call a missing function).
    let reserve_only = load(&guest(
        r#"(func (export "reserve") (result i32) (i32.const 0))"#,
    ));
    let paired = || {
        load(&guest(
            r#"(global $n (mut i32) (i32.const 0))
            (func (export "reserve") (result i32) (i32.const 0))
            (func (export "unreserve") (global.set $n (i32.const 1)))
            (func (export "bind") (result i32) (i32.const 5))"#,
        ))
    };
    let rejecting_permit = load(&guest(
        r#"(func (export "permit") (result i64) (i64.const 8589934592))"#,
    ));
    let profile = Profile::new(vec![
        entry("half", reserve_only, 1),
        entry("paired", paired(), 1),
        entry("permit", rejecting_permit, 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert_eq!(report.chosen.as_deref(), Some("node-a"));
    assert_eq!(
        report.outcome,
        CycleOutcome::Failed {
            plugin: "permit".into(),
            hook: kguest_host::Hook::Permit,
            status: Status {
                code: Code::UNSCHEDULABLE,
                reason: None
            }
        }
    );
    assert_eq!(report.plugins[0].reserve, Outcome::Ran(Status::success()));
    assert_eq!(report.plugins[0].unreserve, Outcome::NotExported);
    assert_eq!(report.plugins[1].unreserve, Outcome::Ran(()));
    assert!(matches!(report.plugins[1].bind, Outcome::NotRun(_)));

    // Without the rejecting Permit: Bind skips, so the DefaultBinder would.
    let profile = Profile::new(vec![entry("paired", paired(), 1)]).unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert_eq!(
        report.outcome,
        CycleOutcome::Bound {
            node: "node-a".into(),
            by: None
        }
    );
    assert_eq!(
        report.plugins[0].bind.ran().map(|s| s.code),
        Some(Code::SKIP)
    );
    assert!(matches!(report.plugins[0].unreserve, Outcome::NotRun(_)));
}

#[test]
fn an_out_of_range_score_fails_the_cycle() {
    let big = load(&guest(
        r#"(func (export "score") (result i64) (i64.shl (i64.const 101) (i64.const 32)))"#,
    ));
    let profile = Profile::new(vec![entry("big", big, 1)]).unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    let CycleOutcome::Failed { plugin, status, .. } = &report.outcome else {
        panic!("{:?}", report.outcome);
    };
    assert_eq!(plugin, "big");
    assert_eq!(status.code, Code::ERROR);
    assert!(
        status
            .reason
            .as_deref()
            .unwrap()
            .contains("invalid score 101")
    );
    assert_eq!(report.chosen, None);
}

/// docs/deploy.md's KubeSchedulerConfiguration, as the page shows it.
pub fn deploy_md_config() -> String {
    let doc = std::fs::read_to_string(
        std::path::PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
        )
        .join("../../docs/deploy.md"),
    )
    .expect("docs/deploy.md");
    doc.split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .find(|block| block.contains("kind: KubeSchedulerConfiguration"))
        .expect("docs/deploy.md has a KubeSchedulerConfiguration block")
        .to_string()
}

#[test]
fn the_deploy_md_configuration_reads_verbatim() {
    let value: serde_json::Value = serde_norway::from_str(&deploy_md_config()).unwrap();
    let profiles = kguest_host::scheduler_profiles(&value).unwrap();
    let wasm = |name: &str, file: &str, config: &str, weight: i64| kguest_host::WasmPluginArgs {
        name: name.into(),
        guest_url: format!("file:///etc/kubernetes/wasm/{file}.wasm"),
        guest_config: config.into(),
        log_severity: 0,
        args: vec![],
        weight,
    };
    assert_eq!(profiles.len(), 2);
    assert_eq!(profiles[0].scheduler_name, "kguest-scheduler");
    assert!(profiles[0].other_plugins.is_empty());
    assert_eq!(
        profiles[0].plugins,
        [
            wasm("nodenumber", "nodenumber", r#"{"reverse": false}"#, 2),
            wasm("taints", "taints", "", 0),
            wasm("imagelocality", "imagelocality", "", 0),
        ]
    );
    assert_eq!(profiles[1].scheduler_name, "kguest-reverse");
    assert!(profiles[1].other_plugins.is_empty());
    assert_eq!(
        profiles[1].plugins,
        [
            wasm("fit", "fit", "", 0),
            wasm(
                "nodenumber-reverse",
                "nodenumber",
                r#"{"reverse": true}"#,
                0
            ),
        ]
    );
}

/// KSW never calls a hook without its main hook (here postfilter without
/// filter, prebind without bind): neither does a profile.
#[test]
fn hooks_without_their_main_hook_are_not_run() {
    let reject_all = load(&guest(
        r#"(func (export "filter") (result i32) (i32.const 2))"#,
    ));
    let orphans = || {
        load(&guest(
            r#"(func (export "score") (result i64) (i64.const 0))
            (func (export "postfilter") (result i64) unreachable)
            (func (export "prebind") (result i32) unreachable)"#,
        ))
    };
    let profile = Profile::new(vec![
        entry("reject", reject_all, 1),
        entry("o", orphans(), 1),
    ])
    .unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert_eq!(report.outcome, CycleOutcome::Unschedulable);
    assert!(matches!(report.plugins[1].postfilter, Outcome::NotRun(_)));
    let profile = Profile::new(vec![entry("o", orphans(), 1)]).unwrap();
    let report = profile.schedule(&cycle3()).unwrap();
    assert!(
        matches!(report.outcome, CycleOutcome::Bound { .. }),
        "{:?}",
        report.outcome
    );
    assert!(matches!(report.plugins[0].prebind, Outcome::NotRun(_)));
}
