//! kube-scheduler-wasm-extension's own host test suite, ported: each case of
//! `scheduler/plugin/{plugin,wasm,host,mask,pool}_test.go` at the pinned
//! commit runs against kguest-host with the same guest binary, args, guest
//! config and inputs, and asserts what upstream asserts. Where upstream
//! compares wazero's own trap text, the port compares the status code, the
//! hook and the guest's own output (e.g. `panic!`).
//!
//! The material (guests, YAML, the Go sources) comes from
//! `$KGUEST_KSW_DIR` or `proto-vendor/ksw/` (`cargo xtask vendor`), pinned
//! by `proto-vendor/ksw.lock`.
//!
//! [`suite`] runs every case, checks the case list against the Go sources
//! (every upstream case is either ported or listed with the reason it is
//! left out) and prints `ksw host suite: N/M cases`.

mod host;
mod mask;
mod plugin;
mod pool;
mod wasm;

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use kguest_host::{
    CallError, Code, Cycle, Event, Guest, Hook, LoadError, LogRecord, Plugin, PluginConfig,
    SchedulerHandle, Snapshot,
};
use serde_json::{Value, json};

use crate::util::{config, rt};

/// One upstream case.
pub struct Case {
    /// The Go test file, e.g. `plugin_test.go`.
    pub file: &'static str,
    /// The Go test function.
    pub test: &'static str,
    /// The table entry's or subtest's name; empty for a test without cases.
    pub name: &'static str,
    pub outcome: Outcome,
}

pub enum Outcome {
    /// Runs the port; panics on a mismatch.
    Ported(fn()),
    /// Not applicable to a host taking wasm bytes, with the reason.
    LeftOut(&'static str),
}

pub const fn ported(file: &'static str, test: &'static str, name: &'static str, f: fn()) -> Case {
    Case {
        file,
        test,
        name,
        outcome: Outcome::Ported(f),
    }
}

pub const fn left_out(
    file: &'static str,
    test: &'static str,
    name: &'static str,
    reason: &'static str,
) -> Case {
    Case {
        file,
        test,
        name,
        outcome: Outcome::LeftOut(reason),
    }
}

fn all_cases() -> Vec<Case> {
    let mut cases = plugin::cases();
    cases.extend(wasm::cases());
    cases.extend(host::cases());
    cases.extend(mask::cases());
    cases.extend(pool::cases());
    cases
}

/// The upstream material: `$KGUEST_KSW_DIR`, else `proto-vendor/ksw`.
pub fn ksw_dir() -> PathBuf {
    let dir = match std::env::var_os("KGUEST_KSW_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto-vendor/ksw"),
    };
    assert!(
        dir.join("scheduler/plugin").is_dir(),
        "kube-scheduler-wasm-extension's test material is missing at {}: run `cargo xtask vendor` \
         (or set KGUEST_KSW_DIR to a copy, e.g. ../shared/ksw/9b2791f)",
        dir.display()
    );
    dir
}

fn read(rel: &str) -> Vec<u8> {
    let path = ksw_dir().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

type Compiled = Arc<OnceLock<Option<Guest>>>;

/// The guest at `rel`, compiled once per test run (TinyGo guests are ~1 MB);
/// a guest that fails to compile or validate gives its error every time.
pub fn guest(rel: &str) -> Result<Guest, LoadError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Compiled>>> = OnceLock::new();
    let slot = CACHE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap()
        .entry(rel.to_string())
        .or_default()
        .clone();
    match slot.get_or_init(|| Guest::compile(rt(), &read(rel)).ok()) {
        Some(guest) => Ok(guest.clone()),
        None => Guest::compile(rt(), &read(rel)),
    }
}

