//! Edits as splices: an edit replaces one byte range of a text and leaves
//! every other byte where it was. The caller re-parses the result, so an
//! edit can never leave a text this crate cannot read back.

use crate::emit::{self, Value};
use crate::node::{Bytes, Kind, Node};
use crate::yaml::{QUOTED_KEYS, Style, byte, line_end};

/// Why an edit was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditError {
    /// A scalar or alias sits where the path needs a mapping.
    NotAMapping,
    /// A path segment names a sequence index that does not exist (or is
    /// not a number).
    NoSuchIndex,
    /// A multi-line value cannot go inside a flow (`{...}`/`[...]`) collection.
    FlowStyle,
    /// The item was removed.
    Removed,
    /// There is no such item.
    NoSuchItem,
    /// The edited text did not parse back (a bad [`Value::Yaml`]).
    BadYaml,
    /// An added item is not a mapping with `apiVersion` and `kind`.
    NotAResource,
    /// An empty path.
    EmptyPath,
    /// The list has no `items` key to add to.
    NoItems,
    /// The edit would change (or remove) an anchored node (`&name`) that an
    /// alias (`*name`) elsewhere reads, so it would change that place too.
    /// The message names the anchor.
    Aliased(Refusal),
    /// An alias on the edit's path names no anchor before it.
    UnknownAlias,
    OutOfMemory,
}

/// The message of [`EditError::Aliased`], naming the anchor (a long name
/// is cut).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    buf: [u8; 100],
    len: u8,
}

impl Refusal {
    pub(crate) fn new(anchor: &str) -> Refusal {
        let mut cut = anchor.len().min(40);
        while !anchor.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut r = Refusal {
            buf: [0; 100],
            len: 0,
        };
        for part in [
            "the edit would change `&",
            anchor.get(..cut).unwrap_or(""),
            "`, which an alias elsewhere reads",
        ] {
            for &c in part.as_bytes() {
                if let Some(slot) = r.buf.get_mut(usize::from(r.len)) {
                    *slot = c;
                    r.len += 1;
                }
            }
        }
        r
    }

    fn as_str(&self) -> &str {
        self.buf
            .get(..usize::from(self.len))
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }
}

impl core::fmt::Debug for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl EditError {
    /// A one-line message.
    pub fn as_str(&self) -> &str {
        match self {
            EditError::NotAMapping => "a scalar is in the way of the path",
            EditError::NoSuchIndex => "no such sequence index",
            EditError::FlowStyle => "cannot write a multi-line value into a flow collection",
            EditError::Removed => "the item was removed",
            EditError::NoSuchItem => "no such item",
            EditError::BadYaml => "the value is not valid YAML here",
            EditError::NotAResource => "not a mapping with apiVersion and kind",
            EditError::EmptyPath => "empty path",
            EditError::NoItems => "the ResourceList has no `items` key",
            EditError::Aliased(r) => r.as_str(),
            EditError::UnknownAlias => "an alias on the path names no anchor before it",
            EditError::OutOfMemory => "out of memory",
        }
    }
}

/// What goes into the spliced range.
#[derive(Clone, Copy)]
pub(crate) enum Insert<'p> {
    Nothing,
    Bytes(&'p [u8]),
    /// `value` as the value of a key that sits at column `col` (the
    /// insertion point is right after the `:`); `space`: a blank before an
    /// inline value.
    Value {
        value: Value<'p>,
        col: u32,
        space: bool,
        json: bool,
    },
    /// New `key: ...` entries for the remaining `path`, in a block mapping
    /// whose keys are at column `col`; `lead`: start with a line break.
    BlockEntry {
        path: &'p [&'p str],
        value: Value<'p>,
        col: u32,
        lead: bool,
    },
    /// `key: {...: value}` for the remaining `path`, in a flow mapping,
    /// after `prefix`; `braces`: wrapped in `{}` (a new mapping).
    FlowEntry {
        path: &'p [&'p str],
        value: Value<'p>,
        prefix: &'static [u8],
        braces: bool,
        quote: bool,
    },
}

