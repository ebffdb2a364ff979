//! `Plugin::schedule`: one scheduling cycle in kube-scheduler's hook order.

use kguest_host::{Code, EXCLUDED_BY_PREFILTER, Score, Status};

use crate::util::{cycle, guest, load};

/// The nodes of `util::cycle` are `node-a` and `node-b`. This guest:
/// prefilter keeps only `node-a` when the pod's first byte is `a`, and
/// returns the pod's second byte as its code; filter rejects `node-b`
/// (Unschedulable) when the pod's third byte is `f`; score is 10 × the
/// length of the pod; postfilter nominates `node-b`; prescore returns the
/// pod's fourth byte as its code; normalizescore doubles every score
/// through `result.normalized_score_list`.
fn plugin() -> kguest_host::Plugin {
    load(&guest(
        r#"(data (i32.const 512) "node-a\00")
        (data (i32.const 600) "node-b")
        (data (i32.const 700) "{\22node-a\22:2,\22node-b\22:4}")
        (func $pod (drop (call $currentPod (i32.const 0) (i32.const 64))))
        (func (export "prefilter") (result i32)
          (call $pod)
          (if (i32.eq (i32.load8_u (i32.const 0)) (i32.const 97))
            (then (call $node_names (i32.const 512) (i32.const 7))))
          (i32.sub (i32.load8_u (i32.const 1)) (i32.const 48)))
        (func (export "filter") (result i32)
          (call $pod)
          (drop (call $currentNodeName (i32.const 100) (i32.const 64)))
          (if (result i32) (i32.and
                (i32.eq (i32.load8_u (i32.const 2)) (i32.const 102))
                (i32.eq (i32.load8_u (i32.const 105)) (i32.const 98)))
            (then (i32.const 2)) (else (i32.const 0))))
        (func (export "postfilter") (result i64)
          (call $nominated (i32.const 600) (i32.const 6))
          (i64.const 4294967296))
        (func (export "prescore") (result i32)
          (call $pod)
          (i32.sub (i32.load8_u (i32.const 3)) (i32.const 48)))
        (func (export "score") (result i64)
          (i64.shl
            (i64.extend_i32_u (i32.mul (call $currentPod (i32.const 0) (i32.const 64)) (i32.const 10)))
            (i64.const 32)))
        (func (export "normalizescore") (result i32)
          (call $normalized (i32.const 700) (i32.const 23))
          (i32.const 0))"#,
    ))
}

fn scores(report: &kguest_host::CycleReport) -> Vec<Score> {
    report.nodes.iter().map(|d| d.score.clone()).collect()
}

fn codes(report: &kguest_host::CycleReport) -> Vec<Code> {
    report.nodes.iter().map(|d| d.filter.code).collect()
}

#[test]
fn every_hook_runs_in_order_and_normalize_rewrites_scores() {
    // pod "x0-0": all nodes, filter passes both, prescore succeeds.
    let report = plugin().schedule(&cycle(b"x0-0")).unwrap();
    assert_eq!(report.prefilter.node_names, None);
    assert_eq!(codes(&report), [Code::SUCCESS, Code::SUCCESS]);
    assert_eq!(report.prescore, Some(Status::success()));
    // Scores were 40 and 40; NormalizeScore's list replaced them.
    assert_eq!(scores(&report), [Score::Value(2), Score::Value(4)]);
    assert_eq!(report.postfilter, None);
}

#[test]
fn prefilter_node_names_exclude_the_other_nodes() {
    let report = plugin().schedule(&cycle(b"a0-0")).unwrap();
    assert_eq!(
        report.prefilter.node_names,
        Some(vec!["node-a".to_string()])
    );
    assert_eq!(
        report.nodes[1].filter.code,
        Code::UNSCHEDULABLE_AND_UNRESOLVABLE
    );
    assert_eq!(
        report.nodes[1].filter.reason.as_deref(),
        Some(EXCLUDED_BY_PREFILTER)
    );
    assert_eq!(report.nodes[1].score, Score::NotRun);
    assert_eq!(report.nodes[0].score, Score::Value(2));
}

#[test]
fn a_failing_prefilter_rejects_every_node_and_skip_skips_filter() {
    let report = plugin().schedule(&cycle(b"x2f0")).unwrap();
    assert_eq!(codes(&report), [Code::UNSCHEDULABLE, Code::UNSCHEDULABLE]);
    // No feasible node: PostFilter runs and nominates.
    let post = report.postfilter.unwrap();
    assert_eq!(post.nominated_node_name.as_deref(), Some("node-b"));
    // Skip (5): Filter is not called, so "f" does not reject node-b.
    let report = plugin().schedule(&cycle(b"x5f0")).unwrap();
    assert_eq!(codes(&report), [Code::SUCCESS, Code::SUCCESS]);
}

#[test]
fn a_failing_prescore_stops_scoring() {
    let report = plugin().schedule(&cycle(b"x0f2")).unwrap();
    // node-b filtered out; PreScore said Unschedulable: no score at all.
    assert_eq!(codes(&report), [Code::SUCCESS, Code::UNSCHEDULABLE]);
    assert_eq!(report.prescore.as_ref().unwrap().code, Code::UNSCHEDULABLE);
    assert_eq!(scores(&report), [Score::NotRun, Score::NotRun]);
}
