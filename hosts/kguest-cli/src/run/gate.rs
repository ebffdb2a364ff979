//! `kguest run --fail-on`: the exit status for CI, from what the cycle
//! decided (printed first, as without the flag).

use kguest_host::{Code, CycleOutcome, CycleReport, ProfileReport, Score};

use crate::Failure;

/// When `kguest run` exits non-zero (3) on the cycle's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// A hook returned Error (or failed) on some node, or the cycle failed:
    /// what the scheduler reports as a scheduling error.
    Error,
    /// The pod would not be bound: an error, no node passing Filter, a
    /// rejection at Reserve/Permit/PreBind/Bind, or a Permit that waits.
    Unbound,
}

/// The outcome of one plugin's cycle against `fail_on`.
pub(super) fn plugin(fail_on: Option<FailOn>, report: &CycleReport) -> Result<(), Failure> {
    let Some(fail_on) = fail_on else {
        return Ok(());
    };
    let errs = report.prefilter.status.code == Code::ERROR
        || report.nodes.iter().any(|n| {
            n.filter.code == Code::ERROR
                || matches!(&n.score, Score::Failed(s) if s.code == Code::ERROR)
        })
        || report
            .prescore
            .as_ref()
            .is_some_and(|s| s.code == Code::ERROR);
    if errs {
        return Err(Failure::Outcome("a hook returned Error".into()));
    }
    let scored_out = report
        .nodes
        .iter()
        .any(|n| matches!(n.score, Score::Failed(_)));
    let feasible = report.nodes.iter().any(|n| n.filter.is_success());
    if fail_on == FailOn::Unbound && (!feasible || scored_out) {
        let why = if feasible {
            "Score failed"
        } else {
            "no node passed Filter"
        };
        return Err(Failure::Outcome(format!(
            "the pod would not be bound: {why}"
        )));
    }
    Ok(())
}

/// The outcome of a profile's cycle against `fail_on`.
pub(super) fn profile(fail_on: Option<FailOn>, report: &ProfileReport) -> Result<(), Failure> {
    let Some(fail_on) = fail_on else {
        return Ok(());
    };
    if let CycleOutcome::Failed {
        plugin,
        hook,
        status,
    } = &report.outcome
        && status.code == Code::ERROR
    {
        return Err(Failure::Outcome(format!(
            "the cycle failed at {plugin}'s {hook}: {}",
            status.reason.as_deref().unwrap_or("Error")
        )));
    }
    if fail_on == FailOn::Unbound && !matches!(report.outcome, CycleOutcome::Bound { .. }) {
        let why = match &report.outcome {
            CycleOutcome::Unschedulable => "no node passed Filter".to_string(),
            CycleOutcome::Waiting { node, plugin } => {
                format!("{plugin}'s Permit waits on {node}")
            }
            CycleOutcome::Failed { plugin, hook, .. } => format!("{plugin}'s {hook} rejected it"),
            CycleOutcome::Bound { .. } => String::new(),
        };
        return Err(Failure::Outcome(format!(
            "the pod would not be bound: {why}"
        )));
    }
    Ok(())
}