/// Replace `[start, end)` of the text with `insert`.
#[derive(Clone, Copy)]
pub(crate) struct Splice<'p> {
    pub start: u32,
    pub end: u32,
    pub insert: Insert<'p>,
}

/// Where `set` must write `value` at `path` below `root`.
#[inline(never)]
pub(crate) fn set<'p>(
    root: Node<'_>,
    path: &'p [&'p str],
    value: Value<'p>,
) -> Result<Splice<'p>, EditError> {
    if path.is_empty() {
        return Err(EditError::EmptyPath);
    }
    let mut node = root;
    // Column of the collection holding `node` (its keys or dashes) and
    // whether `node` is inside a flow collection.
    let mut parent_col = root.column();
    let mut in_flow = false;
    for (i, seg) in path.iter().enumerate() {
        let rest = path.get(i..).unwrap_or(&[]);
        match node.kind() {
            Kind::Map => {
                let col = node.column();
                let flow = node.style() == Style::FlowMap;
                match node.get(seg) {
                    Some(v) => {
                        parent_col = col;
                        in_flow |= flow;
                        node = v;
                    }
                    None => return insert_entry(node, rest, value),
                }
            }
            Kind::Seq => {
                let col = node.column();
                let flow = node.style() == Style::FlowSeq;
                match node.child(seg) {
                    Some(v) => {
                        parent_col = col;
                        in_flow |= flow;
                        node = v;
                    }
                    None => return Err(EditError::NoSuchIndex),
                }
            }
            Kind::Null => return fill_null(node, rest, value, parent_col, in_flow),
            Kind::Scalar | Kind::Alias => return Err(EditError::NotAMapping),
        }
    }
    replace(node, value, parent_col, in_flow)
}

/// Replaces the value `node` (a key at `parent_col` holds it).
fn replace<'p>(
    node: Node<'_>,
    value: Value<'p>,
    parent_col: u32,
    in_flow: bool,
) -> Result<Splice<'p>, EditError> {
    let r = node.raw();
    if value.is_block() && in_flow {
        return Err(EditError::FlowStyle);
    }
    if r.style == Style::Empty || (value.is_block() && !in_flow) {
        // Write from right after the `:`/`-` so no blank is left dangling.
        let start = after_indicator(node);
        return Ok(Splice {
            start,
            end: r.end.max(start),
            insert: Insert::Value {
                value,
                col: parent_col,
                space: true,
                json: false,
            },
        });
    }
    let start = match r.style {
        Style::Plain | Style::SingleQuoted | Style::DoubleQuoted | Style::Alias => {
            r.count.min(r.start)
        }
        _ => r.start,
    };
    Ok(Splice {
        start,
        end: r.end,
        insert: Insert::Value {
            value,
            col: parent_col,
            space: false,
            json: in_flow && r.style == Style::DoubleQuoted,
        },
    })
}

/// Position right after the `:` or `-` before `node` (blanks skipped back),
/// or, when a comment sits between them, the line break before the node's
/// line; the node's start if it shares its line with something else.
fn after_indicator(node: Node<'_>) -> u32 {
    let r = node.raw();
    let s = node.doc.text;
    let start = match r.style {
        Style::Plain | Style::SingleQuoted | Style::DoubleQuoted | Style::Alias => {
            r.count.min(r.start)
        }
        _ => r.start,
    };
    let mut i = start;
    while i > 0 && matches!(byte(s, i - 1), b' ' | b'\t') {
        i -= 1;
    }
    if i == 0 || byte(s, i - 1) != b'\n' {
        return if i > 0 && matches!(byte(s, i - 1), b':' | b'-') {
            i
        } else {
            start
        };
    }
    // The node starts its own line: back over blank lines.
    let own_line = i - 1;
    while i > 0 && matches!(byte(s, i - 1), b' ' | b'\t' | b'\n' | b'\r') {
        i -= 1;
    }
    if i > 0 && matches!(byte(s, i - 1), b':' | b'-') {
        i
    } else {
        own_line
    }
}

