//! One safe trait per scheduler extension point.
//!
//! A plugin type implements [`Plugin`] plus the traits of the hooks it
//! exports, and lists those hooks in [`export!`](crate::export). Hooks get
//! `&mut self` (the instance lives as long as the wasm instance, so fields
//! may carry state from PreScore to Score) and a [`Cycle`] for the inputs.
//! A returned [`Status`] may borrow from both.

use crate::{Cycle, Status};

/// The plugin object. One instance per wasm instance, created on the first
/// host call (so [`config`](crate::config) is available in `new`).
pub trait Plugin: Sized + 'static {
    fn new() -> Self;

    /// Called at the start of every scheduling cycle (the `prefilter`
    /// export), before [`PreFilter::pre_filter`]. Reset per-cycle fields here.
    fn new_cycle(&mut self) {}
}

/// `prefilter`: once per scheduling cycle, before any Filter.
pub trait PreFilter: Plugin {
    /// May restrict the candidate nodes with [`Cycle::set_node_names`].
    /// Return [`Status::skip`] to skip this plugin's Filter for the cycle.
    fn pre_filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// `filter`: does the pod fit [`Cycle::node_name`]?
pub trait Filter: Plugin {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// `addpod` / `removepod`: PreFilter extensions used while the scheduler
/// simulates preemption (the other pod is [`Cycle::target_pod`]).
pub trait PreFilterExtensions: Plugin {
    fn add_pod<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
    fn remove_pod<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// How PostFilter's nominated node is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum NominatingMode {
    Noop = 0,
    Override = 1,
}

/// The result of PostFilter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostFilterResult<'a> {
    pub status: Status<'a>,
    pub mode: NominatingMode,
    /// Sent with `result.nominated_node_name` when set.
    pub nominated_node_name: Option<&'a str>,
}

impl<'a> PostFilterResult<'a> {
    /// No nomination; the status says whether preemption helped.
    pub const fn status(status: Status<'a>) -> Self {
        PostFilterResult {
            status,
            mode: NominatingMode::Noop,
            nominated_node_name: None,
        }
    }

    /// Success, nominating `node`.
    pub const fn nominate(node: &'a str) -> Self {
        PostFilterResult {
            status: Status::success(),
            mode: NominatingMode::Override,
            nominated_node_name: Some(node),
        }
    }
}

/// `postfilter`: runs when no node passed Filter. The filter statuses are
/// in [`Cycle::node_to_status_map`].
pub trait PostFilter: Plugin {
    fn post_filter<'a>(&'a mut self, cx: &'a Cycle) -> PostFilterResult<'a>;
}

/// `prescore`: once per cycle before Score, with
/// [`Cycle::filtered_node_list`].
pub trait PreScore: Plugin {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// `score`: rank [`Cycle::node_name`]. `Ok(score)` is a success; `Err`
/// reports a status (the score is sent as 0).
pub trait Score: Plugin {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>>;
}

/// `normalizescore`: read [`Cycle::node_score_list`], write
/// [`Cycle::set_normalized_score_list`] (same node set, or the host panics).
pub trait NormalizeScore: Plugin {
    fn normalize_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// `reserve` and `unreserve`.
pub trait Reserve: Plugin {
    fn reserve<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
    fn unreserve(&mut self, _cx: &Cycle) {}
}

/// The result of Permit: allow, reject, or wait up to `timeout_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermitResult<'a> {
    pub status: Status<'a>,
    pub timeout_ms: u32,
}

impl<'a> PermitResult<'a> {
    pub const fn allow() -> Self {
        PermitResult {
            status: Status::success(),
            timeout_ms: 0,
        }
    }

    pub const fn wait(timeout_ms: u32) -> Self {
        PermitResult {
            status: Status::new(crate::Code::Wait, ""),
            timeout_ms,
        }
    }

    pub const fn reject(status: Status<'a>) -> Self {
        PermitResult {
            status,
            timeout_ms: 0,
        }
    }
}

/// `permit`.
pub trait Permit: Plugin {
    fn permit<'a>(&'a mut self, cx: &'a Cycle) -> PermitResult<'a>;
}

/// `prebind` (only called when the plugin also exports `bind`).
pub trait PreBind: Plugin {
    fn pre_bind<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// `bind`. Return [`Status::skip`] to let the next bind plugin bind.
pub trait Bind: Plugin {
    fn bind<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a>;
}

/// `postbind` (only called when the plugin also exports `bind`).
pub trait PostBind: Plugin {
    fn post_bind(&mut self, cx: &Cycle);
}

/// The kind of object an event is about (`scheduler/plugin/clusterevent.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Resource(pub u32);

impl Resource {
    pub const POD: Resource = Resource(kguest_abi::event::POD);
    pub const NODE: Resource = Resource(kguest_abi::event::NODE);
    pub const PERSISTENT_VOLUME: Resource = Resource(kguest_abi::event::PERSISTENT_VOLUME);
    pub const PERSISTENT_VOLUME_CLAIM: Resource =
        Resource(kguest_abi::event::PERSISTENT_VOLUME_CLAIM);
    pub const POD_SCHEDULING_CONTEXT: Resource =
        Resource(kguest_abi::event::POD_SCHEDULING_CONTEXT);
    pub const RESOURCE_CLAIM: Resource = Resource(kguest_abi::event::RESOURCE_CLAIM);
    pub const STORAGE_CLASS: Resource = Resource(kguest_abi::event::STORAGE_CLASS);
    pub const CSI_NODE: Resource = Resource(kguest_abi::event::CSI_NODE);
    pub const CSI_DRIVER: Resource = Resource(kguest_abi::event::CSI_DRIVER);
    pub const CSI_STORAGE_CAPACITY: Resource = Resource(kguest_abi::event::CSI_STORAGE_CAPACITY);
    pub const WILDCARD: Resource = Resource(kguest_abi::event::WILDCARD);
}

/// Action bits of a cluster event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct ActionType(pub u32);

impl ActionType {
    pub const ADD: ActionType = ActionType(kguest_abi::event::ADD);
    pub const DELETE: ActionType = ActionType(kguest_abi::event::DELETE);
    pub const UPDATE_NODE_ALLOCATABLE: ActionType =
        ActionType(kguest_abi::event::UPDATE_NODE_ALLOCATABLE);
    pub const UPDATE_NODE_LABEL: ActionType = ActionType(kguest_abi::event::UPDATE_NODE_LABEL);
    pub const UPDATE_NODE_TAINT: ActionType = ActionType(kguest_abi::event::UPDATE_NODE_TAINT);
    pub const UPDATE_NODE_CONDITION: ActionType =
        ActionType(kguest_abi::event::UPDATE_NODE_CONDITION);
    pub const ALL: ActionType = ActionType(kguest_abi::event::ALL);

    pub const fn or(self, other: ActionType) -> ActionType {
        ActionType(self.0 | other.0)
    }
}

/// An event that may make a rejected pod schedulable; laid out exactly as
/// the host's 8-byte record (`resource`, `action`, little-endian `u32`s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct ClusterEvent {
    pub resource: Resource,
    pub action: ActionType,
}

impl ClusterEvent {
    pub const fn new(resource: Resource, action: ActionType) -> Self {
        ClusterEvent { resource, action }
    }
}

/// `enqueue`: the events that should requeue pods this plugin rejected.
/// Returning an empty slice lets the host use its default (all events).
pub trait EnqueueExtensions: Plugin {
    fn events(&mut self) -> &[ClusterEvent];
}
