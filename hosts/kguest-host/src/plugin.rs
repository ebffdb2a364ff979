//! Loading a guest and calling its hooks through a pool of instances.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use wasmtime::{ExternType, InstancePre, Module, Mutability, Store, Trap, TypedFunc, Val, ValType};

use crate::abi::{self, CallOutput, HostState, PluginShared};
use crate::config::PluginConfig;
use kguest_wasi::preview1::Args as GuestArgs;
use kguest_wasi::{Fault, MemoryLimitExceeded, OutOfBounds};

use crate::error::{CallError, HostFault, LoadError, one_line};
use crate::gojson;
use crate::runtime::Runtime;
use crate::snapshot::{Cycle, CycleData};
mod cycle_calls;
pub use cycle_calls::CycleCalls;

use crate::types::{
    ClusterEvent, Code, Hook, HookResult, HookSet, NominatingMode, NormalizeScoreResult,
    PermitResult, PostFilterResult, PreFilterResult, Status,
};

/// A loaded plugin: one compiled module, shared by a pool of instances.
/// `Send + Sync`; call hooks from any number of threads.
pub struct Plugin {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("hooks", &self.inner.hooks)
            .finish_non_exhaustive()
    }
}

struct Inner {
    runtime: Runtime,
    pre: InstancePre<HostState>,
    shared: Arc<PluginShared>,
    hooks: HookSet,
    config: PluginConfig,
    /// The runtime's epoch tick.
    tick: Duration,
    call_ticks: u64,
    start_ticks: u64,
    pool: Mutex<Pool>,
    /// Instances created so far (the first one, replacements, extras).
    created: AtomicU64,
}

/// Instances not running a call.
#[derive(Default)]
struct Pool {
    /// Free instances, most recently used last.
    idle: Vec<Worker>,
    /// Instances kept for a cycle's binding phase (from Permit until
    /// PostBind or Unreserve), oldest first, keyed by cycle id: KSW moves
    /// the scheduling guest to its binding cycle the same way, so the guest
    /// keeps its per-cycle state while the next pod is scheduled.
    binding: VecDeque<(u64, Worker)>,
}

/// Typed handles to every export, fetched once per instance.
struct Funcs {
    enqueue: Option<TypedFunc<(), ()>>,
    prefilter: Option<TypedFunc<(), i32>>,
    filter: Option<TypedFunc<(), i32>>,
    postfilter: Option<TypedFunc<(), i64>>,
    prescore: Option<TypedFunc<(), i32>>,
    score: Option<TypedFunc<(), i64>>,
    normalizescore: Option<TypedFunc<(), i32>>,
    reserve: Option<TypedFunc<(), i32>>,
    unreserve: Option<TypedFunc<(), ()>>,
    permit: Option<TypedFunc<(), i64>>,
    prebind: Option<TypedFunc<(), i32>>,
    bind: Option<TypedFunc<(), i32>>,
    postbind: Option<TypedFunc<(), ()>>,
    addpod: Option<TypedFunc<(), i32>>,
    removepod: Option<TypedFunc<(), i32>>,
}

/// One instance with its store.
struct Worker {
    store: Store<HostState>,
    /// Boxed: a worker moves in and out of the pool on every call, and the
    /// fifteen typed exports would be copied with it.
    funcs: Box<Funcs>,
    /// Id of the last cycle this instance ran `prefilter` for.
    cycle: Option<u64>,
    /// That cycle, while its caller still holds it: an instance whose
    /// cycle is alive keeps the guest's per-cycle state (PreScore's, say)
    /// for it, so other cycles take another instance.
    owner: Weak<CycleData>,
}

/// The raw value an export returned.
#[derive(Clone, Copy)]
enum Raw {
    Unit,
    I32(i32),
    I64(i64),
}

impl Raw {
    fn i32(self) -> i32 {
        match self {
            Raw::I32(v) => v,
            Raw::I64(v) => v as i32,
            Raw::Unit => 0,
        }
    }

    fn i64(self) -> i64 {
        match self {
            Raw::I64(v) => v,
            Raw::I32(v) => i64::from(v),
            Raw::Unit => 0,
        }
    }
}

/// Per-call inputs beyond the cycle.
#[derive(Default)]
struct Args<'a> {
    node_name: Option<&'a str>,
    target_pod: Option<Arc<[u8]>>,
    filtered_nodes: String,
    node_to_status: String,
    node_scores: String,
}

