//! Helpers shared by the fuzz targets: walking views, comparable trees of a
//! view and of prost-reflect's decoding, the reference descriptor pool, and
//! the wire-level predicates that recognise the documented deviations.
//!
//! The same ideas back `tests/kguest-conformance/tests/it/{differential,
//! no_panic}.rs`; this crate cannot depend on that test crate, so the fuzz
//! targets carry their own (small) copy.

pub mod generate;
pub mod go_judge;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kguest_wire::reflect::{Item, Reflect, Visitor};
use kguest_wire::schema::{Kind, Label, MessageSchema};
use kguest_wire::wire::{Value, next_field, read_varint};
use prost_reflect::{DescriptorPool, DynamicMessage, MapKey, Value as PValue};

// ---------------------------------------------------------------------------
// Walking a view.

/// Reads every field of a view through its generated accessors, recursing
/// into every message, iterating every repeated field and map.
#[derive(Default)]
pub struct Walk {
    depth: usize,
    pub max_depth: usize,
    pub items: usize,
}

/// Kubernetes' schema has no recursive message, so no view nests deeper.
pub const MAX_VIEW_DEPTH: usize = 64;

impl Walk {
    fn item(&mut self, item: Item<'_, '_>) {
        self.items += 1;
        match item {
            Item::Str(s) => {
                std::hint::black_box(s.chars().count());
            }
            Item::Bytes(b) => {
                std::hint::black_box(b.iter().map(|&x| usize::from(x)).sum::<usize>());
            }
            Item::F32(v) => {
                std::hint::black_box(v.to_bits());
            }
            Item::F64(v) => {
                std::hint::black_box(v.to_bits());
            }
            Item::Message(message) => {
                assert!(
                    self.depth < MAX_VIEW_DEPTH,
                    "views nested deeper than any Kubernetes schema"
                );
                std::hint::black_box(message.schema().name());
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                message.reflect(self);
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

// ---------------------------------------------------------------------------
// One pass against the accessors.

/// Records every visitor call as a line; nested messages are walked the same
/// way (one pass or accessors) between `{` and `}`.
struct Calls {
    one_pass: bool,
    lines: Vec<String>,
}

impl Calls {
    fn item(&mut self, head: String, item: Item<'_, '_>) {
        let text = match item {
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
            // Typed text, floats by their bits (as in the trees below).
            other => match item_node(other) {
                Node::Scalar(text) => text,
                Node::Msg(_) => unreachable!("a scalar item"),
            },
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

/// The visitor calls of `Reflect::reflect` (one pass per message) and of
/// `Reflect::reflect_accessors` (every accessor) side by side: `None` when
/// they are identical, else the first difference.
pub fn one_pass_difference(view: &dyn Reflect<'_>) -> Option<String> {
    let walk = |one_pass: bool| {
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
    };
    let (ours, theirs) = (walk(true), walk(false));
    if ours == theirs {
        return None;
    }
    let at = ours
        .iter()
        .zip(&theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    Some(format!(
        "call {at}: one pass {:?}, accessors {:?} ({} vs {} calls)",
        ours.get(at),
        theirs.get(at),
        ours.len(),
        theirs.len()
    ))
}

// ---------------------------------------------------------------------------
// Comparable trees.

/// One value: a scalar in typed textual form, or a message's present fields.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Scalar(String),
    Msg(BTreeMap<u32, Field>),
}

/// A present field; empty repeated and map fields are absent.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    One(Node),
    Many(Vec<Node>),
    Map(BTreeMap<String, Node>),
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn item_node(item: Item<'_, '_>) -> Node {
    Node::Scalar(match item {
        Item::I32(v) => format!("i32:{v}"),
        Item::I64(v) => format!("i64:{v}"),
        Item::U32(v) => format!("u32:{v}"),
        Item::U64(v) => format!("u64:{v}"),
        Item::Bool(v) => format!("bool:{v}"),
        Item::F32(v) => format!("f32:{:08x}", v.to_bits()),
        Item::F64(v) => format!("f64:{:016x}", v.to_bits()),
        Item::Str(v) => format!("str:{v}"),
        Item::Bytes(v) => format!("bytes:{}", hex(v)),
        Item::Message(m) => return view_tree(m),
    })
}

const INCONSISTENT: &str = "!!inconsistent visitor calls";

#[derive(Default)]
struct Collect {
    fields: BTreeMap<u32, Field>,
}

impl<'a> Visitor<'a> for Collect {
    fn field(&mut self, number: u32, item: Option<Item<'a, '_>>) {
        if let Some(item) = item {
            let node = item_node(item);
            let field = if self.fields.contains_key(&number) {
                Field::One(Node::Scalar(INCONSISTENT.into()))
            } else {
                Field::One(node)
            };
            self.fields.insert(number, field);
        }
    }

    fn element(&mut self, number: u32, item: Item<'a, '_>) {
        let node = item_node(item);
        match self
            .fields
            .entry(number)
            .or_insert_with(|| Field::Many(Vec::new()))
        {
            Field::Many(items) => items.push(node),
            other => *other = Field::One(Node::Scalar(INCONSISTENT.into())),
        }
    }

    fn entry(&mut self, number: u32, key: Item<'a, '_>, value: Item<'a, '_>) {
        let key = match item_node(key) {
            Node::Scalar(text) => text,
            Node::Msg(_) => "!!message as a map key".into(),
        };
        let value = item_node(value);
        match self
            .fields
            .entry(number)
            .or_insert_with(|| Field::Map(BTreeMap::new()))
        {
            Field::Map(entries) => {
                entries.insert(key, value);
            }
            other => *other = Field::One(Node::Scalar(INCONSISTENT.into())),
        }
    }
}

/// The tree of a view, read through its generated accessors.
pub fn view_tree(view: &dyn Reflect<'_>) -> Node {
    let mut collect = Collect::default();
    view.reflect(&mut collect);
    Node::Msg(collect.fields)
}

fn ref_node(value: &PValue) -> Node {
    Node::Scalar(match value {
        PValue::Bool(v) => format!("bool:{v}"),
        PValue::I32(v) | PValue::EnumNumber(v) => format!("i32:{v}"),
        PValue::I64(v) => format!("i64:{v}"),
        PValue::U32(v) => format!("u32:{v}"),
        PValue::U64(v) => format!("u64:{v}"),
        PValue::F32(v) => format!("f32:{:08x}", v.to_bits()),
        PValue::F64(v) => format!("f64:{:016x}", v.to_bits()),
        PValue::String(v) => format!("str:{v}"),
        PValue::Bytes(v) => format!("bytes:{}", hex(v)),
        PValue::Message(m) => return reference_tree(m),
        PValue::List(_) | PValue::Map(_) => "!!list or map as a value".into(),
    })
}

fn key_text(key: &MapKey) -> String {
    match key {
        MapKey::Bool(v) => format!("bool:{v}"),
        MapKey::I32(v) => format!("i32:{v}"),
        MapKey::I64(v) => format!("i64:{v}"),
        MapKey::U32(v) => format!("u32:{v}"),
        MapKey::U64(v) => format!("u64:{v}"),
        MapKey::String(v) => format!("str:{v}"),
    }
}

/// The tree of prost-reflect's decoding: set fields, unknown fields left out.
pub fn reference_tree(message: &DynamicMessage) -> Node {
    let mut fields = BTreeMap::new();
    for (desc, value) in message.fields() {
        let field = match value {
            PValue::List(items) if items.is_empty() => continue,
            PValue::Map(entries) if entries.is_empty() => continue,
            PValue::List(items) => Field::Many(items.iter().map(ref_node).collect()),
            PValue::Map(entries) => Field::Map(
                entries
                    .iter()
                    .map(|(k, v)| (key_text(k), ref_node(v)))
                    .collect(),
            ),
            other => Field::One(ref_node(other)),
        };
        fields.insert(desc.number(), field);
    }
    Node::Msg(fields)
}

fn message_of(kind: Kind) -> Option<&'static MessageSchema> {
    match kind {
        Kind::Message(inner) => Some(inner),
        _ => None,
    }
}

fn short(node: &Node) -> String {
    match node {
        Node::Scalar(text) if text.chars().count() > 80 => {
            format!("{:?}...", text.chars().take(80).collect::<String>())
        }
        Node::Scalar(text) => format!("{text:?}"),
        Node::Msg(fields) => format!("a message with {} field(s)", fields.len()),
    }
}

/// The first path (named from `schema`) where `ours` and `theirs` differ.
pub fn first_difference(
    schema: Option<&MessageSchema>,
    path: &str,
    ours: &Node,
    theirs: &Node,
) -> Option<String> {
    let (Node::Msg(a), Node::Msg(b)) = (ours, theirs) else {
        return (ours != theirs).then(|| {
            format!(
                "{path}: views give {}, prost-reflect gives {}",
                short(ours),
                short(theirs)
            )
        });
    };
    let numbers: BTreeSet<u32> = a.keys().chain(b.keys()).copied().collect();
    for number in numbers {
        let field = schema.and_then(|s| s.field(number));
        let path = match field {
            Some(f) => format!("{path}.{}", f.name()),
            None => format!("{path}.#{number}"),
        };
        let inner = field.and_then(|f| message_of(f.kind));
        let diff = match (a.get(&number), b.get(&number)) {
            (None, None) => None,
            (Some(Field::One(x)), Some(Field::One(y))) => first_difference(inner, &path, x, y),
            (Some(Field::Many(x)), Some(Field::Many(y))) => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(inner, &format!("{path}[{i}]"), x, y))
                .or_else(|| {
                    (x.len() != y.len()).then(|| {
                        format!(
                            "{path}: views give {} element(s), prost-reflect {}",
                            x.len(),
                            y.len()
                        )
                    })
                }),
            (Some(Field::Map(x)), Some(Field::Map(y))) => {
                let value_schema = inner
                    .and_then(|e| e.field(2))
                    .and_then(|f| message_of(f.kind));
                let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                keys.into_iter().find_map(|key| {
                    let path = format!("{path}[{key:?}]");
                    match (x.get(key), y.get(key)) {
                        (Some(x), Some(y)) => first_difference(value_schema, &path, x, y),
                        (Some(_), None) => Some(format!("{path}: only the views have this key")),
                        (None, Some(_)) => Some(format!("{path}: only prost-reflect has it")),
                        (None, None) => None,
                    }
                })
            }
            (x, y) => Some(format!(
                "{path}: views give {x:?}, prost-reflect gives {y:?}"
            )),
        };
        if diff.is_some() {
            return diff;
        }
    }
    None
}

// ---------------------------------------------------------------------------
// The reference decoder.

/// The vendored tree: `$KGUEST_VENDOR_DIR`, else `<repo>/proto-vendor`.
pub fn vendor_dir() -> PathBuf {
    match std::env::var_os("KGUEST_VENDOR_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto-vendor"),
    }
}

fn proto_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            proto_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path.strip_prefix(root).expect("below root").to_path_buf());
        }
    }
}

