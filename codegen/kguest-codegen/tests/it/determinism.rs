//! The same input always gives byte-identical output.

use prost::Message as _;
use prost_types::FileDescriptorSet;

use crate::util::{PROTOS, config, config_with};

#[test]
fn generating_twice_gives_identical_files() {
    let first = config().generate().unwrap();
    let second = config().generate().unwrap();
    assert_eq!(first, second);
    // A Config can be reused.
    let config = config();
    assert_eq!(config.generate().unwrap(), first);
    assert_eq!(config.generate().unwrap(), first);
}

#[test]
fn fresh_descriptor_sets_give_identical_files() {
    let config = config();
    let first = config.compile().unwrap();
    let second = config.compile().unwrap();
    assert_eq!(first, second);
    let expected = config.generate().unwrap();
    assert_eq!(config.generate_from(&first).unwrap(), expected);
    assert_eq!(config.generate_from(&second).unwrap(), expected);

    // Through bytes, as `protoc --descriptor_set_out` would hand it over.
    let decoded = FileDescriptorSet::decode(first.encode_to_vec().as_slice()).unwrap();
    assert_eq!(config.generate_from(&decoded).unwrap(), expected);
}

#[test]
fn file_order_and_implied_imports_do_not_matter() {
    let expected = config().generate().unwrap();
    let reversed = config_with(PROTOS.iter().rev().copied());
    assert_eq!(reversed.generate().unwrap(), expected);
    // kt/ab/c.proto imports every other file, directly or not; imports are
    // generated too.
    let leaf_only = config_with(["kt/ab/c.proto"]);
    assert_eq!(leaf_only.generate().unwrap(), expected);
}
