//! The host side of the KSW ABI: per-store state, bounds-checked guest
//! memory access, and every host function the guest may import.
//!
//! Getter rule (`(buf, buf_limit) -> len`): an empty value returns 0 and
//! writes nothing; a value longer than `buf_limit` returns its length and
//! writes nothing; otherwise exactly `len` bytes are written at `buf`.
//! Every `ptr`/`len` pair is checked against the current memory size before
//! use; a bad pair raises [`HostFault`], which traps the call.

use std::borrow::Cow;
use std::sync::Arc;

use kguest_wasi::memory::{guest_memory, range as checked_range, write, write_u64};
use kguest_wasi::preview1::{self, Args};
use kguest_wasi::{Fault, Limiter, Overflow, Sink, Wasi, WasiView};
use wasmtime::{Caller, ExternType, Linker, ValType};

use crate::config::{LogRecord, SchedulerHandle};
use crate::error::HostFault;
use crate::gojson;
use crate::snapshot::{Cycle, Snapshot};
use crate::types::{ActionType, ClusterEvent, EventResource};

type Res<T> = wasmtime::Result<T>;

/// Captured WASI stdout and stderr (one buffer, interleaved) per call is
/// truncated to this many bytes.
pub(crate) const STDIO_CAP: usize = 64 << 10;

/// Plugin-wide data shared by all of its stores.
pub(crate) struct PluginShared {
    pub guest_config: Arc<[u8]>,
    pub log_severity: i32,
    pub handle: Arc<dyn SchedulerHandle>,
    /// The guest's argv (WASI `args_get`).
    pub args: Args,
}

/// Inputs of the call in progress. Cleared after every call.
#[derive(Default)]
pub(crate) struct CallInput {
    pub cycle: Option<Cycle>,
    pub node_name: String,
    pub target_pod: Option<Arc<[u8]>>,
    /// JSON for `filteredNodeList`, `nodeToStatusMap` or `nodeScoreList`.
    pub filtered_nodes: String,
    pub node_to_status: String,
    pub node_scores: String,
}

impl CallInput {
    pub fn clear(&mut self) {
        self.cycle = None;
        self.node_name.clear();
        self.target_pod = None;
        self.filtered_nodes.clear();
        self.node_to_status.clear();
        self.node_scores.clear();
    }

    fn snapshot(&self) -> Option<&Snapshot> {
        Some(&self.cycle.as_ref()?.0.snapshot)
    }
}

/// Results the guest reported through `result.*` during the call.
#[derive(Default, Debug)]
pub(crate) struct CallOutput {
    pub reason: Option<String>,
    pub node_names: Option<Vec<String>>,
    pub cluster_events: Option<Vec<ClusterEvent>>,
    pub normalized_scores: Option<Vec<(String, i64)>>,
    pub nominated_node_name: Option<String>,
    /// A `k8s.io/scheduler` setter ran during the call (one flag to test
    /// instead of every field).
    pub written: bool,
}

impl CallOutput {
    /// Back to empty, without rewriting it when no setter ran (the usual
    /// case on a node loop's calls).
    pub fn clear_if_set(&mut self) {
        if self.written {
            *self = CallOutput::default();
        }
    }
}

/// Data of one wasmtime `Store` (one instance).
pub(crate) struct HostState {
    /// Guest memory, arguments, captured stdout and stderr.
    pub wasi: Wasi,
    pub limiter: Limiter,
    pub shared: Arc<PluginShared>,
    pub input: CallInput,
    pub output: CallOutput,
}

impl HostState {
    pub fn new(shared: Arc<PluginShared>, memory_limit: usize) -> HostState {
        let wasi = Wasi::new()
            .args(shared.args.clone())
            .stdout(Sink::capture(STDIO_CAP, Overflow::Truncate))
            .stderr(Sink::Stdout);
        HostState {
            wasi,
            limiter: Limiter { memory_limit },
            shared,
            input: CallInput::default(),
            output: CallOutput::default(),
        }
    }
}

