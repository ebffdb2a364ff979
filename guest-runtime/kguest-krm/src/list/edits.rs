//! Edits: setting and deleting fields of an item, removing and adding items
//! (each a splice of the item's text, parsed back), and the same for a whole text.

use super::load::check_item;
use super::{ResourceList, Slot, State};
use crate::edit::{self, EditError, Splice};
use crate::emit::{self, Value};
use crate::node::{Bytes, Node};
use crate::sys::Arena;
use crate::yaml::{self, Style, line_end};

impl<'a> ResourceList<'a> {
    /// Sets the field at `path` of item `index` to `value`, creating the
    /// mappings on the way; every other byte of the item stays as it was.
    ///
    /// An edit changes only its target. An alias (`*name`) on the way to
    /// it is first replaced by the content of the node its anchor marks
    /// (the anchored node and what else reads it stay as they were); an
    /// edit of an anchored node (`&name`) that an alias elsewhere reads is
    /// refused with [`EditError::Aliased`].
    ///
    /// [`Item`](super::Item)s and [`Node`]s taken before the edit still
    /// show the item as it was: read it again with [`ResourceList::item`].
    pub fn set(&mut self, index: usize, path: &[&str], value: Value<'_>) -> Result<(), EditError> {
        self.prepare(index, path)?;
        let node = self.target(index)?;
        let splice = edit::set(node, path, value)?;
        self.commit(index, node, &splice)
    }

    /// Removes the field (or sequence element) at `path` of item `index`;
    /// false when there was nothing there. Aliases and anchors on the way
    /// are treated as by [`ResourceList::set`].
    pub fn delete(&mut self, index: usize, path: &[&str]) -> Result<bool, EditError> {
        self.prepare(index, path)?;
        let mut found = true;
        self.edit(index, |node| match edit::delete(node, path)? {
            Some(s) => Ok(s),
            None => {
                found = false;
                Err(EditError::NoSuchItem)
            }
        })
        .or_else(|e| if found { Err(e) } else { Ok(()) })?;
        Ok(found)
    }

    fn edit<'p>(
        &mut self,
        index: usize,
        f: impl FnOnce(Node<'a>) -> Result<Splice<'p>, EditError>,
    ) -> Result<(), EditError> {
        let node = self.target(index)?;
        let splice = f(node)?;
        self.commit(index, node, &splice)
    }

    /// Item `index` to edit.
    pub(super) fn target(&self, index: usize) -> Result<Node<'a>, EditError> {
        let slot = *self.slots.get(index).ok_or(EditError::NoSuchItem)?;
        if slot.state == State::Removed {
            return Err(EditError::Removed);
        }
        Ok(Node::new(slot.doc, slot.root, self.arena))
    }

    /// Applies `splice` to item `index`, whose node is `node`, and parses
    /// the result back.
    #[inline(never)]
    pub(super) fn commit(
        &mut self,
        index: usize,
        node: Node<'a>,
        splice: &Splice<'_>,
    ) -> Result<(), EditError> {
        let arena = self.arena;
        let (a, _) = node.span();
        let b = extent_end(node);
        if splice.start < a || splice.end > b || splice.start > splice.end {
            return Err(EditError::BadYaml);
        }
        let first_col = node.column();
        let mut out = Bytes::new(arena).ok_or(EditError::OutOfMemory)?;
        if !edit::apply(&mut out, node.doc.text, a, b, splice) {
            return Err(EditError::OutOfMemory);
        }
        let text = out.finish();
        let doc = yaml::parse(arena, text, first_col).map_err(|e| {
            if e.what == "out of memory" {
                EditError::OutOfMemory
            } else {
                EditError::BadYaml
            }
        })?;
        if !Node::new(doc, 0, arena).is_map() {
            return Err(EditError::BadYaml);
        }
        if let Some(s) = self.slots.get_mut(index) {
            s.doc = doc;
            s.root = 0;
            if s.state == State::Original {
                s.state = State::Edited;
            }
        }
        Ok(())
    }

    /// Removes item `index` from the output; refused with
    /// [`EditError::Aliased`] when an alias elsewhere reads an anchor the
    /// item defines.
    pub fn remove(&mut self, index: usize) -> Result<(), EditError> {
        let slot = *self.slots.get(index).ok_or(EditError::NoSuchItem)?;
        if slot.state == State::Removed {
            return Err(EditError::Removed);
        }
        let root = Node::new(slot.doc, slot.root, self.arena);
        self.guard_subtree(root, Some(index))?;
        if let Some(s) = self.slots.get_mut(index) {
            s.state = State::Removed;
        }
        Ok(())
    }

    /// Appends a resource given as YAML (a block mapping at column 0, or a
    /// flow mapping); returns its index.
    pub fn add(&mut self, yaml_text: &str) -> Result<usize, EditError> {
        let arena = self.arena;
        if self.items.is_none() {
            return Err(EditError::NoItems);
        }
        let col = match self.items.map(|(_, v)| v) {
            Some(v) if v.style() == Style::BlockSeq => v.column(),
            Some(v) if v.style() == Style::FlowSeq && !v.is_empty() => {
                return Err(EditError::FlowStyle);
            }
            _ => {
                if self.root().style() == Style::FlowMap {
                    return Err(EditError::FlowStyle);
                }
                self.root().column()
            }
        };
        let mut out = Bytes::new(arena).ok_or(EditError::OutOfMemory)?;
        let body = crate::bytes::trim_newlines(yaml_text);
        for (i, line) in crate::bytes::lines(body).enumerate() {
            let ok = (i == 0
                || (out.push(b'\n')
                    && (crate::bytes::is_blank(line) || emit::spaces(&mut out, col + 2))))
                && out.extend(line.as_bytes());
            if !ok {
                return Err(EditError::OutOfMemory);
            }
        }
        let text = out.finish();
        let doc = yaml::parse(arena, text, col + 2).map_err(|_| EditError::BadYaml)?;
        let node = Node::new(doc, 0, arena);
        if check_item(node, 0).is_err() {
            return Err(EditError::NotAResource);
        }
        let index = self.slots.len;
        let ok = self.slots.push(
            arena,
            Slot {
                doc,
                root: 0,
                entry: 0,
                state: State::Added,
            },
        );
        if ok {
            Ok(index)
        } else {
            Err(EditError::OutOfMemory)
        }
    }
}

/// Where an item's text ends for editing: the end of its last line
/// (trailing comment included), or its `}` for a flow mapping.
pub(super) fn extent_end(node: Node<'_>) -> u32 {
    let (_, e) = node.span();
    if node.style() == Style::FlowMap {
        e
    } else {
        line_end(node.doc.text, e)
    }
}

/// Sets `path` in a whole YAML text (not a ResourceList item): the text
/// with one splice applied, checked to parse back.
pub fn set_in_text<'a>(
    arena: &'a Arena,
    text: &'a [u8],
    path: &[&str],
    value: Value<'_>,
) -> Result<&'a [u8], EditError> {
    let doc = yaml::parse(arena, text, 0).map_err(|_| EditError::BadYaml)?;
    let root = Node::new(doc, 0, arena);
    let splice = edit::set(root, path, value)?;
    let mut out = Bytes::new(arena).ok_or(EditError::OutOfMemory)?;
    if !edit::apply(&mut out, text, 0, text.len() as u32, &splice) {
        return Err(EditError::OutOfMemory);
    }
    let new = out.finish();
    yaml::parse(arena, new, 0).map_err(|_| EditError::BadYaml)?;
    Ok(new)
}
