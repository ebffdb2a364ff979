//! kguest's `imagelocality` against a reading of upstream's
//! `image_locality.go` (kube-scheduler-wasm-extension at 9b2791f), over a
//! generated matrix of clusters and pods. Upstream ships no current binary
//! of this example, so the reference is written here, from the Go source,
//! independently of the plugin's code.

use kguest_host::Code;
use serde_json::{Value, json};

use crate::util::{self, Rng};

const MB: i64 = 1024 * 1024;

/// `normalizedImageName`: `:latest` unless the last `:` follows the last `/`.
fn normalized(image: &str) -> String {
    let colon = image.rfind(':').map_or(-1, |i| i as i64);
    let slash = image.rfind('/').map_or(-1, |i| i as i64);
    if colon <= slash {
        format!("{image}:latest")
    } else {
        image.to_string()
    }
}

/// Upstream's Score, from the pod, every node and the node's image states
/// (as JSON the host serves). `Err(())` where upstream fails: an empty node
/// list (status Error). A container without an image would make upstream
/// dereference nil, but the API server's protobuf always carries the field
/// (Go writes non-pointer strings even when empty), so the image is `""`.
fn reference(pod: &Value, nodes: &[Value], states: &Value) -> Result<i32, ()> {
    let total = nodes.len() as i64;
    if total == 0 {
        return Err(());
    }
    let spec = &pod["spec"];
    let containers: Vec<&Value> = ["initContainers", "containers"]
        .iter()
        .flat_map(|k| spec[k].as_array().into_iter().flatten())
        .collect();
    let mut sum: i64 = 0;
    for c in &containers {
        let image = c["image"].as_str().unwrap_or("");
        if let Some(state) = states.get(normalized(image)) {
            let size = state["Size"].as_i64().unwrap();
            let num = state["NumNodes"].as_i64().unwrap();
            let spread = num as f64 / total as f64;
            sum = sum.wrapping_add((size as f64 * spread) as i64);
        }
    }
    let max = 1000 * MB * containers.len() as i64;
    let min = 23 * MB;
    let clamped = if sum < min {
        min
    } else if sum > max {
        max
    } else {
        sum
    };
    Ok((100 * (clamped - min) / (max - min)) as i32)
}

const IMAGES: &[&str] = &[
    "nginx",
    "nginx:latest",
    "nginx:1.27",
    "docker.io/library/nginx",
    "registry.example.com:5000/shop/app",
    "registry.example.com:5000/shop/app:2.1",
    "busybox@sha256:0123456789abcdef",
    "ghcr.io/o/sidecar:v3",
    "redis",
];

const SIZES: &[i64] = &[
    1,
    5 * MB,
    23 * MB,
    24 * MB,
    200 * MB,
    999 * MB,
    1000 * MB,
    1500 * MB,
    8000 * MB,
];

/// A node listing some images; names as a runtime reports them (the tag
/// spelled out, sometimes with a digest alias).
fn node(rng: &mut Rng, name: &str) -> Value {
    let mut images = Vec::new();
    for _ in 0..rng.below(5) {
        let image = normalized(rng.pick(IMAGES));
        let mut names = vec![image.clone()];
        if rng.below(3) == 0 {
            names.push(format!(
                "{}@sha256:{:016x}",
                image.split(':').next().unwrap(),
                rng.next()
            ));
        }
        images.push(json!({"names": names, "sizeBytes": rng.pick(SIZES)}));
    }
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name},
        "status": {"images": images}
    })
}

fn pod(rng: &mut Rng) -> Value {
    let mut spec = json!({});
    for (key, most) in [("initContainers", 2), ("containers", 4)] {
        let list: Vec<Value> = (0..rng.below(most + 1))
            .map(|i| json!({"name": format!("c{i}"), "image": rng.pick(IMAGES)}))
            .collect();
        if !list.is_empty() {
            spec[key] = json!(list);
        }
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec})
}

#[test]
fn imagelocality_scores_as_upstreams_formula() {
    let runtime = util::runtime();
    let (plugin, _) = util::load(&runtime, &util::example("imagelocality"), None).unwrap();
    let mut rng = Rng::new(0x5eed);
    let mut compared = 0;
    let mut nonzero = 0;
    for _ in 0..120 {
        let n = 1 + rng.below(6);
        let nodes: Vec<Value> = (0..n)
            .map(|i| node(&mut rng, &format!("node-{i}")))
            .collect();
        let states = util::image_states(&nodes);
        let pod = pod(&mut rng);
        let cycle = util::cycle(&pod, &nodes);
        for (node, states) in nodes.iter().zip(&states) {
            let states: Value = serde_json::from_str(states).unwrap();
            let want = reference(&pod, &nodes, &states);
            let (score, status) = plugin.score(&cycle, util::node_name(node)).unwrap();
            let got = if status.code == Code::SUCCESS {
                Ok(score)
            } else {
                Err(())
            };
            assert_eq!(got, want, "pod {pod}\nnode {node}\nnodes {}", nodes.len());
            compared += 1;
            nonzero += usize::from(want.is_ok_and(|s| s > 0));
        }
    }
    // The matrix must exercise the formula, not only its zero floor.
    assert!(
        nonzero * 4 > compared,
        "{nonzero} of {compared} scores above 0"
    );
    eprintln!("imagelocality: {compared} scores equal to upstream's formula ({nonzero} above 0)");
}

#[test]
fn imagelocality_edge_cases_as_upstream() {
    let runtime = util::runtime();
    let (plugin, _) = util::load(&runtime, &util::example("imagelocality"), None).unwrap();
    let nodes = [json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}})];
    // A container without an image arrives as `image: ""` (Go writes the
    // field): `:latest`, absent from the node, score 0 on both sides.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c"}]}});
    assert_eq!(reference(&pod, &nodes, &json!({})), Ok(0));
    assert_eq!(
        plugin.score(&util::cycle(&pod, &nodes), "n").unwrap(),
        (0, kguest_host::Status::success())
    );
    // No nodes in the list: "failed to list nodes".
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let (_, status) = plugin.score(&util::cycle(&pod, &[]), "n").unwrap();
    assert_eq!(
        (status.code, status.reason.as_deref()),
        (Code::ERROR, Some("failed to list nodes"))
    );
}
