//! Every upstream fixture's `.json`, encoded with the JSON front-end, gives
//! exactly the bytes Kubernetes' Go marshaller wrote into the fixture's `.pb`:
//! the object's raw message and the whole enveloped file.

use kguest_k8s::envelope;
use kguest_k8s::json::{EncodedObject, from_json, object_from_json};

use crate::fixtures;

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[test]
fn every_fixture_json_encodes_to_its_pb() {
    let fixtures = fixtures::all();
    let mut failures = Vec::new();
    for fixture in &fixtures {
        let expected = envelope::unwrap(&fixture.pb).expect("fixture envelope");
        // Objects with a type in their JSON go through the top-level entry
        // point; the rest (WatchEvent) name their message explicitly.
        let result = if fixture.json.get("apiVersion").is_some() {
            object_from_json(&fixture.json)
        } else {
            from_json(fixture.schema(), &fixture.json).map(|raw| EncodedObject {
                api_version: expected.api_version.into(),
                kind: expected.kind.into(),
                raw,
            })
        };
        let message = match result {
            Err(err) => Some(format!("encode error: {err}")),
            Ok(obj) if obj.raw != expected.raw => {
                let at = first_difference(&obj.raw, expected.raw);
                Some(format!(
                    "raw differs at byte {at} (ours {} B, Go {} B): ours {:02x?} Go {:02x?}",
                    obj.raw.len(),
                    expected.raw.len(),
                    &obj.raw[at.saturating_sub(8)..(at + 8).min(obj.raw.len())],
                    &expected.raw[at.saturating_sub(8)..(at + 8).min(expected.raw.len())],
                ))
            }
            Ok(obj) if obj.enveloped() != fixture.pb => Some("envelope differs".to_string()),
            Ok(_) => None,
        };
        if let Some(message) = message {
            failures.push(format!("{}: {message}", fixture.name));
        }
    }
    let passed = fixtures.len() - failures.len();
    println!(
        "JSON -> protobuf: {passed}/{} fixtures byte-identical to upstream .pb",
        fixtures.len()
    );
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
