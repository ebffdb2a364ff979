//! A YAML reader that keeps the source: one pass over the text writes a
//! *tape* (one `Raw` record per node, children after their parent, each
//! record knowing where its subtree ends), and nodes are byte ranges of the
//! text. Nothing is copied; edits splice the text (see `edit.rs`), so every
//! byte they do not touch, comments included, comes out unchanged.
//!
//! Supported: one document (optional `---`/`...`, directives skipped),
//! block mappings and sequences (including a sequence at the same
//! indentation as its key), flow mappings and sequences (JSON), plain,
//! single- and double-quoted scalars (multi-line too), literal and folded
//! block scalars, comments anywhere, anchors (remembered on their node, so
//! edits can see what an alias reads) and tags (skipped), aliases (kept as
//! opaque nodes). Rejected with a position: tabs in indentation,
//! inconsistent indentation, `?` complex keys, flow collections as keys,
//! more than one document, nesting deeper than [`MAX_DEPTH`].

use crate::sys::{Arena, Growing};

/// How deep collections may nest.
pub const MAX_DEPTH: u32 = 256;

/// How a node is written in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Style {
    /// No value at all (`key:` with nothing after it); the node's range is
    /// empty and sits right after the `:` or `-`.
    Empty,
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    Alias,
    BlockMap,
    BlockSeq,
    FlowMap,
    FlowSeq,
    /// One element of a sequence: from its `-` (block) or its first byte
    /// (flow) to the element's end. Its only child is the element.
    Entry,
}

/// Scalar needs no decoding: its source text is its value.
pub(crate) const SIMPLE: u8 = 1;
/// Flow mapping whose first key is double-quoted (JSON style).
pub(crate) const QUOTED_KEYS: u8 = 2;

/// One node on the tape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    pub style: Style,
    pub flags: u8,
    /// Distance back from `start` to the node's anchor's `&`; 0: none.
    pub anchor: u16,
    pub start: u32,
    pub end: u32,
    /// Index of the first record after this node's subtree.
    pub next: u32,
    /// Collections: number of pairs / entries. Block scalars: parent
    /// indentation + 1. Other scalars: start of the node's properties
    /// (anchor, tag), or `start` when it has none.
    pub count: u32,
}

/// Why a text is not YAML this reader accepts, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub what: &'static str,
    /// Byte offset into the text.
    pub at: u32,
}

/// A parsed text: the source and its tape. Node 0 is the document root.
#[derive(Clone, Copy, Debug)]
pub struct Doc<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) tape: &'a [Raw],
    /// Column of the text's first byte (non-zero for an item cut out of a
    /// larger document).
    pub(crate) first_col: u32,
}

impl<'a> Doc<'a> {
    /// The document's root node.
    pub fn root(self, arena: &'a Arena) -> crate::Node<'a> {
        crate::Node::new(self, 0, arena)
    }

    /// The parsed text.
    pub fn text(&self) -> &'a [u8] {
        self.text
    }
}

type R<T> = Result<T, ParseError>;

/// Parses `text`, whose first byte sits at column `first_col`. Fails on
/// malformed input or when the arena is full.
pub fn parse<'a>(arena: &'a Arena, text: &'a [u8], first_col: u32) -> R<Doc<'a>> {
    if text.len() >= u32::MAX as usize {
        return Err(ParseError {
            what: "input larger than 4 GiB",
            at: 0,
        });
    }
    let text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
    // Line breaks are `\n` or `\r\n`; a lone `\r` (old Mac style) is refused
    // rather than read with a different line structure than YAML's.
    let mut i = 0;
    while let Some(at) = text
        .get(i..)
        .and_then(|t| t.iter().position(|&c| c == b'\r'))
    {
        let at = i + at;
        if text.get(at + 1) != Some(&b'\n') {
            return Err(ParseError {
                what: "a carriage return without a line feed",
                at: at as u32,
            });
        }
        i = at + 1;
    }
    let Some(tape) = Growing::new(arena) else {
        return Err(oom(0));
    };
    let mut p = Parser {
        s: text,
        first_col,
        tape,
        depth: 0,
    };
    p.document()?;
    Ok(Doc {
        text,
        tape: p.tape.finish(),
        first_col,
    })
}

