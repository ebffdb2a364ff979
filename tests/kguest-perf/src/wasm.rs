//! The plugin set as wasm guests in kguest-host: each plugin is loaded
//! once (one compiled module, a pool of instances), and every thread calls
//! through the pool with its own `Cycle`.

use std::collections::HashMap;
use std::sync::Arc;

use kguest_host::{
    Cycle, CycleCalls, Hook, LogRecord, Plugin, PluginConfig, Runtime, SchedulerHandle, Snapshot,
};

use crate::sched::PluginSet;

/// A guest and how it is configured.
pub struct Guest {
    pub label: String,
    pub wasm: Vec<u8>,
    pub config: Vec<u8>,
    pub args: Vec<String>,
}

/// Receives guest logs and events and drops them: the guests still format
/// and send them (upstream's nodenumber logs on every Score), the host
/// does not print 100,000 lines.
struct Discard;

impl SchedulerHandle for Discard {
    fn log(&self, _: &LogRecord<'_>) {}
}

/// The loaded plugins and the shared inputs.
pub struct Loaded {
    filters: Vec<(String, Plugin)>,
    scores: Vec<(String, Plugin)>,
    snapshot: Arc<Snapshot>,
    names: Vec<Arc<str>>,
    index: HashMap<Arc<str>, usize>,
    pods: Vec<Arc<[u8]>>,
}

impl Loaded {
    pub fn new(
        runtime: &Runtime,
        filters: Vec<Guest>,
        scores: Vec<Guest>,
        snapshot: Arc<Snapshot>,
        pods: Vec<Arc<[u8]>>,
        pool_size: usize,
    ) -> Result<Loaded, String> {
        let load = |g: Guest| -> Result<(String, Plugin), String> {
            let config = PluginConfig {
                guest_config: g.config.into(),
                pool_size,
                handle: Arc::new(Discard),
                args: g.args,
                ..PluginConfig::default()
            };
            Plugin::load(runtime, &g.wasm, config)
                .map(|p| (g.label.clone(), p))
                .map_err(|err| format!("{}: {err}", g.label))
        };
        let names: Vec<Arc<str>> = snapshot.nodes().iter().map(|n| n.name().into()).collect();
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Ok(Loaded {
            filters: filters.into_iter().map(load).collect::<Result<_, _>>()?,
            scores: scores.into_iter().map(load).collect::<Result<_, _>>()?,
            snapshot,
            names,
            index,
            pods,
        })
    }

    /// Bytes of linear memory held by the pooled instances of every plugin.
    pub fn instance_memory(&self) -> Vec<(String, usize, usize)> {
        self.filters
            .iter()
            .chain(&self.scores)
            .map(|(label, p)| (label.clone(), p.idle_instances(), p.idle_memory_bytes()))
            .collect()
    }

    /// A per-thread handle.
    pub fn set(self: &Arc<Self>) -> WasmSet {
        WasmSet {
            loaded: self.clone(),
            cycle: None,
            filters: Vec::new(),
            scores: Vec::new(),
        }
    }
}

pub struct WasmSet {
    loaded: Arc<Loaded>,
    cycle: Option<Cycle>,
    /// The filter plugins' node loop of the cycle, one held instance each
    /// (`Plugin::cycle_calls`), as kguest-host's own `schedule` runs it.
    filters: Vec<CycleCalls>,
    /// The score plugins' node loop, taken after PreScore.
    scores: Vec<CycleCalls>,
}

fn err(label: &str, e: impl std::fmt::Display) -> String {
    format!("{label}: {e}")
}

impl WasmSet {
    fn cycle(&self) -> Result<&Cycle, String> {
        self.cycle.as_ref().ok_or_else(|| "no cycle".to_string())
    }
}

impl PluginSet for WasmSet {
    fn pre_filter(&mut self, pod: usize) -> Result<Option<Vec<usize>>, String> {
        let l = &self.loaded;
        // The previous cycle ends first, so the host can give its instances
        // to this one.
        self.filters.clear();
        self.scores.clear();
        self.cycle = None;
        let cycle = Cycle::new(l.pods[pod].clone(), l.snapshot.clone())
            .map_err(|e| format!("pod {pod}: {e}"))?;
        let mut allowed: Option<Vec<usize>> = None;
        for (label, p) in l.filters.iter().chain(&l.scores) {
            let r = p.prefilter(&cycle).map_err(|e| err(label, e))?;
            if !r.status.is_success() {
                return Ok(Some(Vec::new()));
            }
            if let Some(names) = r.node_names {
                let idx: Vec<usize> = names
                    .iter()
                    .filter_map(|n| l.index.get(n.as_str()).copied())
                    .collect();
                allowed = Some(match allowed {
                    Some(prev) => prev.into_iter().filter(|i| idx.contains(i)).collect(),
                    None => idx,
                });
            }
        }
        self.filters = l
            .filters
            .iter()
            .map(|(_, p)| p.cycle_calls(&cycle))
            .collect();
        self.cycle = Some(cycle);
        Ok(allowed)
    }

    fn filter(&mut self, node: usize) -> Result<bool, String> {
        let name = &self.loaded.names[node];
        for ((label, p), calls) in self.loaded.filters.iter().zip(&mut self.filters) {
            if !p.hooks().contains(Hook::Filter) {
                continue;
            }
            if !calls.filter(name).map_err(|e| err(label, e))?.is_success() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn pre_score(&mut self, feasible: &[usize]) -> Result<bool, String> {
        // The filter instances go back first, so PreScore (pooled) finds the
        // instance that ran this cycle's PreFilter.
        self.filters.clear();
        let cycle = self.cycle()?;
        let names: Vec<&str> = feasible.iter().map(|&i| &*self.loaded.names[i]).collect();
        for (label, p) in &self.loaded.scores {
            if p.hooks().contains(Hook::PreScore)
                && !p
                    .prescore(cycle, &names)
                    .map_err(|e| err(label, e))?
                    .is_success()
            {
                return Ok(false);
            }
        }
        self.scores = self
            .loaded
            .scores
            .iter()
            .map(|(_, p)| p.cycle_calls(cycle))
            .collect();
        Ok(true)
    }

    fn score(&mut self, node: usize) -> Result<i64, String> {
        let name = &self.loaded.names[node];
        let mut total = 0i64;
        for ((label, _), calls) in self.loaded.scores.iter().zip(&mut self.scores) {
            let (score, status) = calls.score(name).map_err(|e| err(label, e))?;
            if !status.is_success() {
                return Err(err(label, format!("score failed: {status:?}")));
            }
            total += i64::from(score);
        }
        Ok(total)
    }
}
