//! Loading the input: parsing and checking a ResourceList, and why one is
//! refused.

use super::report::{Rec, Severity};
use super::vector::Vector;
use super::{ResourceList, Slot, State};
use crate::node::{Kind, Node};
use crate::sys::Arena;
use crate::yaml::{self, ParseError, line_start};

/// Why an input is not a ResourceList this SDK can work on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub what: &'static str,
    /// Byte offset in the input, when the problem has a place.
    pub at: Option<u32>,
    /// Index of the item at fault.
    pub item: Option<u32>,
}

impl LoadError {
    fn at(what: &'static str, at: u32) -> Self {
        LoadError {
            what,
            at: Some(at),
            item: None,
        }
    }

    fn item(what: &'static str, at: u32, item: usize) -> Self {
        LoadError {
            what,
            at: Some(at),
            item: Some(item as u32),
        }
    }

    /// `line L, column C` of the error in `text` (both from 1).
    pub fn line_column(&self, text: &[u8]) -> Option<(u32, u32)> {
        let at = self.at?.min(text.len() as u32);
        let before = text.get(..at as usize)?;
        let line = before.iter().filter(|&&c| c == b'\n').count() as u32 + 1;
        let col = at - line_start(text, at) + 1;
        Some((line, col))
    }
}

impl From<ParseError> for LoadError {
    fn from(e: ParseError) -> Self {
        LoadError::at(e.what, e.at)
    }
}

const API_GROUP: &str = "config.kubernetes.io/";

impl<'a> ResourceList<'a> {
    /// Parses and checks a ResourceList: a mapping with `kind:
    /// ResourceList`, `apiVersion: config.kubernetes.io/*` and `items`, a
    /// sequence of mappings that each have `apiVersion` and `kind`.
    pub fn parse(arena: &'a Arena, text: &'a [u8]) -> Result<ResourceList<'a>, LoadError> {
        if core::str::from_utf8(text).is_err() {
            return Err(LoadError::at("input is not UTF-8", 0));
        }
        if let Some(at) = text.iter().position(|&c| c == 0) {
            return Err(LoadError::at("input holds a NUL byte", at as u32));
        }
        let doc = yaml::parse(arena, text, 0)?;
        let root = Node::new(doc, 0, arena);
        if !root.is_map() {
            return Err(LoadError::at(
                "not a ResourceList: the input is not a mapping",
                root.span().0,
            ));
        }
        let kind = root.get("kind");
        if !kind.is_some_and(|k| k.is_str("ResourceList")) {
            return Err(LoadError::at(
                "not a ResourceList: `kind` is not ResourceList",
                kind.map_or(0, |k| k.span().0),
            ));
        }
        let version = root.get("apiVersion");
        if !version
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.starts_with(API_GROUP))
        {
            return Err(LoadError::at(
                "not a ResourceList: `apiVersion` is not config.kubernetes.io/*",
                version.map_or(0, |k| k.span().0),
            ));
        }
        let items = root.entries().find(|(k, _)| k.is_str("items"));
        let count = items.map_or(0, |(_, v)| v.len());
        let mut slots = Vector::with_capacity(
            arena,
            count + 4,
            Slot {
                doc,
                root: 0,
                entry: 0,
                state: State::Original,
            },
        )
        .ok_or(LoadError::at("out of memory", 0))?;
        if let Some((_, v)) = items {
            match v.kind() {
                Kind::Null => {}
                Kind::Seq => {
                    let mut it = v.iter();
                    let mut i = 0;
                    while let Some(e) = it.next_entry() {
                        let node = Node::new(doc, e.idx + 1, arena);
                        check_item(node, i)?;
                        let ok = slots.push(
                            arena,
                            Slot {
                                doc,
                                root: e.idx + 1,
                                entry: e.idx,
                                state: State::Original,
                            },
                        );
                        if !ok {
                            return Err(LoadError::at("out of memory", 0));
                        }
                        i += 1;
                    }
                }
                _ => return Err(LoadError::at("`items` is not a sequence", v.span().0)),
            }
        }
        let results = Vector::with_capacity(
            arena,
            8,
            Rec {
                severity: Severity::Info,
                message: "",
                field: None,
                item: None,
            },
        )
        .ok_or(LoadError::at("out of memory", 0))?;
        Ok(ResourceList {
            arena,
            doc,
            items,
            slots,
            results,
            errors: 0,
        })
    }
}

/// Checks that `node` is a resource: a mapping with scalar `apiVersion`
/// and `kind`.
pub(super) fn check_item(node: Node<'_>, i: usize) -> Result<(), LoadError> {
    let at = node.span().0;
    if !node.is_map() {
        return Err(LoadError::item("item is not a mapping", at, i));
    }
    let scalar = |k: &str| {
        node.get(k)
            .and_then(|n| n.as_str())
            .is_some_and(|s| !s.is_empty())
    };
    if !scalar("apiVersion") {
        return Err(LoadError::item("item has no apiVersion", at, i));
    }
    if !scalar("kind") {
        return Err(LoadError::item("item has no kind", at, i));
    }
    Ok(())
}
