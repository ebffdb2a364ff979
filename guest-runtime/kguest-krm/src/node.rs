//! [`Node`]: a `Copy` handle on one node of a parsed text, read in place.

use crate::sys::{Arena, Growing};
use crate::yaml::{Doc, Raw, SIMPLE, Style};

/// What a node holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `key:` with nothing after it, `null`, `~`.
    Null,
    Scalar,
    Map,
    Seq,
    /// `*name`: kept in the text, not resolved when read ([`Node::alias`]
    /// names its anchor). An edit whose path goes through an alias writes
    /// the anchored node's content in its place first.
    Alias,
}

/// One node of a YAML text: a scalar, mapping or sequence, read in place.
/// Cheap to copy; never outlives the arena that holds its text.
///
/// A node of an item is a snapshot of that item's text: after an edit of
/// the item it still reads the text as it was; fetch the item again
/// ([`ResourceList::item`](crate::ResourceList::item)) to read the edit.
#[derive(Clone, Copy)]
pub struct Node<'a> {
    pub(crate) doc: Doc<'a>,
    pub(crate) idx: u32,
    pub(crate) arena: &'a Arena,
}

impl core::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Node")
            .field("style", &self.style())
            .field("source", &self.source())
            .finish()
    }
}

impl<'a> Node<'a> {
    pub(crate) fn new(doc: Doc<'a>, idx: u32, arena: &'a Arena) -> Node<'a> {
        Node { doc, idx, arena }
    }

    pub(crate) fn raw(&self) -> Raw {
        match self.doc.tape.get(self.idx as usize) {
            Some(r) => *r,
            None => Raw {
                style: Style::Empty,
                flags: 0,
                anchor: 0,
                start: 0,
                end: 0,
                next: self.idx + 1,
                count: 0,
            },
        }
    }

    fn at(&self, idx: u32) -> Node<'a> {
        Node::new(self.doc, idx, self.arena)
    }

    /// How the node is written.
    pub fn style(&self) -> Style {
        self.raw().style
    }

    /// What the node holds.
    pub fn kind(&self) -> Kind {
        match self.style() {
            Style::Empty => Kind::Null,
            Style::Plain => {
                if matches!(self.source(), "null" | "Null" | "NULL" | "~") {
                    Kind::Null
                } else {
                    Kind::Scalar
                }
            }
            Style::SingleQuoted | Style::DoubleQuoted | Style::Literal | Style::Folded => {
                Kind::Scalar
            }
            Style::Alias => Kind::Alias,
            Style::BlockMap | Style::FlowMap => Kind::Map,
            Style::BlockSeq | Style::FlowSeq => Kind::Seq,
            Style::Entry => self.at(self.idx + 1).kind(),
        }
    }

    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    pub fn is_map(&self) -> bool {
        self.kind() == Kind::Map
    }

    pub fn is_seq(&self) -> bool {
        self.kind() == Kind::Seq
    }

    /// Byte range of the node in its text.
    pub fn span(&self) -> (u32, u32) {
        let r = self.raw();
        (r.start, r.end)
    }

    /// The node's source text, exactly as written.
    pub fn source(&self) -> &'a str {
        let r = self.raw();
        self.doc
            .text
            .get(r.start as usize..r.end as usize)
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// Number of pairs of a mapping or entries of a sequence (0 otherwise).
    pub fn len(&self) -> usize {
        if matches!(self.kind(), Kind::Map | Kind::Seq) {
            self.raw().count as usize
        } else {
            0
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A scalar's value: the source when it needs no decoding, otherwise
    /// decoded (escapes, folding, block indentation) into the arena.
    /// `None` for collections, aliases, empty values and when the arena is
    /// full. Plain `null` and `~` read as themselves.
    pub fn as_str(&self) -> Option<&'a str> {
        let r = self.raw();
        match r.style {
            Style::Plain | Style::SingleQuoted | Style::DoubleQuoted if r.flags & SIMPLE != 0 => {
                let (a, b) = match r.style {
                    Style::Plain => (r.start, r.end),
                    _ => (r.start + 1, r.end.saturating_sub(1)),
                };
                let bytes = self.doc.text.get(a as usize..b as usize)?;
                core::str::from_utf8(bytes).ok()
            }
            Style::Plain
            | Style::SingleQuoted
            | Style::DoubleQuoted
            | Style::Literal
            | Style::Folded => crate::decode::decode(self.arena, self.doc, r),
            _ => None,
        }
    }

    /// True when this is a scalar whose value is `s`.
    pub fn is_str(&self, s: &str) -> bool {
        self.as_str() == Some(s)
    }

    /// `true`/`false` (YAML 1.2 core schema spellings).
    pub fn as_bool(&self) -> Option<bool> {
        if self.style() != Style::Plain {
            return None;
        }
        match self.source() {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        }
    }

    /// A plain decimal integer.
    pub fn as_i64(&self) -> Option<i64> {
        if self.style() != Style::Plain {
            return None;
        }
        parse_i64(self.source().as_bytes())
    }

    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        self.entries().find(|(k, _)| k.is_str(key)).map(|(_, v)| v)
    }

    /// The node at `path` below this one: mapping keys, and decimal indices
    /// into sequences (`["spec", "containers", "0", "image"]`).
    pub fn path(&self, path: &[&str]) -> Option<Node<'a>> {
        let mut node = *self;
        for seg in path {
            node = node.child(seg)?;
        }
        Some(node)
    }

    /// One step of [`Node::path`].
    pub fn child(&self, seg: &str) -> Option<Node<'a>> {
        match self.kind() {
            Kind::Map => self.get(seg),
            Kind::Seq => {
                let i = parse_index(seg.as_bytes())?;
                self.iter().nth(i)
            }
            _ => None,
        }
    }

    /// Key-value pairs of a mapping (empty for anything else).
    pub fn entries(&self) -> Entries<'a> {
        let (next, left) = if self.kind() == Kind::Map {
            (self.inner().idx + 1, self.inner().raw().count)
        } else {
            (0, 0)
        };
        Entries {
            node: self.inner(),
            next,
            left,
        }
    }

    /// Elements of a sequence (empty for anything else).
    pub fn iter(&self) -> Elements<'a> {
        let (next, left) = if self.kind() == Kind::Seq {
            (self.inner().idx + 1, self.inner().raw().count)
        } else {
            (0, 0)
        };
        Elements {
            node: self.inner(),
            next,
            left,
        }
    }

    /// Sequence entries are wrapped in an `Entry` record; this is the node
    /// itself for everything else.
    fn inner(&self) -> Node<'a> {
        if self.style() == Style::Entry {
            self.at(self.idx + 1)
        } else {
            *self
        }
    }

    /// The name of the node's anchor (`&name` written before it).
    pub fn anchor(&self) -> Option<&'a str> {
        let r = self.inner().raw();
        if r.anchor == 0 {
            return None;
        }
        name_at(self.doc.text, r.start.checked_sub(u32::from(r.anchor))? + 1)
    }

    /// The anchor an alias (`*name`) names.
    pub fn alias(&self) -> Option<&'a str> {
        let node = self.inner();
        if node.style() != Style::Alias {
            return None;
        }
        node.source().get(1..)
    }

    /// Column of the node's first byte (0-based).
    pub fn column(&self) -> u32 {
        crate::yaml::column(self.doc.text, self.doc.first_col, self.raw().start)
    }

    /// The arena this node's text lives in.
    pub fn arena(&self) -> &'a Arena {
        self.arena
    }
}