/// Every vendored `.proto` compiled once by protox.
pub fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let dir = vendor_dir().join("proto");
        assert!(
            dir.is_dir(),
            "{} is missing: run `cargo xtask vendor` or set KGUEST_VENDOR_DIR",
            dir.display()
        );
        let mut files = Vec::new();
        proto_files(&dir, &dir, &mut files);
        protox::Compiler::new([&dir])
            .expect("protox include dir")
            .include_imports(true)
            .open_files(&files)
            .unwrap_or_else(|e| panic!("protox cannot compile {}: {e}", dir.display()))
            .descriptor_pool()
    })
}

/// prost-reflect's decoding of `bytes` as the message `full_name`.
pub fn reference_decode(full_name: &str, bytes: &[u8]) -> Result<DynamicMessage, String> {
    let desc = pool()
        .get_message_by_name(full_name)
        .unwrap_or_else(|| panic!("prost-reflect does not know {full_name}"));
    DynamicMessage::decode(desc, bytes).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------
// Wire predicates for the documented deviations.

/// True when the key at `offset` has wire type 3 (start group): kguest
/// rejects groups, prost-reflect skips unknown ones.
pub fn group_key_at(bytes: &[u8], offset: usize) -> bool {
    let mut rest = bytes.get(offset..).unwrap_or_default();
    read_varint(&mut rest).is_ok_and(|key| key & 7 == 3)
}

/// True when the record at `offset` has the key of a map field with a wire
/// type other than length-delimited, whatever follows the key (prost-reflect
/// 0.16 reads a map record of any wire type as a length and an entry, so it
/// accepts `0d 00`, a truncated fixed32, as an empty entry).
pub fn map_with_wrong_wire_type_at(schema: &MessageSchema, bytes: &[u8], offset: usize) -> bool {
    let mut rest = bytes;
    loop {
        let start = bytes.len() - rest.len();
        if start == offset {
            let Ok(key) = read_varint(&mut rest) else {
                return false;
            };
            let number = u32::try_from(key >> 3).unwrap_or(0);
            return key & 7 != 2 && schema.field(number).is_some_and(|f| f.label == Label::Map);
        }
        let Ok(Some((number, value))) = next_field(&mut rest) else {
            return false;
        };
        if let (Some(field), Value::Len(body)) = (schema.field(number), value)
            && let Kind::Message(inner) = field.kind
        {
            let body_start = bytes.len() - rest.len() - body.len();
            if (body_start..body_start + body.len()).contains(&offset) {
                return map_with_wrong_wire_type_at(inner, body, offset - body_start);
            }
        }
    }
}

/// True when a singular message field occurs more than once at any depth
/// (the documented deviation: protobuf merges, a view reads the last one).
/// Call only on input that validates.
pub fn has_split_message(schema: &MessageSchema, bytes: &[u8]) -> bool {
    let mut seen = BTreeSet::new();
    let mut rest = bytes;
    while let Ok(Some((number, value))) = next_field(&mut rest) {
        let Some(field) = schema.field(number) else {
            continue;
        };
        if let (Kind::Message(inner), Value::Len(body)) = (field.kind, value) {
            if field.label == Label::Singular && !seen.insert(number) {
                return true;
            }
            if has_split_message(inner, body) {
                return true;
            }
        }
    }
    false
}

/// A readable rendering of a (short prefix of an) input.
pub fn hex_prefix(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(256)];
    let more = if bytes.len() > shown.len() { "..." } else { "" };
    format!("{} bytes: {}{more}", bytes.len(), hex(shown))
}
