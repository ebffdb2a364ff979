//! Kubernetes API groups and the protobuf packages that carry them.
//!
//! The protobuf package of an API group is named after its folder in
//! `k8s.io/api` (`k8s.io.api.rbac.v1`), while `apiVersion` uses the group
//! name (`rbac.authorization.k8s.io/v1`). The table that joins the two is
//! generated into `kguest-k8s`'s registry from the generator's facts
//! (`kguest-codegen`'s `groups`); this module looks things up in it.

pub use kguest_k8s::registry::API_GROUPS;

/// The API group served from the `k8s.io/api` folder `folder`.
pub fn group_of_folder(folder: &str) -> Option<&'static str> {
    API_GROUPS
        .iter()
        .find(|(f, _)| *f == folder)
        .map(|(_, g)| *g)
}

/// The `k8s.io/api` folder of the API group `group` (`""` for core).
pub fn folder_of_group(group: &str) -> Option<&'static str> {
    API_GROUPS
        .iter()
        .find(|(_, g)| *g == group)
        .map(|(f, _)| *f)
}
