//! Score: a port of kube-scheduler-wasm-extension's
//! `examples/imagelocality` (`image_locality.go` at commit 9b2791f), itself
//! Kubernetes' ImageLocality score: favour nodes that already hold the
//! pod's container images, discounted for images spread over many nodes.
//!
//! Formula. Each container and init container names an image; a name with
//! no tag (no `:` after the last `/`) gets `:latest`. When the node's image
//! states (`nodeImageStates`) list that name, the container adds
//!
//! ```text
//! trunc(Size × (NumNodes ÷ total nodes))     (float64 arithmetic)
//! ```
//!
//! to `sum` (each container counts, even for a shared image), where the
//! total is the length of the node list. Then, with `min = 23 MiB` and
//! `max = 1000 MiB × number of containers`,
//!
//! ```text
//! score = 100 × (clamp(sum, min, max) − min) ÷ (max − min)   (int64, truncated)
//! ```
//!
//! Errors where upstream fails: an empty node list ("failed to list
//! nodes"), a pod without `spec` or a container without `image` (upstream
//! dereferences nil), malformed image state values.
//!
//! Per cycle (in a [`CycleState`]): the pod's normalised image names, its
//! container count and the node count. Per node: one pass over the node's
//! image states.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::images::{ImageState, ImageStates};
use kguest::k8s::api::core::v1::Pod;
use kguest::{Cycle, CycleState, PerCycle, Plugin, Score, Status};

const MIB: i64 = 1024 * 1024;
/// Sums below this count as nothing.
pub const MIN_THRESHOLD: i64 = 23 * MIB;
/// Per container, sums above this count as this much.
pub const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MIB;
pub const MAX_NODE_SCORE: i64 = 100;
/// Images remembered per cycle; a pod with more containers is read again
/// for every node (same result, slower).
pub const MAX_IMAGES: usize = 16;

/// Does `image` (a pod's, as written) need `:latest` appended? Upstream's
/// `normalizedImageName`: when the last `:` is not after the last `/`.
pub fn needs_latest(image: &[u8]) -> bool {
    // The last `:` is after the last `/` exactly when, from the end, a `:`
    // comes first.
    let last = image.iter().rev().find(|&&c| c == b':' || c == b'/');
    last != Some(&b':')
}

/// The image's contribution: its size scaled by the share of nodes holding
/// it (`int64(float64(Size) * (float64(NumNodes) / float64(total)))`).
pub fn scaled_image_score(state: ImageState, total_nodes: i64) -> i64 {
    let spread = state.num_nodes as f64 / total_nodes as f64;
    (state.size as f64 * spread) as i64
}

/// Upstream's `calculatePriority` (Go int64 arithmetic, wrapping).
pub fn calculate_priority(sum: i64, containers: i64) -> i64 {
    let max = MAX_CONTAINER_THRESHOLD.wrapping_mul(containers);
    let sum = if sum < MIN_THRESHOLD {
        MIN_THRESHOLD
    } else if sum > max {
        max
    } else {
        sum
    };
    MAX_NODE_SCORE
        .wrapping_mul(sum.wrapping_sub(MIN_THRESHOLD))
        .checked_div(max.wrapping_sub(MIN_THRESHOLD))
        .unwrap_or(0)
}

/// An image name as the pod writes it (bytes: no UTF-8 check needed), and
/// the length of the name the node lists it under: longer by `:latest`
/// when that tag is implied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Image<'p> {
    pub name: &'p [u8],
    pub key_len: usize,
}

impl<'p> Image<'p> {
    fn new(name: &'p [u8]) -> Self {
        let tag = if needs_latest(name) { LATEST.len() } else { 0 };
        Image {
            name,
            key_len: name.len() + tag,
        }
    }

    /// Is this the node-side image name `key` (JSON string content)? Keys
    /// are compared as written: Go's encoder escapes nothing that can occur
    /// in an image reference.
    #[inline(always)]
    pub fn is(&self, key: &[u8]) -> bool {
        // Most keys differ in length: one comparison.
        key.len() == self.key_len
            && key
                .split_at_checked(self.name.len())
                .is_some_and(|(name, tag)| {
                    name == self.name && LATEST.get(..tag.len()) == Some(tag)
                })
    }
}

/// The tag implied when an image names none.
const LATEST: &[u8] = b":latest";

/// What the pod contributes to every node's score, computed once per cycle.
#[derive(Debug, Clone, Copy)]
pub struct PodImages<'p> {
    /// `None` past the last image (an all-zero default: no data segment).
    images: [Option<Image<'p>>; MAX_IMAGES],
    /// Init and regular containers.
    containers: usize,
    /// Nodes in the node list.
    total_nodes: i64,
    /// Bit `n % 64` set for each stored image whose node-side name is `n`
    /// bytes long: one test rejects most of a node's names.
    lens: u64,
    error: Option<&'static str>,
}

