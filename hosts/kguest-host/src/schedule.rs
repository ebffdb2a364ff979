//! One scheduling cycle of one plugin, in the order kube-scheduler calls
//! the hooks: PreFilter, Filter on each candidate node, PostFilter when no
//! node fits, then PreScore, Score and NormalizeScore on the feasible nodes.

use crate::error::CallError;
use crate::plugin::Plugin;
use crate::snapshot::Cycle;
use crate::types::{Code, Hook, NormalizeScoreResult, PostFilterResult, PreFilterResult, Status};

/// The reason given to nodes left out by a PreFilter node-name result.
pub const EXCLUDED_BY_PREFILTER: &str =
    "node(s) didn't satisfy plugin(s) at PreFilter (not in its node names)";

/// What one plugin decided in one scheduling cycle ([`Plugin::schedule`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleReport {
    /// PreFilter's status and node names (success and `None` when the guest
    /// exports no `prefilter`).
    pub prefilter: PreFilterResult,
    /// One entry per snapshot node, in snapshot order.
    pub nodes: Vec<NodeDecision>,
    /// PostFilter's result, when no node passed Filter and the guest
    /// exports `postfilter`.
    pub postfilter: Option<PostFilterResult>,
    /// PreScore's status, when it ran.
    pub prescore: Option<Status>,
    /// NormalizeScore's result, when it ran.
    pub normalize: Option<NormalizeScoreResult>,
}

/// One node's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDecision {
    /// `metadata.name`.
    pub node: String,
    /// Filter's status, or what stood in for it: PreFilter's failure, or
    /// [`EXCLUDED_BY_PREFILTER`] with `UnschedulableAndUnresolvable` for a
    /// node outside PreFilter's node names. Success without a call when
    /// the guest exports no `filter` or PreFilter returned `Skip` (check
    /// [`Plugin::hooks`]; `kguest run` shows `not run` then, and
    /// [`Profile`](crate::Profile) reports it as
    /// [`Outcome::NotExported`](crate::Outcome::NotExported)).
    pub filter: Status,
    /// Score's outcome.
    pub score: Score,
}

/// Score's outcome for one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Score did not run for this node: it did not pass Filter, the guest
    /// exports no `score`, or PreScore returned a non-success status.
    NotRun,
    /// The score, after NormalizeScore when the guest exports it.
    Value(i64),
    /// Score returned a non-success status (kube-scheduler fails the cycle).
    Failed(Status),
}

impl Score {
    /// The score, if there is one.
    pub fn value(&self) -> Option<i64> {
        match self {
            Score::Value(v) => Some(*v),
            _ => None,
        }
    }
}

impl Plugin {
    /// Runs the scheduling cycle of `cycle`'s pod over the nodes of its
    /// snapshot, as kube-scheduler orders the hooks for one plugin:
    ///
    /// 1. PreFilter. A non-success status other than `Skip` rejects every
    ///    node with that status; `Skip` skips Filter; node names restrict the
    ///    candidates (names not in the snapshot are ignored).
    /// 2. Filter on every candidate node.
    /// 3. PostFilter, if no node passed and the guest exports it.
    /// 4. PreScore with the feasible nodes; a non-success status stops
    ///    scoring (`Skip` skips it).
    /// 5. Score on every feasible node, then NormalizeScore if every score
    ///    succeeded and the guest exports it.
    ///
    /// Unlike kube-scheduler, nodes are scored even when only one fits, so
    /// the report always shows the plugin's scores. A hook that fails
    /// (trap, deadline, ...) ends the cycle with its [`CallError`].
    pub fn schedule(&self, cycle: &Cycle) -> Result<CycleReport, CallError> {
        let hooks = self.hooks();
        let prefilter = self.prefilter(cycle)?;
        let prefilter_failed =
            !prefilter.status.is_success() && prefilter.status.code != Code::SKIP;
        let skip_filter = prefilter.status.code == Code::SKIP || !hooks.contains(Hook::Filter);
        let mut nodes = Vec::new();
        // The node loop on one instance; dropped before PostFilter.
        let mut filters = self.cycle_calls(cycle);
        for node in cycle.snapshot().nodes() {
            let name = node.name();
            let filter = if prefilter_failed {
                prefilter.status.clone()
            } else if prefilter
                .node_names
                .as_ref()
                .is_some_and(|names| !names.iter().any(|n| n == name))
            {
                Status {
                    code: Code::UNSCHEDULABLE_AND_UNRESOLVABLE,
                    reason: Some(EXCLUDED_BY_PREFILTER.into()),
                }
            } else if skip_filter {
                Status::success()
            } else {
                filters.filter(name)?
            };
            nodes.push(NodeDecision {
                node: name.to_string(),
                filter,
                score: Score::NotRun,
            });
        }
        drop(filters);
        let feasible: Vec<String> = nodes
            .iter()
            .filter(|d| d.filter.is_success())
            .map(|d| d.node.clone())
            .collect();
        let mut report = CycleReport {
            prefilter,
            nodes,
            postfilter: None,
            prescore: None,
            normalize: None,
        };
        if feasible.is_empty() {
            if hooks.contains(Hook::PostFilter) {
                let statuses: Vec<(&str, Code)> = report
                    .nodes
                    .iter()
                    .map(|d| (d.node.as_str(), d.filter.code))
                    .collect();
                report.postfilter = Some(self.postfilter(cycle, &statuses)?);
            }
            return Ok(report);
        }
        if !hooks.contains(Hook::Score) {
            return Ok(report);
        }
        if hooks.contains(Hook::PreScore) {
            let status = self.prescore(cycle, &feasible)?;
            let stop = !status.is_success();
            report.prescore = Some(status);
            if stop {
                return Ok(report);
            }
        }
        let mut scores: Vec<(String, i64)> = Vec::new();
        let mut calls = self.cycle_calls(cycle);
        for decision in report.nodes.iter_mut().filter(|d| d.filter.is_success()) {
            let (score, status) = calls.score(&decision.node)?;
            if status.is_success() {
                scores.push((decision.node.clone(), i64::from(score)));
                decision.score = Score::Value(i64::from(score));
            } else {
                decision.score = Score::Failed(status);
            }
        }
        drop(calls);
        if hooks.contains(Hook::NormalizeScore) && scores.len() == feasible.len() {
            let result = self.normalize_score(cycle, &scores)?;
            if result.status.is_success() {
                result.apply(&mut scores);
                for decision in &mut report.nodes {
                    if let Some((_, s)) = scores.iter().find(|(n, _)| *n == decision.node) {
                        decision.score = Score::Value(*s);
                    }
                }
            }
            report.normalize = Some(result);
        }
        Ok(report)
    }
}
