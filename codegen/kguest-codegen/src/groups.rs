//! Kubernetes API groups and the protobuf packages that carry them.
//!
//! The protobuf package of an API group is named after its folder in
//! `k8s.io/api` (`k8s.io.api.rbac.v1`), while `apiVersion` uses the group
//! name (`rbac.authorization.k8s.io/v1`). Group names are not in the
//! protos, so this table is their one home: `regen` reads it for the API
//! reference links of generated docs, and the registry module it emits
//! carries it (`API_GROUPS`) to the hosts' `apiVersion` lookups.

/// `(folder in k8s.io/api, API group name)`; the core group's name is empty.
pub const API_GROUPS: &[(&str, &str)] = &[
    ("admission", "admission.k8s.io"),
    ("admissionregistration", "admissionregistration.k8s.io"),
    ("apidiscovery", "apidiscovery.k8s.io"),
    ("apiserverinternal", "internal.apiserver.k8s.io"),
    ("apps", "apps"),
    ("authentication", "authentication.k8s.io"),
    ("authorization", "authorization.k8s.io"),
    ("autoscaling", "autoscaling"),
    ("batch", "batch"),
    ("certificates", "certificates.k8s.io"),
    ("coordination", "coordination.k8s.io"),
    ("core", ""),
    ("discovery", "discovery.k8s.io"),
    ("events", "events.k8s.io"),
    ("extensions", "extensions"),
    ("flowcontrol", "flowcontrol.apiserver.k8s.io"),
    ("imagepolicy", "imagepolicy.k8s.io"),
    ("lifecycle", "lifecycle.k8s.io"),
    ("networking", "networking.k8s.io"),
    ("node", "node.k8s.io"),
    ("policy", "policy"),
    ("rbac", "rbac.authorization.k8s.io"),
    ("resource", "resource.k8s.io"),
    ("scheduling", "scheduling.k8s.io"),
    ("storage", "storage.k8s.io"),
    ("storagemigration", "storagemigration.k8s.io"),
];

/// The API group served from the `k8s.io/api` folder `folder`.
pub fn group_of_folder(folder: &str) -> Option<&'static str> {
    API_GROUPS
        .iter()
        .find(|(f, _)| *f == folder)
        .map(|(_, g)| *g)
}
