//! `CycleState`: pod-derived data computed once per scheduling cycle.

use kguest::k8s::api::core::v1::Pod;
use kguest::testing::TestHost;
use kguest::testing::proto::{ContainerBuilder, PodBuilder};
use kguest::*;

/// The pod's container images, borrowed from the Pod's bytes.
struct Images;

#[derive(Clone, Copy)]
struct ImageList<'p> {
    names: [&'p str; 4],
    len: usize,
}

impl PerCycle for Images {
    type Data<'p> = ImageList<'p>;

    fn shorten<'a, 'b: 'a>(data: &'a ImageList<'b>) -> &'a ImageList<'a> {
        data
    }
}

fn images(pod: Pod<'_>) -> ImageList<'_> {
    let mut list = ImageList {
        names: [""; 4],
        len: 0,
    };
    for c in pod.spec().into_iter().flat_map(|s| s.containers()) {
        if let Some(slot) = list.names.get_mut(list.len) {
            *slot = c.image().unwrap_or("");
            list.len += 1;
        }
    }
    list
}

struct Probe {
    images: CycleState<Images>,
    count: CycleState<Owned<u32>>,
    inits: u32,
}

impl Plugin for Probe {
    fn new() -> Self {
        Probe {
            images: CycleState::new(),
            count: CycleState::new(),
            inits: 0,
        }
    }
}

impl Score for Probe {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let inits = &mut self.inits;
        let list = self.images.get(cx, |pod| {
            *inits += 1;
            images(pod)
        });
        // The node name picks an image; the score is its length.
        let i: usize = cx.node_name().parse().unwrap_or(0);
        let image = list.names.get(i).copied().unwrap_or("");
        let n = *self.count.get(cx, |pod| images(pod).len as u32);
        Ok((image.len() as i32) * 10 + n as i32)
    }
}

fn pod(images: &[&str]) -> Vec<u8> {
    let mut p = PodBuilder::new("p");
    for (i, image) in images.iter().enumerate() {
        p = p.container(ContainerBuilder::new(&format!("c{i}")).image(image));
    }
    p.build()
}

#[test]
fn computed_once_per_cycle_and_read_in_later_calls() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_pod(pod(&["a", "bb", "ccc"]));
    host.new_cycle(&mut p);
    let scores: Vec<i32> = ["0", "1", "2", "3"]
        .iter()
        .map(|n| host.score_node(&mut p, n).0)
        .collect();
    assert_eq!(scores, [13, 23, 33, 3]);
    assert_eq!(p.inits, 1);
    // The next cycle's pod replaces the bytes: the state is recomputed.
    host.set_pod(pod(&["dddd"]));
    host.new_cycle(&mut p);
    assert_eq!(host.score_node(&mut p, "0").0, 41);
    assert_eq!(host.score_node(&mut p, "1").0, 1);
    assert_eq!(p.inits, 2);
}

#[test]
fn peek_and_clear() {
    struct Peek(CycleState<Owned<u8>>);
    impl Plugin for Peek {
        fn new() -> Self {
            Peek(CycleState::new())
        }
    }
    impl Filter for Peek {
        fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
            match cx.node_name() {
                "peek" if self.0.peek(cx).is_some() => Status::success(),
                "peek" => Status::unschedulable("not computed"),
                "clear" => {
                    self.0.clear();
                    Status::success()
                }
                _ => {
                    self.0.get(cx, |_| 7);
                    Status::success()
                }
            }
        }
    }
    let host = TestHost::new();
    let mut p = Peek::new();
    host.new_cycle(&mut p);
    assert!(!host.filter_node(&mut p, "peek").is_success());
    host.filter_node(&mut p, "get");
    assert!(host.filter_node(&mut p, "peek").is_success());
    host.new_cycle(&mut p);
    assert!(
        !host.filter_node(&mut p, "peek").is_success(),
        "stale after a new cycle"
    );
    host.filter_node(&mut p, "get");
    host.filter_node(&mut p, "clear");
    assert!(!host.filter_node(&mut p, "peek").is_success());
}

#[test]
fn a_fresh_test_host_is_a_new_cycle() {
    let host = TestHost::new();
    let mut p = Probe::new();
    host.set_pod(pod(&["a"]));
    assert_eq!(host.score_node(&mut p, "0").0, 11);
    let host = TestHost::new();
    host.set_pod(pod(&["xyz"]));
    assert_eq!(host.score_node(&mut p, "0").0, 31);
    assert_eq!(p.inits, 2);
}

#[test]
fn no_pod_is_an_empty_view() {
    let host = TestHost::new();
    let mut p = Probe::new();
    assert_eq!(host.score_node(&mut p, "0").0, 0);
}
