//! A deterministic cluster: Nodes shaped like a cloud provider's workers
//! (labels, taints, allocatable, conditions, cached images) and Pods of a few
//! realistic shapes, built as k8s-openapi values and encoded to the protobuf
//! bytes the API server would hand the scheduler.
//!
//! Everything derives from one seed through splitmix64, so two runs (and two
//! backends) see byte-identical inputs.

use k8s_openapi::api::core::v1::{Node, Pod};
use kguest_k8s_encode::Encode;
use serde_json::{Value, json};

/// The encoded cluster.
pub struct Cluster {
    pub nodes: Vec<EncodedNode>,
    pub pods: Vec<Vec<u8>>,
}

pub struct EncodedNode {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// splitmix64: small, fast and deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn hex(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len);
        while s.len() < len {
            s.push_str(&format!("{:016x}", self.next()));
        }
        s.truncate(len);
        s
    }

    /// `len` characters of the alphabet Kubernetes uses for generated names.
    fn suffix(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len())] as char)
            .collect()
    }
}

/// An instance type: name, cpu cores, memory GiB, GPUs.
struct InstanceType {
    name: &'static str,
    cpu: u64,
    memory_gib: u64,
    gpus: u64,
    /// Relative frequency in the fleet.
    weight: usize,
}

const INSTANCE_TYPES: &[InstanceType] = &[
    InstanceType {
        name: "m6i.xlarge",
        cpu: 4,
        memory_gib: 16,
        gpus: 0,
        weight: 30,
    },
    InstanceType {
        name: "m6i.2xlarge",
        cpu: 8,
        memory_gib: 32,
        gpus: 0,
        weight: 35,
    },
    InstanceType {
        name: "c6i.4xlarge",
        cpu: 16,
        memory_gib: 32,
        gpus: 0,
        weight: 15,
    },
    InstanceType {
        name: "r6i.2xlarge",
        cpu: 8,
        memory_gib: 64,
        gpus: 0,
        weight: 12,
    },
    InstanceType {
        name: "g5.2xlarge",
        cpu: 8,
        memory_gib: 32,
        gpus: 1,
        weight: 8,
    },
];

const ZONES: &[&str] = &["eu-west-1a", "eu-west-1b", "eu-west-1c"];

/// The images pods run, with their sizes; nodes cache a subset.
struct Image {
    repo: &'static str,
    tag: &'static str,
    size: i64,
}

const MIB: i64 = 1024 * 1024;

const APP_IMAGES: &[Image] = &[
    Image {
        repo: "registry.example.com/shop/web",
        tag: "2.31.0",
        size: 180 * MIB,
    },
    Image {
        repo: "registry.example.com/shop/checkout",
        tag: "4.12.0",
        size: 212 * MIB,
    },
    Image {
        repo: "registry.example.com/shop/checkout-migrate",
        tag: "4.12.0",
        size: 64 * MIB,
    },
    Image {
        repo: "registry.example.com/shop/catalog",
        tag: "1.8.3",
        size: 350 * MIB,
    },
    Image {
        repo: "registry.example.com/shop/search",
        tag: "7.0.1",
        size: 910 * MIB,
    },
    Image {
        repo: "registry.example.com/ml/trainer",
        tag: "0.14.2",
        size: 1_450 * MIB,
    },
    Image {
        repo: "registry.example.com/ml/feature-store",
        tag: "3.2.0",
        size: 620 * MIB,
    },
    Image {
        repo: "registry.example.com/data/spark",
        tag: "3.5.3",
        size: 1_020 * MIB,
    },
    Image {
        repo: "registry.example.com/infra/envoy",
        tag: "1.32.1",
        size: 58 * MIB,
    },
    Image {
        repo: "registry.example.com/infra/otel-agent",
        tag: "0.110.0",
        size: 95 * MIB,
    },
];