fn ticks(timeout: Duration, tick: Duration) -> u64 {
    let n = timeout.as_nanos().div_ceil(tick.as_nanos().max(1));
    // One extra tick so the deadline is never shorter than `timeout`.
    u64::try_from(n).unwrap_or(u64::MAX / 2).saturating_add(1)
}

const UNIT: &str = "() -> ()";
const TO_I32: &str = "() -> i32";
const TO_I64: &str = "() -> i64";

/// A compiled guest whose imports and exports passed KSW's rules. Cheap to
/// clone; load it as several plugins (different configurations, args or
/// handles) without compiling it again.
#[derive(Clone)]
pub struct Guest {
    module: Module,
    hooks: HookSet,
    runtime: Runtime,
}

impl std::fmt::Debug for Guest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guest")
            .field("hooks", &self.hooks)
            .finish_non_exhaustive()
    }
}

impl Guest {
    /// Compiles `wasm` and validates its imports and exports against the
    /// KSW ABI and registration rules.
    pub fn compile(runtime: &Runtime, wasm: &[u8]) -> Result<Guest, LoadError> {
        let module = Module::new(&runtime.inner.engine, wasm)
            .map_err(|e| LoadError::Compile(one_line(&e)))?;
        let hooks = validate_exports(&module)?;
        for import in module.imports() {
            abi::check_import(import.module(), import.name(), &import.ty())?;
        }
        Ok(Guest {
            module,
            hooks,
            runtime: runtime.clone(),
        })
    }

    /// The hooks the guest exports.
    pub fn hooks(&self) -> HookSet {
        self.hooks
    }
}

impl Plugin {
    /// Compiles `wasm` ([`Guest::compile`]) and loads it
    /// ([`Plugin::from_guest`]).
    pub fn load(runtime: &Runtime, wasm: &[u8], config: PluginConfig) -> Result<Plugin, LoadError> {
        Plugin::from_guest(&Guest::compile(runtime, wasm)?, config)
    }

    /// Reads the guest `url` names, as kube-scheduler-wasm-extension's
    /// `guestURL` (`file://PATH` or `http://..`, see [`guest_url`](crate::guest_url)),
    /// then [`Plugin::load`]s it. Errors read as KSW's
    /// (`wasm: error reading guestURL ..`).
    pub fn from_guest_url(
        runtime: &Runtime,
        url: &str,
        config: PluginConfig,
    ) -> Result<Plugin, LoadError> {
        if url.is_empty() {
            return Err(LoadError::MissingGuestUrl);
        }
        let wasm = crate::guest_url::fetch(url).map_err(|source| LoadError::GuestUrl {
            url: url.to_string(),
            source,
        })?;
        Plugin::load(runtime, &wasm, config)
    }

    /// A plugin running `guest` with `config`: checks the configuration,
    /// links the guest and creates (and starts) the first instance.
    pub fn from_guest(guest: &Guest, config: PluginConfig) -> Result<Plugin, LoadError> {
        let runtime = &guest.runtime;
        let rt = &runtime.inner;
        if config.memory_limit > rt.config.max_memory {
            return Err(LoadError::InvalidConfig(format!(
                "memory_limit {} exceeds the runtime's max_memory {}",
                config.memory_limit, rt.config.max_memory
            )));
        }
        if config.call_timeout.is_zero() || config.start_timeout.is_zero() {
            return Err(LoadError::InvalidConfig("timeouts must be > 0".into()));
        }
        let args = GuestArgs::new(&config.args)
            .ok_or_else(|| LoadError::InvalidConfig("a guest arg contains a NUL byte".into()))?;
        let (module, hooks) = (&guest.module, guest.hooks);
        validate_globals(module, &config.globals)?;
        let pre = rt
            .linker
            .instantiate_pre(module)
            .map_err(|e| LoadError::Link(one_line(&e)))?;
        let shared = Arc::new(PluginShared {
            guest_config: config.guest_config.clone(),
            log_severity: config.log_severity,
            handle: config.handle.clone(),
            args,
        });
        let tick = rt.config.epoch_tick;
        let inner = Inner {
            runtime: runtime.clone(),
            pre,
            shared,
            hooks,
            tick,
            call_ticks: ticks(config.call_timeout, tick),
            start_ticks: ticks(config.start_timeout, tick),
            config,
            pool: Mutex::new(Pool::default()),
            created: AtomicU64::new(0),
        };
        let first = inner.instantiate().map_err(LoadError::Instantiate)?;
        inner.checkin(first, None);
        Ok(Plugin {
            inner: Arc::new(inner),
        })
    }