/// Adds `path[0]: ...` to mapping `map`, which lacks `path[0]`.
fn insert_entry<'p>(
    map: Node<'_>,
    path: &'p [&'p str],
    value: Value<'p>,
) -> Result<Splice<'p>, EditError> {
    let r = map.raw();
    if r.style == Style::FlowMap {
        if value.is_block() {
            return Err(EditError::FlowStyle);
        }
        let quote = r.flags & QUOTED_KEYS != 0;
        let at = match map.entries().last() {
            Some((_, v)) => v.raw().end,
            None => r.start + 1,
        };
        return Ok(Splice {
            start: at,
            end: at,
            insert: Insert::FlowEntry {
                path,
                value,
                prefix: if map.is_empty() { b"" } else { b", " },
                braces: false,
                quote,
            },
        });
    }
    let at = line_end(map.doc.text, r.end);
    Ok(Splice {
        start: at,
        end: at,
        insert: Insert::BlockEntry {
            path,
            value,
            col: map.column(),
            lead: true,
        },
    })
}

/// Turns the empty value `node` into a mapping holding `path`.
fn fill_null<'p>(
    node: Node<'_>,
    path: &'p [&'p str],
    value: Value<'p>,
    parent_col: u32,
    in_flow: bool,
) -> Result<Splice<'p>, EditError> {
    let r = node.raw();
    if in_flow {
        if value.is_block() {
            return Err(EditError::FlowStyle);
        }
        // `{k: v}` replaces the empty value or `null`.
        return Ok(Splice {
            start: r.start,
            end: r.end,
            insert: Insert::FlowEntry {
                path,
                value,
                prefix: if r.style == Style::Empty { b" " } else { b"" },
                braces: true,
                quote: false,
            },
        });
    }
    let start = after_indicator(node);
    Ok(Splice {
        start,
        end: r.end.max(start),
        insert: Insert::BlockEntry {
            path,
            value,
            col: parent_col + 2,
            lead: true,
        },
    })
}

