//! One plugin's cycle as a table or JSON lines, and the notes about it.

use kguest_host::{Code, CycleReport, Hook, Score, Status, framework_status};
use serde_json::{Value, json};

use super::table::{NOT_RUN, status_name, status_text};

/// Lines about the cycle as a whole: what PreFilter, PostFilter, PreScore
/// and NormalizeScore decided, when it matters, and the error the
/// scheduler would report, with `name` as the plugin's name.
pub(super) fn cycle_notes(report: &CycleReport, name: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(error) = scheduler_error(report, name) {
        notes.push(error);
    }
    let prefilter = &report.prefilter;
    if !prefilter.status.is_success() {
        notes.push(format!("PreFilter: {}", status_text(&prefilter.status)));
    }
    if let Some(names) = &prefilter.node_names {
        notes.push(format!("PreFilter: only nodes [{}]", names.join(", ")));
    }
    if let Some(post) = &report.postfilter {
        let nominated = post.nominated_node_name.as_deref().unwrap_or("");
        notes.push(format!(
            "PostFilter: {}, nominated node `{nominated}` (mode {})",
            status_text(&post.status),
            post.mode.0
        ));
    }
    if let Some(status) = report.prescore.as_ref().filter(|s| !s.is_success()) {
        notes.push(format!("PreScore: {} (Score not run)", status_text(status)));
    }
    if let Some(normalize) = report.normalize.as_ref().filter(|n| !n.status.is_success()) {
        notes.push(format!(
            "NormalizeScore: {}",
            status_text(&normalize.status)
        ));
    }
    notes
}

/// The error kube-scheduler would report for this cycle, worded as its
/// framework words it: the first in its order (PreFilter, Filter by node,
/// PreScore, Score by node; the framework stops there), `name` standing for
/// the plugin's name in the scheduler configuration. The table keeps each
/// node's own status beside it.
fn scheduler_error(report: &CycleReport, name: &str) -> Option<String> {
    let is_error = |s: &&Status| s.code == Code::ERROR;
    let (hook, status) = if is_error(&&report.prefilter.status) {
        (Hook::PreFilter, &report.prefilter.status)
    } else if let Some(s) = report.nodes.iter().map(|n| &n.filter).find(is_error) {
        (Hook::Filter, s)
    } else if let Some(s) = report.prescore.as_ref().filter(is_error) {
        (Hook::PreScore, s)
    } else if let Some(s) = report.nodes.iter().find_map(|n| match &n.score {
        Score::Failed(status) => Some(status),
        _ => None,
    }) {
        // The framework turns any failed Score into an Error.
        (Hook::Score, s)
    } else {
        return None;
    };
    let worded = framework_status(hook, name, status.clone());
    Some(format!("scheduler: {}", worded.reason.unwrap_or_default()))
}

pub(super) fn json_lines(report: &CycleReport, not_run: &[bool]) -> String {
    report
        .nodes
        .iter()
        .zip(not_run)
        .map(|(d, not_run)| {
            let (score, score_status, score_reason) = match &d.score {
                Score::NotRun => (Value::Null, Value::Null, Value::Null),
                Score::Value(v) => (json!(v), json!("Success"), json!("")),
                Score::Failed(status) => (
                    Value::Null,
                    json!(status_name(status.code)),
                    json!(status.reason.clone().unwrap_or_default()),
                ),
            };
            let filter = if *not_run {
                Value::Null
            } else {
                json!(status_name(d.filter.code))
            };
            json!({
                "node": d.node,
                "filter": filter,
                "reason": d.filter.reason.clone().unwrap_or_default(),
                "score": score,
                "score_status": score_status,
                "score_reason": score_reason,
            })
            .to_string()
                + "\n"
        })
        .collect()
}

pub(super) fn table(report: &CycleReport, not_run: &[bool]) -> String {
    let rows: Vec<[String; 4]> = report
        .nodes
        .iter()
        .zip(not_run)
        .map(|(d, not_run)| {
            let score = match &d.score {
                Score::NotRun => "-".to_string(),
                Score::Value(v) => v.to_string(),
                Score::Failed(status) => status_text(status),
            };
            let filter = if *not_run {
                NOT_RUN.to_string()
            } else {
                status_name(d.filter.code)
            };
            [
                d.node.clone(),
                filter,
                d.filter.reason.clone().unwrap_or_default(),
                score,
            ]
        })
        .collect();
    let header = [
        "NODE".to_string(),
        "FILTER".into(),
        "REASON".into(),
        "SCORE".into(),
    ];
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 4]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == 3 {
                out.push_str(&format!("{cell:>w$}"));
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    std::iter::once(&header).chain(&rows).map(line).collect()
}