    /// The hooks the guest exports.
    pub fn hooks(&self) -> HookSet {
        self.inner.hooks
    }

    /// Number of idle instances currently pooled (binding instances not
    /// counted).
    pub fn idle_instances(&self) -> usize {
        self.inner.pool.lock().map_or(0, |p| p.idle.len())
    }

    /// Number of instances held for a cycle's binding phase: taken at
    /// [`Plugin::permit`], given back at [`Plugin::postbind`] or
    /// [`Plugin::unreserve`] (at most `pool_size` are kept; the oldest is
    /// dropped beyond that).
    pub fn binding_instances(&self) -> usize {
        self.inner.pool.lock().map_or(0, |p| p.binding.len())
    }

    /// How many instances this plugin has created, the first one included
    /// (replacements after failures and extra instances for concurrent
    /// calls count too).
    pub fn instances_created(&self) -> u64 {
        self.inner.created.load(Ordering::Relaxed)
    }

    /// Linear memory held by the idle pooled instances, in bytes (what a
    /// guest's memory costs per instance, times the pool).
    pub fn idle_memory_bytes(&self) -> usize {
        self.inner.pool.lock().map_or(0, |pool| {
            pool.idle
                .iter()
                .map(|w| {
                    w.store
                        .data()
                        .wasi
                        .memory
                        .map_or(0, |m| m.data_size(&w.store))
                })
                .sum()
        })
    }

    /// `EnqueueExtensions.EventsToRegister`: calls `enqueue` and returns the
    /// events reported via `result.cluster_events`, or
    /// [`ClusterEvent::defaults`] if there is no `enqueue` export or it
    /// reported none.
    pub fn events_to_register(&self) -> Result<Vec<ClusterEvent>, CallError> {
        if !self.inner.hooks.contains(Hook::Enqueue) {
            return Ok(ClusterEvent::defaults());
        }
        let (_, out) = self.inner.call(Hook::Enqueue, None, Args::default())?;
        Ok(out
            .cluster_events
            .filter(|e| !e.is_empty())
            .unwrap_or_else(ClusterEvent::defaults))
    }

    /// `PreFilter`. Always available: without a `prefilter` export this
    /// succeeds with no node restriction (as KSW does).
    pub fn prefilter(&self, cycle: &Cycle) -> Result<PreFilterResult, CallError> {
        if !self.inner.hooks.contains(Hook::PreFilter) {
            return Ok(PreFilterResult::default());
        }
        let (raw, mut out) = self
            .inner
            .call(Hook::PreFilter, Some(cycle), Args::default())?;
        Ok(PreFilterResult {
            status: self.status(raw.i32(), &mut out)?,
            node_names: out.node_names,
        })
    }

    /// `Filter` for `node_name`.
    pub fn filter(&self, cycle: &Cycle, node_name: &str) -> Result<Status, CallError> {
        self.status_hook(Hook::Filter, cycle, node(node_name))
    }

    /// Filter and Score for many nodes of `cycle` on one instance, without
    /// the pool's bookkeeping per call: see [`CycleCalls`].
    pub fn cycle_calls(&self, cycle: &Cycle) -> CycleCalls {
        CycleCalls {
            inner: self.inner.clone(),
            cycle: cycle.clone(),
            worker: None,
            held: false,
        }
    }

    /// `PostFilter` with each filtered node's status code (served to the
    /// guest as KSW does: JSON `{nodeName: code}`).
    pub fn postfilter<S: AsRef<str>>(
        &self,
        cycle: &Cycle,
        node_to_status: &[(S, Code)],
    ) -> Result<PostFilterResult, CallError> {
        let args = Args {
            node_to_status: gojson::int_map(
                node_to_status
                    .iter()
                    .map(|(n, c)| (n.as_ref(), i64::from(c.0))),
            ),
            ..Args::default()
        };
        let (raw, mut out) = self.inner.call(Hook::PostFilter, Some(cycle), args)?;
        let v = raw.i64();
        Ok(PostFilterResult {
            status: self.status(v as i32, &mut out)?,
            mode: NominatingMode((v >> 32) as i32),
            nominated_node_name: out.nominated_node_name,
        })
    }

