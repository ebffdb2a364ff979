//! Score: favour nodes that already hold the pod's container images, a
//! simplified form of Kubernetes' ImageLocality.
//!
//! Formula. For every container and init container, the image name is
//! normalised (`:latest` is implied when the name has no tag, i.e. no `:`
//! after the last `/`), and if an entry of the node's `status.images` lists
//! that name, its `sizeBytes` is added to `sum` (each container counts, as
//! upstream does). Then, with `min = 23 MiB` and
//! `max = 1000 MiB × number of containers`,
//!
//! ```text
//! score = 100 × (clamp(sum, min, max) − min) / (max − min)
//! ```
//!
//! Upstream also scales each image's size by the fraction of nodes holding
//! it (to avoid piling pods onto one node); that needs the image states of
//! every node, so this version leaves it out (a factor of 1).

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::k8s::api::core::v1::{Node, PodSpec};
use kguest::{Cycle, Plugin, Score, Status};

const MIB: i64 = 1024 * 1024;
/// Sizes below this count as nothing.
pub const MIN_THRESHOLD: i64 = 23 * MIB;
/// Per container, sizes above this count as this much.
pub const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MIB;
pub const MAX_NODE_SCORE: i64 = 100;

/// True when `listed` (a name in `status.images`) names `image` once the
/// implicit `:latest` tag is applied to `image`.
pub fn same_image(listed: &str, image: &str) -> bool {
    // Byte scans rather than `rfind`/`strip_prefix`, whose slicing keeps a
    // panic path (and `core::fmt`) in the wasm build.
    let b = image.as_bytes();
    let colon = b.iter().rposition(|&c| c == b':');
    let slash = b.iter().rposition(|&c| c == b'/');
    let tagged = match (colon, slash) {
        (Some(c), Some(s)) => c > s,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let l = listed.as_bytes();
    if tagged {
        return l == b;
    }
    let (head, tail) = l.split_at_checked(b.len()).unwrap_or((&[], l));
    head == b && tail == b":latest"
}

/// Size of `image` on `node`, 0 when the node does not list it.
fn size_on(node: &Node<'_>, image: &str) -> i64 {
    let Some(status) = node.status() else {
        return 0;
    };
    status
        .images()
        .find(|img| img.names().any(|n| same_image(n, image)))
        .and_then(|img| img.size_bytes())
        .unwrap_or(0)
        .max(0)
}

/// The node's score for the pod (see the crate docs).
pub fn score(spec: &PodSpec<'_>, node: &Node<'_>) -> i64 {
    let mut sum: i64 = 0;
    let mut containers: i64 = 0;
    for c in spec.init_containers().chain(spec.containers()) {
        containers += 1;
        if let Some(image) = c.image() {
            sum = sum.saturating_add(size_on(node, image));
        }
    }
    let max = MAX_CONTAINER_THRESHOLD.saturating_mul(containers);
    if max <= MIN_THRESHOLD {
        return 0;
    }
    let clamped = sum.clamp(MIN_THRESHOLD, max);
    MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (max - MIN_THRESHOLD)
}

pub struct ImageLocality;

impl Plugin for ImageLocality {
    fn new() -> Self {
        ImageLocality
    }
}

impl Score for ImageLocality {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let Some(spec) = cx.pod().and_then(|p| p.spec()) else {
            return Ok(0);
        };
        let Some(node) = cx.node() else {
            return Err(Status::error("node not found"));
        };
        // 0..=100, so the cast is exact.
        Ok(score(&spec, &node) as i32)
    }
}

kguest::export!(ImageLocality => [score]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Code;
    use kguest::testing::TestHost;
    use kguest::testing::proto::{ContainerBuilder as C, NodeBuilder, PodBuilder};

    #[test]
    fn image_names() {
        assert!(same_image("nginx:latest", "nginx"));
        assert!(same_image(
            "docker.io/library/nginx:latest",
            "docker.io/library/nginx"
        ));
        assert!(same_image("nginx:1.27", "nginx:1.27"));
        assert!(!same_image("nginx:1.27", "nginx"));
        assert!(!same_image("nginx", "nginx"));
        assert!(same_image(
            "localhost:5000/app:latest",
            "localhost:5000/app"
        ));
        assert!(!same_image("nginx:latest", "nginx:1.27"));
    }

    fn run(pod: PodBuilder, node: NodeBuilder) -> (i32, kguest::testing::Outcome) {
        let host = TestHost::new();
        host.set_pod(pod.build());
        host.add_node("n", node.build());
        host.score_node(&mut ImageLocality::new(), "n")
    }

    #[test]
    fn scores_scale_with_present_image_sizes() {
        let pod = || PodBuilder::new("p").container(C::new("a").image("app:v1"));
        let empty = NodeBuilder::new("n");
        assert_eq!(run(pod(), empty).0, 0);
        let full = NodeBuilder::new("n").image(&["app:v1", "registry/app@sha256:00"], 1000 * MIB);
        assert_eq!(run(pod(), full).0, 100);
        let half = NodeBuilder::new("n").image(&["app:v1"], 23 * MIB + (977 * MIB) / 2);
        assert_eq!(run(pod(), half).0, 50);
        let tiny = NodeBuilder::new("n").image(&["app:v1"], 10 * MIB);
        assert_eq!(run(pod(), tiny).0, 0);
    }

    #[test]
    fn every_container_counts_and_latest_is_implied() {
        let pod = PodBuilder::new("p")
            .init_container(C::new("init").image("busybox"))
            .container(C::new("a").image("app:v1"))
            .container(C::new("b").image("sidecar:v2"));
        let node = NodeBuilder::new("n")
            .image(&["busybox:latest"], 500 * MIB)
            .image(&["app:v1"], 1500 * MIB)
            .image(&["other:v9"], 3000 * MIB);
        // sum = 2000 MiB of max 3000 MiB: 100 × 1977 / 2977 = 66.
        assert_eq!(run(pod, node).0, 66);
    }

    #[test]
    fn pod_without_containers_and_missing_node() {
        assert_eq!(run(PodBuilder::new("p"), NodeBuilder::new("n")).0, 0);
        let host = TestHost::new();
        host.set_pod(
            PodBuilder::new("p")
                .container(C::new("a").image("x"))
                .build(),
        );
        let (s, out) = host.score_node(&mut ImageLocality::new(), "gone");
        assert_eq!(
            (s, out.code(), out.reason()),
            (0, Ok(Code::Error), "node not found")
        );
    }
}