impl<'p> PodImages<'p> {
    /// Reads the pod's images (init containers first, as upstream sums).
    pub fn new(pod: Pod<'p>, total_nodes: i64) -> Self {
        Self::read(pod, 0, total_nodes)
    }

    /// Keeps the images of containers `skip..skip + MAX_IMAGES` and counts
    /// every container.
    fn read(pod: Pod<'p>, skip: usize, total_nodes: i64) -> Self {
        let mut out = PodImages {
            images: [None; MAX_IMAGES],
            containers: 0,
            total_nodes,
            lens: 0,
            error: None,
        };
        let Some(spec) = pod.spec() else {
            out.error = Some("pod has no spec");
            return out;
        };
        for c in spec.init_containers().chain(spec.containers()) {
            let Some(name) = c.image_bytes() else {
                out.error = Some("container has no image");
                return out;
            };
            let slot = out.containers.checked_sub(skip);
            if let Some(slot) = slot.and_then(|i| out.images.get_mut(i)) {
                let image = Image::new(name);
                out.lens |= 1 << (image.key_len % 64);
                *slot = Some(image);
            }
            out.containers += 1;
        }
        out
    }
}

/// The per-cycle data family for [`CycleState`].
pub struct PerPod;

impl PerCycle for PerPod {
    type Data<'p> = PodImages<'p>;

    fn shorten<'a, 'b: 'a>(data: &'a PodImages<'b>) -> &'a PodImages<'a> {
        data
    }
}

/// The node's score from its image states: one pass over the states for
/// the images stored per cycle (the last entry of a repeated name wins, as
/// in Go's map); a pod with more than [`MAX_IMAGES`] containers makes one
/// pass per [`MAX_IMAGES`] of them, reading the next ones from `full_pod`.
pub fn score(
    pod: &PodImages<'_>,
    full_pod: Pod<'_>,
    states: ImageStates<'_>,
) -> Result<i64, &'static str> {
    if let Some(why) = pod.error {
        return Err(why);
    }
    if pod.total_nodes == 0 {
        return Err("failed to list nodes");
    }
    let mut sum: i64 = 0;
    let mut batch = *pod;
    let mut skip = 0;
    while skip < pod.containers {
        if skip > 0 {
            batch = PodImages::read(full_pod, skip, pod.total_nodes);
        }
        let mut found: [Option<&[u8]>; MAX_IMAGES] = [None; MAX_IMAGES];
        for (key, value) in states.iter() {
            if batch.lens >> (key.len() % 64) & 1 == 0 {
                continue;
            }
            let images = batch.images.iter().map_while(|i| *i);
            for (image, slot) in images.zip(found.iter_mut()) {
                if image.is(key) {
                    *slot = Some(value);
                }
            }
        }
        for raw in found.iter().flatten() {
            let state = ImageState::parse(raw).ok_or("malformed image state")?;
            sum = sum.wrapping_add(scaled_image_score(state, pod.total_nodes));
        }
        skip += MAX_IMAGES;
    }
    Ok(calculate_priority(sum, pod.containers as i64))
}

pub struct ImageLocality {
    pod: CycleState<PerPod>,
}

impl Plugin for ImageLocality {
    fn new() -> Self {
        ImageLocality {
            pod: CycleState::new(),
        }
    }
}

impl Score for ImageLocality {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let pod = self.pod.get(cx, |pod| {
            let total = cx.node_list().map_or(0, |l| l.items().count());
            PodImages::new(pod, total as i64)
        });
        match score(
            pod,
            cx.pod().unwrap_or(Pod::from_bytes(&[])),
            cx.image_states(),
        ) {
            // 0..=100 (int32 truncation as upstream for anything else).
            Ok(s) => Ok(s as i32),
            Err(why) => Err(Status::error(why)),
        }
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
    fn latest_is_implied_without_a_tag() {
        assert!(needs_latest(b"nginx"));
        assert!(needs_latest(b"docker.io/library/nginx"));
        assert!(needs_latest(b"localhost:5000/app"));
        assert!(!needs_latest(b"nginx:1.27"));
        assert!(!needs_latest(b"localhost:5000/app:v1"));
        assert!(!needs_latest(b"app@sha256:0123"));
        assert!(needs_latest(b""));
        assert!(!needs_latest(b"a:"));
    }

    #[test]
    fn priority_thresholds() {
        assert_eq!(calculate_priority(0, 1), 0);
        assert_eq!(calculate_priority(MIN_THRESHOLD, 1), 0);
        assert_eq!(calculate_priority(1000 * MIB, 1), 100);
        assert_eq!(calculate_priority(5000 * MIB, 1), 100);
        assert_eq!(calculate_priority(23 * MIB + 977 * MIB / 2, 1), 50);
        // No containers: max = 0 < min, the clamp gives min, the score 0.
        assert_eq!(calculate_priority(0, 0), 0);
        // sum 2000 MiB of max 3000 MiB: 100 × 1977 / 2977 = 66.
        assert_eq!(calculate_priority(2000 * MIB, 3), 66);
    }

