//! A loop encoding the realistic Pod and Node with the k8s-openapi front-end,
//! for profilers (`perf record`, `valgrind --tool=callgrind`):
//! `cargo run --release -p kguest-bench --example encode_profile -- 20000`.

use kguest_k8s_encode::Encode;

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let load = |name: &str| -> serde_json::Value {
        let path = std::path::PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
        )
        .join("../data")
        .join(name);
        let text = std::fs::read_to_string(&path).expect("sample object");
        serde::Deserialize::deserialize(serde_norway::Deserializer::from_str(&text)).expect("YAML")
    };
    let pod: k8s_openapi::api::core::v1::Pod =
        serde_json::from_value(load("pod.yaml")).expect("pod");
    let node: k8s_openapi::api::core::v1::Node =
        serde_json::from_value(load("node.yaml")).expect("node");
    let mut total = 0;
    for _ in 0..iterations {
        total += pod.encode_to_vec().len() + node.encode_to_vec().len();
    }
    println!("{total}");
}