impl WasiView for HostState {
    fn wasi(&self) -> &Wasi {
        &self.wasi
    }
    fn wasi_mut(&mut self) -> &mut Wasi {
        &mut self.wasi
    }
}

// ---------------------------------------------------------------------------
// Guest memory: `kguest_wasi::memory` checks every pointer; its faults
// (`Fault`, `OutOfBounds`) travel as the trap's error.

fn memory<'a>(
    caller: &'a mut Caller<'_, HostState>,
    import: &'static str,
) -> Result<(&'a mut [u8], &'a mut HostState), Fault> {
    guest_memory(caller, import)
}

fn read<'m>(data: &'m [u8], import: &'static str, ptr: i32, len: i32) -> Res<&'m [u8]> {
    Ok(kguest_wasi::memory::read(data, import, ptr, len as u32)?)
}

/// The getter rule; see the module docs.
fn serve(data: &mut [u8], import: &'static str, value: &[u8], buf: i32, limit: i32) -> Res<i32> {
    if value.is_empty() {
        return Ok(0);
    }
    let Ok(len) = u32::try_from(value.len()) else {
        return Err(HostFault::Abi {
            import,
            detail: format!("value of {} bytes does not fit the 32-bit ABI", value.len()),
        }
        .into());
    };
    if len > limit as u32 {
        return Ok(len as i32);
    }
    write(data, import, buf, value)?;
    Ok(len as i32)
}

fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

// ---------------------------------------------------------------------------
// Import table (used for load-time validation): `kguest_abi::IMPORTS`, the
// one copy; a test holds the linker below equal to it.

pub(crate) const MOD_API: &str = kguest_abi::MODULE_API;
pub(crate) const MOD_KLOG: &str = kguest_abi::MODULE_KLOG;
pub(crate) const MOD_SCHED: &str = kguest_abi::MODULE_SCHEDULER;
pub(crate) const MOD_WASI: &str = kguest_abi::MODULE_WASI;

fn ty_matches(actual: &ValType, expected: kguest_abi::ValType) -> bool {
    matches!(
        (actual, expected),
        (ValType::I32, kguest_abi::ValType::I32) | (ValType::I64, kguest_abi::ValType::I64)
    )
}

/// Checks one import against the table.
pub(crate) fn check_import(
    module: &str,
    name: &str,
    ty: &ExternType,
) -> Result<(), crate::LoadError> {
    let Some(spec) = kguest_abi::import(module, name) else {
        return Err(crate::LoadError::UnknownImport {
            module: module.into(),
            name: name.into(),
        });
    };
    let ok = match ty {
        ExternType::Func(f) => {
            f.params().len() == spec.params.len()
                && f.results().len() == spec.results.len()
                && f.params().zip(spec.params).all(|(a, e)| ty_matches(&a, *e))
                && f.results()
                    .zip(spec.results)
                    .all(|(a, e)| ty_matches(&a, *e))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(crate::LoadError::ImportSignature {
            module: module.into(),
            name: name.into(),
            expected: spec.signature,
        })
    }
}

// ---------------------------------------------------------------------------
// Host functions.

/// Registers a getter `(buf, buf_limit) -> len` serving `select(state)`.
fn getter(
    linker: &mut Linker<HostState>,
    module: &'static str,
    name: &'static str,
    select: for<'s> fn(&'s HostState) -> &'s [u8],
) -> Res<()> {
    linker.func_wrap(
        module,
        name,
        move |mut caller: Caller<'_, HostState>, buf: i32, limit: i32| -> Res<i32> {
            let (data, state) = memory(&mut caller, name)?;
            serve(data, name, select(state), buf, limit)
        },
    )?;
    Ok(())
}

