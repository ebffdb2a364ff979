//! Arbitrary bytes as five large view types (Pod, Node, Deployment,
//! PersistentVolume, apidiscovery v2 APIGroupDiscovery): every field read
//! (every repeated field and map iterated) in one pass per message and
//! through the generated accessors, `validate()` and `to_json`. Nothing may
//! panic; both reads make the same visitor calls; `to_json` succeeds only on
//! input that validates, and on input that validates it either succeeds or
//! reports a value with no JSON form (`JsonError::Unrepresentable`).

#![no_main]

use kguest_json::JsonError;
use kguest_k8s::api::apidiscovery::v2::APIGroupDiscovery;
use kguest_k8s::api::apps::v1::Deployment;
use kguest_k8s::api::core::v1::{Node, PersistentVolume, Pod};
use kguest_test_support::diff::hex_prefix;
use kguest_test_support::walk::{Walk, same_calls};
use kguest_wire::View;
use kguest_wire::reflect::Reflect;
use libfuzzer_sys::fuzz_target;

fn check<'a, V: View<'a> + Reflect<'a>>(bytes: &'a [u8]) {
    let view = V::from_bytes(bytes);
    let mut walk = Walk::default();
    view.reflect(&mut walk);
    std::hint::black_box(walk.items);
    if let Err(diff) = same_calls(&view) {
        panic!(
            "{}: one-pass read differs from the accessors: {diff}\n{}",
            V::SCHEMA.name(),
            hex_prefix(bytes, 256)
        );
    }

    let valid = view.validate();
    let json = kguest_k8s_io::json::to_json(V::SCHEMA, bytes);
    match (&valid, &json) {
        // Documented (`JsonError::Unrepresentable`): well-formed protobuf
        // whose value has no Kubernetes JSON form (a quantity string that
        // does not parse, a time outside years 1..=9999, embedded JSON that
        // does not parse). Go's decoder rejects those values too.
        (Ok(()), Err(JsonError::Unrepresentable { .. })) => {}
        (Ok(()), Err(err)) => panic!(
            "{}: validate() accepts but to_json fails: {err}\n{}",
            V::SCHEMA.name(),
            hex_prefix(bytes, 256)
        ),
        (Err(err), Ok(_)) => panic!(
            "{}: validate() fails ({err}) but to_json succeeds\n{}",
            V::SCHEMA.name(),
            hex_prefix(bytes, 256)
        ),
        _ => {}
    }
    if let Ok(json) = json {
        // The JSON must be serializable text.
        std::hint::black_box(serde_json::to_vec(&json).expect("JSON serializes"));
    }
}

fuzz_target!(|data: &[u8]| {
    check::<Pod>(data);
    check::<Node>(data);
    check::<Deployment>(data);
    check::<PersistentVolume>(data);
    check::<APIGroupDiscovery>(data);
});