// Upstream's guest paths (`scheduler/test/testdata.go`).
pub const TEST_FILTER: &str = "guest/testdata/filter/main.wasm";
pub const TEST_SCORE: &str = "guest/testdata/score/main.wasm";
pub const TEST_RESERVE: &str = "guest/testdata/reserve/main.wasm";
pub const TEST_PERMIT: &str = "guest/testdata/permit/main.wasm";
pub const TEST_BIND: &str = "guest/testdata/bind/main.wasm";
pub const TEST_HANDLE: &str = "guest/testdata/handle/main.wasm";
pub const TEST_CYCLE_STATE: &str = "guest/testdata/cyclestate/main.wasm";
pub const EXAMPLE_NODE_NUMBER: &str = "examples/nodenumber/main.wasm";

/// `scheduler/test/testdata/test/<name>.wasm`.
pub fn wat_test(name: &str) -> String {
    format!("scheduler/test/testdata/test/{name}.wasm")
}

/// `scheduler/test/testdata/error/<name>.wasm`.
pub fn wat_error(name: &str) -> String {
    format!("scheduler/test/testdata/error/{name}.wasm")
}

/// `wasm.PluginConfig` plus the handle.
#[derive(Default)]
pub struct Cfg<'a> {
    pub args: &'a [&'a str],
    pub guest_config: &'a str,
    /// `SetGlobals`: names without the `_global` suffix.
    pub globals: &'a [(&'a str, i32)],
    pub handle: Option<Arc<FakeHandle>>,
}

/// `wasm.NewFromConfig` (+ `SetGlobals`).
pub fn load(rel: &str, cfg: Cfg<'_>) -> Result<Plugin, LoadError> {
    let guest = guest(rel)?;
    let config = PluginConfig {
        args: cfg.args.iter().map(|a| a.to_string()).collect(),
        guest_config: Arc::from(cfg.guest_config.as_bytes()),
        globals: cfg
            .globals
            .iter()
            .map(|(n, v)| (format!("{n}_global"), *v))
            .collect(),
        handle: cfg.handle.unwrap_or_default(),
        ..config()
    };
    Plugin::from_guest(&guest, config)
}

pub fn must_load(rel: &str, cfg: Cfg<'_>) -> Plugin {
    load(rel, cfg).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------------------
// Upstream's objects (`scheduler/test/testdata.go`), encoded as the Go
// marshaller does.

pub const NODE_SMALL_NAME: &str = "good-node";
pub const POD_SMALL_UID: &str = "384900cd-dc7b-41ec-837e-9c4c1762363e";

pub fn encode(json: Value) -> Vec<u8> {
    kguest_k8s::json::object_from_json(&json)
        .unwrap_or_else(|e| panic!("{json}: {e}"))
        .raw
}

/// `test.PodSmall`.
pub fn pod_small() -> Vec<u8> {
    encode(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "good-pod", "namespace": "test", "uid": POD_SMALL_UID},
        "spec": {"nodeName": NODE_SMALL_NAME}}))
}

/// `&v1.Pod{ObjectMeta: test.PodSmall.ObjectMeta}`: no `spec.nodeName`.
pub fn pod_small_meta_only() -> Vec<u8> {
    encode(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "good-pod", "namespace": "test", "uid": POD_SMALL_UID}}))
}

/// `test.PodForHandleTest`.
pub fn pod_for_handle_test() -> Vec<u8> {
    encode(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "handle-pod", "namespace": "test", "uid": "handle-test"},
        "spec": {"nodeName": NODE_SMALL_NAME}}))
}

/// `st.MakePod().Name(name).Obj()` (plus a UID where upstream sets one).
pub fn pod_named(name: &str, uid: &str) -> Vec<u8> {
    encode(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "uid": uid}, "spec": {"nodeName": NODE_SMALL_NAME}}))
}

/// `st.MakeNode().Name(name).Obj()`; `test.NodeSmall` is `node("good-node")`.
pub fn node(name: &str) -> Vec<u8> {
    encode(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}))
}

/// `test.NodeReal`: `scheduler/test/testdata/yaml/node.yaml`.
pub fn node_real() -> Vec<u8> {
    let yaml = String::from_utf8(read("scheduler/test/testdata/yaml/node.yaml")).unwrap();
    encode(serde_norway::from_str(&yaml).unwrap())
}

/// `test.PodSmall` on `test.NodeSmall`.
pub fn small_cycle_for_host() -> Cycle {
    cycle(pod_small(), vec![node(NODE_SMALL_NAME)])
}

