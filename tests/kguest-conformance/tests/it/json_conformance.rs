//! Every upstream fixture's `.pb`, decoded through the views and written as
//! JSON, equals the fixture's `.json`.
//!
//! Equality is semantic, as upstream's round-trip test compares decoded Go
//! objects: a member whose value is empty (`null`, `""`, `0`, `false`, `[]`,
//! `{}`) is the same as an absent one, because protobuf writes Go's
//! non-pointer zero values while JSON's `omitempty` drops them.

use kguest_k8s::envelope;
use kguest_k8s_io::json::object_to_json;
use kguest_test_support::fixtures;
use kguest_test_support::json::{first_difference, without_empty};

#[test]
fn every_fixture_decodes_to_its_json() {
    fixtures::check_every(
        "views -> JSON conformance",
        "equal their upstream .json",
        |fixture| {
            let env = envelope::unwrap(&fixture.pb).map_err(|e| e.as_str().to_string())?;
            let ours = object_to_json(env.api_version, env.kind, fixture.schema(), env.raw)
                .map_err(|e| e.to_string())?;
            let (ours, theirs) = (without_empty(&ours), without_empty(&fixture.json));
            match first_difference("", &ours, &theirs) {
                None => Ok(()),
                Some((path, a, b)) => Err(format!("{path}: views give {a}, fixture has {b}")),
            }
        },
    );
}
