//! KRM validator: every container asks for what it uses.
//!
//! For each container and init container of a Pod or of a workload's pod
//! template (Deployment, StatefulSet, DaemonSet, ReplicaSet,
//! ReplicationController, Job, CronJob), one error result, with the item as
//! `resourceRef` and the field as `field.path`, when the container has no
//! `cpu` or no `memory` request, or when a limit is below its request
//! (exact `resource.Quantity` comparison: `1` equals `1000m`). Items are
//! never changed; the function exits 1 when it reported anything.
//!
//! `resources` is read through the kguest view `ResourceRequirements`
//! (transcoded from the YAML by the SDK), quantities with
//! `kguest_wire::quantity`.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest_k8s::api::core::v1::ResourceRequirements;
use kguest_k8s::apimachinery::pkg::api::resource::Quantity;
use kguest_krm::{Node, Report, ResourceList, Text, workload};

const RESOURCES: [&str; 2] = ["cpu", "memory"];

pub fn run(list: &mut ResourceList) {
    for i in 0..list.len() {
        let Some(item) = list.item(i) else {
            continue;
        };
        let Some(template) = workload::pod_template_path(item.group(), item.kind()) else {
            continue;
        };
        let Some(spec) = item.node().path(template).and_then(|t| t.get("spec")) else {
            continue;
        };
        for key in ["initContainers", "containers"] {
            let Some(containers) = spec.get(key) else {
                continue;
            };
            for (j, container) in containers.iter().enumerate() {
                let mut at = Text::<160>::new();
                for seg in template {
                    at.push(seg).push(".");
                }
                at.push("spec.")
                    .push(key)
                    .push("[")
                    .int(j as i64)
                    .push("].resources");
                check(list, i, container, at.as_str());
            }
        }
    }
}

fn shown<'a>(q: Quantity<'a>) -> &'a str {
    q.string().unwrap_or("")
}

/// Reports what container `c` of item `i` lacks; `at` is the path of its
/// `resources`.
fn check(list: &mut ResourceList, i: usize, c: Node<'_>, at: &str) {
    let name = c.get("name").and_then(|n| n.as_str()).unwrap_or("?");
    let resources = match c.get("resources") {
        None => None,
        Some(r) => match r.view::<ResourceRequirements<'_>>() {
            Ok(view) => Some(view),
            Err(e) => {
                let mut msg = Text::<256>::new();
                msg.push("container ")
                    .push(name)
                    .push(": resources: ")
                    .push(e.what);
                let _ = list.report(Report::error(msg.as_str()).on(i).field(at));
                return;
            }
        },
    };
    for res in RESOURCES {
        let mut msg = Text::<256>::new();
        let mut field = Text::<192>::new();
        let request = resources.and_then(|r| r.requests().get(res));
        let Some(request) = request else {
            msg.push("container ")
                .push(name)
                .push(" has no ")
                .push(res)
                .push(" request");
            field.push(at).push(".requests.").push(res);
            let _ = list.report(Report::error(msg.as_str()).on(i).field(field.as_str()));
            continue;
        };
        let Ok(req) = request.parse() else {
            msg.push("container ")
                .push(name)
                .push(": ")
                .push(res)
                .push(" request `");
            msg.push(shown(request)).push("` is not a quantity");
            field.push(at).push(".requests.").push(res);
            let _ = list.report(Report::error(msg.as_str()).on(i).field(field.as_str()));
            continue;
        };
        let Some(limit) = resources.and_then(|r| r.limits().get(res)) else {
            continue;
        };
        field.push(at).push(".limits.").push(res);
        match limit.parse() {
            Ok(lim) if lim.cmp_exact(&req).is_lt() => {
                msg.push("container ")
                    .push(name)
                    .push(": ")
                    .push(res)
                    .push(" limit ");
                msg.push(shown(limit))
                    .push(" is below its request ")
                    .push(shown(request));
            }
            Ok(_) => continue,
            Err(_) => {
                msg.push("container ")
                    .push(name)
                    .push(": ")
                    .push(res)
                    .push(" limit `");
                msg.push(shown(limit)).push("` is not a quantity");
            }
        }
        let _ = list.report(Report::error(msg.as_str()).on(i).field(field.as_str()));
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
- apiVersion: v1
  kind: Pod
  metadata: {name: good}
  spec:
    containers:
    - name: app
      resources:
        requests: {cpu: 500m, memory: 1Gi}
        limits: {cpu: '1', memory: 1024Mi} # equal memory, written differently
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: prod}
  spec:
    template:
      spec:
        initContainers:
        - name: init
          resources: {requests: {cpu: 100m}}
        containers:
        - name: web
          resources:
            requests: {cpu: '2', memory: 512Mi}
            limits: {cpu: 1999m}
        - name: sidecar
- apiVersion: batch/v1
  kind: CronJob
  metadata: {name: nightly}
  spec:
    jobTemplate:
      spec:
        template:
          spec:
            containers:
            - name: job
              resources: {requests: {cpu: 1, memory: lots}}
- apiVersion: v1
  kind: ConfigMap # not a workload
  metadata: {name: cm}
";

    fn results(stdout: &str) -> Vec<(String, String, String)> {
        let v: serde_norway::Value = serde_norway::from_str(stdout).unwrap();
        v["results"]
            .as_sequence()
            .map(|r| {
                r.iter()
                    .map(|r| {
                        assert_eq!(r["severity"].as_str(), Some("error"));
                        (
                            r["resourceRef"]["name"].as_str().unwrap().to_string(),
                            r["field"]["path"].as_str().unwrap().to_string(),
                            r["message"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn one_error_per_missing_request_or_low_limit() {
        let out = exec(INPUT, run);
        assert_eq!(out.code, 1);
        assert!(out.stdout.starts_with(INPUT), "items unchanged");
        let got = results(&out.stdout);
        let want = [
            (
                "web",
                "spec.template.spec.initContainers[0].resources.requests.memory",
                "container init has no memory request",
            ),
            (
                "web",
                "spec.template.spec.containers[0].resources.limits.cpu",
                "container web: cpu limit 1999m is below its request 2",
            ),
            (
                "web",
                "spec.template.spec.containers[1].resources.requests.cpu",
                "container sidecar has no cpu request",
            ),
            (
                "web",
                "spec.template.spec.containers[1].resources.requests.memory",
                "container sidecar has no memory request",
            ),
            (
                "nightly",
                "spec.jobTemplate.spec.template.spec.containers[0].resources.requests.memory",
                "container job: memory request `lots` is not a quantity",
            ),
        ];
        let got: Vec<(&str, &str, &str)> = got
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn clean_input_passes_unchanged() {
        let input = INPUT.split("- apiVersion: apps/v1").next().unwrap();
        let out = exec(input, run);
        assert_eq!(out.code, 0, "{}", out.stdout);
        assert_eq!(out.stdout, input);
    }
}
