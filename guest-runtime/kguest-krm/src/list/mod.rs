//! [`ResourceList`]: the function's input and output.

use crate::edit::{self, EditError, Splice};
use crate::emit::{self, Value};
use crate::node::{Bytes, Kind, Node};
use crate::sys::Arena;
use crate::yaml::{self, Doc, ParseError, Style, line_end, line_start};

/// The output of a function: where the bytes go.
pub trait Sink {
    /// Writes all of `bytes`; false on failure.
    fn write(&mut self, bytes: &[u8]) -> bool;
}

#[cfg(not(target_arch = "wasm32"))]
impl Sink for std::vec::Vec<u8> {
    fn write(&mut self, bytes: &[u8]) -> bool {
        self.extend_from_slice(bytes);
        true
    }
}

/// Result severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A result to report: a message, its severity, and optionally the item
/// and field it is about.
#[derive(Clone, Copy, Debug)]
pub struct Report<'s> {
    pub severity: Severity,
    pub message: &'s str,
    /// The item (its index); gives the result's `resourceRef` and `file`.
    pub item: Option<usize>,
    /// `field.path`, e.g. `spec.containers[0].resources.requests.cpu`.
    pub field: Option<&'s str>,
}

impl<'s> Report<'s> {
    pub fn error(message: &'s str) -> Self {
        Self::new(Severity::Error, message)
    }

    pub fn warning(message: &'s str) -> Self {
        Self::new(Severity::Warning, message)
    }

    pub fn info(message: &'s str) -> Self {
        Self::new(Severity::Info, message)
    }

    pub fn new(severity: Severity, message: &'s str) -> Self {
        Report {
            severity,
            message,
            item: None,
            field: None,
        }
    }

    /// About item `index`.
    pub fn on(mut self, index: usize) -> Self {
        self.item = Some(index);
        self
    }

    /// About the field at `path`, dotted: `spec.containers[0].image`
    /// ([`field_path`](crate::field_path) and [`Path::field`](crate::Path::field)
    /// write it from segments).
    pub fn field(mut self, path: &'s str) -> Self {
        self.field = Some(path);
        self
    }
}

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

#[derive(Clone, Copy)]
struct Rec<'a> {
    severity: Severity,
    message: &'a str,
    field: Option<&'a str>,
    item: Option<Ref<'a>>,
}

/// The item a result is about, read when it was reported (reading later
/// could decode into the arena while the output writer grows a buffer).
#[derive(Clone, Copy)]
struct Ref<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: Option<&'a str>,
    namespace: Option<&'a str>,
    file: Option<&'a str>,
    index: Option<i64>,
}

/// A vector in the arena that moves when it outgrows its block.
struct Vector<'a, T: Copy> {
    data: &'a mut [T],
    len: usize,
}

impl<'a, T: Copy> Vector<'a, T> {
    fn with_capacity(arena: &'a Arena, n: usize, fill: T) -> Option<Self> {
        Some(Vector {
            data: arena.fill(n.max(4), fill)?,
            len: 0,
        })
    }