/// Images every node has (DaemonSets and the pause image).
const NODE_IMAGES: &[Image] = &[
    Image {
        repo: "registry.k8s.io/kube-proxy",
        tag: "v1.36.3",
        size: 29 * MIB,
    },
    Image {
        repo: "registry.k8s.io/pause",
        tag: "3.10",
        size: MIB / 3,
    },
    Image {
        repo: "registry.example.com/infra/fluent-bit",
        tag: "3.1.9",
        size: 88 * MIB,
    },
    Image {
        repo: "registry.k8s.io/coredns/coredns",
        tag: "v1.12.0",
        size: 19 * MIB,
    },
];

/// Builds `nodes` Nodes and `pods` Pods from `seed`.
pub fn generate(nodes: usize, pods: usize, seed: u64) -> Cluster {
    let mut rng = Rng(seed);
    let node_values: Vec<Value> = (0..nodes).map(|i| node(&mut rng, i)).collect();
    let names: Vec<String> = node_values
        .iter()
        .map(|n| {
            n["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let nodes = node_values
        .into_iter()
        .zip(&names)
        .map(|(value, name)| {
            let node: Node = serde_json::from_value(value).expect("generated Node is valid");
            EncodedNode {
                name: name.clone(),
                bytes: node.encode_to_vec(),
            }
        })
        .collect();
    let pods = (0..pods)
        .map(|i| {
            let value = pod(&mut rng, i, &names);
            let pod: Pod = serde_json::from_value(value).expect("generated Pod is valid");
            pod.encode_to_vec()
        })
        .collect();
    Cluster { nodes, pods }
}

fn pick_instance_type(rng: &mut Rng) -> &'static InstanceType {
    let total: usize = INSTANCE_TYPES.iter().map(|t| t.weight).sum();
    let mut roll = rng.below(total);
    for t in INSTANCE_TYPES {
        if roll < t.weight {
            return t;
        }
        roll -= t.weight;
    }
    &INSTANCE_TYPES[0]
}

fn node(rng: &mut Rng, index: usize) -> Value {
    let ty = pick_instance_type(rng);
    let zone = ZONES[index % ZONES.len()];
    let ip = format!("10.0.{}.{}", (index / 250) + 10, index % 250 + 2);
    // Names end in a digit, which the nodenumber plugins look at.
    let name = format!(
        "worker-{}-{index:04}",
        zone.rsplit('-').next().unwrap_or(zone)
    );
    let instance_id = format!("i-0{}", rng.hex(16));

    let mut taints = Vec::new();
    if ty.gpus > 0 {
        taints.push(json!({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}));
    }
    if rng.chance(6) {
        taints.push(json!({"key": "dedicated", "value": "search", "effect": "NoSchedule"}));
    }
    if rng.chance(2) {
        taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}));
    }
    if rng.chance(10) {
        taints.push(json!({"key": "spot", "value": "true", "effect": "PreferNoSchedule"}));
    }

    // Allocatable = capacity minus the kubelet's reservations.
    let cpu_alloc = format!("{}m", ty.cpu * 1000 - 90 - ty.cpu * 10);
    let mem_cap_ki = ty.memory_gib * 1024 * 1024 - 380_000;
    let mem_alloc_ki = mem_cap_ki - 1_016_832;
    let mut capacity = json!({
        "cpu": ty.cpu.to_string(),
        "memory": format!("{mem_cap_ki}Ki"),
        "pods": "110",
        "ephemeral-storage": "104845292Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
    });
    let mut allocatable = json!({
        "cpu": cpu_alloc,
        "memory": format!("{mem_alloc_ki}Ki"),
        "pods": "110",
        "ephemeral-storage": "95551679124",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
    });
    if ty.gpus > 0 {
        capacity["nvidia.com/gpu"] = json!(ty.gpus.to_string());
        allocatable["nvidia.com/gpu"] = json!(ty.gpus.to_string());
    }

    // Cached images: the node images plus a random subset of app images.
    let mut images = Vec::new();
    let mut push_image = |rng: &mut Rng, image: &Image| {
        let digest = format!("{}@sha256:{}", image.repo, rng.hex(64));
        let tagged = format!("{}:{}", image.repo, image.tag);
        images.push(
            json!({"names": [digest, tagged], "sizeBytes": image.size + rng.below(4096) as i64}),
        );
    };
    for image in APP_IMAGES {
        if rng.chance(35) {
            push_image(rng, image);
        }
    }
    for image in NODE_IMAGES {
        push_image(rng, image);
    }

    let heartbeat = "2026-11-28T09:13:51Z";
    let since = "2026-10-02T07:31:44Z";
    let condition = |ty: &str, status: &str, reason: &str, message: &str| {
        json!({
            "type": ty, "status": status, "reason": reason, "message": message,
            "lastHeartbeatTime": heartbeat, "lastTransitionTime": since,
        })
    };
    let mut labels = json!({
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": ty.name,
        "topology.kubernetes.io/region": "eu-west-1",
        "topology.kubernetes.io/zone": zone,
        "node-role.kubernetes.io/worker": "",
    });
    if ty.gpus > 0 {
        labels["nvidia.com/gpu.present"] = json!("true");
    }
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": format!("{}-{}-4{}-8{}-{}", rng.hex(8), rng.hex(4), rng.hex(3), rng.hex(3), rng.hex(12)),
            "resourceVersion": (48_000_000 + index * 17).to_string(),
            "creationTimestamp": since,
            "labels": labels,
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                "csi.volume.kubernetes.io/nodeid": format!("{{\"ebs.csi.aws.com\":\"{instance_id}\"}}"),
            },
        },
        "spec": {
            "podCIDR": format!("10.244.{}.0/24", index % 250),
            "podCIDRs": [format!("10.244.{}.0/24", index % 250)],
            "providerID": format!("aws:///{zone}/{instance_id}"),
            "taints": taints,
        },
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": [
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "addresses": [
                {"type": "InternalIP", "address": ip},
                {"type": "InternalDNS", "address": name},
                {"type": "Hostname", "address": name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": rng.hex(32),
                "systemUUID": rng.hex(32),
                "bootID": rng.hex(32),
                "kernelVersion": "6.8.0-1017-aws",
                "osImage": "Ubuntu 24.04.1 LTS",
                "containerRuntimeVersion": "containerd://2.0.1",
                "kubeletVersion": "v1.36.3",
                "kubeProxyVersion": "v1.36.3",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
            "images": images,
        },
    })
}

