//! `--timing`: the mean wall time of one hook call.

use std::sync::Arc;
use std::time::Instant;

use kguest_host::{Cycle, CycleReport, Hook, Plugin};

/// Calls timed per scenario by `--timing` (after a warm-up).
const FRESH_CYCLE_CALLS: usize = 2_000;

const NEXT_NODE_CALLS: usize = 20_000;

const WARM_UP_CALLS: usize = 200;

/// `--timing`: the mean wall time of one call of the filter hook (score if
/// the plugin has no filter), in a fresh cycle (the guest fetches the Pod
/// again; its prefilter runs first when it exports one) and on the next
/// node of the same cycle.
pub(super) fn timing(
    plugin: &Plugin,
    pod: &Arc<[u8]>,
    cycle: &Cycle,
    report: &CycleReport,
) -> Result<String, Box<dyn std::error::Error>> {
    let hooks = plugin.hooks();
    let (hook, nodes): (Hook, Vec<&str>) = if hooks.contains(Hook::Filter) {
        let excluded = |d: &&kguest_host::NodeDecision| {
            d.filter.reason.as_deref() == Some(kguest_host::EXCLUDED_BY_PREFILTER)
        };
        let candidates = report.nodes.iter().filter(|d| !excluded(d));
        (Hook::Filter, candidates.map(|d| d.node.as_str()).collect())
    } else if hooks.contains(Hook::Score) {
        let feasible = report.nodes.iter().filter(|d| d.filter.is_success());
        (Hook::Score, feasible.map(|d| d.node.as_str()).collect())
    } else {
        return Ok("timing: the plugin exports neither filter nor score; nothing timed".into());
    };
    if nodes.is_empty() {
        return Ok(format!(
            "timing ({hook}): no node to call it on; nothing timed"
        ));
    }
    let call = |cycle: &Cycle, node: &str| -> Result<(), kguest_host::CallError> {
        match hook {
            Hook::Filter => plugin.filter(cycle, node).map(drop),
            _ => plugin.score(cycle, node).map(drop),
        }
    };
    for node in nodes.iter().cycle().take(WARM_UP_CALLS) {
        call(cycle, node)?;
    }
    let start = Instant::now();
    for node in nodes.iter().cycle().take(FRESH_CYCLE_CALLS) {
        let fresh = Cycle::new(pod.clone(), cycle.snapshot().clone())?;
        call(&fresh, node)?;
    }
    let fresh = start.elapsed().as_secs_f64() / FRESH_CYCLE_CALLS as f64;
    let start = Instant::now();
    for node in nodes.iter().cycle().take(NEXT_NODE_CALLS) {
        call(cycle, node)?;
    }
    let next = start.elapsed().as_secs_f64() / NEXT_NODE_CALLS as f64;
    Ok(format!(
        "timing ({hook}): {:.2} us per call in a fresh cycle, {:.2} us per call on the \
         next node (one reused instance)",
        fresh * 1e6,
        next * 1e6
    ))
}