/// Registers a setter `(ptr, len) -> ()` handing the bytes to `store`.
fn setter(
    linker: &mut Linker<HostState>,
    name: &'static str,
    store: fn(&mut HostState, &[u8]) -> Result<(), HostFault>,
) -> Res<()> {
    linker.func_wrap(
        MOD_SCHED,
        name,
        move |mut caller: Caller<'_, HostState>, ptr: i32, len: i32| -> Res<()> {
            let (data, state) = memory(&mut caller, name)?;
            let bytes = read(data, name, ptr, len)?;
            state.output.written = true;
            Ok(store(state, bytes)?)
        },
    )?;
    Ok(())
}

/// Getter keyed by a node name passed as `(name, name_len)`.
fn node_getter(
    linker: &mut Linker<HostState>,
    module: &'static str,
    name: &'static str,
    select: for<'s> fn(&'s Snapshot, &[u8]) -> &'s [u8],
) -> Res<()> {
    linker.func_wrap(
        module,
        name,
        move |mut caller: Caller<'_, HostState>,
              node_ptr: i32,
              node_len: i32,
              buf: i32,
              limit: i32|
              -> Res<i32> {
            let (data, state) = memory(&mut caller, name)?;
            let node_name = read(data, name, node_ptr, node_len)?;
            let value = match state.input.snapshot() {
                Some(snapshot) => select(snapshot, node_name),
                None => &[],
            };
            serve(data, name, value, buf, limit)
        },
    )?;
    Ok(())
}

fn opt(v: &Option<Arc<[u8]>>) -> &[u8] {
    v.as_deref().unwrap_or(&[])
}

fn log_allowed(state: &HostState, severity: i32) -> bool {
    severity >= state.shared.log_severity
}

/// A `log` message as klog writes it: one trailing newline is the line's
/// end, not part of the message (KSW's host hands it to `klog.Info`).
fn klog_line(msg: &[u8]) -> &[u8] {
    msg.strip_suffix(b"\n").unwrap_or(msg)
}

/// Splits NUL-separated strings, skipping empty entries.
fn split_nul(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|b| *b == 0).filter(|s| !s.is_empty())
}