    /// `PreScore` over the nodes that passed Filter (served to the guest as
    /// KSW does: a JSON array of names).
    pub fn prescore<S: AsRef<str>>(
        &self,
        cycle: &Cycle,
        filtered_nodes: &[S],
    ) -> Result<Status, CallError> {
        let args = Args {
            filtered_nodes: gojson::string_array(filtered_nodes.iter().map(AsRef::as_ref)),
            ..Args::default()
        };
        self.status_hook(Hook::PreScore, cycle, args)
    }

    /// `Score` for `node_name`: `(score, status)`.
    pub fn score(&self, cycle: &Cycle, node_name: &str) -> Result<(i32, Status), CallError> {
        let (raw, mut out) = self.inner.call(Hook::Score, Some(cycle), node(node_name))?;
        let v = raw.i64();
        Ok(((v >> 32) as i32, self.status(v as i32, &mut out)?))
    }

    /// `NormalizeScore` over the scores of the nodes (served to the guest
    /// as KSW does: JSON `{nodeName: score}`).
    pub fn normalize_score<S: AsRef<str>>(
        &self,
        cycle: &Cycle,
        node_scores: &[(S, i64)],
    ) -> Result<NormalizeScoreResult, CallError> {
        let args = Args {
            node_scores: gojson::int_map(node_scores.iter().map(|(n, s)| (n.as_ref(), *s))),
            ..Args::default()
        };
        let (raw, mut out) = self.inner.call(Hook::NormalizeScore, Some(cycle), args)?;
        Ok(NormalizeScoreResult {
            status: self.status(raw.i32(), &mut out)?,
            scores: out.normalized_scores,
        })
    }

    /// `Reserve` on `node_name`.
    pub fn reserve(&self, cycle: &Cycle, node_name: &str) -> Result<Status, CallError> {
        self.status_hook(Hook::Reserve, cycle, node(node_name))
    }

    /// `Unreserve` on `node_name`.
    pub fn unreserve(&self, cycle: &Cycle, node_name: &str) -> Result<(), CallError> {
        self.inner
            .call(Hook::Unreserve, Some(cycle), node(node_name))?;
        Ok(())
    }

    /// `Permit` on `node_name` (code in the high half, timeout ms in the low half).
    pub fn permit(&self, cycle: &Cycle, node_name: &str) -> Result<PermitResult, CallError> {
        let (raw, mut out) = self
            .inner
            .call(Hook::Permit, Some(cycle), node(node_name))?;
        let v = raw.i64();
        Ok(PermitResult {
            status: self.status((v >> 32) as i32, &mut out)?,
            timeout: Duration::from_millis(u64::from(v as u32)),
        })
    }

    /// `PreBind` on `node_name`.
    pub fn prebind(&self, cycle: &Cycle, node_name: &str) -> Result<Status, CallError> {
        self.status_hook(Hook::PreBind, cycle, node(node_name))
    }

    /// `Bind` on `node_name`.
    pub fn bind(&self, cycle: &Cycle, node_name: &str) -> Result<Status, CallError> {
        self.status_hook(Hook::Bind, cycle, node(node_name))
    }

    /// `PostBind` on `node_name`.
    pub fn postbind(&self, cycle: &Cycle, node_name: &str) -> Result<(), CallError> {
        self.inner
            .call(Hook::PostBind, Some(cycle), node(node_name))?;
        Ok(())
    }

    /// `PreFilterExtensions.AddPod`: `target_pod` (protobuf Pod) on `node_name`.
    pub fn add_pod(
        &self,
        cycle: &Cycle,
        node_name: &str,
        target_pod: Arc<[u8]>,
    ) -> Result<Status, CallError> {
        let args = Args {
            target_pod: Some(target_pod),
            ..node(node_name)
        };
        self.status_hook(Hook::AddPod, cycle, args)
    }

    /// `PreFilterExtensions.RemovePod`: `target_pod` (protobuf Pod) on `node_name`.
    pub fn remove_pod(
        &self,
        cycle: &Cycle,
        node_name: &str,
        target_pod: Arc<[u8]>,
    ) -> Result<Status, CallError> {
        let args = Args {
            target_pod: Some(target_pod),
            ..node(node_name)
        };
        self.status_hook(Hook::RemovePod, cycle, args)
    }

