//! The two verbs over a profile of wasm plugins, for one request: Filter
//! (every plugin's PreFilter, then each node's Filters) and prioritize
//! (PreScore, Score, NormalizeScore, weights, then the 0–10 priority).
//!
//! Nothing is kept between requests: each request is a fresh
//! [`Cycle`], so a plugin's cycle state is computed again by its PreFilter
//! (the host runs it on any instance that has not seen the cycle, before
//! PreScore or Score). Two replicas that answer filter and prioritize of one
//! pod alternately therefore give the answers one replica would.
//!
//! A failing guest (trap, deadline, memory limit, an `Error` status, a score
//! out of range) never fails the request: in filter it rejects the nodes it
//! was asked about as unresolvable with the plugin's name and the failure
//! (preemption cannot fix a broken plugin); in prioritize it adds nothing
//! to any node. The server counts it.

use std::collections::{BTreeMap, HashSet};

use kguest_host::{CallError, Code, Cycle, ExtensionPoint, Hook, MAX_NODE_SCORE, Profile, Status};

use crate::api::MAX_EXTENDER_PRIORITY;

/// What Filter decided over the candidate nodes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FilterOutcome {
    /// The nodes every plugin let through, in request order.
    pub passed: Vec<String>,
    /// Rejected with `Unschedulable`: node -> reason.
    pub failed: BTreeMap<String, String>,
    /// Rejected with `UnschedulableAndUnresolvable`, or by a failing
    /// plugin: node -> reason.
    pub unresolvable: BTreeMap<String, String>,
}

/// Hook calls and failures per plugin (profile order), for the metrics.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Calls {
    pub calls: Vec<u64>,
    pub failures: Vec<u64>,
    /// One line per failure: `plugin: what failed`.
    pub errors: Vec<String>,
}

impl Calls {
    fn new(n: usize) -> Calls {
        Calls {
            calls: vec![0; n],
            failures: vec![0; n],
            errors: Vec::new(),
        }
    }

    fn ran(&mut self, i: usize) {
        self.calls[i] += 1;
    }

    fn failed(&mut self, i: usize, line: String) {
        self.failures[i] += 1;
        self.errors.push(line);
    }
}

/// Error text from wasmtime spans lines (its backtrace); reasons take one.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn call_failure(plugin: &str, hook: Hook, err: &CallError) -> String {
    format!(
        "kguest plugin {plugin}: {} failed: {}",
        hook.export_name(),
        one_line(&err.to_string())
    )
}

fn error_status(plugin: &str, hook: Hook, status: &Status) -> String {
    format!(
        "kguest plugin {plugin}: {} returned Error: {}",
        hook.export_name(),
        status.reason.as_deref().unwrap_or("")
    )
}

/// The reason a rejection carries: the guest's, or the plugin and code.
fn rejection(plugin: &str, status: &Status) -> String {
    match status.reason.as_deref() {
        Some(r) if !r.is_empty() => r.to_string(),
        _ => format!("node(s) didn't satisfy plugin {plugin}"),
    }
}

/// Where a node goes after a plugin's status: `None` = it passed.
enum Verdict {
    Failed(String),
    Unresolvable(String),
}

fn verdict(plugin: &str, hook: Hook, status: &Status) -> Option<Verdict> {
    match status.code {
        Code::SUCCESS => None,
        Code::UNSCHEDULABLE => Some(Verdict::Failed(rejection(plugin, status))),
        Code::UNSCHEDULABLE_AND_UNRESOLVABLE => {
            Some(Verdict::Unresolvable(rejection(plugin, status)))
        }
        _ => Some(Verdict::Unresolvable(error_status(plugin, hook, status))),
    }
}