/// A cycle of `pod` over `nodes` (the framework handle's snapshot).
pub fn cycle(pod: Vec<u8>, nodes: Vec<Vec<u8>>) -> Cycle {
    let snapshot = Snapshot::from_nodes(nodes).unwrap();
    Cycle::new(pod.into(), Arc::new(snapshot)).unwrap()
}

// ---------------------------------------------------------------------------
// Assertions

/// Upstream returns `framework.AsStatus(err)` for a trap: code Error and
/// `wasm: <hook> error: <guest output>\n<wazero's trap text>`. The port
/// checks the code, the hook, the guest's output and that the trap is an
/// `unreachable` in the expected function.
pub fn assert_trap(err: &CallError, hook: Option<Hook>, output: &str, frame: &str) {
    let CallError::Trap {
        hook: h,
        output: o,
        message,
    } = err
    else {
        panic!("expected a trap, got {err:?}");
    };
    assert_eq!(*h, hook, "{err}");
    assert_eq!(o, output, "{err}");
    assert!(message.contains("unreachable"), "{err}");
    assert!(message.contains(frame), "{err}");
    let status = err.as_status();
    assert_eq!(status.code, Code::ERROR);
    let name = hook.map_or("instantiate", Hook::export_name);
    let prefix = if output.is_empty() {
        format!("wasm: {name} error: ")
    } else {
        format!("wasm: {name} error: {output}\n")
    };
    assert!(
        status.reason.as_deref().unwrap().starts_with(&prefix),
        "{err}"
    );
}

/// The reason as Go's `status.Message()` returns it (empty when unset).
pub fn message(status: &kguest_host::Status) -> &str {
    status.reason.as_deref().unwrap_or("")
}

// ---------------------------------------------------------------------------
// `test.FakeHandle` and `test.FakeRecorder`

#[derive(Default)]
pub struct FakeHandle {
    /// `FakeRecorder.EventMsg` of the last event.
    pub event_msg: Mutex<String>,
    /// `RejectWaitingPodValue`.
    pub reject_waiting_pod_value: Mutex<Option<String>>,
    /// The UID `GetWaitingPod` returned a pod for (`GetWaitingPodValue`).
    pub get_waiting_pod_value: Mutex<Option<String>>,
    /// The last UID `GetWaitingPod` was asked for.
    pub get_waiting_pod_asked: Mutex<Option<String>>,
    pub logs: Mutex<Vec<crate::util::LogLine>>,
}

impl SchedulerHandle for FakeHandle {
    fn log(&self, r: &LogRecord<'_>) {
        let kvs = r.kvs.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        self.logs
            .lock()
            .unwrap()
            .push((r.severity, r.message.to_string(), kvs.collect()));
    }

    /// `FakeRecorder.Eventf`: `[<regarding name> ]<type> <reason> <action> <note>`.
    fn event(&self, json: &[u8]) {
        let e = Event::from_json(json).unwrap();
        let mut msg = format!("{} {} {} {}", e.event_type, e.reason, e.action, e.note);
        if !e.regarding.name.is_empty() {
            msg = format!("{} {msg}", e.regarding.name);
        }
        *self.event_msg.lock().unwrap() = msg;
    }

    fn reject_waiting_pod(&self, uid: &str) -> bool {
        *self.reject_waiting_pod_value.lock().unwrap() = Some(uid.to_string());
        uid == "handle-test"
    }

    /// Returns `PodForHandleTest` only for the UID `handle-test`.
    fn waiting_pod(&self, uid: &str) -> Option<Arc<[u8]>> {
        *self.get_waiting_pod_asked.lock().unwrap() = Some(uid.to_string());
        if uid != "handle-test" {
            return None;
        }
        *self.get_waiting_pod_value.lock().unwrap() = Some(uid.to_string());
        Some(pod_for_handle_test().into())
    }
}

// ---------------------------------------------------------------------------
// The suite