    fn status_hook(&self, hook: Hook, cycle: &Cycle, args: Args<'_>) -> Result<Status, CallError> {
        let (raw, mut out) = self.inner.call(hook, Some(cycle), args)?;
        self.status(raw.i32(), &mut out)
    }

    fn status(&self, code: i32, out: &mut CallOutput) -> Result<Status, CallError> {
        self.inner.status_of(code, out.reason.take())
    }
}

fn node(name: &str) -> Args<'_> {
    Args {
        node_name: Some(name),
        ..Args::default()
    }
}

fn validate_exports(module: &Module) -> Result<HookSet, LoadError> {
    let mut hooks = HookSet::EMPTY;
    let mut memory_ok = false;
    for export in module.exports() {
        let name = export.name();
        let ty = export.ty();
        if name == "memory" {
            memory_ok = matches!(&ty, ExternType::Memory(m) if !m.is_64() && !m.is_shared());
            continue;
        }
        if name == "_start" {
            if !is_hook_sig(&ty, HookResult::Unit) {
                return Err(LoadError::WrongSignature {
                    export: name.into(),
                    expected: UNIT,
                });
            }
            continue;
        }
        let Some(hook) = Hook::from_export_name(name) else {
            continue;
        };
        if !is_hook_sig(&ty, hook.result()) {
            return Err(LoadError::WrongSignature {
                export: name.into(),
                expected: match hook.result() {
                    HookResult::Unit => UNIT,
                    HookResult::I32 => TO_I32,
                    HookResult::I64 => TO_I64,
                },
            });
        }
        hooks = hooks.with(hook);
    }
    if !memory_ok {
        return Err(LoadError::MissingMemory);
    }
    // The one hook-set rule, shared with `kguest check`. It loads a guest
    // with only one of reserve/unreserve as KSW does; calls to the missing
    // half are `CallError::NotExported`, and `schedule`/`Profile` skip them.
    match kguest_abi::ksw_load(hooks.bits()) {
        Ok(_) => Ok(hooks),
        Err(kguest_abi::KswRefusal::NoPluginFunctions) => Err(LoadError::NoHooks),
        Err(_) => Err(LoadError::UnsupportedHookSet(hooks)),
    }
}

/// Each `(name, value)` must name an exported mutable `i32` global.
fn validate_globals(module: &Module, globals: &[(String, i32)]) -> Result<(), LoadError> {
    for (name, _) in globals {
        let ok = matches!(
            module.get_export(name),
            Some(ExternType::Global(g))
                if matches!(g.content(), ValType::I32) && g.mutability() == Mutability::Var
        );
        if !ok {
            return Err(LoadError::InvalidConfig(format!(
                "the guest exports no mutable i32 global named `{name}`"
            )));
        }
    }
    Ok(())
}

fn is_hook_sig(ty: &ExternType, result: HookResult) -> bool {
    let ExternType::Func(f) = ty else {
        return false;
    };
    if f.params().len() != 0 {
        return false;
    }
    let results: Vec<_> = f.results().collect();
    matches!(
        (result, results.as_slice()),
        (HookResult::Unit, [])
            | (HookResult::I32, [ValType::I32])
            | (HookResult::I64, [ValType::I64])
    )
}

