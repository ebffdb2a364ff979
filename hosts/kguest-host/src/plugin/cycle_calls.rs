//! [`CycleCalls`]: one scheduling cycle's per-node calls on one instance.

use std::sync::Arc;

use super::{Inner, Raw, Worker, call_i32, call_i64};
use crate::error::CallError;
use crate::snapshot::Cycle;
use crate::types::{Hook, Status};

/// The Filter and Score calls of one cycle on one instance held for as long
/// as this value lives (see [`Plugin::cycle_calls`](super::Plugin::cycle_calls)).
///
/// [`Plugin::filter`](super::Plugin::filter) finds an instance in the pool
/// for every call and returns it afterwards: two pool locks, the cycle
/// handed to the instance and taken back, per call. A node loop pays that
/// once here: the instance is taken at the first call (running PreFilter
/// first when it has not seen this cycle, as the pooled calls do), keeps
/// the cycle as its input, and goes back to the pool when this is dropped.
/// Each call still has its own deadline, memory limit and trap handling;
/// a call that fails discards the instance, and the next call takes
/// another. Other hooks of the cycle (PostFilter, PreScore, ...) go through
/// the pool: drop this first, so that they find the instance that holds
/// the guest's per-cycle state.
///
/// One value serves one thread at a time (`&mut self`); threads that filter
/// nodes in parallel each take their own, and so each their own instance.
/// It keeps the plugin alive (it holds a reference to it), so it can be
/// stored beside the cycle.
pub struct CycleCalls {
    pub(super) inner: Arc<Inner>,
    pub(super) cycle: Cycle,
    pub(super) worker: Option<Worker>,
    /// The instance came from (and goes back to) the cycle's binding set.
    pub(super) held: bool,
}

impl std::fmt::Debug for CycleCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CycleCalls")
            .field("cycle", &self.cycle.0.id)
            .field("instance", &self.worker.is_some())
            .finish()
    }
}

impl CycleCalls {
    /// `Filter` for `node_name`, as [`Plugin::filter`](super::Plugin::filter).
    pub fn filter(&mut self, node_name: &str) -> Result<Status, CallError> {
        let (raw, reason) = self.call(Hook::Filter, node_name)?;
        self.inner.status_of(raw.i32(), reason)
    }

    /// `Score` for `node_name`: `(score, status)`, as
    /// [`Plugin::score`](super::Plugin::score).
    pub fn score(&mut self, node_name: &str) -> Result<(i32, Status), CallError> {
        let (raw, reason) = self.call(Hook::Score, node_name)?;
        let v = raw.i64();
        Ok(((v >> 32) as i32, self.inner.status_of(v as i32, reason)?))
    }

    fn call(&mut self, hook: Hook, node_name: &str) -> Result<(Raw, Option<String>), CallError> {
        if !self.inner.hooks.contains(hook) {
            return Err(CallError::NotExported(hook));
        }
        let worker = match &mut self.worker {
            Some(worker) => worker,
            None => {
                let (worker, held) = self.inner.bind(&self.cycle)?;
                self.held = held;
                self.worker.insert(worker)
            }
        };
        let result = invoke_node(&self.inner, worker, hook, node_name, &self.cycle);
        if result.is_err() {
            // The instance may be in any state: never reuse it.
            self.worker = None;
        }
        result
    }
}

impl Drop for CycleCalls {
    fn drop(&mut self) {
        if let Some(mut worker) = self.worker.take() {
            worker.store.data_mut().input.clear();
            let binding = self.held.then_some(self.cycle.0.id);
            self.inner.checkin(worker, binding);
        }
    }
}

/// One Filter or Score call on a bound instance: only the node name is
/// set, the cycle already is.
fn invoke_node(
    inner: &Inner,
    worker: &mut Worker,
    hook: Hook,
    node_name: &str,
    cycle: &Cycle,
) -> Result<(Raw, Option<String>), CallError> {
    let store = &mut worker.store;
    let name = &mut store.data_mut().input.node_name;
    name.clear();
    name.push_str(node_name);
    let (budget, timeout) = inner.call_budget(Some(cycle));
    store.set_epoch_deadline(budget);
    let result = match hook {
        Hook::Filter => call_i32(&worker.funcs.filter, store),
        Hook::Score => call_i64(&worker.funcs.score, store),
        _ => None,
    }
    .ok_or(CallError::NotExported(hook))?;
    match result {
        Ok(raw) => {
            let state = store.data_mut();
            let reason = state.output.reason.take();
            // Other results a guest may report here mean nothing for these
            // hooks (the pooled calls drop them too).
            state.output.clear_if_set();
            state.wasi.stdout.clear();
            Ok((raw, reason))
        }
        Err(e) => Err(inner.classify(Some(hook), e, store, timeout)),
    }
}
