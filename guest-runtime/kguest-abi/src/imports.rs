//! The functions the host provides: their modules and signatures.

use ValType::{I32, I64};

/// A wasm value type; only numbers cross the ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValType {
    I32,
    I64,
}

impl ValType {
    pub const fn as_str(self) -> &'static str {
        match self {
            I32 => "i32",
            I64 => "i64",
        }
    }
}

/// The host module with the Kubernetes objects.
pub const MODULE_API: &str = "k8s.io/api";
/// The host module with klog.
pub const MODULE_KLOG: &str = "k8s.io/klog";
/// The host module with the scheduling inputs and results.
pub const MODULE_SCHEDULER: &str = "k8s.io/scheduler";
/// WASI preview 1, which KSW instantiates when a guest imports it (TinyGo
/// guests do; kguest guests never need it).
pub const MODULE_WASI: &str = "wasi_snapshot_preview1";

/// A function the host provides.
#[derive(Debug)]
pub struct Import {
    pub module: &'static str,
    pub name: &'static str,
    pub params: &'static [ValType],
    pub results: &'static [ValType],
    /// `params -> results` as text, e.g. `(i32, i32) -> i32` (a test holds
    /// it equal to the two lists).
    pub signature: &'static str,
}

impl Import {
    /// Whether this is a WASI function rather than a KSW one.
    pub fn is_wasi(&self) -> bool {
        self.module == MODULE_WASI
    }
}

const fn f(
    module: &'static str,
    name: &'static str,
    params: &'static [ValType],
    results: &'static [ValType],
    signature: &'static str,
) -> Import {
    Import {
        module,
        name,
        params,
        results,
        signature,
    }
}

/// Every function the host provides, with its signature.
pub static IMPORTS: &[Import] = &[
    f(
        MODULE_API,
        "node",
        &[I32, I32, I32, I32],
        &[I32],
        "(i32, i32, i32, i32) -> i32",
    ),
    f(
        MODULE_API,
        "nodeList",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_KLOG,
        "log",
        &[I32, I32, I32],
        &[],
        "(i32, i32, i32) -> ()",
    ),
    f(
        MODULE_KLOG,
        "logs",
        &[I32, I32, I32, I32, I32],
        &[],
        "(i32, i32, i32, i32, i32) -> ()",
    ),
    f(MODULE_KLOG, "severity", &[], &[I32], "() -> i32"),
    f(
        MODULE_SCHEDULER,
        "get_config",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "currentPod",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "targetPod",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "currentNodeName",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "filteredNodeList",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "nodeImageStates",
        &[I32, I32, I32, I32],
        &[I32],
        "(i32, i32, i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "nodeToStatusMap",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "nodeScoreList",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_SCHEDULER,
        "result.status_reason",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.cluster_events",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.node_names",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.nominated_node_name",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "result.normalized_score_list",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "handle.eventrecorder.eventf",
        &[I32, I32],
        &[],
        "(i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "handle.reject_waiting_pod",
        &[I32, I32, I32, I32],
        &[],
        "(i32, i32, i32, i32) -> ()",
    ),
    f(
        MODULE_SCHEDULER,
        "handle.get_waiting_pod",
        &[I32, I32, I32, I32],
        &[],
        "(i32, i32, i32, i32) -> ()",
    ),
    f(
        MODULE_WASI,
        "fd_write",
        &[I32, I32, I32, I32],
        &[I32],
        "(i32, i32, i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "clock_time_get",
        &[I32, I64, I32],
        &[I32],
        "(i32, i64, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "random_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "args_sizes_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "args_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "environ_sizes_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(
        MODULE_WASI,
        "environ_get",
        &[I32, I32],
        &[I32],
        "(i32, i32) -> i32",
    ),
    f(MODULE_WASI, "proc_exit", &[I32], &[], "(i32) -> ()"),
];

/// The host function `module`.`name`, if the host provides it.
pub fn import(module: &str, name: &str) -> Option<&'static Import> {
    IMPORTS
        .iter()
        .find(|i| i.module == module && i.name == name)
}