/// Test function name -> case names, from one Go test file: `name: "..."`
/// table entries and literal `t.Run("...")` subtests.
fn upstream_cases(file: &str) -> Vec<(String, Vec<String>)> {
    let text = String::from_utf8(read(&format!("scheduler/plugin/{file}"))).unwrap();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for chunk in text.split("\nfunc ").skip(1) {
        let Some(test) = chunk
            .strip_prefix("Test")
            .and_then(|rest| rest.split_once('('))
            .filter(|(_, args)| args.starts_with("t *testing.T)"))
            .map(|(name, _)| format!("Test{name}"))
        else {
            continue;
        };
        let mut names = Vec::new();
        for line in chunk.lines() {
            let line = line.trim();
            let literal = line
                .strip_prefix("name:")
                .or_else(|| line.strip_prefix("t.Run("))
                .map(str::trim_start)
                .and_then(|rest| rest.strip_prefix('"'))
                .and_then(|rest| rest.split_once('"'))
                .map(|(name, _)| name.to_string());
            names.extend(literal);
        }
        out.push((test, names));
    }
    out
}

const FILES: [&str; 5] = [
    "plugin_test.go",
    "wasm_test.go",
    "host_test.go",
    "mask_test.go",
    "pool_test.go",
];

/// Every upstream case is in the list exactly once, and the list has no
/// case upstream lacks. Entries may prefix a name with `<variant>/` where
/// upstream runs one table several times (`Test_httpGet` per protocol).
fn check_case_list(cases: &[Case]) -> usize {
    let mut upstream_total = 0;
    for file in FILES {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.file == file).collect();
        let upstream = upstream_cases(file);
        for (test, names) in &upstream {
            let listed: Vec<&str> = mine
                .iter()
                .filter(|c| c.test == test)
                .map(|c| c.name)
                .collect();
            assert!(!listed.is_empty(), "{file}: {test} is not in the case list");
            let base = |n: &str| n.rsplit_once('/').map_or(n, |(_, b)| b).to_string();
            if names.is_empty() {
                assert_eq!(listed, [""], "{file}: {test} has no named cases");
            } else {
                for name in names {
                    assert!(
                        listed.iter().any(|l| *l == name || base(l) == *name),
                        "{file}: {test}: case {name:?} is not in the case list"
                    );
                }
                for l in &listed {
                    assert!(
                        names.contains(&l.to_string()) || names.contains(&base(l)),
                        "{file}: {test}: {l:?} is not an upstream case"
                    );
                }
            }
            upstream_total += listed.len();
        }
        for case in &mine {
            assert!(
                upstream.iter().any(|(t, _)| t == case.test),
                "{file}: {} is not an upstream test",
                case.test
            );
        }
        let mut seen = std::collections::HashSet::new();
        for case in &mine {
            assert!(
                seen.insert((case.test, case.name)),
                "{file}: {} {:?} listed twice",
                case.test,
                case.name
            );
        }
    }
    assert_eq!(upstream_total, cases.len(), "cases outside the five files");
    upstream_total
}

#[test]
fn suite() {
    let cases = all_cases();
    let total = check_case_list(&cases);
    let ported: Vec<&Case> = cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Ported(_)))
        .collect();
    let failures = Mutex::new(Vec::new());
    let passed = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(case) = ported.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let Outcome::Ported(run) = case.outcome else {
                        continue;
                    };
                    match catch_unwind(AssertUnwindSafe(run)) {
                        Ok(()) => {
                            passed.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(panic) => {
                            let why = panic
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            failures.lock().unwrap().push(format!(
                                "{} {} {:?}: {why}",
                                case.file, case.test, case.name
                            ));
                        }
                    }
                }
            });
        }
    });
    let passed = passed.into_inner();
    println!("ksw host suite: {passed}/{total} cases");
    for case in &cases {
        if let Outcome::LeftOut(reason) = case.outcome {
            println!(
                "  left out: {} {} {:?}: {reason}",
                case.file, case.test, case.name
            );
        }
    }
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "failed cases:\n{}",
        failures.join("\n")
    );
    assert_eq!(passed, ported.len());
}
