//! Arbitrary bytes as a Pod (first byte even) or a Node (odd), decoded by the
//! views and by prost-reflect's `DynamicMessage`:
//!
//! - `validate()` accepts exactly what prost-reflect accepts, except the two
//!   documented deviations (unknown groups, which kguest rejects; map fields
//!   with a non-length-delimited wire type, which prost-reflect 0.16 reads);
//! - when both accept, and no singular message field occurs twice at any
//!   depth (the documented split-message deviation), the tree the views read
//!   through `Reflect` equals prost-reflect's tree.

#![no_main]

use kguest_k8s::api::core::v1::{Node, Pod};
use kguest_test_support::deviations::{
    group_key_at, has_split_message, map_with_wrong_wire_type_at,
};
use kguest_test_support::diff::hex_prefix;
use kguest_test_support::oracle::{first_difference, reference_decode, reference_tree, view_tree};
use kguest_wire::reflect::Reflect;
use kguest_wire::{ErrorKind, View};
use libfuzzer_sys::fuzz_target;

fn check<'a, V: View<'a> + Reflect<'a>>(bytes: &'a [u8]) {
    let schema = V::SCHEMA;
    let name = schema.name();
    let view = V::from_bytes(bytes);
    let ours = view.validate();
    let theirs = reference_decode(name, bytes);
    let reference = match (ours, theirs) {
        (Ok(()), Ok(reference)) => reference,
        (Err(_), Err(_)) => return,
        (Err(err), Ok(_)) => {
            let documented = (err.kind == ErrorKind::InvalidWireType
                && group_key_at(bytes, err.offset))
                || map_with_wrong_wire_type_at(schema, bytes, err.offset);
            assert!(
                documented,
                "{name}: validate() fails ({err}, {:?}) but prost-reflect accepts\n{}",
                err.kind,
                hex_prefix(bytes, 256)
            );
            return;
        }
        (Ok(()), Err(theirs)) => panic!(
            "{name}: validate() accepts but prost-reflect fails: {theirs}\n{}",
            hex_prefix(bytes, 256)
        ),
    };
    if has_split_message(schema, bytes) {
        return;
    }
    let ours = view_tree(&view);
    if let Some(diff) = first_difference(Some(schema), "", &ours, &reference_tree(&reference)) {
        panic!(
            "{name}: both accept, but {diff}\n{}",
            hex_prefix(bytes, 256)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    if selector % 2 == 0 {
        check::<Pod>(rest);
    } else {
        check::<Node>(rest);
    }
});
