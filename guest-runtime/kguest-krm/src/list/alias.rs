//! Anchors and aliases under edits: an alias on an edit's path replaced by a
//! copy of what it reads, an edit of a node an alias reads refused.

use super::{ResourceList, State};
use crate::edit::{self, EditError};
use crate::emit::Value;
use crate::node::{Bytes, Kind, Node};
use crate::sys::Arena;
use crate::yaml::{Doc, Style};

impl<'a> ResourceList<'a> {
    /// Readies item `index` for an edit at `path`: each alias on the way
    /// to the last segment is replaced by a copy of the node its anchor
    /// marks; refused when the edit would change an anchored node an alias
    /// elsewhere reads (a node on the path, or any below the path's end
    /// when it exists: that one is replaced or removed).
    pub(super) fn prepare(&mut self, index: usize, path: &[&str]) -> Result<(), EditError> {
        let parents = path.len().saturating_sub(1);
        // Each round but the last replaces one alias.
        'round: for _ in 0..=parents {
            let root = self.target(index)?;
            let mut node = root;
            for (i, seg) in path.iter().enumerate() {
                self.guard_node(node, None)?;
                let Some(child) = node.child(seg) else {
                    return Ok(());
                };
                if i < parents && child.kind() == Kind::Alias {
                    let anchored = self.resolve(index, child).ok_or(EditError::UnknownAlias)?;
                    let copy = dedent(self.arena, anchored).ok_or(EditError::OutOfMemory)?;
                    let to = path.get(..=i).unwrap_or(&[]);
                    let splice = edit::set(root, to, Value::Yaml(copy))?;
                    self.commit(index, root, &splice)?;
                    continue 'round;
                }
                node = child;
            }
            return self.guard_subtree(node, None);
        }
        Err(EditError::UnknownAlias)
    }

    /// The node the alias `alias` of item `index` reads: the last node
    /// before it with its anchor, in the item, then in the list before it.
    fn resolve(&self, index: usize, alias: Node<'a>) -> Option<Node<'a>> {
        let slot = *self.slots.get(index)?;
        let name = alias.alias()?;
        // An original item is in the list's text; an edited one is its own.
        last_anchor(slot.doc, alias.idx, name, self.arena)
            .or_else(|| last_anchor(self.doc, slot.entry, name, self.arena))
    }

    pub(super) fn guard_subtree(
        &self,
        node: Node<'a>,
        skip: Option<usize>,
    ) -> Result<(), EditError> {
        let (from, to) = (node.idx, node.raw().next);
        for idx in from..to {
            self.guard_node(Node::new(node.doc, idx, self.arena), skip)?;
        }
        Ok(())
    }

    fn guard_node(&self, node: Node<'a>, skip: Option<usize>) -> Result<(), EditError> {
        match node.anchor() {
            Some(name) if self.aliased(name, skip) => {
                Err(EditError::Aliased(edit::Refusal::new(name)))
            }
            _ => Ok(()),
        }
    }

    /// True when an alias of `name` is in the output (outside item `skip`).
    fn aliased(&self, name: &str, skip: Option<usize>) -> bool {
        let (items_from, items_to) = match self.items {
            Some((_, v)) => (v.idx, v.raw().next),
            None => (0, 0),
        };
        if has_alias(self.doc, 0, items_from, name) || has_alias(self.doc, items_to, u32::MAX, name)
        {
            return true;
        }
        self.slots.as_slice().iter().enumerate().any(|(i, slot)| {
            if Some(i) == skip {
                return false;
            }
            match slot.state {
                State::Removed => false,
                State::Original => {
                    let end = self.doc.tape.get(slot.entry as usize).map_or(0, |r| r.next);
                    has_alias(self.doc, slot.entry, end, name)
                }
                State::Edited | State::Added => has_alias(slot.doc, 0, u32::MAX, name),
            }
        })
    }
}

/// The last node of `doc` before record `to` that has the anchor `name`.
fn last_anchor<'a>(doc: Doc<'a>, to: u32, name: &str, arena: &'a Arena) -> Option<Node<'a>> {
    let mut idx = to.min(doc.tape.len() as u32);
    while idx > 0 {
        idx -= 1;
        let node = Node::new(doc, idx, arena);
        if node.style() != Style::Entry && node.anchor() == Some(name) {
            return Some(node);
        }
    }
    None
}

/// True when records `from..to` of `doc` hold an alias of `name`.
fn has_alias(doc: Doc<'_>, from: u32, to: u32, name: &str) -> bool {
    let text = doc.text;
    let to = (to as usize).min(doc.tape.len());
    doc.tape.get(from as usize..to).is_some_and(|records| {
        records.iter().any(|r| {
            r.style == Style::Alias
                && text.get(r.start as usize + 1..r.end as usize) == Some(name.as_bytes())
        })
    })
}

/// A copy of `node`'s text as a block at column 0 (its first line as it
/// is, later lines less the node's column), to write where an alias was.
fn dedent<'a>(arena: &'a Arena, node: Node<'_>) -> Option<&'a str> {
    let (start, end) = node.span();
    let text = node.doc.text.get(start as usize..end as usize)?;
    let col = node.column();
    let mut out = Bytes::new(arena)?;
    // Spaces still to drop at the start of the current line.
    let mut drop = 0;
    for &c in text {
        if c == b' ' && drop > 0 {
            drop -= 1;
            continue;
        }
        drop = if c == b'\n' { col } else { 0 };
        if !out.push(c) {
            return None;
        }
    }
    core::str::from_utf8(out.finish()).ok()
}
