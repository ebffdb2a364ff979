//! Writing the list: the input byte for byte but for the items' edits,
//! removals and additions and the results; [`Sink`] takes the bytes.

use super::edits::extent_end;
use super::results::Mode;
use super::{ResourceList, Slot, State};
use crate::node::Node;
use crate::yaml::{self, Style, line_end, line_start};

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

impl<'a> ResourceList<'a> {
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
}

/// Right after the `:` before the value that starts at `s`.
pub(super) fn after_colon(text: &[u8], s: u32) -> u32 {
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
pub(super) enum Region {
    Items,
    Results { mode: Mode, dash: u32 },
}

pub(super) struct Writer<'w> {
    out: &'w mut dyn Sink,
    last: u8,
    pub(super) ok: bool,
}

impl Writer<'_> {
    #[inline(never)]
    pub(super) fn bytes(&mut self, b: &[u8]) {
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

    pub(super) fn spaces(&mut self, n: u32) {
        for _ in 0..n {
            self.bytes(b" ");
        }
    }
}