/// Iterator over the pairs of a mapping.
#[derive(Clone, Copy)]
pub struct Entries<'a> {
    node: Node<'a>,
    next: u32,
    left: u32,
}

impl<'a> Iterator for Entries<'a> {
    type Item = (Node<'a>, Node<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self.node.at(self.next);
        let value = self.node.at(key.raw().next);
        self.next = value.raw().next;
        Some((key, value))
    }
}

/// Iterator over the elements of a sequence.
#[derive(Clone, Copy)]
pub struct Elements<'a> {
    node: Node<'a>,
    next: u32,
    left: u32,
}

impl<'a> Elements<'a> {
    /// The next `Entry` record (the element with its `- `).
    pub(crate) fn next_entry(&mut self) -> Option<Node<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let entry = self.node.at(self.next);
        self.next = entry.raw().next;
        Some(entry)
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Node<'a>;

    fn next(&mut self) -> Option<Node<'a>> {
        self.next_entry().map(|e| e.at(e.idx + 1))
    }
}

/// An anchor name starting at `at`.
fn name_at(text: &[u8], at: u32) -> Option<&str> {
    let rest = text.get(at as usize..)?;
    let len = rest
        .iter()
        .position(|&c| {
            matches!(
                c,
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
            )
        })
        .unwrap_or(rest.len());
    core::str::from_utf8(rest.get(..len)?)
        .ok()
        .filter(|n| !n.is_empty())
}

fn parse_index(s: &[u8]) -> Option<usize> {
    if s.is_empty() || s.len() > 9 {
        return None;
    }
    let mut v = 0usize;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + usize::from(c - b'0');
    }
    Some(v)
}

/// A decimal integer with an optional sign; `None` on overflow.
pub(crate) fn parse_i64(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        let d = i64::from(c - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

/// A growing byte buffer in the arena.
pub(crate) type Bytes<'a> = Growing<'a, u8>;
