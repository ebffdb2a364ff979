//! Cluster events as `result.cluster_events` carries them: 8-byte records
//! of a resource and an action set, little-endian `u32`s
//! (`scheduler/plugin/clusterevent.go`).

/// Pods.
pub const POD: u32 = 0;
/// Nodes.
pub const NODE: u32 = 1;
/// PersistentVolumes.
pub const PERSISTENT_VOLUME: u32 = 2;
/// PersistentVolumeClaims.
pub const PERSISTENT_VOLUME_CLAIM: u32 = 3;
/// PodSchedulingContexts.
pub const POD_SCHEDULING_CONTEXT: u32 = 4;
/// ResourceClaims.
pub const RESOURCE_CLAIM: u32 = 5;
/// StorageClasses.
pub const STORAGE_CLASS: u32 = 6;
/// CSINodes.
pub const CSI_NODE: u32 = 7;
/// CSIDrivers.
pub const CSI_DRIVER: u32 = 8;
/// CSIStorageCapacities.
pub const CSI_STORAGE_CAPACITY: u32 = 9;
/// Any resource.
pub const WILDCARD: u32 = 10;

/// Object added.
pub const ADD: u32 = 1;
/// Object deleted.
pub const DELETE: u32 = 1 << 1;
/// Node allocatable changed.
pub const UPDATE_NODE_ALLOCATABLE: u32 = 1 << 2;
/// Node labels changed.
pub const UPDATE_NODE_LABEL: u32 = 1 << 3;
/// Node taints changed.
pub const UPDATE_NODE_TAINT: u32 = 1 << 4;
/// Node conditions changed.
pub const UPDATE_NODE_CONDITION: u32 = 1 << 5;
/// Every action.
pub const ALL: u32 = ADD
    | DELETE
    | UPDATE_NODE_ALLOCATABLE
    | UPDATE_NODE_LABEL
    | UPDATE_NODE_TAINT
    | UPDATE_NODE_CONDITION;

/// The resources KSW registers when a guest exports no `enqueue` or
/// reports no events (each with [`HOST_DEFAULT_ACTIONS`]).
pub const DEFAULT_RESOURCES: [u32; 6] = [
    POD,
    NODE,
    CSI_NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
];

/// The actions of those default events: the host's own `framework.All`
/// (Kubernetes 1.33.4: thirteen action bits, 8191), wider than the
/// guest-side [`ALL`], which covers only the actions a guest can name.
pub const HOST_DEFAULT_ACTIONS: u32 = (1 << 13) - 1;
