//! Which Kubernetes kinds are namespaced, as k8s-openapi records it (its
//! `Resource::Scope` of every type), keyed by API group and kind.
//!
//! The table is checked against k8s-openapi's source by the crate's tests
//! (`UPDATE_EXPECT=1 cargo test -p kguest-krm scope` rewrites it).
//! Subresource kinds (`Scale`, `Eviction`, ...) are not in it.

/// `Some(true)` for a namespaced kind, `Some(false)` for a cluster-scoped
/// one, `None` for a kind Kubernetes does not define (custom resources).
pub fn is_namespaced(group: &str, kind: &str) -> Option<bool> {
    KINDS
        .binary_search_by(|(g, k, _)| (*g, *k).cmp(&(group, kind)))
        .ok()
        .and_then(|i| KINDS.get(i))
        .map(|(_, _, namespaced)| *namespaced)
}

/// [`is_namespaced`] for an `apiVersion` (`apps/v1`, `v1`).
pub fn is_namespaced_api_version(api_version: &str, kind: &str) -> Option<bool> {
    let group = crate::bytes::split_once(api_version, b'/').map_or("", |(g, _)| g);
    is_namespaced(group, kind)
}

/// (group, kind, namespaced), sorted by group then kind.
#[rustfmt::skip]
pub static KINDS: &[(&str, &str, bool)] = &[
// @table-begin
    ("", "APIGroup", false),
    ("", "APIGroupList", false),
    ("", "APIResourceList", false),
    ("", "APIVersions", false),
    ("", "Binding", true),
    ("", "ComponentStatus", false),
    ("", "ConfigMap", true),
    ("", "Endpoints", true),
    ("", "Event", true),
    ("", "LimitRange", true),
    ("", "Namespace", false),
    ("", "Node", false),
    ("", "PersistentVolume", false),
    ("", "PersistentVolumeClaim", true),
    ("", "Pod", true),
    ("", "PodTemplate", true),
    ("", "ReplicationController", true),
    ("", "ResourceQuota", true),
    ("", "Secret", true),
    ("", "Service", true),
    ("", "ServiceAccount", true),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy", false),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding", false),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration", false),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy", false),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", false),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", false),
    ("apiextensions.k8s.io", "CustomResourceDefinition", false),
    ("apiregistration.k8s.io", "APIService", false),
    ("apps", "ControllerRevision", true),
    ("apps", "DaemonSet", true),
    ("apps", "Deployment", true),
    ("apps", "ReplicaSet", true),
    ("apps", "StatefulSet", true),
    ("authentication.k8s.io", "SelfSubjectReview", false),
    ("authentication.k8s.io", "TokenReview", false),
    ("authorization.k8s.io", "LocalSubjectAccessReview", true),
    ("authorization.k8s.io", "SelfSubjectAccessReview", false),
    ("authorization.k8s.io", "SelfSubjectRulesReview", false),
    ("authorization.k8s.io", "SubjectAccessReview", false),
    ("autoscaling", "HorizontalPodAutoscaler", true),
    ("batch", "CronJob", true),
    ("batch", "Job", true),
    ("certificates.k8s.io", "CertificateSigningRequest", false),
    ("certificates.k8s.io", "ClusterTrustBundle", false),
    ("certificates.k8s.io", "PodCertificateRequest", true),
    ("coordination.k8s.io", "Lease", true),
    ("coordination.k8s.io", "LeaseCandidate", true),
    ("discovery.k8s.io", "EndpointSlice", true),
    ("events.k8s.io", "Event", true),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema", false),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", false),
    ("internal.apiserver.k8s.io", "StorageVersion", false),
    ("lifecycle.k8s.io", "Eviction", true),
    ("lifecycle.k8s.io", "EvictionRequest", true),
    ("networking.k8s.io", "IPAddress", false),
    ("networking.k8s.io", "Ingress", true),
    ("networking.k8s.io", "IngressClass", false),
    ("networking.k8s.io", "NetworkPolicy", true),
    ("networking.k8s.io", "ServiceCIDR", false),
    ("node.k8s.io", "RuntimeClass", false),
    ("policy", "PodDisruptionBudget", true),
    ("rbac.authorization.k8s.io", "ClusterRole", false),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", false),
    ("rbac.authorization.k8s.io", "Role", true),
    ("rbac.authorization.k8s.io", "RoleBinding", true),
    ("resource.k8s.io", "DeviceClass", false),
    ("resource.k8s.io", "DeviceTaintRule", false),
    ("resource.k8s.io", "ResourceClaim", true),
    ("resource.k8s.io", "ResourceClaimTemplate", true),
    ("resource.k8s.io", "ResourcePoolStatusRequest", false),
    ("resource.k8s.io", "ResourceSlice", false),
    ("scheduling.k8s.io", "CompositePodGroup", true),
    ("scheduling.k8s.io", "PodGroup", true),
    ("scheduling.k8s.io", "PriorityClass", false),
    ("scheduling.k8s.io", "Workload", true),
    ("storage.k8s.io", "CSIDriver", false),
    ("storage.k8s.io", "CSINode", false),
    ("storage.k8s.io", "CSIStorageCapacity", true),
    ("storage.k8s.io", "StorageClass", false),
    ("storage.k8s.io", "VolumeAttachment", false),
    ("storage.k8s.io", "VolumeAttributesClass", false),
    ("storagemigration.k8s.io", "StorageVersionMigration", false),
// @table-end
];