    #[test]
    fn spread_scales_the_size() {
        let st = |size, num_nodes| ImageState { size, num_nodes };
        assert_eq!(scaled_image_score(st(1000, 1), 4), 250);
        assert_eq!(scaled_image_score(st(1000, 3), 3), 1000);
        assert_eq!(scaled_image_score(st(10, 1), 3), 3);
    }

    fn cycle(host: &TestHost, pod: PodBuilder) -> ImageLocality {
        host.set_pod(pod.build());
        let mut p = ImageLocality::new();
        host.new_cycle(&mut p);
        p
    }

    #[test]
    fn scores_follow_size_and_spread() {
        let host = TestHost::new();
        host.add_node(
            "a",
            NodeBuilder::new("a").image(&["app:v1"], 1000 * MIB).build(),
        );
        host.add_node(
            "b",
            NodeBuilder::new("b").image(&["app:v1"], 1000 * MIB).build(),
        );
        host.add_node("c", NodeBuilder::new("c").build());
        host.add_node(
            "d",
            NodeBuilder::new("d")
                .image(&["base:latest"], 4000 * MIB)
                .build(),
        );
        let mut p = cycle(
            &host,
            PodBuilder::new("p").container(C::new("x").image("app:v1")),
        );
        // 1000 MiB × 2/4 nodes = 500 MiB: 100 × 477 / 977 = 48.
        assert_eq!(host.score_node(&mut p, "a").0, 48);
        assert_eq!(host.score_node(&mut p, "b").0, 48);
        assert_eq!(host.score_node(&mut p, "c").0, 0);
        let mut p = cycle(
            &host,
            PodBuilder::new("p")
                .init_container(C::new("i").image("base"))
                .container(C::new("x").image("app:v1")),
        );
        // base: 4000 MiB × 1/4 = 1000 MiB of max 2000 MiB: 100 × 977 / 1977.
        assert_eq!(host.score_node(&mut p, "d").0, 49);
    }

    #[test]
    fn errors_where_upstream_fails() {
        let host = TestHost::new();
        let mut p = cycle(
            &host,
            PodBuilder::new("p").container(C::new("x").image("a")),
        );
        let (s, out) = host.score_node(&mut p, "n");
        assert_eq!(
            (s, out.code(), out.reason()),
            (0, Ok(Code::Error), "failed to list nodes")
        );
        host.add_node("n", NodeBuilder::new("n").build());
        let mut p = cycle(&host, PodBuilder::new("p").container(C::new("x")));
        assert_eq!(
            host.score_node(&mut p, "n").1.reason(),
            "container has no image"
        );
        let mut p = cycle(&host, PodBuilder::new("p"));
        assert_eq!(host.score_node(&mut p, "n").1.reason(), "pod has no spec");
        host.set_image_states("n", r#"{"a:latest":{"Size":"big"}}"#);
        let mut p = cycle(
            &host,
            PodBuilder::new("p").container(C::new("x").image("a")),
        );
        assert_eq!(
            host.score_node(&mut p, "n").1.reason(),
            "malformed image state"
        );
    }

    #[test]
    fn many_containers_take_the_slow_path_with_the_same_result() {
        let host = TestHost::new();
        host.add_node(
            "n",
            NodeBuilder::new("n")
                .image(&["app:latest"], 100 * MIB)
                .build(),
        );
        host.add_node("m", NodeBuilder::new("m").build());
        let pod = |n: usize| {
            let mut p = PodBuilder::new("p");
            for i in 0..n {
                p = p.container(C::new(&format!("c{i}")).image("app"));
            }
            p
        };
        // n containers of 50 MiB each (100 MiB × 1/2), max n × 1000 MiB.
        for n in [MAX_IMAGES, MAX_IMAGES + 1, 40] {
            let mut p = cycle(&host, pod(n));
            let want = calculate_priority(n as i64 * 50 * MIB, n as i64);
            assert_eq!(i64::from(host.score_node(&mut p, "n").0), want, "{n}");
        }
    }

    #[test]
    fn pod_is_read_once_per_cycle() {
        let host = TestHost::new();
        for n in ["a", "b", "c"] {
            host.add_node(n, NodeBuilder::new(n).image(&["x:1"], 500 * MIB).build());
        }
        let mut p = cycle(
            &host,
            PodBuilder::new("p").container(C::new("x").image("x:1")),
        );
        let scores: Vec<i32> = ["a", "b", "c"]
            .iter()
            .map(|n| host.score_node(&mut p, n).0)
            .collect();
        assert_eq!(scores, [48, 48, 48]);
        assert!(
            host.calls("nodeList") <= 2,
            "fetched once (plus one retry after growing)"
        );
        assert!(host.calls("currentPod") <= 2);
    }
}
