//! One scheduling cycle over a plugin set, in kube-scheduler's order, and a
//! driver that runs cycles on every core.
//!
//! The cycle is written once, over [`PluginSet`], so the wasm and native
//! backends do exactly the same work: PreFilter (each plugin once; a node
//! list narrows the candidates), Filter on each candidate node through the
//! filter plugins in order (the first rejection ends the node's checks, as
//! the framework does), PreScore with the feasible nodes, Score on each
//! feasible node through every score plugin, weights 1, and the highest
//! total wins (ties go to the first node in snapshot order).
//!
//! Cycles run in parallel, one pod per thread at a time: a cycle stays on
//! its thread from PreFilter to Score, as KSW keeps a cycle on one guest
//! instance. There is no Reserve/Bind: the cluster does not change, so
//! every backend schedules the same pods onto the same nodes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// What a plugin set answered for one pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Decision {
    /// The chosen node (index into the cluster's nodes), if any is feasible.
    pub node: Option<u32>,
    /// How many nodes passed every filter.
    pub feasible: u32,
    /// The winning total score.
    pub score: i64,
}

/// The hooks of a plugin set, for one pod at a time.
pub trait PluginSet {
    /// Starts the cycle of `pod`: every plugin's PreFilter. Returns the node
    /// indexes PreFilter restricted the cycle to, if any did.
    fn pre_filter(&mut self, pod: usize) -> Result<Option<Vec<usize>>, String>;
    /// Whether `node` passes every filter plugin.
    fn filter(&mut self, node: usize) -> Result<bool, String>;
    /// PreScore with the feasible nodes; `false` skips scoring.
    fn pre_score(&mut self, feasible: &[usize]) -> Result<bool, String>;
    /// The sum of the score plugins' scores for `node`.
    fn score(&mut self, node: usize) -> Result<i64, String>;
}

/// One cycle for `pod` over `nodes` nodes.
pub fn cycle(set: &mut impl PluginSet, pod: usize, nodes: usize) -> Result<Decision, String> {
    let candidates: Vec<usize> = match set.pre_filter(pod)? {
        Some(mut allowed) => {
            allowed.sort_unstable();
            allowed.dedup();
            allowed
        }
        None => (0..nodes).collect(),
    };
    let mut feasible = Vec::with_capacity(candidates.len());
    for node in candidates {
        if set.filter(node)? {
            feasible.push(node);
        }
    }
    let mut decision = Decision {
        feasible: feasible.len() as u32,
        ..Decision::default()
    };
    if feasible.is_empty() {
        return Ok(decision);
    }
    if !set.pre_score(&feasible)? {
        decision.node = Some(feasible[0] as u32);
        return Ok(decision);
    }
    let mut best: Option<(i64, usize)> = None;
    for &node in &feasible {
        let total = set.score(node)?;
        if best.is_none_or(|(s, _)| total > s) {
            best = Some((total, node));
        }
    }
    if let Some((score, node)) = best {
        decision.node = Some(node as u32);
        decision.score = score;
    }
    Ok(decision)
}

/// Runs one cycle per pod on `threads` threads, each with its own plugin
/// set from `make` (created on the thread that uses it: native sets are
/// thread-local); returns the decisions (in pod order) and the wall time of
/// the cycles (plugin-set creation excluded).
pub fn run<S: PluginSet>(
    make: impl Fn() -> Result<S, String> + Sync,
    pods: usize,
    nodes: usize,
    threads: usize,
) -> Result<(Vec<Decision>, Duration), String> {
    let threads = threads.max(1);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![Decision::default(); pods]);
    let failure = Mutex::new(None::<String>);
    let ready = Barrier::new(threads + 1);
    let fail = |msg: String| {
        let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
        f.get_or_insert(msg);
        // Stop everyone.
        next.store(pods, Ordering::Relaxed);
    };
    let elapsed = std::thread::scope(|scope| {
        for _ in 0..threads {
            let (next, results, ready, make, fail) = (&next, &results, &ready, &make, &fail);
            scope.spawn(move || {
                let set = make();
                ready.wait();
                let mut set = match set {
                    Ok(set) => set,
                    Err(err) => return fail(err),
                };
                let mut mine = Vec::new();
                loop {
                    let pod = next.fetch_add(1, Ordering::Relaxed);
                    if pod >= pods {
                        break;
                    }
                    match cycle(&mut set, pod, nodes) {
                        Ok(d) => mine.push((pod, d)),
                        Err(err) => {
                            fail(format!("pod {pod}: {err}"));
                            break;
                        }
                    }
                }
                let mut all = results.lock().unwrap_or_else(|e| e.into_inner());
                for (pod, d) in mine {
                    all[pod] = d;
                }
            });
        }
        ready.wait();
        Instant::now()
    })
    .elapsed();
    if let Some(err) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(err);
    }
    Ok((
        results.into_inner().unwrap_or_else(|e| e.into_inner()),
        elapsed,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node `i` passes when `i % 3 != 0`; score = i % 7; PreFilter keeps
    /// everything except for pod 1, which is pinned to node 4.
    struct Toy;

    impl PluginSet for Toy {
        fn pre_filter(&mut self, pod: usize) -> Result<Option<Vec<usize>>, String> {
            Ok((pod == 1).then(|| vec![4]))
        }
        fn filter(&mut self, node: usize) -> Result<bool, String> {
            Ok(!node.is_multiple_of(3))
        }
        fn pre_score(&mut self, _: &[usize]) -> Result<bool, String> {
            Ok(true)
        }
        fn score(&mut self, node: usize) -> Result<i64, String> {
            Ok((node % 7) as i64)
        }
    }

    #[test]
    fn cycle_filters_then_scores_in_order() {
        let d = cycle(&mut Toy, 0, 20).unwrap();
        // Nodes 1,2,4,5,7,8,10,11,13,14,16,17,19 pass; score 6 first at 13.
        assert_eq!(d.feasible, 13);
        assert_eq!((d.node, d.score), (Some(13), 6));
        let pinned = cycle(&mut Toy, 1, 20).unwrap();
        assert_eq!((pinned.node, pinned.feasible), (Some(4), 1));
    }

    #[test]
    fn parallel_run_keeps_pod_order() {
        let (decisions, _) = run(|| Ok(Toy), 50, 20, 3).unwrap();
        assert_eq!(decisions.len(), 50);
        assert_eq!(decisions[1].node, Some(4));
        assert!(
            decisions
                .iter()
                .enumerate()
                .all(|(i, d)| i == 1 || d.node == Some(13))
        );
    }

    struct Failing;

    impl PluginSet for Failing {
        fn pre_filter(&mut self, _: usize) -> Result<Option<Vec<usize>>, String> {
            Err("boom".into())
        }
        fn filter(&mut self, _: usize) -> Result<bool, String> {
            Ok(true)
        }
        fn pre_score(&mut self, _: &[usize]) -> Result<bool, String> {
            Ok(true)
        }
        fn score(&mut self, _: usize) -> Result<i64, String> {
            Ok(0)
        }
    }

    #[test]
    fn a_failing_hook_stops_the_run_with_its_error() {
        let err = run(|| Ok(Failing), 10, 5, 2).unwrap_err();
        assert!(err.contains("boom"), "{err}");
    }
}
