//! kguest-krm natively: the YAML reader against serde_norway, edits byte
//! for byte, ResourceLists end to end through `testing::run`, and the
//! scope table against k8s-openapi.

mod anchors;
mod edit;
mod list;
mod scope;
#[cfg(feature = "views")]
mod views;
mod yaml;

use kguest_krm::{Arena, Node};

/// A fresh arena for `text`.
pub fn arena() -> Arena {
    Arena::with_capacity(64 << 20)
}

/// Parses `text` or panics with the error.
pub fn parse<'a>(arena: &'a Arena, text: &'a str) -> Node<'a> {
    match kguest_krm::yaml::parse(arena, text.as_bytes(), 0) {
        Ok(doc) => doc.root(arena),
        Err(e) => panic!("{} at {} in {text:?}", e.what, e.at),
    }
}
