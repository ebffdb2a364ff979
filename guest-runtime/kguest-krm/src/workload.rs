//! Where the pod template of a workload is.

/// Path from the item to its pod template (the mapping holding the pod's
/// `metadata` and `spec`): empty for a Pod, `spec.template` for
/// Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController
/// and Job, `spec.jobTemplate.spec.template` for CronJob; `None` for
/// anything else.
pub fn pod_template_path(group: &str, kind: &str) -> Option<&'static [&'static str]> {
    const TEMPLATE: &[&str] = &["spec", "template"];
    match (group, kind) {
        ("", "Pod") => Some(&[]),
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet")
        | ("", "ReplicationController")
        | ("batch", "Job") => Some(TEMPLATE),
        ("batch", "CronJob") => Some(&["spec", "jobTemplate", "spec", "template"]),
        _ => None,
    }
}
