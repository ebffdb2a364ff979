//! Writing the results: where they go in the output and how each one is
//! written, in block or flow style.

use super::ResourceList;
use super::report::Rec;
use super::write::{Region, Writer, after_colon};
use crate::emit;
use crate::node::Bytes;
use crate::yaml::{self, Style, line_end};

impl<'a> ResourceList<'a> {
    pub(super) fn results_region(&self) -> Option<(u32, u32, Region)> {
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

    pub(super) fn write_results(&self, w: &mut Writer<'_>, mode: Mode, dash: u32) {
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

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
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
