//! Every upstream fixture's `.json`, encoded with the JSON front-end, gives
//! exactly the bytes Kubernetes' Go marshaller wrote into the fixture's `.pb`:
//! the object's raw message and the whole enveloped file.

use kguest_k8s::envelope;
use kguest_k8s_io::json::{EncodedObject, from_json, object_from_json};

use kguest_test_support::diff::byte_difference_in_hex;
use kguest_test_support::fixtures;

#[test]
fn every_fixture_json_encodes_to_its_pb() {
    fixtures::check_every(
        "JSON -> protobuf",
        "byte-identical to upstream .pb",
        |fixture| {
            let expected = envelope::unwrap(&fixture.pb).expect("fixture envelope");
            // Objects with a type in their JSON go through the top-level entry
            // point; the rest (WatchEvent) name their message explicitly.
            let object = if fixture.json.get("apiVersion").is_some() {
                object_from_json(&fixture.json)
            } else {
                from_json(fixture.schema(), &fixture.json).map(|raw| EncodedObject {
                    api_version: expected.api_version.into(),
                    kind: expected.kind.into(),
                    raw,
                })
            }
            .map_err(|err| format!("encode error: {err}"))?;
            if object.raw != expected.raw {
                return Err(format!(
                    "raw {}",
                    byte_difference_in_hex(&object.raw, expected.raw, "Go")
                ));
            }
            if object.enveloped() != fixture.pb {
                return Err("envelope differs".into());
            }
            Ok(())
        },
    );
}
