//! A loop decoding every field of a Pod, for profilers (`valgrind
//! --tool=callgrind` counts instructions deterministically, `perf record`):
//!
//! `cargo run --release -p kguest-bench --example decode_profile -- WAY OBJECT N`
//!
//! WAY: `views` (the `Reflect` walk, one pass per message, as the
//! `decode/<object>/all/views` benchmark), `accessors` (the same walk
//! through every accessor) or `prost` (k8s-pb's full decode); OBJECT: `pod`
//! or `upstream-pod`; N iterations (default 1,000).

use std::hint::black_box;

use kguest_bench::{walk_pod, walk_pod_accessors};
use prost::Message;

fn main() {
    let mut args = std::env::args().skip(1);
    let way = args.next().unwrap_or_else(|| "views".into());
    let object = args.next().unwrap_or_else(|| "pod".into());
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let inputs = kguest_bench::Inputs::load();
    let bytes = match object.as_str() {
        "pod" => inputs.pod.protobuf,
        "upstream-pod" => inputs.upstream_pod.protobuf,
        other => panic!("unknown object {other} (pod, upstream-pod)"),
    };
    let mut total = 0;
    for _ in 0..iterations {
        total += match way.as_str() {
            "views" => walk_pod(black_box(&bytes)).items,
            "accessors" => walk_pod_accessors(black_box(&bytes)).items,
            "prost" => {
                let pod =
                    k8s_pb::api::core::v1::Pod::decode(black_box(&bytes[..])).expect("decode");
                usize::from(pod.spec.is_some())
            }
            other => panic!("unknown way {other} (views, accessors, prost)"),
        };
    }
    println!("{total}");
}