fn oom(at: u32) -> ParseError {
    ParseError {
        what: "out of memory",
        at,
    }
}

/// A content line: where its first non-space byte is and its indentation.
#[derive(Clone, Copy)]
struct Line {
    first: u32,
    indent: i32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// After `key:`; a block sequence may sit at the key's indentation.
    MapValue,
    /// After `- `; a compact mapping or sequence may start on this line.
    SeqEntry,
    /// After `--- ` on the document's first line.
    DocStart,
}

struct Parser<'a> {
    s: &'a [u8],
    first_col: u32,
    tape: Growing<'a, Raw>,
    depth: u32,
}

pub(crate) fn byte(s: &[u8], i: u32) -> u8 {
    s.get(i as usize).copied().unwrap_or(0)
}

pub(crate) fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// A line break or the end of the text (the text holds no NUL).
pub(crate) fn is_brk(c: u8) -> bool {
    c == b'\n' || c == b'\r' || c == 0
}

pub(crate) fn is_blank_or_brk(c: u8) -> bool {
    is_ws(c) || is_brk(c)
}

fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

/// Offset of the first byte of the line holding `pos`.
pub(crate) fn line_start(s: &[u8], pos: u32) -> u32 {
    let mut i = pos.min(s.len() as u32);
    while i > 0 && byte(s, i - 1) != b'\n' {
        i -= 1;
    }
    i
}

/// Offset of the `\n` ending the line holding `pos` (or the text length).
pub(crate) fn line_end(s: &[u8], pos: u32) -> u32 {
    let mut i = pos;
    while (i as usize) < s.len() && byte(s, i) != b'\n' {
        i += 1;
    }
    i
}

/// Column of `pos`.
pub(crate) fn column(s: &[u8], first_col: u32, pos: u32) -> u32 {
    let ls = line_start(s, pos);
    pos - ls + if ls == 0 { first_col } else { 0 }
}

/// `---` or `...` at the start of a line, followed by a blank or break.
fn is_doc_marker(s: &[u8], ls: u32) -> bool {
    let a = byte(s, ls);
    (a == b'-' || a == b'.')
        && byte(s, ls + 1) == a
        && byte(s, ls + 2) == a
        && is_blank_or_brk(byte(s, ls + 3))
}

impl<'a> Parser<'a> {
    fn b(&self, i: u32) -> u8 {
        byte(self.s, i)
    }

    fn len(&self) -> u32 {
        self.s.len() as u32
    }

    fn err<T>(&self, what: &'static str, at: u32) -> R<T> {
        Err(ParseError { what, at })
    }

    fn push(&mut self, style: Style, start: u32, end: u32, count: u32) -> R<u32> {
        let idx = self.tape.len() as u32;
        let ok = self.tape.push(Raw {
            style,
            flags: 0,
            anchor: 0,
            start,
            end,
            next: idx + 1,
            count,
        });
        if ok { Ok(idx) } else { Err(oom(start)) }
    }

    fn raw(&mut self, idx: u32) -> Option<&mut Raw> {
        self.tape.as_mut_slice().get_mut(idx as usize)
    }

    /// Closes node `idx`: its subtree ends here.
    fn close(&mut self, idx: u32, end: u32, count: u32) {
        let next = self.tape.len() as u32;
        if let Some(r) = self.raw(idx) {
            r.end = end;
            r.next = next;
            r.count = count;
        }
    }

    fn skip_ws(&self, mut i: u32) -> u32 {
        while is_ws(self.b(i)) {
            i += 1;
        }
        i
    }

    fn is_dash(&self, i: u32) -> bool {
        self.b(i) == b'-' && is_blank_or_brk(self.b(i + 1))
    }

    fn col(&self, pos: u32) -> i32 {
        column(self.s, self.first_col, pos) as i32
    }

