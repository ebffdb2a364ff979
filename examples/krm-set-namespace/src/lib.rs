//! KRM function: moves every namespaced item into one namespace.
//!
//! `functionConfig` gives the namespace as `namespace` (any config kind) or
//! as a ConfigMap's `data.namespace`. Items of Kubernetes kinds get
//! `metadata.namespace` when k8s-openapi records the kind as namespaced;
//! cluster-scoped kinds (Namespace, ClusterRole, ...) are left alone. Items
//! of kinds Kubernetes does not define (custom resources) are changed only
//! when they already carry a namespace. Everything else of every item stays
//! byte for byte.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest_krm::{Item, Report, ResourceList, Value, scope};

pub fn run(list: &mut ResourceList) {
    let Some(namespace) = namespace(list) else {
        let _ = list.report(Report::error(
            "functionConfig sets no namespace (`namespace`, or a ConfigMap's `data.namespace`)",
        ));
        return;
    };
    for i in 0..list.len() {
        let Some(item) = list.item(i) else {
            continue;
        };
        if !wants_namespace(&item) || item.namespace() == Some(namespace) {
            continue;
        }
        if let Err(e) = list.set(i, &["metadata", "namespace"], Value::Str(namespace)) {
            let _ = list.report(Report::error(e.as_str()).on(i).field("metadata.namespace"));
        }
    }
}

/// The configured namespace.
fn namespace<'a>(list: &ResourceList<'a>) -> Option<&'a str> {
    let config = list.function_config()?;
    config
        .get("namespace")
        .or_else(|| config.path(&["data", "namespace"]))
        .and_then(|n| n.as_str())
        .filter(|s| !s.is_empty())
}

/// Namespaced Kubernetes kinds, and unknown kinds that already have a
/// namespace.
pub fn wants_namespace(item: &Item<'_>) -> bool {
    match scope::is_namespaced(item.group(), item.kind()) {
        Some(namespaced) => namespaced,
        None => item.namespace().is_some(),
    }
}

kguest_krm::export!(run);

#[cfg(test)]
mod tests {
    use kguest_krm::testing::run as exec;

    use super::run;

    const INPUT: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # the app
    annotations:
      internal.config.kubernetes.io/path: web.yaml
- apiVersion: v1
  kind: Namespace
  metadata:
    name: old
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: reader}
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w, namespace: old}
- apiVersion: example.com/v1
  kind: ClusterWidget
  metadata: {name: cw}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: already
    namespace: prod
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  data:
    namespace: prod
";

    #[test]
    fn namespaced_kinds_move_others_stay() {
        let out = exec(INPUT, run);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let expected = INPUT
            .replace(
                "    annotations:\n      internal.config.kubernetes.io/path: web.yaml\n",
                "    annotations:\n      internal.config.kubernetes.io/path: web.yaml\n    namespace: prod\n",
            )
            .replace("{name: w, namespace: old}", "{name: w, namespace: prod}");
        assert_eq!(out.stdout, expected);
    }

    #[test]
    fn namespace_field_of_a_custom_config() {
        let input = INPUT.replace(
            "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    namespace: prod\n",
            "functionConfig:\n  apiVersion: krm.example.com/v1\n  kind: SetNamespace\n  namespace: team-a\n",
        );
        let out = exec(&input, run);
        assert_eq!(out.code, 0);
        assert!(
            out.stdout
                .contains("  metadata:\n    name: already\n    namespace: team-a\n")
        );
        assert!(
            out.stdout
                .contains("  kind: Namespace\n  metadata:\n    name: old\n")
        );
    }

    #[test]
    fn missing_config_is_an_error_result() {
        let input = INPUT.split("functionConfig:").next().unwrap().to_string();
        let out = exec(&input, run);
        assert_eq!(out.code, 1);
        assert!(out.stdout.starts_with(&input));
        assert!(
            out.stdout
                .contains("results:\n- message: \"functionConfig sets no namespace"),
            "{}",
            out.stdout
        );
    }
}