/// Where `delete` must cut to remove `path` below `root`; `None` when there
/// is nothing at `path`.
pub(crate) fn delete<'p>(root: Node<'_>, path: &[&str]) -> Result<Option<Splice<'p>>, EditError> {
    let Some((last, parents)) = path.split_last() else {
        return Err(EditError::EmptyPath);
    };
    let Some(parent) = root.path(parents) else {
        return Ok(None);
    };
    let s = parent.doc.text;
    let r = parent.raw();
    match parent.kind() {
        Kind::Map => {
            let mut prev_end = None;
            let mut entries = parent.entries();
            while let Some((k, v)) = entries.next() {
                if !k.is_str(last) {
                    prev_end = Some(v.raw().end);
                    continue;
                }
                let next = entries.next().map(|(nk, _)| nk.raw().start);
                if prev_end.is_none() && next.is_none() {
                    return Ok(Some(emptied(parent, b"{}")));
                }
                return Ok(Some(cut(
                    s,
                    r.style == Style::FlowMap,
                    k.raw().start,
                    v.raw().end,
                    prev_end,
                    next,
                )));
            }
            Ok(None)
        }
        Kind::Seq => {
            let Some(index) = parse_usize(last) else {
                return Ok(None);
            };
            let mut prev_end = None;
            let mut it = parent.iter();
            let mut i = 0;
            while let Some(e) = it.next_entry() {
                if i == index {
                    let next = it.next_entry().map(|n| n.raw().start);
                    if prev_end.is_none() && next.is_none() {
                        return Ok(Some(emptied(parent, b"[]")));
                    }
                    return Ok(Some(cut(
                        s,
                        r.style == Style::FlowSeq,
                        e.raw().start,
                        e.raw().end,
                        prev_end,
                        next,
                    )));
                }
                prev_end = Some(e.raw().end);
                i += 1;
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// Replaces collection `node` (which lost its only entry) with `empty`
/// written after its key's `:` (or `-`).
fn emptied<'p>(node: Node<'_>, empty: &'static [u8]) -> Splice<'p> {
    let start = after_indicator(node);
    let r = node.raw();
    let spaced: &'static [u8] = if empty == b"{}" { b" {}" } else { b" []" };
    Splice {
        start,
        end: r.end.max(start),
        insert: Insert::Bytes(if start == r.start { empty } else { spaced }),
    }
}

/// Removes the entry `[start, end)` of a collection that has others, with
/// the separator that goes with it: up to the next entry, or from the
/// previous entry's line end (block) / end (flow).
pub(crate) fn cut<'p>(
    s: &[u8],
    flow: bool,
    start: u32,
    end: u32,
    prev_end: Option<u32>,
    next_start: Option<u32>,
) -> Splice<'p> {
    match (prev_end, next_start) {
        (_, Some(next)) => Splice {
            start,
            end: next,
            insert: Insert::Nothing,
        },
        (Some(prev), None) if flow => Splice {
            start: prev,
            end,
            insert: Insert::Nothing,
        },
        (Some(prev), None) => Splice {
            start: line_end(s, prev),
            end: line_end(s, end),
            insert: Insert::Nothing,
        },
        (None, None) => Splice {
            start,
            end,
            insert: Insert::Nothing,
        },
    }
}

fn parse_usize(s: &str) -> Option<usize> {
    crate::node::parse_i64(s.as_bytes()).and_then(|v| usize::try_from(v).ok())
}

/// Writes `text[a..b]` with `splice` applied.
pub(crate) fn apply(out: &mut Bytes<'_>, text: &[u8], a: u32, b: u32, splice: &Splice<'_>) -> bool {
    let (Some(head), Some(tail)) = (
        text.get(a as usize..splice.start as usize),
        text.get(splice.end as usize..b as usize),
    ) else {
        return false;
    };
    out.extend(head) && write_insert(out, splice.insert) && out.extend(tail)
}

fn write_insert(out: &mut Bytes<'_>, insert: Insert<'_>) -> bool {
    match insert {
        Insert::Nothing => true,
        Insert::Bytes(b) => out.extend(b),
        Insert::Value {
            value,
            col,
            space,
            json,
        } => {
            if value.is_block() {
                match value {
                    Value::Yaml(t) => emit::block(out, t, col + 2),
                    _ => false,
                }
            } else {
                (!space || out.push(b' ')) && emit::inline(out, value, json)
            }
        }
        Insert::BlockEntry {
            path,
            value,
            col,
            lead,
        } => {
            let mut col = col;
            let mut first = true;
            for seg in path {
                if (!first || lead) && !out.push(b'\n') {
                    return false;
                }
                first = false;
                if !(emit::spaces(out, col) && emit::key(out, seg, false) && out.push(b':')) {
                    return false;
                }
                col += 2;
            }
            write_insert(
                out,
                Insert::Value {
                    value,
                    col: col - 2,
                    space: true,
                    json: false,
                },
            )
        }
        Insert::FlowEntry {
            path,
            value,
            prefix,
            braces,
            quote,
        } => {
            if !out.extend(prefix) {
                return false;
            }
            let mut close = 0;
            for (i, seg) in path.iter().enumerate() {
                if (i > 0 || braces) && !out.push(b'{') {
                    return false;
                }
                if i > 0 || braces {
                    close += 1;
                }
                if !(emit::key(out, seg, quote) && out.extend(b": ")) {
                    return false;
                }
            }
            emit::inline(out, value, quote) && (0..close).all(|_| out.push(b'}'))
        }
    }
}