/// A container with requests (and limits twice the requests).
fn container(name: &str, image: &Image, cpu_m: u64, mem_mi: u64, extra: &[(&str, &str)]) -> Value {
    let mut requests = json!({"cpu": format!("{cpu_m}m"), "memory": format!("{mem_mi}Mi")});
    let mut limits =
        json!({"cpu": format!("{}m", cpu_m * 2), "memory": format!("{}Mi", mem_mi * 2)});
    for (k, v) in extra {
        requests[*k] = json!(v);
        limits[*k] = json!(v);
    }
    json!({
        "name": name,
        "image": format!("{}:{}", image.repo, image.tag),
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "env": [
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "LOG_FORMAT", "value": "json"},
        ],
        "resources": {"requests": requests, "limits": limits},
        "readinessProbe": {"httpGet": {"path": "/ready", "port": "http"}, "periodSeconds": 5},
        "volumeMounts": [{"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    })
}

fn pod(rng: &mut Rng, index: usize, nodes: &[String]) -> Value {
    let default_tolerations = json!([
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    ]);
    let roll = rng.below(100);
    let (app, containers, init, mut tolerations, node_name) = match roll {
        // A web frontend: one small container.
        0..40 => (
            "web",
            vec![container("web", &APP_IMAGES[0], 250, 256, &[])],
            vec![],
            default_tolerations,
            None,
        ),
        // An API with a migration init container and a proxy sidecar.
        40..70 => (
            "checkout",
            vec![
                container("checkout", &APP_IMAGES[1], 500, 1024, &[]),
                container("envoy", &APP_IMAGES[8], 100, 128, &[]),
            ],
            vec![container("migrate", &APP_IMAGES[2], 100, 64, &[])],
            default_tolerations,
            None,
        ),
        // Search: large memory, runs on the dedicated pool.
        70..80 => {
            let mut t = default_tolerations;
            if let Some(list) = t.as_array_mut() {
                list.push(json!({"key": "dedicated", "operator": "Equal", "value": "search", "effect": "NoSchedule"}));
            }
            (
                "search",
                vec![
                    container("search", &APP_IMAGES[4], 3000, 40 * 1024, &[]),
                    container("otel", &APP_IMAGES[9], 100, 200, &[]),
                ],
                vec![],
                t,
                None,
            )
        }
        // ML training: a GPU and a lot of CPU.
        80..90 => {
            let mut t = default_tolerations;
            if let Some(list) = t.as_array_mut() {
                list.push(
                    json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}),
                );
            }
            (
                "trainer",
                vec![container(
                    "trainer",
                    &APP_IMAGES[5],
                    6000,
                    24 * 1024,
                    &[("nvidia.com/gpu", "1")],
                )],
                vec![],
                t,
                None,
            )
        }
        // A per-node agent with spec.nodeName already set.
        _ => (
            "node-agent",
            vec![container("agent", &APP_IMAGES[9], 50, 64, &[])],
            vec![],
            json!([{"operator": "Exists"}]),
            Some(nodes[rng.below(nodes.len())].clone()),
        ),
    };
    if let Some(list) = tolerations.as_array_mut()
        && rng.chance(20)
    {
        list.push(json!({"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}));
    }
    let hash = rng.hex(10);
    let name = format!("{app}-{hash}-{}", rng.suffix(5));
    let mut spec = json!({
        "containers": containers,
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": app,
        "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "fsGroup": 10001},
        "schedulerName": "default-scheduler",
        "tolerations": tolerations,
        "priority": 0,
        "enableServiceLinks": true,
        "preemptionPolicy": "PreemptLowerPriority",
        "volumes": [{"name": "kube-api-access", "projected": {"sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        ]}}],
    });
    if !init.is_empty() {
        spec["initContainers"] = json!(init);
    }
    if let Some(node) = node_name {
        spec["nodeName"] = json!(node);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "generateName": format!("{app}-{hash}-"),
            "namespace": "shop",
            "uid": format!("{}-{}-4{}-8{}-{}", rng.hex(8), rng.hex(4), rng.hex(3), rng.hex(3), rng.hex(12)),
            "resourceVersion": (50_000_000 + index * 3).to_string(),
            "creationTimestamp": "2026-11-28T09:14:02Z",
            "labels": {
                "app.kubernetes.io/name": app,
                "app.kubernetes.io/part-of": "shop",
                "pod-template-hash": hash,
            },
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-{hash}"),
                "uid": format!("{}-{}-4{}-8{}-{}", rng.hex(8), rng.hex(4), rng.hex(3), rng.hex(3), rng.hex(12)),
                "controller": true, "blockOwnerDeletion": true,
            }],
        },
        "spec": spec,
        "status": {"phase": "Pending", "qosClass": "Burstable"},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_decodable() {
        let a = generate(20, 30, 7);
        let b = generate(20, 30, 7);
        assert_eq!(a.pods, b.pods);
        assert!(
            a.nodes
                .iter()
                .zip(&b.nodes)
                .all(|(x, y)| x.bytes == y.bytes)
        );
        let c = generate(20, 30, 8);
        assert_ne!(a.pods, c.pods);
        for n in &a.nodes {
            let view = kguest_k8s::api::core::v1::Node::from_bytes(&n.bytes);
            let name = view.metadata().and_then(|m| m.name());
            assert_eq!(name, Some(n.name.as_str()));
            assert!(
                view.status()
                    .is_some_and(|s| s.images().count() >= NODE_IMAGES.len())
            );
        }
        let names: std::collections::HashSet<_> = a.nodes.iter().map(|n| &n.name).collect();
        assert_eq!(names.len(), a.nodes.len(), "node names are unique");
    }
}
