//! A wasmtime host for kube-scheduler-wasm-extension (KSW) plugins.
//!
//! It speaks the same ABI as KSW's Go host: hooks are parameterless exports
//! returning packed integers, and every input is pulled by the guest through
//! `(buf, buf_limit) -> len` getters in the `k8s.io/api`,
//! `k8s.io/scheduler` and `k8s.io/klog` import modules.
//!
//! ```no_run
//! use std::sync::Arc;
//! use kguest_host::{Cycle, Plugin, PluginConfig, Runtime, RuntimeConfig, Snapshot};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = Runtime::new(RuntimeConfig::default())?;
//! let wasm = std::fs::read("plugin.wasm")?;
//! let plugin = Plugin::load(&runtime, &wasm, PluginConfig::default())?;
//! let cycle = Cycle::new(Arc::from(&b"pod protobuf"[..]), Arc::new(Snapshot::new()));
//! plugin.prefilter(&cycle)?;
//! let status = plugin.filter(&cycle, "node-a")?;
//! # let _ = status; Ok(()) }
//! ```
//!
//! Structure: [`Runtime`] owns the engine, linker and epoch ticker;
//! [`Plugin`] owns a compiled module and a pool of instances; [`Cycle`] and
//! [`Snapshot`] carry caller-encoded bytes into calls.

mod abi;
mod config;
mod error;
mod plugin;
mod runtime;
mod snapshot;
mod types;

pub use config::{LogRecord, PluginConfig, SchedulerHandle, StderrHandle};
pub use error::{CallError, LoadError};
pub use plugin::Plugin;
pub use runtime::{Runtime, RuntimeConfig};
pub use snapshot::{Cycle, NodeCache, Snapshot, SnapshotNode};
pub use types::{
    ActionType, ClusterEvent, Code, EventResource, Hook, HookResult, HookSet, NominatingMode,
    NormalizeScoreResult, PermitResult, PostFilterResult, PreFilterResult, Status,
};