    fn push(&mut self, arena: &'a Arena, v: T) -> bool {
        if self.len == self.data.len() {
            let Some(bigger) = arena.fill(self.data.len() * 2, v) else {
                return false;
            };
            let Some(dst) = bigger.get_mut(..self.len) else {
                return false;
            };
            let Some(src) = self.data.get(..self.len) else {
                return false;
            };
            crate::bytes::copy(dst, src);
            self.data = bigger;
        }
        match self.data.get_mut(self.len) {
            Some(slot) => {
                *slot = v;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    fn get(&self, i: usize) -> Option<&T> {
        self.data.get(..self.len)?.get(i)
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.data.get_mut(..self.len)?.get_mut(i)
    }

    fn as_slice(&self) -> &[T] {
        self.data.get(..self.len).unwrap_or(&[])
    }
}

/// One resource of the list (a `Copy` handle).
///
/// A snapshot: it shows the item as it was when it was fetched. After an
/// edit ([`ResourceList::set`] and friends) fetch it again with
/// [`ResourceList::item`]; the old handle still reads the old text.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    node: Node<'a>,
    index: usize,
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

    /// Sets the field at `path` of item `index` to `value`, creating the
    /// mappings on the way; every other byte of the item stays as it was.
    ///
    /// An edit changes only its target. An alias (`*name`) on the way to
    /// it is first replaced by the content of the node its anchor marks
    /// (the anchored node and what else reads it stay as they were); an
    /// edit of an anchored node (`&name`) that an alias elsewhere reads is
    /// refused with [`EditError::Aliased`].
    ///
    /// [`Item`]s and [`Node`]s taken before the edit still show the item
    /// as it was: read it again with [`ResourceList::item`].
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
    fn target(&self, index: usize) -> Result<Node<'a>, EditError> {
        let slot = *self.slots.get(index).ok_or(EditError::NoSuchItem)?;
        if slot.state == State::Removed {
            return Err(EditError::Removed);
        }
        Ok(Node::new(slot.doc, slot.root, self.arena))
    }

    /// Applies `splice` to item `index`, whose node is `node`, and parses
    /// the result back.
    #[inline(never)]
    fn commit(
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

    /// Readies item `index` for an edit at `path`: each alias on the way
    /// to the last segment is replaced by a copy of the node its anchor
    /// marks; refused when the edit would change an anchored node an alias
    /// elsewhere reads (a node on the path, or any below the path's end
    /// when it exists: that one is replaced or removed).
    fn prepare(&mut self, index: usize, path: &[&str]) -> Result<(), EditError> {
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

    fn guard_subtree(&self, node: Node<'a>, skip: Option<usize>) -> Result<(), EditError> {
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

    /// Adds a result to the output's `results`.
    pub fn report(&mut self, r: Report<'_>) -> Result<(), EditError> {
        let arena = self.arena;
        let message = arena.copy_str(r.message).ok_or(EditError::OutOfMemory)?;
        let field = match r.field {
            Some(f) => Some(arena.copy_str(f).ok_or(EditError::OutOfMemory)?),
            None => None,
        };
        let item = r.item.and_then(|i| self.item(i)).map(|it| Ref {
            api_version: it.api_version(),
            kind: it.kind(),
            name: it.name(),
            namespace: it.namespace(),
            file: file_path(&it),
            index: file_index(&it),
        });
        if r.severity == Severity::Error {
            self.errors += 1;
        }
        let rec = Rec {
            severity: r.severity,
            message,
            field,
            item,
        };
        if self.results.push(arena, rec) {
            Ok(())
        } else {
            Err(EditError::OutOfMemory)
        }
    }

    /// Shorthand: an error result about item `index`.
    pub fn error(&mut self, index: usize, message: &str) -> Result<(), EditError> {
        self.report(Report::error(message).on(index))
    }

    /// Number of error results reported so far.
    pub fn error_count(&self) -> u32 {
        self.errors
    }

    // -------------------------------------------------------------- output

    /// Writes the list: the input with the edits, removals, additions and
    /// results applied; everything else byte for byte.
    pub fn write(&self, out: &mut dyn Sink) -> bool {
        let text = self.doc.text;
        let mut w = Writer {
            out,
            last: b'\n',
            ok: true,
        };
        // Up to two regions, in text order: the items and the results.
        let items = self.items_region();
        let results = self.results_region();
        let mut regions = [items, results];
        if let [Some(a), Some(b)] = &regions
            && b.0 < a.0
        {
            regions.swap(0, 1);
        }
        let mut pos = 0u32;
        for (start, end, what) in regions.iter().flatten().copied() {
            w.text(text, pos, start);
            match what {
                Region::Items => self.write_items(&mut w),
                Region::Results { mode, dash } => self.write_results(&mut w, mode, dash),
            }
            pos = end;
        }
        w.text(text, pos, text.len() as u32);
        if w.last != b'\n' {
            w.bytes(b"\n");
        }
        w.ok
    }

    fn items_region(&self) -> Option<(u32, u32, Region)> {
        let changed = self
            .slots
            .as_slice()
            .iter()
            .any(|s| s.state != State::Original);
        if !changed {
            return None;
        }
        let (_, v) = self.items?;
        let (start, end) = match v.style() {
            Style::BlockSeq if self.kept() > 0 => {
                let (s, e) = v.span();
                (line_start(self.doc.text, s), line_end(self.doc.text, e))
            }
            Style::FlowSeq if self.kept() > 0 && !self.any_added() => v.span(),
            _ => {
                let (s, e) = v.span();
                let after = after_colon(self.doc.text, s);
                (
                    after,
                    if v.style() == Style::BlockSeq {
                        line_end(self.doc.text, e)
                    } else {
                        e.max(after)
                    },
                )
            }
        };
        Some((start, end, Region::Items))
    }

    fn kept(&self) -> usize {
        self.slots
            .as_slice()
            .iter()
            .filter(|s| s.state == State::Original || s.state == State::Edited)
            .count()
    }

    fn any_added(&self) -> bool {
        self.slots
            .as_slice()
            .iter()
            .any(|s| s.state == State::Added)
    }

    fn write_items(&self, w: &mut Writer<'_>) {
        let Some((key, v)) = self.items else {
            return;
        };
        let text = self.doc.text;
        let kept = self.kept();
        let added = self.any_added();
        match v.style() {
            Style::BlockSeq if kept > 0 => {
                let mut first = true;
                let dash = v.column();
                let originals: &[Slot<'_>] = self.slots.as_slice();
                let entries: Option<&[Slot<'_>]> = originals.get(..v.len());
                for (i, slot) in entries.unwrap_or(&[]).iter().enumerate() {
                    if slot.state == State::Removed {
                        continue;
                    }
                    let entry = Node::new(self.doc, slot.entry, self.arena);
                    let seg_start = line_start(text, entry.span().0);
                    let seg_end = match originals.get(i + 1).filter(|_| i + 1 < v.len()) {
                        Some(next) => {
                            let next_dash = Node::new(self.doc, next.entry, self.arena).span().0;
                            line_start(text, next_dash).saturating_sub(1)
                        }
                        None => line_end(text, v.span().1),
                    };
                    if !first {
                        w.bytes(b"\n");
                    }
                    first = false;
                    if slot.state == State::Edited {
                        let orig = Node::new(self.doc, slot.entry + 1, self.arena);
                        w.text(text, seg_start, orig.span().0);
                        w.bytes(slot.doc.text);
                        w.text(text, extent_end(orig), seg_end);
                    } else {
                        w.text(text, seg_start, seg_end);
                    }
                }
                self.write_added(w, dash, !first);
            }
            Style::FlowSeq if kept > 0 && !added => {
                w.bytes(b"[");
                let mut first = true;
                for slot in self.slots.as_slice() {
                    if slot.state == State::Removed {
                        continue;
                    }
                    if !first {
                        w.bytes(b", ");
                    }
                    first = false;
                    let node = Node::new(slot.doc, slot.root, self.arena);
                    let (s, e) = node.span();
                    w.text(
                        slot.doc.text,
                        s,
                        if slot.state == State::Edited {
                            slot.doc.text.len() as u32
                        } else {
                            e
                        },
                    );
                }
                w.bytes(b"]");
            }
            _ => {
                if added {
                    let dash = if v.style() == Style::BlockSeq {
                        v.column()
                    } else {
                        key.column()
                    };
                    self.write_added(w, dash, true);
                } else {
                    w.bytes(b" []");
                }
            }
        }
    }

    fn write_added(&self, w: &mut Writer<'_>, dash: u32, lead: bool) {
        let mut lead = lead;
        for slot in self.slots.as_slice() {
            if slot.state != State::Added {
                continue;
            }
            if lead {
                w.bytes(b"\n");
            }
            lead = true;
            w.spaces(dash);
            w.bytes(b"- ");
            w.bytes(slot.doc.text);
        }
    }

    fn results_region(&self) -> Option<(u32, u32, Region)> {
        if self.results.len == 0 {
            return None;
        }
        let text = self.doc.text;
        let root = self.root();
        let existing = root.entries().find(|(k, _)| k.is_str("results"));
        Some(match existing {
            Some((key, v)) => match v.style() {
                Style::BlockSeq => {
                    let at = line_end(text, v.span().1);
                    (
                        at,
                        at,
                        Region::Results {
                            mode: Mode::BlockAppend,
                            dash: v.column(),
                        },
                    )
                }
                Style::FlowSeq if !v.is_empty() => {
                    let at = v.iter().last().map_or(v.span().0 + 1, |n| n.span().1);
                    (
                        at,
                        at,
                        Region::Results {
                            mode: Mode::FlowAppend,
                            dash: 0,
                        },
                    )
                }
                _ if root.style() == Style::FlowMap => {
                    let (s, e) = v.span();
                    (
                        s,
                        e,
                        Region::Results {
                            mode: Mode::FlowNew,
                            dash: 0,
                        },
                    )
                }
                _ => {
                    let (s, e) = v.span();
                    let after = after_colon(text, s);
                    (
                        after,
                        e.max(after),
                        Region::Results {
                            mode: Mode::BlockAppend,
                            dash: key.column(),
                        },
                    )
                }
            },
            None => {
                if root.style() == Style::FlowMap {
                    let at = root
                        .entries()
                        .last()
                        .map_or(root.span().0 + 1, |(_, v)| v.span().1);
                    let mode = if root.is_empty() {
                        Mode::FlowKeyFirst
                    } else {
                        Mode::FlowKey
                    };
                    (at, at, Region::Results { mode, dash: 0 })
                } else {
                    let at = line_end(text, root.span().1);
                    (
                        at,
                        at,
                        Region::Results {
                            mode: Mode::BlockKey,
                            dash: root.column(),
                        },
                    )
                }
            }
        })
    }

    fn write_results(&self, w: &mut Writer<'_>, mode: Mode, dash: u32) {
        let flow = matches!(
            mode,
            Mode::FlowAppend | Mode::FlowNew | Mode::FlowKey | Mode::FlowKeyFirst
        );
        match mode {
            Mode::BlockKey => {
                w.bytes(b"\n");
                w.spaces(dash);
                w.bytes(b"results:");
            }
            Mode::FlowKey | Mode::FlowKeyFirst => {
                if mode == Mode::FlowKey {
                    w.bytes(b", ");
                }
                let json = self.root().raw().flags & yaml::QUOTED_KEYS != 0;
                w.bytes(if json {
                    b"\"results\": ["
                } else {
                    b"results: ["
                });
            }
            Mode::FlowNew => w.bytes(b" ["),
            _ => {}
        }
        for (i, rec) in self.results.as_slice().iter().enumerate() {
            let Some(mut buf) = Bytes::new(self.arena) else {
                w.ok = false;
                return;
            };
            let ok = if flow {
                (i == 0 && mode != Mode::FlowAppend || buf.extend(b", "))
                    && result(&mut buf, rec, true, 0)
            } else {
                buf.push(b'\n')
                    && emit::spaces(&mut buf, dash)
                    && buf.extend(b"- ")
                    && result(&mut buf, rec, false, dash + 2)
            };
            if !ok {
                w.ok = false;
                return;
            }
            w.bytes(buf.finish());
        }
        if matches!(mode, Mode::FlowKey | Mode::FlowKeyFirst | Mode::FlowNew) {
            w.bytes(b"]");
        }
    }
}

/// Checks that `node` is a resource: a mapping with scalar `apiVersion`
/// and `kind`.
fn check_item(node: Node<'_>, i: usize) -> Result<(), LoadError> {
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

/// Where an item's text ends for editing: the end of its last line
/// (trailing comment included), or its `}` for a flow mapping.
fn extent_end(node: Node<'_>) -> u32 {
    let (_, e) = node.span();
    if node.style() == Style::FlowMap {
        e
    } else {
        line_end(node.doc.text, e)
    }
}

/// Right after the `:` before the value that starts at `s`.
fn after_colon(text: &[u8], s: u32) -> u32 {
    let mut i = s;
    while i > 0 && matches!(yaml::byte(text, i - 1), b' ' | b'\t' | b'\n' | b'\r') {
        i -= 1;
    }
    if i > 0 && yaml::byte(text, i - 1) == b':' {
        i
    } else {
        s
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    Items,
    Results { mode: Mode, dash: u32 },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `- ...` entries after a block sequence's last line (or after
    /// `results:` with no value).
    BlockAppend,
    /// A new `results:` key after the last line of a block mapping.
    BlockKey,
    /// `, {...}` after the last entry of a flow sequence.
    FlowAppend,
    /// `[...]` replacing an empty value in a flow mapping.
    FlowNew,
    /// `, results: [...]` after the last entry of a flow mapping.
    FlowKey,
    /// `results: [...]` into an empty flow mapping.
    FlowKeyFirst,
}

struct Writer<'w> {
    out: &'w mut dyn Sink,
    last: u8,
    ok: bool,
}

impl Writer<'_> {
    #[inline(never)]
    fn bytes(&mut self, b: &[u8]) {
        if let Some(&c) = b.last() {
            self.last = c;
        }
        if self.ok && !b.is_empty() {
            self.ok = self.out.write(b);
        }
    }

    #[inline(never)]
    fn text(&mut self, text: &[u8], a: u32, b: u32) {
        match text.get(a as usize..b as usize) {
            Some(s) => self.bytes(s),
            None => {
                if a < b {
                    self.ok = false;
                }
            }
        }
    }

    fn spaces(&mut self, n: u32) {
        for _ in 0..n {
            self.bytes(b" ");
        }
    }
}

/// Writes the fields of one result, as a block mapping (keys at `col`,
/// the first one on the current line) or as a flow mapping.
struct Fields<'o, 'b> {
    out: &'o mut Bytes<'b>,
    flow: bool,
    col: u32,
    first: bool,
    ok: bool,
}

impl Fields<'_, '_> {
    fn key(&mut self, k: &str, open: bool) {
        let out = &mut *self.out;
        let mut ok = if self.flow {
            (self.first || out.extend(b", ")) && emit::quoted(out, k) && out.extend(b": ")
        } else {
            (self.first || (out.push(b'\n') && emit::spaces(out, self.col)))
                && out.extend(k.as_bytes())
                && out.push(b':')
                && (open || out.push(b' '))
        };
        if open {
            if self.flow {
                ok = ok && out.push(b'{');
                self.first = true;
            } else {
                self.col += 2;
                self.first = false;
            }
        } else {
            self.first = false;
        }
        self.ok &= ok;
    }

    fn str(&mut self, k: &str, v: &str) {
        self.key(k, false);
        self.ok &= if self.flow {
            emit::quoted(self.out, v)
        } else {
            emit::string(self.out, v)
        };
    }

    fn int(&mut self, k: &str, v: i64) {
        self.key(k, false);
        self.ok &= emit::int(self.out, v);
    }

    fn close(&mut self) {
        if self.flow {
            self.ok &= self.out.push(b'}');
            self.first = false;
        } else {
            self.col -= 2;
        }
    }
}

fn result(out: &mut Bytes<'_>, rec: &Rec<'_>, flow: bool, col: u32) -> bool {
    if flow && !out.push(b'{') {
        return false;
    }
    let mut f = Fields {
        out,
        flow,
        col,
        first: true,
        ok: true,
    };
    f.str("message", rec.message);
    f.str("severity", rec.severity.as_str());
    if let Some(it) = rec.item {
        f.key("resourceRef", true);
        f.str("apiVersion", it.api_version);
        f.str("kind", it.kind);
        if let Some(n) = it.name {
            f.str("name", n);
        }
        if let Some(n) = it.namespace {
            f.str("namespace", n);
        }
        f.close();
        if let Some(path) = it.file {
            f.key("file", true);
            f.str("path", path);
            if let Some(index) = it.index {
                f.int("index", index);
            }
            f.close();
        }
    }
    if let Some(path) = rec.field {
        f.key("field", true);
        f.str("path", path);
        f.close();
    }
    let ok = f.ok;
    ok && (!flow || out.push(b'}'))
}

fn file_path<'a>(it: &Item<'a>) -> Option<&'a str> {
    it.annotation("internal.config.kubernetes.io/path")
        .or_else(|| it.annotation("config.kubernetes.io/path"))
}

fn file_index(it: &Item<'_>) -> Option<i64> {
    let s = it
        .annotation("internal.config.kubernetes.io/index")
        .or_else(|| it.annotation("config.kubernetes.io/index"))?;
    crate::node::parse_i64(s.as_bytes())
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