pub(crate) fn define_imports(linker: &mut Linker<HostState>) -> Res<()> {
    // k8s.io/api
    node_getter(linker, MOD_API, "node", Snapshot::node_bytes)?;
    getter(linker, MOD_API, "nodeList", |s| match &s.input.cycle {
        Some(c) => c.0.snapshot.node_list(),
        None => &[],
    })?;

    // k8s.io/scheduler getters
    getter(linker, MOD_SCHED, "get_config", |s| &s.shared.guest_config)?;
    getter(linker, MOD_SCHED, "currentPod", |s| match &s.input.cycle {
        Some(c) => &c.0.pod[..],
        None => &[],
    })?;
    getter(linker, MOD_SCHED, "targetPod", |s| opt(&s.input.target_pod))?;
    getter(linker, MOD_SCHED, "currentNodeName", |s| {
        s.input.node_name.as_bytes()
    })?;
    getter(linker, MOD_SCHED, "filteredNodeList", |s| {
        s.input.filtered_nodes.as_bytes()
    })?;
    getter(linker, MOD_SCHED, "nodeToStatusMap", |s| {
        s.input.node_to_status.as_bytes()
    })?;
    getter(linker, MOD_SCHED, "nodeScoreList", |s| {
        s.input.node_scores.as_bytes()
    })?;
    node_getter(
        linker,
        MOD_SCHED,
        "nodeImageStates",
        Snapshot::image_states_bytes,
    )?;

    // k8s.io/scheduler results
    setter(linker, "result.status_reason", |s, b| {
        s.output.reason = Some(lossy(b).into_owned());
        Ok(())
    })?;
    setter(linker, "result.node_names", |s, b| {
        s.output.node_names = Some(split_nul(b).map(|n| lossy(n).into_owned()).collect());
        Ok(())
    })?;
    setter(linker, "result.nominated_node_name", |s, b| {
        s.output.nominated_node_name = Some(lossy(b).into_owned());
        Ok(())
    })?;
    setter(linker, "result.normalized_score_list", |s, b| {
        let scores = gojson::parse_int_map(b).map_err(|detail| HostFault::Abi {
            import: "result.normalized_score_list",
            detail,
        })?;
        s.output.normalized_scores = scores;
        Ok(())
    })?;
    setter(linker, "result.cluster_events", |s, b| {
        if b.len() % 8 != 0 {
            return Err(HostFault::Abi {
                import: "result.cluster_events",
                detail: format!("length {} is not a multiple of 8", b.len()),
            });
        }
        let events = b
            .chunks_exact(8)
            .map(|r| ClusterEvent {
                resource: EventResource(u32::from_le_bytes([r[0], r[1], r[2], r[3]])),
                action: ActionType(u32::from_le_bytes([r[4], r[5], r[6], r[7]])),
            })
            .collect();
        s.output.cluster_events = Some(events);
        Ok(())
    })?;
    setter(linker, "handle.eventrecorder.eventf", |s, b| {
        s.shared.handle.event(b);
        Ok(())
    })?;
    linker.func_wrap(
        MOD_SCHED,
        "handle.reject_waiting_pod",
        |mut caller: Caller<'_, HostState>,
         uid: i32,
         uid_len: i32,
         out: i32,
         _limit: i32|
         -> Res<()> {
            const NAME: &str = "handle.reject_waiting_pod";
            let (data, state) = memory(&mut caller, NAME)?;
            // Check the output first so a bad pointer never has side effects.
            checked_range(data.len(), NAME, out, 8)?;
            let uid = lossy(read(data, NAME, uid, uid_len)?).into_owned();
            let rejected = state.shared.handle.reject_waiting_pod(&uid);
            write_u64(data, NAME, out, u64::from(rejected))?;
            Ok(())
        },
    )?;
    linker.func_wrap(
        MOD_SCHED,
        "handle.get_waiting_pod",
        |mut caller: Caller<'_, HostState>,
         uid: i32,
         uid_len: i32,
         out: i32,
         limit: i32|
         -> Res<()> {
            const NAME: &str = "handle.get_waiting_pod";
            let (data, state) = memory(&mut caller, NAME)?;
            let uid = lossy(read(data, NAME, uid, uid_len)?).into_owned();
            match state.shared.handle.waiting_pod(&uid) {
                None => write_u64(data, NAME, out, 0)?,
                Some(pod) => {
                    if pod.len() as u64 <= u64::from(limit as u32) {
                        write(data, NAME, out, &pod)?;
                    }
                }
            }
            Ok(())
        },
    )?;

    // k8s.io/klog
    linker.func_wrap(
        MOD_KLOG,
        "log",
        |mut caller: Caller<'_, HostState>, severity: i32, msg: i32, msg_len: i32| -> Res<()> {
            let (data, state) = memory(&mut caller, "log")?;
            let msg = read(data, "log", msg, msg_len)?;
            if log_allowed(state, severity) {
                state.shared.handle.log(&LogRecord {
                    severity,
                    message: lossy(klog_line(msg)),
                    kvs: Vec::new(),
                });
            }
            Ok(())
        },
    )?;
    linker.func_wrap(
        MOD_KLOG,
        "logs",
        |mut caller: Caller<'_, HostState>,
         severity: i32,
         msg: i32,
         msg_len: i32,
         kvs: i32,
         kvs_len: i32|
         -> Res<()> {
            let (data, state) = memory(&mut caller, "logs")?;
            let msg = read(data, "logs", msg, msg_len)?;
            let kvs = read(data, "logs", kvs, kvs_len)?;
            if log_allowed(state, severity) {
                let mut parts = kvs.split(|b| *b == 0);
                let mut pairs = Vec::new();
                while let Some(k) = parts.next() {
                    if k.is_empty() {
                        continue;
                    }
                    let v = parts.next().unwrap_or(&[]);
                    pairs.push((lossy(k), lossy(v)));
                }
                // Without key/values KSW's host logs it as `log` does.
                let msg = if kvs_len == 0 { klog_line(msg) } else { msg };
                state.shared.handle.log(&LogRecord {
                    severity,
                    message: lossy(msg),
                    kvs: pairs,
                });
            }
            Ok(())
        },
    )?;
    linker.func_wrap(
        MOD_KLOG,
        "severity",
        |caller: Caller<'_, HostState>| -> i32 { caller.data().shared.log_severity },
    )?;

    define_wasi(linker)
}

