//! Per-plugin configuration and the callbacks a plugin can make into the
//! embedding scheduler.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

/// Per-plugin settings.
#[derive(Clone)]
pub struct PluginConfig {
    /// Bytes served by `k8s.io/scheduler.get_config` (by convention JSON).
    pub guest_config: Arc<[u8]>,
    /// The guest's command line (WASI `args_get`), argv\[0\] first: what
    /// KSW's `PluginConfig.Args` sets (`os.Args` of a TinyGo guest; upstream's
    /// test guests read `os.Args[1]`, e.g. `["test", "filter"]`). Empty by
    /// default, as in the scheduler. No entry may contain a NUL byte.
    pub args: Vec<String>,
    /// Values for exported mutable `i32` globals, set on every instance
    /// after `_start` (what KSW's tests do with `SetGlobals`; upstream's WAT
    /// test guests read their status codes from such globals). Each name
    /// must be an exported mutable `i32` global.
    pub globals: Vec<(String, i32)>,
    /// Value returned by `k8s.io/klog.severity`; messages below it are dropped.
    /// 0 info, 1 warning, 2 error, 3 fatal.
    pub log_severity: i32,
    /// Deadline for each hook call (enforced in epoch ticks, so it may
    /// overshoot by up to one `RuntimeConfig::epoch_tick`).
    pub call_timeout: Duration,
    /// Deadline for instantiation, including `_start`.
    pub start_timeout: Duration,
    /// Linear memory limit per instance, in bytes. Growing past it traps the
    /// call with [`CallError::MemoryLimit`](crate::CallError::MemoryLimit).
    pub memory_limit: usize,
    /// Maximum number of idle instances kept for reuse. Concurrent calls
    /// beyond it get temporary instances (bounded by the runtime's pool).
    pub pool_size: usize,
    /// Reject status codes outside 0..=5 with
    /// [`CallError::UnknownStatus`](crate::CallError::UnknownStatus).
    /// Off by default: KSW passes any int32 through.
    pub strict_status: bool,
    /// Receiver of guest logs, events and waiting-pod requests.
    pub handle: Arc<dyn SchedulerHandle>,
}

impl Default for PluginConfig {
    fn default() -> Self {
        PluginConfig {
            guest_config: Arc::default(),
            args: Vec::new(),
            globals: Vec::new(),
            log_severity: 0,
            call_timeout: Duration::from_secs(1),
            start_timeout: Duration::from_secs(10),
            memory_limit: 64 << 20,
            pool_size: 16,
            strict_status: false,
            handle: Arc::new(StderrHandle),
        }
    }
}

impl std::fmt::Debug for PluginConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginConfig")
            .field("guest_config_len", &self.guest_config.len())
            .field("args", &self.args)
            .field("globals", &self.globals)
            .field("log_severity", &self.log_severity)
            .field("call_timeout", &self.call_timeout)
            .field("start_timeout", &self.start_timeout)
            .field("memory_limit", &self.memory_limit)
            .field("pool_size", &self.pool_size)
            .field("strict_status", &self.strict_status)
            .finish_non_exhaustive()
    }
}

/// A log line from `k8s.io/klog.log` / `logs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord<'a> {
    /// 0 info, 1 warning, 2 error, 3 fatal.
    pub severity: i32,
    /// The message (lossy UTF-8).
    pub message: Cow<'a, str>,
    /// Key/value pairs from `logs` (empty for `log`).
    pub kvs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

impl LogRecord<'_> {
    /// klog's name for the severity: `INFO`, `WARNING`, `ERROR`, `FATAL`
    /// (`UNKNOWN` otherwise).
    pub fn severity_name(&self) -> &'static str {
        match self.severity {
            0 => "INFO",
            1 => "WARNING",
            2 => "ERROR",
            3 => "FATAL",
            _ => "UNKNOWN",
        }
    }

    /// The message with its key/value pairs as klog writes them:
    /// `msg key="value" ...`.
    pub fn to_line(&self) -> String {
        let mut line = self.message.to_string();
        for (k, v) in &self.kvs {
            line.push_str(&format!(" {k}={v:?}"));
        }
        line
    }
}

/// Callbacks from guest code into the scheduler. Called on the thread that
/// runs the hook, while the guest is suspended; keep them quick.
pub trait SchedulerHandle: Send + Sync {
    /// `k8s.io/klog.log` / `logs`, already filtered by `log_severity`.
    fn log(&self, record: &LogRecord<'_>) {
        let _ = record;
    }
    /// `k8s.io/scheduler.handle.eventrecorder.eventf`: the guest's JSON
    /// `EventMessage` as it sent it ([`Event::from_json`](crate::Event::from_json)
    /// parses it).
    fn event(&self, event_json: &[u8]) {
        let _ = event_json;
    }
    /// `handle.reject_waiting_pod`: whether a waiting pod with `uid` was rejected.
    fn reject_waiting_pod(&self, uid: &str) -> bool {
        let _ = uid;
        false
    }
    /// `handle.get_waiting_pod`: protobuf Pod of the waiting pod with `uid`.
    fn waiting_pod(&self, uid: &str) -> Option<Arc<[u8]>> {
        let _ = uid;
        None
    }
}

/// Default handle: prints logs to stderr, ignores everything else.
#[derive(Debug, Clone, Copy, Default)]
pub struct StderrHandle;

impl SchedulerHandle for StderrHandle {
    fn log(&self, record: &LogRecord<'_>) {
        eprintln!(
            "kguest-host: [{}] {}",
            record.severity_name(),
            record.to_line()
        );
    }
}
