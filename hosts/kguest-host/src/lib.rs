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
//! let runtime = Runtime::new(RuntimeConfig::default())?; // one per process
//! let wasm = std::fs::read("plugin.wasm")?;
//! let plugin = Plugin::load(&runtime, &wasm, PluginConfig::default())?; // compile once
//!
//! // Protobuf bytes as the API server sends them (`k8s\0` + runtime.Unknown,
//! // unwrapped without a copy) or the bare messages; anything else in an
//! // envelope is a typed error, never an empty object.
//! let nodes: Vec<Vec<u8>> = vec![std::fs::read("node-a.pb")?, std::fs::read("node-b.pb")?];
//! let snapshot = Arc::new(Snapshot::from_nodes(nodes)?); // image states computed
//! let cycle = Cycle::new(std::fs::read("pod.pb")?.into(), snapshot)?;
//!
//! // Every hook in kube-scheduler's order...
//! let report = plugin.schedule(&cycle)?;
//! for node in &report.nodes {
//!     println!("{}: {:?} {:?}", node.node, node.filter.code, node.score);
//! }
//! // ...or one hook at a time.
//! let status = plugin.filter(&cycle, "node-a")?;
//! # let _ = status; Ok(()) }
//! ```
//!
//! Structure: [`Runtime`] owns the engine, linker and epoch ticker;
//! [`Plugin`] owns a compiled module and a pool of instances; [`Cycle`] and
//! [`Snapshot`] carry caller-encoded bytes into calls; [`Plugin::schedule`]
//! runs a whole scheduling cycle of one plugin and returns a
//! [`CycleReport`]; [`Profile::schedule`] runs several plugins together as
//! kube-scheduler runs a profile (every Filter before any Score, weights,
//! the chosen node, its binding) and returns a [`ProfileReport`], and
//! [`scheduler_profiles`] reads the wasm plugins of a
//! `KubeSchedulerConfiguration`.

#![forbid(unsafe_code)]

mod abi;
mod config;
mod error;
mod event;
mod gojson;
pub mod guest_url;
mod input;
mod plugin;
mod plugin_spec;
mod points;
mod profile;
mod runtime;
mod schedconfig;
mod schedule;
mod snapshot;
mod types;

pub use config::{LogRecord, PluginConfig, SchedulerHandle, StderrHandle};
pub use error::{CallError, LoadError};
pub use event::{Event, ObjectReference};
pub use input::InputError;
pub use plugin::{CycleCalls, Guest, Plugin};
pub use plugin_spec::PluginSpec;
pub use points::{ExtensionPoint, PointLists, PointOrder};
pub use profile::{
    CycleOutcome, MAX_NODE_SCORE, Outcome, PluginCycle, PluginScore, Profile, ProfileCallError,
    ProfileError, ProfileNode, ProfilePlugin, ProfileReport, framework_status,
};
pub use runtime::{Runtime, RuntimeConfig};
pub use schedconfig::{SchedulerProfile, WasmPluginArgs, scheduler_profiles};
pub use schedule::{CycleReport, EXCLUDED_BY_PREFILTER, NodeDecision, Score};
pub use snapshot::{Cycle, NodeCache, NodeImage, Snapshot, SnapshotNode};
pub use types::{
    ActionType, ClusterEvent, Code, EventResource, Hook, HookResult, HookSet, NominatingMode,
    NormalizeScoreResult, PermitResult, PostFilterResult, PreFilterResult, Status,
};