// ---------------------------------------------------------------------------
// WASI preview1: the functions KSW's ABI lists, from `kguest-wasi` (stdout
// and stderr captured per call, the plugin's args, no environment, no
// files; proc_exit traps).

fn define_wasi(linker: &mut Linker<HostState>) -> Res<()> {
    for import in kguest_abi::IMPORTS.iter().filter(|i| i.module == MOD_WASI) {
        preview1::define(linker, import.name, None, "kguest-host")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serve_follows_getter_rule() {
        let mut mem = vec![0u8; 16];
        assert_eq!(serve(&mut mem, "t", b"", 0, 0).unwrap(), 0);
        assert_eq!(serve(&mut mem, "t", b"hello", 0, 4).unwrap(), 5);
        assert_eq!(mem, vec![0u8; 16]);
        assert_eq!(serve(&mut mem, "t", b"hello", 2, 5).unwrap(), 5);
        assert_eq!(&mem[2..7], b"hello");
        assert!(serve(&mut mem, "t", b"hello", 12, 5).is_err());
        // A negative limit is a huge unsigned limit.
        assert_eq!(serve(&mut mem, "t", b"hi", 0, -1).unwrap(), 2);
    }

    /// The linker defines exactly `kguest_abi::IMPORTS`: the same (module,
    /// name) pairs, each a function with the table's signature.
    #[test]
    fn linker_defines_exactly_the_abi_import_table() {
        let engine = wasmtime::Engine::default();
        let mut linker = Linker::new(&engine);
        define_imports(&mut linker).expect("define");
        let shared = Arc::new(PluginShared {
            guest_config: Arc::from(&b""[..]),
            log_severity: 0,
            handle: Arc::new(crate::StderrHandle),
            args: Args::default(),
        });
        let mut store = wasmtime::Store::new(&engine, HostState::new(shared, 1 << 16));
        let mut defined: Vec<(String, String, Vec<String>, Vec<String>)> = Vec::new();
        let names = |ts: &mut dyn Iterator<Item = ValType>| -> Vec<String> {
            ts.map(|t| match t {
                ValType::I32 => "i32".to_string(),
                ValType::I64 => "i64".to_string(),
                other => format!("{other}"),
            })
            .collect()
        };
        let items: Vec<(String, String, wasmtime::Extern)> = linker
            .iter(&mut store)
            .map(|(m, n, e)| (m.to_string(), n.to_string(), e))
            .collect();
        for (module, name, item) in items {
            let wasmtime::Extern::Func(func) = item else {
                panic!("{module}.{name} is not a function");
            };
            let ty = func.ty(&store);
            defined.push((
                module,
                name,
                names(&mut ty.params()),
                names(&mut ty.results()),
            ));
        }
        defined.sort();
        let mut table: Vec<(String, String, Vec<String>, Vec<String>)> = kguest_abi::IMPORTS
            .iter()
            .map(|i| {
                let list = |ts: &[kguest_abi::ValType]| {
                    ts.iter().map(|t| t.as_str().to_string()).collect()
                };
                (
                    i.module.to_string(),
                    i.name.to_string(),
                    list(i.params),
                    list(i.results),
                )
            })
            .collect();
        table.sort();
        assert_eq!(defined, table);
    }
}