/// Filter over `candidates` (names in `cycle`'s snapshot), as kube-scheduler
/// runs a profile's PreFilter and Filter: every PreFilter in order (`Skip`
/// skips that plugin's Filter; a rejection rejects every node, and after
/// `UnschedulableAndUnresolvable` later PreFilters do not run; node names
/// restrict the candidates), then per node each Filter in order until one
/// rejects it; each point's plugins in the profile's order for that point.
pub fn filter(profile: &Profile, cycle: &Cycle, candidates: &[String]) -> (FilterOutcome, Calls) {
    let plugins = profile.plugins();
    let mut calls = Calls::new(plugins.len());
    let mut out = FilterOutcome::default();
    let mut run_filter: Vec<bool> = (0..plugins.len())
        .map(|i| profile.runs(i, Hook::Filter))
        .collect();
    // A verdict for every node from PreFilter, if one rejected them all.
    let mut all: Option<Verdict> = None;
    let mut allowed: Option<HashSet<String>> = None;
    for &i in profile.at(ExtensionPoint::PreFilter) {
        let p = &plugins[i];
        if !profile.runs(i, Hook::PreFilter) {
            continue;
        }
        calls.ran(i);
        let result = match p.plugin.prefilter(cycle) {
            Ok(r) => r,
            Err(e) => {
                let line = call_failure(&p.name, Hook::PreFilter, &e);
                calls.failed(i, line.clone());
                all = Some(Verdict::Unresolvable(line));
                break;
            }
        };
        match result.status.code {
            Code::SKIP => run_filter[i] = false,
            Code::SUCCESS => {
                if let Some(names) = result.node_names {
                    let names: HashSet<String> = names.into_iter().collect();
                    allowed = Some(match allowed {
                        Some(prev) => prev.intersection(&names).cloned().collect(),
                        None => names,
                    });
                }
            }
            Code::UNSCHEDULABLE => {
                // Later PreFilters still run (for preemption); the last
                // such status is the nodes'.
                all = verdict(&p.name, Hook::PreFilter, &result.status);
            }
            _ => {
                if !matches!(result.status.code, Code::UNSCHEDULABLE_AND_UNRESOLVABLE) {
                    calls.failed(i, error_status(&p.name, Hook::PreFilter, &result.status));
                }
                all = verdict(&p.name, Hook::PreFilter, &result.status);
                break;
            }
        }
    }
    if let Some(v) = all {
        for node in candidates {
            place(&mut out, node, &v);
        }
        return (out, calls);
    }
    let mut node_calls: Vec<_> = plugins
        .iter()
        .enumerate()
        .map(|(i, p)| run_filter[i].then(|| p.plugin.cycle_calls(cycle)))
        .collect();
    for node in candidates {
        if let Some(allowed) = &allowed
            && !allowed.contains(node)
        {
            out.unresolvable
                .insert(node.clone(), kguest_host::EXCLUDED_BY_PREFILTER.to_string());
            continue;
        }
        let mut rejected = None;
        for &i in profile.at(ExtensionPoint::Filter) {
            let p = &plugins[i];
            let Some(c) = &mut node_calls[i] else {
                continue;
            };
            calls.ran(i);
            match c.filter(node) {
                Ok(status) => {
                    if !matches!(
                        status.code,
                        Code::SUCCESS | Code::UNSCHEDULABLE | Code::UNSCHEDULABLE_AND_UNRESOLVABLE
                    ) {
                        calls.failed(i, error_status(&p.name, Hook::Filter, &status));
                    }
                    rejected = verdict(&p.name, Hook::Filter, &status);
                }
                Err(e) => {
                    let line = call_failure(&p.name, Hook::Filter, &e);
                    calls.failed(i, format!("{line} (node {node})"));
                    rejected = Some(Verdict::Unresolvable(line));
                }
            }
            if rejected.is_some() {
                break;
            }
        }
        match rejected {
            Some(v) => place(&mut out, node, &v),
            None => out.passed.push(node.clone()),
        }
    }
    (out, calls)
}

fn place(out: &mut FilterOutcome, node: &str, v: &Verdict) {
    match v {
        Verdict::Failed(r) => out.failed.insert(node.to_string(), r.clone()),
        Verdict::Unresolvable(r) => out.unresolvable.insert(node.to_string(), r.clone()),
    };
}

/// What prioritize decided.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Priorities {
    /// Per node, in request order: the weighted sum of the plugins'
    /// normalized scores (as a kube-scheduler profile would add them).
    pub totals: Vec<(String, i64)>,
    /// The sum of the weights of the plugins that scored: a total's maximum
    /// is `MAX_NODE_SCORE` times this.
    pub weight_sum: i64,
    /// Per node, in request order: the priority answered (`0..=10`).
    pub priorities: Vec<(String, i64)>,
}

/// The 0–10 priority for a weighted total out of `100 × weight_sum`,
/// rounded to the nearest (halves up).
///
/// kube-scheduler multiplies an extender's priority by 10 and by the
/// extender's weight, so `round(total / weight_sum / 10) × 10 × weight` is
/// what a node gains: the profile's 0–100 scale keeps 11 steps (a
/// difference of less than 5 points per unit of weight can vanish, and two
/// nodes 1 point apart may land 10 apart). With no plugin scoring, every
/// node gets 0.
pub fn to_priority(total: i64, weight_sum: i64) -> i64 {
    if weight_sum <= 0 {
        return 0;
    }
    let max = MAX_NODE_SCORE.saturating_mul(weight_sum);
    let scaled = (i128::from(total.clamp(0, max)) * i128::from(MAX_EXTENDER_PRIORITY)
        + i128::from(max) / 2)
        / i128::from(max);
    scaled as i64
}

