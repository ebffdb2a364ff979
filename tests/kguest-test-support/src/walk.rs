//! Reading every field of a view, recursively: in one pass per message
//! (`Reflect::reflect`, the scan behind every view's `read`) or through the
//! generated accessors (`Reflect::reflect_accessors`), and the two walks
//! held equal call by call.

use kguest_wire::reflect::{Item, Reflect, Visitor};

/// Kubernetes' schema has no recursive message, so no view nests deeper.
pub const MAX_VIEW_DEPTH: usize = 64;

/// Reads every field of a view, recursing into every message, iterating
/// every repeated field and map, and counts what it read.
#[derive(Debug)]
pub struct Walk {
    /// Read nested messages through the accessors rather than in one pass.
    pub accessors: bool,
    /// Read every character of each string and every byte of each bytes
    /// field (off for benchmarks, which count lengths only).
    pub touch: bool,
    /// Values read: scalars, strings, messages, map keys and values.
    pub items: usize,
    /// Bytes of the strings and bytes fields read.
    pub bytes: usize,
    /// How deep messages nested.
    pub max_depth: usize,
    depth: usize,
}

impl Default for Walk {
    fn default() -> Walk {
        Walk {
            accessors: false,
            touch: true,
            items: 0,
            bytes: 0,
            max_depth: 0,
            depth: 0,
        }
    }
}

impl Walk {
    /// A walk that only counts (`touch` off), one pass or through the
    /// accessors: what the benchmarks measure.
    pub fn counting(accessors: bool) -> Walk {
        Walk {
            accessors,
            touch: false,
            ..Walk::default()
        }
    }

    /// Walks `view` (in one pass or through its accessors, as nested
    /// messages are).
    pub fn walk<'a>(&mut self, view: &dyn Reflect<'a>) {
        if self.accessors {
            view.reflect_accessors(self);
        } else {
            view.reflect(self);
        }
    }

    fn item(&mut self, item: Item<'_, '_>) {
        self.items += 1;
        match item {
            Item::Str(s) => {
                self.bytes += s.len();
                if self.touch {
                    std::hint::black_box(s.chars().count());
                }
            }
            Item::Bytes(b) => {
                self.bytes += b.len();
                if self.touch {
                    std::hint::black_box(b.iter().map(|&x| usize::from(x)).sum::<usize>());
                }
            }
            Item::F32(v) if self.touch => {
                std::hint::black_box(v.to_bits());
            }
            Item::F64(v) if self.touch => {
                std::hint::black_box(v.to_bits());
            }
            Item::Message(message) => {
                assert!(
                    self.depth < MAX_VIEW_DEPTH,
                    "views nested deeper than any Kubernetes schema"
                );
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                self.walk(message);
                self.depth -= 1;
            }
            _ => {}
        }
    }
}

impl<'a> Visitor<'a> for Walk {
    fn field(&mut self, _number: u32, item: Option<Item<'a, '_>>) {
        if let Some(item) = item {
            self.item(item);
        }
    }

    fn element(&mut self, _number: u32, item: Item<'a, '_>) {
        self.item(item);
    }

    fn entry(&mut self, _number: u32, key: Item<'a, '_>, value: Item<'a, '_>) {
        self.item(key);
        self.item(value);
    }
}

/// Records every visitor call as a line; nested messages are walked the
/// same way (one pass or accessors) between `{` and `}`.
struct Calls {
    one_pass: bool,
    lines: Vec<String>,
}

impl Calls {
    fn item(&mut self, head: String, item: Item<'_, '_>) {
        let text = match item {
            Item::I32(v) => format!("i32 {v}"),
            Item::I64(v) => format!("i64 {v}"),
            Item::U32(v) => format!("u32 {v}"),
            Item::U64(v) => format!("u64 {v}"),
            Item::Bool(v) => format!("bool {v}"),
            Item::F32(v) => format!("f32 {:08x}", v.to_bits()),
            Item::F64(v) => format!("f64 {:016x}", v.to_bits()),
            Item::Str(v) => format!("str {v:?}"),
            Item::Bytes(v) => format!("bytes {v:02x?}"),
            Item::Message(m) => {
                self.lines.push(format!("{head} {{"));
                if self.one_pass {
                    m.reflect(self);
                } else {
                    m.reflect_accessors(self);
                }
                self.lines.push("}".into());
                return;
            }
        };
        self.lines.push(format!("{head} {text}"));
    }
}

impl<'a> Visitor<'a> for Calls {
    fn field(&mut self, number: u32, item: Option<Item<'a, '_>>) {
        match item {
            Some(item) => self.item(format!("field {number}"), item),
            None => self.lines.push(format!("field {number} none")),
        }
    }

    fn element(&mut self, number: u32, item: Item<'a, '_>) {
        self.item(format!("element {number}"), item);
    }

    fn entry(&mut self, number: u32, key: Item<'a, '_>, value: Item<'a, '_>) {
        self.item(format!("entry {number} key"), key);
        self.item(format!("entry {number} value"), value);
    }
}

/// Every visitor call of one walk of `view`, as text.
fn calls(view: &dyn Reflect<'_>, one_pass: bool) -> Vec<String> {
    let mut calls = Calls {
        one_pass,
        lines: Vec::new(),
    };
    if one_pass {
        view.reflect(&mut calls);
    } else {
        view.reflect_accessors(&mut calls);
    }
    calls.lines
}

/// The visitor calls of the one-pass walk and of the accessor walk of
/// `view`, compared: `Ok(number of calls)` when identical, else the first
/// call where they differ.
pub fn same_calls(view: &dyn Reflect<'_>) -> Result<usize, String> {
    let (ours, theirs) = (calls(view, true), calls(view, false));
    if ours == theirs {
        return Ok(ours.len());
    }
    let at = ours
        .iter()
        .zip(&theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    Err(format!(
        "call {at}: one pass {:?}, accessors {:?} ({} vs {} calls)",
        ours.get(at),
        theirs.get(at),
        ours.len(),
        theirs.len()
    ))
}
