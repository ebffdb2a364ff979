//! A profile's cycle as a table or JSON, and the notes about it.

use kguest_host::{Code, CycleOutcome, Outcome, ProfileReport, Status};
use serde_json::{Value, json};

use super::table::{NOT_RUN, render, status_name, status_text};

pub(super) fn profile_table(report: &ProfileReport) -> String {
    let mut rows = Vec::new();
    for node in &report.nodes {
        for (i, plugin) in report.plugins.iter().enumerate() {
            let (filter, reason) = match &node.filter[i] {
                Outcome::Ran(s) => (status_name(s.code), s.reason.clone().unwrap_or_default()),
                _ => (NOT_RUN.to_string(), String::new()),
            };
            let (score, weighted) = match node.score.get(i) {
                Some(Outcome::Ran(Ok(s))) if s.raw != s.normalized => (
                    format!("{} -> {}", s.raw, s.normalized),
                    s.weighted.to_string(),
                ),
                Some(Outcome::Ran(Ok(s))) => (s.normalized.to_string(), s.weighted.to_string()),
                Some(Outcome::Ran(Err(status))) => (status_text(status), String::new()),
                _ => ("-".to_string(), String::new()),
            };
            let total = match (i, node.total) {
                (0, Some(t)) => t.to_string(),
                _ => String::new(),
            };
            let name = if i == 0 {
                node.node.clone()
            } else {
                String::new()
            };
            rows.push(vec![
                name,
                plugin.name.clone(),
                filter,
                reason,
                score,
                weighted,
                total,
            ]);
        }
        // The node's own verdict when nothing of a plugin says it (a
        // PreFilter that left it out, or one that rejected the pod).
        if !node.status.is_success() && node.filter.iter().all(|f| f.ran().is_none()) {
            rows.push(vec![
                String::new(),
                "(node)".to_string(),
                status_name(node.status.code),
                node.status.reason.clone().unwrap_or_default(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    render(
        &[
            "NODE", "PLUGIN", "FILTER", "REASON", "SCORE", "WEIGHTED", "TOTAL",
        ],
        &rows,
        &[4, 5, 6],
    )
}

/// The cycle-wide hooks that ran or matter, the chosen node and why, and
/// how the cycle ended.
pub(super) fn profile_notes(report: &ProfileReport) -> Vec<String> {
    let mut notes = Vec::new();
    type Text<'a> = Box<dyn Fn(&kguest_host::PluginCycle) -> Option<String> + 'a>;
    let status_of = |o: &Outcome<Status>| o.ran().map(status_text);
    let hooks: [(&str, Text<'_>); 10] = [
        (
            "PreFilter",
            Box::new(|p| {
                p.prefilter.ran().map(|r| match &r.node_names {
                    Some(names) => format!(
                        "{} (only nodes [{}])",
                        status_text(&r.status),
                        names.join(", ")
                    ),
                    None => status_text(&r.status),
                })
            }),
        ),
        (
            "PostFilter",
            Box::new(|p| {
                p.postfilter.ran().map(|r| {
                    format!(
                        "{}, nominated node `{}` (mode {})",
                        status_text(&r.status),
                        r.nominated_node_name.as_deref().unwrap_or(""),
                        r.mode.0
                    )
                })
            }),
        ),
        ("PreScore", Box::new(move |p| status_of(&p.prescore))),
        (
            "NormalizeScore",
            Box::new(|p| p.normalize.ran().map(|r| status_text(&r.status))),
        ),
        ("Reserve", Box::new(move |p| status_of(&p.reserve))),
        (
            "Permit",
            Box::new(|p| {
                p.permit.ran().map(|r| {
                    if r.status.code == Code::WAIT {
                        format!("{} ({} ms)", status_text(&r.status), r.timeout.as_millis())
                    } else {
                        status_text(&r.status)
                    }
                })
            }),
        ),
        ("PreBind", Box::new(move |p| status_of(&p.prebind))),
        ("Bind", Box::new(move |p| status_of(&p.bind))),
        (
            "PostBind",
            Box::new(|p| p.postbind.ran().map(|()| "ran".to_string())),
        ),
        (
            "Unreserve",
            Box::new(|p| p.unreserve.ran().map(|()| "ran".to_string())),
        ),
    ];
    for (hook, text) in &hooks {
        let ran: Vec<String> = report
            .plugins
            .iter()
            .filter_map(|p| text(p).map(|t| format!("{} {t}", p.name)))
            .collect();
        if !ran.is_empty() {
            notes.push(format!("{hook}: {}", ran.join("; ")));
        }
    }
    if let Some(chosen) = &report.chosen {
        let feasible = report
            .nodes
            .iter()
            .filter(|n| n.status.is_success())
            .count();
        let why = match report
            .nodes
            .iter()
            .find(|n| &n.node == chosen)
            .and_then(|n| n.total)
        {
            None if feasible == 1 => {
                "the only node that passed every Filter (not scored)".to_string()
            }
            None => "passed every Filter".to_string(),
            Some(total) if report.tied > 1 => format!(
                "highest total {total}, tied with {} other node(s): the first in node order \
                 (kube-scheduler picks one of them at random)",
                report.tied - 1
            ),
            Some(total) => {
                let next = report
                    .nodes
                    .iter()
                    .filter(|n| &n.node != chosen)
                    .filter_map(|n| n.total.map(|t| (t, n.node.as_str())))
                    // The first of equal totals, in node order.
                    .fold(None, |best: Option<(i64, &str)>, (t, n)| match best {
                        Some((b, _)) if b >= t => best,
                        _ => Some((t, n)),
                    });
                match next {
                    Some((t, n)) => format!("highest total {total} (next: {n} with {t})"),
                    None => format!("highest total {total}"),
                }
            }
        };
        notes.push(format!("chosen: {chosen}: {why}"));
    }
    notes.push(match &report.outcome {
        CycleOutcome::Bound { node, by: Some(by) } => format!("result: bound to {node} by {by}"),
        CycleOutcome::Bound { node, by: None } => format!(
            "result: bound to {node} (no wasm plugin binds: kube-scheduler's DefaultBinder would)"
        ),
        CycleOutcome::Unschedulable => "result: unschedulable: no node passed every Filter".into(),
        CycleOutcome::Waiting { node, plugin } => format!(
            "result: waiting on {node}: {plugin}'s Permit said Wait (kube-scheduler holds the pod)"
        ),
        CycleOutcome::Failed {
            plugin,
            hook,
            status,
        } => format!(
            "result: failed at {plugin}'s {hook}: {}",
            status_text(status)
        ),
    });
    notes
}

pub(super) fn profile_json(report: &ProfileReport) -> String {
    let mut out = String::new();
    for node in &report.nodes {
        let plugins: Vec<Value> = report
            .plugins
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (filter, reason) = match &node.filter[i] {
                    Outcome::Ran(s) => (
                        json!(status_name(s.code)),
                        json!(s.reason.clone().unwrap_or_default()),
                    ),
                    _ => (Value::Null, json!("")),
                };
                let (score, normalized, weighted, score_status) = match node.score.get(i) {
                    Some(Outcome::Ran(Ok(s))) => (
                        json!(s.raw),
                        json!(s.normalized),
                        json!(s.weighted),
                        json!("Success"),
                    ),
                    Some(Outcome::Ran(Err(st))) => (
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        json!(status_name(st.code)),
                    ),
                    _ => (Value::Null, Value::Null, Value::Null, Value::Null),
                };
                json!({
                    "plugin": p.name,
                    "filter": filter,
                    "reason": reason,
                    "score": score,
                    "normalized": normalized,
                    "weighted": weighted,
                    "score_status": score_status,
                })
            })
            .collect();
        out.push_str(
            &json!({
                "node": node.node,
                "status": status_name(node.status.code),
                "reason": node.status.reason.clone().unwrap_or_default(),
                "total": node.total,
                "plugins": plugins,
            })
            .to_string(),
        );
        out.push('\n');
    }
    let outcome = match &report.outcome {
        CycleOutcome::Bound { node, by } => json!({"bound": node, "by": by}),
        CycleOutcome::Unschedulable => json!({"unschedulable": true}),
        CycleOutcome::Waiting { node, plugin } => json!({"waiting": node, "plugin": plugin}),
        CycleOutcome::Failed {
            plugin,
            hook,
            status,
        } => json!({
            "failed": plugin,
            "hook": hook.export_name(),
            "status": status_name(status.code),
            "reason": status.reason.clone().unwrap_or_default(),
        }),
    };
    out.push_str(
        &json!({"chosen": report.chosen, "tied": report.tied, "outcome": outcome}).to_string(),
    );
    out.push('\n');
    out
}
