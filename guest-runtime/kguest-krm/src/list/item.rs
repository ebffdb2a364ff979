//! [`Item`]: one resource of the list, read in place.

use crate::node::Node;

/// One resource of the list (a `Copy` handle).
///
/// A snapshot: it shows the item as it was when it was fetched. After an
/// edit ([`ResourceList::set`](super::ResourceList::set) and friends)
/// fetch it again with [`ResourceList::item`](super::ResourceList::item);
/// the old handle still reads the old text.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    pub(super) node: Node<'a>,
    pub(super) index: usize,
}

impl<'a> Item<'a> {
    /// Position in the list (stable: removing an item does not renumber).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The whole resource.
    pub fn node(&self) -> Node<'a> {
        self.node
    }

    pub fn api_version(&self) -> &'a str {
        self.node
            .get("apiVersion")
            .and_then(|n| n.as_str())
            .unwrap_or("")
    }

    pub fn kind(&self) -> &'a str {
        self.node.get("kind").and_then(|n| n.as_str()).unwrap_or("")
    }

    /// The API group (`apps`; `""` for the core group).
    pub fn group(&self) -> &'a str {
        match crate::bytes::split_once(self.api_version(), b'/') {
            Some((g, _)) => g,
            None => "",
        }
    }

    pub fn metadata(&self) -> Option<Node<'a>> {
        self.node.get("metadata")
    }

    pub fn name(&self) -> Option<&'a str> {
        self.metadata()?.get("name")?.as_str()
    }

    pub fn namespace(&self) -> Option<&'a str> {
        self.metadata()?.get("namespace")?.as_str()
    }

    pub fn annotation(&self, key: &str) -> Option<&'a str> {
        self.metadata()?.get("annotations")?.get(key)?.as_str()
    }

    pub fn label(&self, key: &str) -> Option<&'a str> {
        self.metadata()?.get("labels")?.get(key)?.as_str()
    }

    /// The node at `path` (see [`Node::path`]).
    pub fn get(&self, path: &[&str]) -> Option<Node<'a>> {
        self.node.path(path)
    }

    /// True for `kind` in the core group or `group`.
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.kind() == kind && self.group() == group
    }
}