impl Inner {
    /// How long a call may run, and as epoch ticks: the call timeout, or
    /// what is left of the cycle's deadline when that comes first (one
    /// tick once it has passed).
    fn call_budget(&self, cycle: Option<&Cycle>) -> (u64, Duration) {
        let timeout = self.config.call_timeout;
        match cycle.and_then(Cycle::deadline) {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left < timeout {
                    (ticks(left, self.tick), left)
                } else {
                    (self.call_ticks, timeout)
                }
            }
            None => (self.call_ticks, timeout),
        }
    }

    fn status_of(&self, code: i32, reason: Option<String>) -> Result<Status, CallError> {
        let code = Code(code);
        if self.config.strict_status && !code.is_known() {
            return Err(CallError::UnknownStatus(code.0));
        }
        Ok(Status { code, reason })
    }

    /// An instance for [`CycleCalls`]: taken as a pooled call takes one,
    /// brought to this cycle (PreFilter first if it has not run it), with
    /// the cycle set as its input until it goes back.
    fn bind(&self, cycle: &Cycle) -> Result<(Worker, bool), CallError> {
        let (mut worker, held) = self.checkout(Some(cycle.0.id), false)?;
        if worker.cycle != Some(cycle.0.id) && self.hooks.contains(Hook::PreFilter) {
            self.invoke(&mut worker, Hook::PreFilter, Some(cycle), Args::default())?;
        }
        worker.store.data_mut().input.cycle = Some(cycle.clone());
        Ok((worker, held))
    }

    fn instantiate(&self) -> Result<Worker, CallError> {
        self.created.fetch_add(1, Ordering::Relaxed);
        let rt = &self.runtime.inner;
        let mut store = Store::new(
            &rt.engine,
            HostState::new(self.shared.clone(), self.config.memory_limit),
        );
        store.limiter(|s| &mut s.limiter);
        store.epoch_deadline_trap();
        store.set_epoch_deadline(self.start_ticks);
        let instance = self
            .pre
            .instantiate(&mut store)
            .map_err(|e| self.classify(None, e, &mut store, self.config.start_timeout))?;
        // Validated at load time; a miss here would be a host bug.
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| CallError::Instantiate("memory export vanished".into()))?;
        store.data_mut().wasi.memory = Some(memory);
        if let Ok(start) = instance.get_typed_func::<(), ()>(&mut store, "_start") {
            start
                .call(&mut store, ())
                .map_err(|e| self.classify(None, e, &mut store, self.config.start_timeout))?;
        }
        store.data_mut().wasi.stdout.clear();
        store.data_mut().output = CallOutput::default();
        for (name, value) in &self.config.globals {
            // Checked at load time to be an exported mutable i32.
            let set = instance
                .get_global(&mut store, name)
                .map(|g| g.set(&mut store, Val::I32(*value)));
            if !matches!(set, Some(Ok(()))) {
                return Err(CallError::Instantiate(format!(
                    "cannot set global `{name}`"
                )));
            }
        }
        macro_rules! get {
            ($hook:expr) => {
                if self.hooks.contains($hook) {
                    instance
                        .get_typed_func(&mut store, $hook.export_name())
                        .ok()
                } else {
                    None
                }
            };
        }
        let funcs = Box::new(Funcs {
            enqueue: get!(Hook::Enqueue),
            prefilter: get!(Hook::PreFilter),
            filter: get!(Hook::Filter),
            postfilter: get!(Hook::PostFilter),
            prescore: get!(Hook::PreScore),
            score: get!(Hook::Score),
            normalizescore: get!(Hook::NormalizeScore),
            reserve: get!(Hook::Reserve),
            unreserve: get!(Hook::Unreserve),
            permit: get!(Hook::Permit),
            prebind: get!(Hook::PreBind),
            bind: get!(Hook::Bind),
            postbind: get!(Hook::PostBind),
            addpod: get!(Hook::AddPod),
            removepod: get!(Hook::RemovePod),
        });
        Ok(Worker {
            store,
            funcs,
            cycle: None,
            owner: Weak::new(),
        })
    }

    /// An instance for a call in `cycle`: the one holding the cycle's
    /// binding phase, else an idle one that last ran this cycle, else the
    /// most recently used idle one whose cycle has ended (its caller
    /// dropped every `Cycle` handle), else a new one.
    ///
    /// Only PreFilter (`starting`: a new scheduling cycle begins, which in
    /// kube-scheduler means the previous one is over) and calls outside a
    /// cycle (`enqueue`) may also take an instance whose cycle is still
    /// alive, as KSW reuses its one scheduling instance for the next pod.
    /// Other hooks never take one: guests keep per-cycle state (PreScore's,
    /// say) in their instance.
    ///
    /// Also says whether the instance came from the binding set (one lock
    /// for both answers: this runs on every call).
    fn checkout(&self, cycle: Option<u64>, starting: bool) -> Result<(Worker, bool), CallError> {
        let found = self.pool.lock().ok().and_then(|mut pool| {
            if let Some(id) = cycle {
                if let Some(at) = pool.binding.iter().position(|(c, _)| *c == id) {
                    return pool.binding.remove(at).map(|(_, w)| (w, true));
                }
                if let Some(at) = pool.idle.iter().rposition(|w| w.cycle == Some(id)) {
                    return Some((pool.idle.remove(at), false));
                }
            }
            match pool.idle.iter().rposition(|w| w.owner.strong_count() == 0) {
                Some(at) => Some(pool.idle.remove(at)),
                None if starting || cycle.is_none() => pool.idle.pop(),
                None => None,
            }
            .map(|w| (w, false))
        });
        match found {
            Some(found) => Ok(found),
            None => Ok((self.instantiate()?, false)),
        }
    }

    /// Returns an instance after a successful call: to the binding set when
    /// `binding` names the cycle it now holds, else to the idle pool.
    fn checkin(&self, worker: Worker, binding: Option<u64>) {
        let Ok(mut pool) = self.pool.lock() else {
            return;
        };
        let limit = self.config.pool_size.max(1);
        match binding {
            Some(id) => {
                pool.binding.push_back((id, worker));
                if pool.binding.len() > limit {
                    pool.binding.pop_front();
                }
            }
            None if pool.idle.len() < limit => pool.idle.push(worker),
            None => {}
        }
    }

    /// Runs `hook` on a pooled instance. Any error other than a missing
    /// export discards the instance.
    fn call(
        &self,
        hook: Hook,
        cycle: Option<&Cycle>,
        args: Args<'_>,
    ) -> Result<(Raw, CallOutput), CallError> {
        if !self.hooks.contains(hook) {
            return Err(CallError::NotExported(hook));
        }
        let id = cycle.map(|c| c.0.id);
        let (mut worker, held) = self.checkout(id, hook == Hook::PreFilter)?;
        // KSW guests reset per-cycle caches in `prefilter`; an instance that
        // has not seen this cycle's prefilter must run it first.
        if let Some(c) = cycle
            && hook != Hook::PreFilter
            && worker.cycle != Some(c.0.id)
            && self.hooks.contains(Hook::PreFilter)
        {
            self.invoke(&mut worker, Hook::PreFilter, Some(c), Args::default())?;
        }
        let result = self.invoke(&mut worker, hook, cycle, args)?;
        // Permit starts the binding phase; PostBind and Unreserve end it.
        let binding = match hook {
            Hook::Permit => id,
            Hook::PostBind | Hook::Unreserve => None,
            _ if held => id,
            _ => None,
        };
        self.checkin(worker, binding);
        Ok(result)
    }

    fn invoke(
        &self,
        worker: &mut Worker,
        hook: Hook,
        cycle: Option<&Cycle>,
        args: Args<'_>,
    ) -> Result<(Raw, CallOutput), CallError> {
        let store = &mut worker.store;
        {
            let input = &mut store.data_mut().input;
            input.cycle = cycle.cloned();
            if let Some(n) = args.node_name {
                input.node_name.push_str(n);
            }
            input.target_pod = args.target_pod;
            input.filtered_nodes = args.filtered_nodes;
            input.node_to_status = args.node_to_status;
            input.node_scores = args.node_scores;
        }
        let (budget, timeout) = self.call_budget(cycle);
        store.set_epoch_deadline(budget);
        let f = &worker.funcs;
        let missing = || CallError::NotExported(hook);
        let result = match hook {
            Hook::Enqueue => f
                .enqueue
                .as_ref()
                .ok_or_else(missing)?
                .call(&mut *store, ())
                .map(|()| Raw::Unit),
            Hook::PreFilter => call_i32(&f.prefilter, store).ok_or_else(missing)?,
            Hook::Filter => call_i32(&f.filter, store).ok_or_else(missing)?,
            Hook::PostFilter => call_i64(&f.postfilter, store).ok_or_else(missing)?,
            Hook::PreScore => call_i32(&f.prescore, store).ok_or_else(missing)?,
            Hook::Score => call_i64(&f.score, store).ok_or_else(missing)?,
            Hook::NormalizeScore => call_i32(&f.normalizescore, store).ok_or_else(missing)?,
            Hook::Reserve => call_i32(&f.reserve, store).ok_or_else(missing)?,
            Hook::Unreserve => f
                .unreserve
                .as_ref()
                .ok_or_else(missing)?
                .call(&mut *store, ())
                .map(|()| Raw::Unit),
            Hook::Permit => call_i64(&f.permit, store).ok_or_else(missing)?,
            Hook::PreBind => call_i32(&f.prebind, store).ok_or_else(missing)?,
            Hook::Bind => call_i32(&f.bind, store).ok_or_else(missing)?,
            Hook::PostBind => f
                .postbind
                .as_ref()
                .ok_or_else(missing)?
                .call(&mut *store, ())
                .map(|()| Raw::Unit),
            Hook::AddPod => call_i32(&f.addpod, store).ok_or_else(missing)?,
            Hook::RemovePod => call_i32(&f.removepod, store).ok_or_else(missing)?,
        };
        let state = store.data_mut();
        state.input.clear();
        let out = std::mem::take(&mut state.output);
        match result {
            Ok(raw) => {
                state.wasi.stdout.clear();
                if hook == Hook::PreFilter {
                    worker.cycle = cycle.map(|c| c.0.id);
                    worker.owner = cycle.map_or_else(Weak::new, |c| Arc::downgrade(&c.0));
                }
                Ok((raw, out))
            }
            Err(e) => Err(self.classify(Some(hook), e, store, timeout)),
        }
    }

    fn classify(
        &self,
        hook: Option<Hook>,
        err: wasmtime::Error,
        store: &mut Store<HostState>,
        timeout: Duration,
    ) -> CallError {
        let stdio = store.data_mut().wasi.stdout.take();
        let out_of_bounds = |e: &OutOfBounds| CallError::OutOfBounds {
            import: e.function,
            ptr: e.ptr,
            len: e.len,
            memory_size: e.memory_size,
        };
        if let Some(HostFault::Abi { import, detail }) = err.downcast_ref::<HostFault>() {
            return CallError::Abi {
                import,
                detail: detail.clone(),
            };
        }
        if let Some(e) = err.downcast_ref::<OutOfBounds>() {
            return out_of_bounds(e);
        }
        match err.downcast_ref::<Fault>() {
            Some(Fault::OutOfBounds(e)) => return out_of_bounds(e),
            Some(Fault::Exit(code)) => return CallError::Exit { hook, code: *code },
            Some(Fault::NoMemory { function }) => {
                return CallError::Abi {
                    import: function,
                    detail: "the guest exports no memory".into(),
                };
            }
            // Not raised by kguest-host's WASI (no output limit, every
            // function defined), but named if they ever are.
            Some(other) => {
                return CallError::Trap {
                    hook,
                    output: String::from_utf8_lossy(&stdio).into_owned(),
                    message: other.to_string(),
                };
            }
            None => {}
        }
        if let Some(m) = err.downcast_ref::<MemoryLimitExceeded>() {
            return CallError::MemoryLimit {
                hook,
                requested: m.requested,
                limit: m.limit,
            };
        }
        match err.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => return CallError::Deadline { hook, timeout },
            Some(Trap::StackOverflow) => return CallError::StackOverflow { hook },
            Some(_) => {}
            // Not raised by guest code: e.g. the runtime's instance pool is
            // exhausted.
            None if hook.is_none() => return CallError::Instantiate(format!("{err:#}")),
            None => {}
        }
        // The trap itself, then the guest's stack, as KSW prints them.
        let mut message = err.root_cause().to_string();
        if let Some(trace) = err.downcast_ref::<wasmtime::WasmBacktrace>() {
            message.push_str("\nwasm stack trace:");
            for frame in trace.frames() {
                let module = frame.module().name().unwrap_or("<module>");
                match frame.func_name() {
                    Some(name) => message.push_str(&format!("\n\t{module}.{name}()")),
                    None => message.push_str(&format!("\n\t{module}.${}()", frame.func_index())),
                }
            }
        }
        CallError::Trap {
            hook,
            output: String::from_utf8_lossy(&stdio).into_owned(),
            message,
        }
    }
}

fn call_i32(
    f: &Option<TypedFunc<(), i32>>,
    store: &mut Store<HostState>,
) -> Option<wasmtime::Result<Raw>> {
    f.as_ref().map(|f| f.call(&mut *store, ()).map(Raw::I32))
}

fn call_i64(
    f: &Option<TypedFunc<(), i64>>,
    store: &mut Store<HostState>,
) -> Option<wasmtime::Result<Raw>> {
    f.as_ref().map(|f| f.call(&mut *store, ()).map(Raw::I64))
}