    /// From `pos` (on a line that may hold trailing space and a comment),
    /// checks nothing else follows on the line; returns the line's end.
    fn finish_line(&self, pos: u32) -> R<u32> {
        let i = self.skip_ws(pos);
        let c = self.b(i);
        if c == b'#' && (i == pos || is_ws(self.b(i - 1)) || i == line_start(self.s, i)) {
            return Ok(line_end(self.s, i));
        }
        if is_brk(c) {
            return Ok(line_end(self.s, i));
        }
        self.err("unexpected text after a value", i)
    }

    /// The first content line at or after the line starting at `ls`
    /// (blank and comment-only lines skipped); `None` at the end of the
    /// text or at a document marker.
    fn content_line(&self, mut ls: u32) -> R<Option<Line>> {
        loop {
            if ls >= self.len() {
                return Ok(None);
            }
            if ls > 0 && is_doc_marker(self.s, ls) {
                return Ok(None);
            }
            let mut i = ls;
            while self.b(i) == b' ' {
                i += 1;
            }
            let mut j = i;
            while is_ws(self.b(j)) {
                j += 1;
            }
            let c = self.b(j);
            if c == b'#' || is_brk(c) {
                ls = line_end(self.s, j) + 1;
                continue;
            }
            if j != i {
                return self.err("tab in indentation", i);
            }
            let indent = (i - ls) as i32 + if ls == 0 { self.first_col as i32 } else { 0 };
            return Ok(Some(Line { first: i, indent }));
        }
    }

    /// The content line after the line ending at `eol`.
    fn next_line(&self, eol: u32) -> R<Option<Line>> {
        if eol >= self.len() {
            return Ok(None);
        }
        self.content_line(eol + 1)
    }

    fn enter(&mut self, at: u32) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nesting too deep", at);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ------------------------------------------------------------ document

    fn document(&mut self) -> R<()> {
        // Blank lines, comments and directives before the content.
        let mut ls = 0;
        loop {
            if ls >= self.len() {
                let at = self.len();
                self.push(Style::Empty, at, at, at)?;
                return Ok(());
            }
            let i = self.skip_ws(ls);
            let c = self.b(i);
            if c == b'#' || is_brk(c) || (c == b'%' && i == ls) {
                ls = line_end(self.s, i) + 1;
                continue;
            }
            break;
        }
        let end = if is_doc_marker(self.s, ls) {
            if self.b(ls) == b'-' {
                self.block_value(ls + 3, -1, Ctx::DocStart)?
            } else {
                self.push(Style::Empty, ls, ls, ls)?;
                ls
            }
        } else {
            match self.content_line(ls)? {
                Some(l) => self.block_node_at(l, -1)?,
                None => {
                    self.push(Style::Empty, ls, ls, ls)?;
                    ls
                }
            }
        };
        self.trailer(end)
    }

    /// After the root node: only comments, blank lines and document-end
    /// markers may follow.
    fn trailer(&self, end: u32) -> R<()> {
        let eol = self.finish_line(end)?;
        let mut ls = eol + 1;
        let mut seen_start = false;
        while ls < self.len() {
            let eol = line_end(self.s, ls);
            if is_doc_marker(self.s, ls) {
                if self.b(ls) == b'-' {
                    if seen_start {
                        return self.err("more than one YAML document", ls);
                    }
                    seen_start = true;
                }
                self.finish_line(ls + 3)?;
            } else {
                let i = self.skip_ws(ls);
                let c = self.b(i);
                if !(c == b'#' || is_brk(c)) {
                    return self.err(
                        if seen_start {
                            "more than one YAML document"
                        } else {
                            "unexpected content after the document (bad indentation?)"
                        },
                        i,
                    );
                }
            }
            ls = eol + 1;
        }
        Ok(())
    }

    // ------------------------------------------------------------ block

    /// A node that starts at the beginning of content line `l`, inside a
    /// block collection indented `n`.
    fn block_node_at(&mut self, l: Line, n: i32) -> R<u32> {
        if self.is_dash(l.first) {
            self.block_seq(l.first, l.indent)
        } else {
            self.inline_node(l.first, n, true, l.first)
        }
    }

