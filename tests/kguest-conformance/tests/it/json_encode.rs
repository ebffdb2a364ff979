//! Every upstream fixture's `.json`, encoded with the JSON front-end, gives
//! exactly the bytes Kubernetes' Go marshaller wrote into the fixture's `.pb`:
//! the object's raw message and the whole enveloped file.

use kguest_k8s::envelope;
use kguest_k8s_io::json::{EncodedObject, from_json, object_from_json};

use crate::fixtures;

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

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
                let at = first_difference(&object.raw, expected.raw);
                let around = |b: &[u8]| b[at.saturating_sub(8)..(at + 8).min(b.len())].to_vec();
                return Err(format!(
                    "raw differs at byte {at} (ours {} B, Go {} B): ours {:02x?} Go {:02x?}",
                    object.raw.len(),
                    expected.raw.len(),
                    around(&object.raw),
                    around(expected.raw),
                ));
            }
            if object.enveloped() != fixture.pb {
                return Err("envelope differs".into());
            }
            Ok(())
        },
    );
}