/// PreScore, Score and NormalizeScore of every plugin over `nodes` (the
/// nodes that passed Filter, as the scheduler sends them), weighted and
/// summed per node, then mapped to `0..=10` by [`to_priority`].
pub fn prioritize(profile: &Profile, cycle: &Cycle, nodes: &[String]) -> (Priorities, Calls) {
    let plugins = profile.plugins();
    let mut calls = Calls::new(plugins.len());
    let mut totals = vec![0i64; nodes.len()];
    let mut weight_sum = 0i64;
    for &i in profile.at(ExtensionPoint::Score) {
        let p = &plugins[i];
        weight_sum = weight_sum.saturating_add(p.weight);
        match plugin_scores(profile, i, cycle, nodes, &mut calls) {
            Some(scores) => {
                for (t, s) in totals.iter_mut().zip(scores) {
                    *t = t.saturating_add(s.saturating_mul(p.weight));
                }
            }
            None => continue,
        }
    }
    let priorities = nodes
        .iter()
        .zip(&totals)
        .map(|(n, t)| (n.clone(), to_priority(*t, weight_sum)))
        .collect();
    let totals = nodes.iter().cloned().zip(totals).collect();
    (
        Priorities {
            totals,
            weight_sum,
            priorities,
        },
        calls,
    )
}

/// One plugin's normalized scores for `nodes`; `None` when it skipped
/// (PreScore `Skip`: it adds nothing, as in kube-scheduler) or failed.
fn plugin_scores(
    profile: &Profile,
    i: usize,
    cycle: &Cycle,
    nodes: &[String],
    calls: &mut Calls,
) -> Option<Vec<i64>> {
    let p = &profile.plugins()[i];
    let fail = |calls: &mut Calls, line: String| {
        calls.failed(i, line);
        None
    };
    if profile.runs(i, Hook::PreScore) {
        calls.ran(i);
        match p.plugin.prescore(cycle, nodes) {
            Ok(s) if s.code == Code::SKIP => return None,
            Ok(s) if s.is_success() => {}
            Ok(s) => return fail(calls, error_status(&p.name, Hook::PreScore, &s)),
            Err(e) => return fail(calls, call_failure(&p.name, Hook::PreScore, &e)),
        }
    }
    let mut scores: Vec<(String, i64)> = Vec::with_capacity(nodes.len());
    {
        let mut node_calls = p.plugin.cycle_calls(cycle);
        for node in nodes {
            calls.ran(i);
            match node_calls.score(node) {
                Ok((score, s)) if s.is_success() => scores.push((node.clone(), i64::from(score))),
                Ok((_, s)) => return fail(calls, error_status(&p.name, Hook::Score, &s)),
                Err(e) => return fail(calls, call_failure(&p.name, Hook::Score, &e)),
            }
        }
    }
    if profile.runs(i, Hook::NormalizeScore) {
        calls.ran(i);
        match p.plugin.normalize_score(cycle, &scores) {
            Ok(r) if r.status.is_success() => {
                r.apply(&mut scores);
            }
            Ok(r) => {
                return fail(
                    calls,
                    error_status(&p.name, Hook::NormalizeScore, &r.status),
                );
            }
            Err(e) => return fail(calls, call_failure(&p.name, Hook::NormalizeScore, &e)),
        }
    }
    if let Some((node, s)) = scores
        .iter()
        .find(|(_, s)| !(0..=MAX_NODE_SCORE).contains(s))
    {
        return fail(
            calls,
            format!(
                "kguest plugin {}: score {s} for node {node} is outside [0, {MAX_NODE_SCORE}]",
                p.name
            ),
        );
    }
    Some(scores.into_iter().map(|(_, s)| s).collect())
}

#[cfg(test)]
mod tests {
    use super::to_priority;

    #[test]
    fn priorities_round_the_weighted_total_to_eleven_steps() {
        assert_eq!(to_priority(0, 1), 0);
        assert_eq!(to_priority(4, 1), 0);
        assert_eq!(to_priority(5, 1), 1);
        assert_eq!(to_priority(100, 1), 10);
        assert_eq!(to_priority(150, 3), 5);
        assert_eq!(to_priority(300, 3), 10);
        // Out of range totals are clamped; no scoring plugin gives 0.
        assert_eq!(to_priority(-3, 1), 0);
        assert_eq!(to_priority(1000, 1), 10);
        assert_eq!(to_priority(50, 0), 0);
    }
}