    /// The value that begins at `pos`, right after a `key:`, a `- ` or a
    /// `--- `, inside a block collection indented `n`. Returns where the
    /// value's text ends.
    fn block_value(&mut self, pos: u32, n: i32, ctx: Ctx) -> R<u32> {
        let mut p = self.skip_ws(pos);
        let props = p;
        let node = self.tape.len() as u32;
        let mut amp = None;
        // Anchors and tags: skipped, remembered as the node's properties.
        while matches!(self.b(p), b'&' | b'!') {
            if self.b(p) == b'&' {
                amp = Some(p);
            }
            while !is_blank_or_brk(self.b(p)) {
                p += 1;
            }
            p = self.skip_ws(p);
        }
        let c = self.b(p);
        let comment = c == b'#' && (p == pos || is_ws(self.b(p - 1)));
        let end = 'value: {
            if comment || is_brk(c) {
                let eol = line_end(self.s, p);
                let next = self.next_line(eol)?;
                if let Some(l) = next {
                    let same_indent_seq =
                        ctx == Ctx::MapValue && l.indent == n && self.is_dash(l.first);
                    if l.indent > n || same_indent_seq {
                        break 'value self.block_node_at(l, n)?;
                    }
                }
                let at = if props == p { pos } else { p };
                self.push(Style::Empty, at, at, at)?;
                break 'value at;
            }
            let compact = ctx != Ctx::MapValue && props == p;
            self.inline_node(p, n, compact, props)?
        };
        self.anchor(node, amp)?;
        Ok(end)
    }

    /// Records that node `idx` has the anchor whose `&` is at `amp`.
    fn anchor(&mut self, idx: u32, amp: Option<u32>) -> R<()> {
        let Some(amp) = amp else {
            return Ok(());
        };
        let Some(r) = self.raw(idx) else {
            return Ok(());
        };
        match u16::try_from(r.start.saturating_sub(amp)) {
            Ok(d) if d > 0 => {
                r.anchor = d;
                Ok(())
            }
            _ => self.err("an anchor more than 64 KiB before its node", amp),
        }
    }

    /// A node whose first byte is `p` on the current line. `compact`: a
    /// block mapping or sequence may start here.
    fn inline_node(&mut self, p: u32, n: i32, compact: bool, props: u32) -> R<u32> {
        match self.b(p) {
            b'|' | b'>' => self.block_scalar(p, n),
            b'[' | b'{' => self.flow(p),
            b'*' => self.alias(p),
            b'"' | b'\'' => {
                let end = self.quoted(p, props)?;
                let k = self.skip_ws(end);
                if self.b(k) == b':' && is_blank_or_brk(self.b(k + 1)) {
                    if compact {
                        // A quoted first key: `block_map` turns the scalar
                        // just pushed into the mapping's record.
                        return self.block_map(p);
                    }
                    return self.err("a mapping cannot start on the line of its key", k);
                }
                Ok(end)
            }
            b'-' if self.is_dash(p) => {
                if compact {
                    self.block_seq(p, self.col(p))
                } else {
                    self.err("a block sequence cannot start on the line of its key", p)
                }
            }
            b'?' if is_blank_or_brk(self.b(p + 1)) => {
                self.err("complex mapping keys (`? `) are not supported", p)
            }
            b'%' | b'@' | b'`' => self.err("reserved character at the start of a scalar", p),
            _ => {
                let (end, key) = self.plain_line(p);
                if key {
                    if compact {
                        return self.block_map(p);
                    }
                    return self.err("a mapping cannot start on the line of its key", end);
                }
                self.plain_block(p, end, n, props)
            }
        }
    }

    /// Scans a plain scalar on one line from `p`. Returns its end (trailing
    /// blanks excluded) and whether it is a mapping key (`: ` follows).
    fn plain_line(&self, p: u32) -> (u32, bool) {
        let mut i = p;
        let mut end = p;
        loop {
            let c = self.b(i);
            if is_brk(c) {
                return (end, false);
            }
            if c == b':' && is_blank_or_brk(self.b(i + 1)) {
                return (end, true);
            }
            if c == b'#' && i > p && is_ws(self.b(i - 1)) {
                return (end, false);
            }
            i += 1;
            if !is_ws(c) {
                end = i;
            }
        }
    }

    /// A plain scalar starting at `p` whose first line ends at `end`, with
    /// its continuation lines (more indented than `n`).
    fn plain_block(&mut self, p: u32, first_end: u32, n: i32, props: u32) -> R<u32> {
        let mut end = first_end;
        let mut multi = false;
        // A comment ends a plain scalar.
        let after = self.skip_ws(first_end);
        if self.b(after) != b'#' {
            let mut ls = line_end(self.s, first_end) + 1;
            while ls < self.len() && !is_doc_marker(self.s, ls) {
                let mut i = ls;
                while self.b(i) == b' ' {
                    i += 1;
                }
                let j = self.skip_ws(i);
                let c = self.b(j);
                if is_brk(c) {
                    ls = line_end(self.s, j) + 1;
                    continue;
                }
                if c == b'#' {
                    break;
                }
                let indent = (i - ls) as i32;
                if indent <= n {
                    break;
                }
                if j != i {
                    return self.err("tab in indentation", i);
                }
                let (e, key) = self.plain_line(j);
                if key {
                    return self.err("bad indentation of a mapping entry", j);
                }
                end = e;
                multi = true;
                if self.b(self.skip_ws(e)) == b'#' {
                    break;
                }
                ls = line_end(self.s, e) + 1;
            }
        }
        let idx = self.push(Style::Plain, p, end, props)?;
        if !multi && let Some(r) = self.raw(idx) {
            r.flags = SIMPLE;
        }
        Ok(end)
    }

    fn alias(&mut self, p: u32) -> R<u32> {
        let mut i = p + 1;
        while !is_blank_or_brk(self.b(i)) && !is_flow_indicator(self.b(i)) {
            i += 1;
        }
        self.push(Style::Alias, p, i, p)?;
        Ok(i)
    }

    /// A quoted scalar at `p` (single or double); pushes it, returns its end.
    fn quoted(&mut self, p: u32, props: u32) -> R<u32> {
        let q = self.b(p);
        let mut i = p + 1;
        let mut simple = true;
        loop {
            let c = self.b(i);
            if i >= self.len() {
                return self.err("unterminated quoted string", p);
            }
            if c == q {
                if q == b'\'' && self.b(i + 1) == b'\'' {
                    simple = false;
                    i += 2;
                    continue;
                }
                break;
            }
            if c == b'\\' && q == b'"' {
                simple = false;
                i += 2;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                simple = false;
                let ls = line_end(self.s, i) + 1;
                if is_doc_marker(self.s, ls) {
                    return self.err("document marker inside a quoted string", ls);
                }
            }
            i += 1;
        }
        let style = if q == b'"' {
            Style::DoubleQuoted
        } else {
            Style::SingleQuoted
        };
        let idx = self.push(style, p, i + 1, props)?;
        if simple && let Some(r) = self.raw(idx) {
            r.flags = SIMPLE;
        }
        Ok(i + 1)
    }

    /// A `|` or `>` block scalar whose header is at `p`, inside a block
    /// collection indented `n`.
    fn block_scalar(&mut self, p: u32, n: i32) -> R<u32> {
        let mut i = p + 1;
        let mut explicit = 0u32;
        for _ in 0..2 {
            match self.b(i) {
                b'+' | b'-' => i += 1,
                d @ b'1'..=b'9' => {
                    explicit = u32::from(d - b'0');
                    i += 1;
                }
                _ => {}
            }
        }
        let header_eol = self.finish_line(i).map_err(|_| ParseError {
            what: "bad block scalar header",
            at: p,
        })?;
        let base = n.max(-1);
        let mut content_indent: i32 = if explicit > 0 {
            base.max(0) + explicit as i32
        } else {
            -1
        };
        let mut end = i;
        let mut ls = header_eol + 1;
        while header_eol < self.len() && ls < self.len() && !is_doc_marker(self.s, ls) {
            let mut k = ls;
            while self.b(k) == b' ' {
                k += 1;
            }
            let indent = (k - ls) as i32;
            let j = self.skip_ws(k);
            if is_brk(self.b(j)) {
                ls = line_end(self.s, j) + 1;
                continue;
            }
            if indent <= base {
                break;
            }
            if content_indent < 0 {
                content_indent = indent;
            }
            if indent < content_indent {
                if self.b(k) == b'#' {
                    break;
                }
                return self.err("bad indentation in a block scalar", k);
            }
            let eol = line_end(self.s, k);
            end = if eol > k && self.b(eol - 1) == b'\r' {
                eol - 1
            } else {
                eol
            };
            ls = eol + 1;
        }
        let style = if self.b(p) == b'|' {
            Style::Literal
        } else {
            Style::Folded
        };
        self.push(style, p, end, (base + 1) as u32)?;
        Ok(end)
    }

    /// A block mapping whose first key starts at `p`. If the last tape
    /// record is a quoted scalar at `p` (see `inline_node`), it becomes the
    /// first key.
    fn block_map(&mut self, p: u32) -> R<u32> {
        self.enter(p)?;
        let m = self.col(p);
        // A quoted first key was already pushed; re-use its slot by
        // shifting it behind the mapping record.
        let reuse = match self.tape.as_slice().last() {
            Some(r)
                if r.start == p && matches!(r.style, Style::SingleQuoted | Style::DoubleQuoted) =>
            {
                Some(*r)
            }
            _ => None,
        };
        let idx = match reuse {
            Some(key) => {
                let idx = self.tape.len() as u32 - 1;
                if let Some(r) = self.raw(idx) {
                    *r = Raw {
                        style: Style::BlockMap,
                        flags: 0,
                        anchor: 0,
                        start: p,
                        end: p,
                        next: idx + 1,
                        count: 0,
                    };
                }
                let k = self.push(key.style, key.start, key.end, key.count)?;
                if let Some(r) = self.raw(k) {
                    r.flags = key.flags;
                }
                idx
            }
            None => self.push(Style::BlockMap, p, p, 0)?,
        };
        let mut k = p;
        let mut count = 0u32;
        let mut first = reuse.is_some();
        let end;
        loop {
            // The key.
            let key_end = if first {
                first = false;
                self.tape.as_slice().last().map_or(p, |r| r.end)
            } else {
                self.key(k)?
            };
            let colon = self.skip_ws(key_end);
            if self.b(colon) != b':' || !is_blank_or_brk(self.b(colon + 1)) {
                return self.err("expected `:` after a mapping key", colon);
            }
            let vend = self.block_value(colon + 1, m, Ctx::MapValue)?;
            count += 1;
            let eol = self.finish_line(vend)?;
            match self.next_line(eol)? {
                Some(l) if l.indent == m => {
                    if self.is_dash(l.first) {
                        return self
                            .err("a sequence entry where a mapping key was expected", l.first);
                    }
                    k = l.first;
                }
                Some(l) if l.indent > m => {
                    return self.err("bad indentation (deeper than the mapping's keys)", l.first);
                }
                _ => {
                    end = vend;
                    break;
                }
            }
        }
        self.close(idx, end, count);
        self.leave();
        Ok(end)
    }

    /// A block mapping key at `k`: pushes it, returns its end.
    fn key(&mut self, k: u32) -> R<u32> {
        match self.b(k) {
            b'"' | b'\'' => self.quoted(k, k),
            b'?' if is_blank_or_brk(self.b(k + 1)) => {
                self.err("complex mapping keys (`? `) are not supported", k)
            }
            b'[' | b'{' => self.err("flow collections as mapping keys are not supported", k),
            b'&' | b'!' | b'*' => {
                self.err("anchors, tags and aliases on keys are not supported", k)
            }
            _ => {
                let (end, key) = self.plain_line(k);
                if !key {
                    return self.err("expected a mapping key (`key: value`)", k);
                }
                if end == k {
                    return self.err("empty mapping key", k);
                }
                let idx = self.push(Style::Plain, k, end, k)?;
                if let Some(r) = self.raw(idx) {
                    r.flags = SIMPLE;
                }
                Ok(end)
            }
        }
    }

    /// A block sequence whose first `-` is at `p`, indented `m`.
    fn block_seq(&mut self, p: u32, m: i32) -> R<u32> {
        self.enter(p)?;
        let idx = self.push(Style::BlockSeq, p, p, 0)?;
        let mut d = p;
        let mut count = 0u32;
        let end;
        loop {
            let e = self.push(Style::Entry, d, d, 0)?;
            let vend = self.block_value(d + 1, m, Ctx::SeqEntry)?;
            self.close(e, vend, 1);
            count += 1;
            let eol = self.finish_line(vend)?;
            match self.next_line(eol)? {
                Some(l) if l.indent == m && self.is_dash(l.first) => d = l.first,
                Some(l) if l.indent > m => {
                    return self.err(
                        "bad indentation (deeper than the sequence's entries)",
                        l.first,
                    );
                }
                _ => {
                    end = vend;
                    break;
                }
            }
        }
        self.close(idx, end, count);
        self.leave();
        Ok(end)
    }

    // ------------------------------------------------------------ flow

    /// Skips blanks, line breaks and comments inside a flow collection.
    fn skip_flow_ws(&self, mut i: u32) -> u32 {
        loop {
            let c = self.b(i);
            if is_ws(c) || c == b'\n' || c == b'\r' {
                i += 1;
            } else if c == b'#'
                && (i == 0 || is_blank_or_brk(self.b(i - 1)) || is_flow_indicator(self.b(i - 1)))
            {
                // A plain scalar cannot start with `#`: after `,` `[` `{` it
                // starts a comment, as libyaml reads it.
                i = line_end(self.s, i);
            } else {
                return i;
            }
        }
    }

    fn flow(&mut self, p: u32) -> R<u32> {
        self.enter(p)?;
        let end = if self.b(p) == b'[' {
            self.flow_seq(p)?
        } else {
            self.flow_map(p)?
        };
        self.leave();
        Ok(end)
    }

    fn flow_seq(&mut self, p: u32) -> R<u32> {
        let idx = self.push(Style::FlowSeq, p, p, 0)?;
        let mut q = self.skip_flow_ws(p + 1);
        let mut count = 0;
        loop {
            if q >= self.len() {
                return self.err("unterminated flow sequence", p);
            }
            if self.b(q) == b']' {
                break;
            }
            let e = self.push(Style::Entry, q, q, 0)?;
            let vend = self.flow_item(q)?;
            self.close(e, vend, 1);
            count += 1;
            q = self.skip_flow_ws(vend);
            match self.b(q) {
                b',' => q = self.skip_flow_ws(q + 1),
                b']' => {}
                b':' => return self.err("pairs in flow sequences are not supported", q),
                _ if q >= self.len() => return self.err("unterminated flow sequence", p),
                _ => return self.err("expected `,` or `]` in a flow sequence", q),
            }
        }
        self.close(idx, q + 1, count);
        Ok(q + 1)
    }

    fn flow_map(&mut self, p: u32) -> R<u32> {
        let idx = self.push(Style::FlowMap, p, p, 0)?;
        let mut q = self.skip_flow_ws(p + 1);
        let mut count = 0;
        let mut quoted_keys = false;
        loop {
            if q >= self.len() {
                return self.err("unterminated flow mapping", p);
            }
            if self.b(q) == b'}' {
                break;
            }
            let key_end = match self.b(q) {
                b'"' | b'\'' => {
                    if count == 0 && self.b(q) == b'"' {
                        quoted_keys = true;
                    }
                    self.quoted(q, q)?
                }
                b'[' | b'{' => {
                    return self.err("flow collections as mapping keys are not supported", q);
                }
                b'?' => return self.err("complex mapping keys (`? `) are not supported", q),
                b'%' | b'@' | b'`' => {
                    return self.err("reserved character at the start of a scalar", q);
                }
                _ => self.flow_plain(q)?,
            };
            let mut v = self.skip_flow_ws(key_end);
            let vend = if self.b(v) == b':' {
                v = self.skip_flow_ws(v + 1);
                if matches!(self.b(v), b',' | b'}') {
                    self.push(Style::Empty, key_end + 1, key_end + 1, key_end + 1)?;
                    key_end + 1
                } else {
                    self.flow_item(v)?
                }
            } else if matches!(self.b(v), b',' | b'}') {
                self.push(Style::Empty, key_end, key_end, key_end)?;
                key_end
            } else {
                return self.err("expected `:` after a flow mapping key", v);
            };
            count += 1;
            q = self.skip_flow_ws(vend);
            match self.b(q) {
                b',' => q = self.skip_flow_ws(q + 1),
                b'}' => {}
                _ if q >= self.len() => return self.err("unterminated flow mapping", p),
                _ => return self.err("expected `,` or `}` in a flow mapping", q),
            }
        }
        self.close(idx, q + 1, count);
        if quoted_keys && let Some(r) = self.raw(idx) {
            r.flags = QUOTED_KEYS;
        }
        Ok(q + 1)
    }

    fn flow_item(&mut self, q: u32) -> R<u32> {
        let mut p = q;
        let node = self.tape.len() as u32;
        let mut amp = None;
        while matches!(self.b(p), b'&' | b'!') {
            if self.b(p) == b'&' {
                amp = Some(p);
            }
            while !is_blank_or_brk(self.b(p)) && !is_flow_indicator(self.b(p)) {
                p += 1;
            }
            p = self.skip_flow_ws(p);
        }
        let end = self.flow_item_at(p, q)?;
        self.anchor(node, amp)?;
        Ok(end)
    }

    /// A flow item whose properties (from `q`) are skipped: it starts at `p`.
    fn flow_item_at(&mut self, p: u32, q: u32) -> R<u32> {
        match self.b(p) {
            b'[' | b'{' => self.flow(p),
            b'"' | b'\'' => self.quoted(p, q),
            b'*' => self.alias(p),
            // libyaml reads any `?` here as the explicit-key indicator.
            b'?' => self.err("complex mapping keys (`? `) are not supported", p),
            b'%' | b'@' | b'`' => self.err("reserved character at the start of a scalar", p),
            _ => self.flow_plain(p),
        }
    }

    /// A plain scalar inside a flow collection; it may continue on the
    /// next lines (folded when read).
    fn flow_plain(&mut self, p: u32) -> R<u32> {
        let mut i = p;
        let mut end = p;
        let mut multi = false;
        loop {
            let c = self.b(i);
            if is_brk(c) && i < self.len() {
                // Continued on the next line unless what comes next ends it.
                let mut k = i;
                while matches!(self.b(k), b' ' | b'\t' | b'\n' | b'\r') && k < self.len() {
                    k += 1;
                }
                let d = self.b(k);
                let ends = k >= self.len()
                    || is_flow_indicator(d)
                    || d == b'#'
                    || (d == b':'
                        && (is_blank_or_brk(self.b(k + 1)) || is_flow_indicator(self.b(k + 1))));
                if ends {
                    break;
                }
                multi = true;
                i = k;
                continue;
            }
            if is_brk(c) || is_flow_indicator(c) {
                break;
            }
            if c == b':' {
                let d = self.b(i + 1);
                if is_blank_or_brk(d) || is_flow_indicator(d) {
                    break;
                }
            }
            if c == b'#' && i > p && is_ws(self.b(i - 1)) {
                break;
            }
            i += 1;
            if !is_ws(c) {
                end = i;
            }
        }
        if end == p {
            return self.err("empty entry in a flow collection", p);
        }
        let idx = self.push(Style::Plain, p, end, p)?;
        if !multi && let Some(r) = self.raw(idx) {
            r.flags = SIMPLE;
        }
        Ok(end)
    }
}
