//! [`ResourceList`]: the function's input and output.
//!
//! Here: the list and its items' slots. `load.rs` parses and checks the
//! input, `item.rs` reads an item, `edits.rs` and `alias.rs` change items,
//! `report.rs` keeps results, `write.rs` and `results.rs` write the output;
//! `vector.rs` is the arena vector they are kept in.

mod alias;
mod edits;
mod item;
mod load;
mod report;
mod results;
mod vector;
mod write;

use crate::node::Node;
use crate::sys::Arena;
use crate::yaml::Doc;
use report::Rec;
use vector::Vector;

pub use edits::set_in_text;
pub use item::Item;
pub use load::LoadError;
pub use report::{Report, Severity};
pub use write::Sink;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Original,
    Edited,
    Removed,
    Added,
}

#[derive(Clone, Copy)]
struct Slot<'a> {
    doc: Doc<'a>,
    /// The item's node in `doc`.
    root: u32,
    /// Originals: the item's `Entry` record in the list's tape.
    entry: u32,
    state: State,
}

/// The `ResourceList` a function reads and edits.
pub struct ResourceList<'a> {
    arena: &'a Arena,
    doc: Doc<'a>,
    /// The `items` key and value, if present.
    items: Option<(Node<'a>, Node<'a>)>,
    slots: Vector<'a, Slot<'a>>,
    results: Vector<'a, Rec<'a>>,
    errors: u32,
}

impl core::fmt::Debug for ResourceList<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ResourceList")
            .field("items", &self.slots.len)
            .field("results", &self.results.len)
            .finish()
    }
}

impl<'a> ResourceList<'a> {
    /// The arena everything lives in.
    pub fn arena(&self) -> &'a Arena {
        self.arena
    }

    /// The whole input document.
    pub fn root(&self) -> Node<'a> {
        Node::new(self.doc, 0, self.arena)
    }

    /// `functionConfig`, when present and not null.
    pub fn function_config(&self) -> Option<Node<'a>> {
        self.root().get("functionConfig").filter(|n| !n.is_null())
    }

    /// Number of item slots (removed ones included): item indices are
    /// `0..len()`.
    pub fn len(&self) -> usize {
        self.slots.len
    }

    pub fn is_empty(&self) -> bool {
        self.slots.len == 0
    }

    /// Item `index`, unless it was removed.
    pub fn item(&self, index: usize) -> Option<Item<'a>> {
        let slot = self.slots.get(index)?;
        if slot.state == State::Removed {
            return None;
        }
        Some(Item {
            node: Node::new(slot.doc, slot.root, self.arena),
            index,
        })
    }

    /// The items that were not removed.
    pub fn items(&self) -> impl Iterator<Item = Item<'a>> + '_ {
        (0..self.len()).filter_map(|i| self.item(i))
    }
}
