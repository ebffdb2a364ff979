//! The differential oracle: prost-reflect's `DynamicMessage`, an
//! independent protobuf decoder built from the vendored `.proto` files
//! (compiled by protox), and one comparable tree ([`Node`]) for both
//! decoders: the views' through `Reflect::reflect`, the reference's from
//! the fields `DynamicMessage` has set. [`first_difference`] names the
//! first path where two trees differ.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kguest_wire::reflect::{Item, Reflect, Visitor};
use kguest_wire::schema::{Kind, MessageSchema};
use prost_reflect::{DescriptorPool, DynamicMessage, MapKey, Value as PValue};

use crate::diff::hex;
use crate::vendor;

// ---------------------------------------------------------------------------
// The reference decoder.

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

/// Every vendored `.proto` file compiled by protox, once per process.
pub fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let dir = vendor::proto_dir();
        let mut files = Vec::new();
        proto_files(&dir, &dir, &mut files);
        assert!(!files.is_empty(), "no .proto files below {}", dir.display());
        protox::Compiler::new([&dir])
            .expect("protox include dir")
            .include_imports(true)
            .open_files(&files)
            .unwrap_or_else(|e| panic!("protox cannot compile {}: {e}", dir.display()))
            .descriptor_pool()
    })
}

/// prost-reflect's decoding of `bytes` as the message `full_name`
/// (`k8s.io.api.core.v1.Pod`).
pub fn reference_decode(full_name: &str, bytes: &[u8]) -> Result<DynamicMessage, String> {
    let desc = pool()
        .get_message_by_name(full_name)
        .unwrap_or_else(|| panic!("prost-reflect does not know {full_name}"));
    DynamicMessage::decode(desc, bytes).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------
// The comparable tree.

/// One value: a scalar in a typed textual form (`i64:5`, `str:abc`,
/// `bytes:00ff`, floats by their bits) or a message with its present
/// fields by number.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Scalar(String),
    Msg(BTreeMap<u32, Field>),
}

/// A present field. Empty repeated and map fields are absent.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    One(Node),
    Many(Vec<Node>),
    /// Keys in their typed textual form; a repeated key keeps its last value.
    Map(BTreeMap<String, Node>),
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

fn scalar_text(node: Node) -> String {
    match node {
        Node::Scalar(text) => text,
        Node::Msg(_) => "!!message used as a map key".to_string(),
    }
}

/// Collects what a view's `reflect` reports.
#[derive(Default)]
struct Collect {
    fields: BTreeMap<u32, Field>,
}

/// Marks a field whose visitor calls do not fit one shape (a generator bug);
/// it can never equal a reference value.
fn inconsistent() -> Field {
    Field::One(Node::Scalar("!!inconsistent visitor calls".to_string()))
}

impl<'a> Visitor<'a> for Collect {
    fn field(&mut self, number: u32, item: Option<Item<'a, '_>>) {
        if let Some(item) = item {
            let node = item_node(item);
            let field = if self.fields.contains_key(&number) {
                inconsistent()
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
            other => *other = inconsistent(),
        }
    }

    fn entry(&mut self, number: u32, key: Item<'a, '_>, value: Item<'a, '_>) {
        let (key, value) = (scalar_text(item_node(key)), item_node(value));
        match self
            .fields
            .entry(number)
            .or_insert_with(|| Field::Map(BTreeMap::new()))
        {
            // Like a decoder building a map: the last value of a key wins.
            Field::Map(entries) => {
                entries.insert(key, value);
            }
            other => *other = inconsistent(),
        }
    }
}

/// The tree of a view, read through `Reflect::reflect` (one pass per message).
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
        PValue::List(_) | PValue::Map(_) => "!!list or map as a value".to_string(),
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

/// The tree of a decoded reference message: its set fields (proto2 has
/// presence), unknown fields left out.
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

fn short(node: &Node) -> String {
    match node {
        Node::Scalar(text) if text.chars().count() > 80 => {
            format!("{:?}...", text.chars().take(80).collect::<String>())
        }
        Node::Scalar(text) => format!("{text:?}"),
        Node::Msg(fields) => format!("a message with {} field(s)", fields.len()),
    }
}

fn field_short(field: &Field) -> String {
    match field {
        Field::One(node) => short(node),
        Field::Many(items) => format!("{} element(s)", items.len()),
        Field::Map(entries) => format!("{} entr(y/ies)", entries.len()),
    }
}

fn message_of(kind: Kind) -> Option<&'static MessageSchema> {
    match kind {
        Kind::Message(inner) => Some(inner),
        _ => None,
    }
}

/// The first path (with field names from `schema`) where the views' tree
/// `ours` differs from the reference tree `theirs`.
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
            (Some(x), None) => Some(format!(
                "{path}: views give {}, prost-reflect has nothing",
                field_short(x)
            )),
            (None, Some(y)) => Some(format!(
                "{path}: views have nothing, prost-reflect gives {}",
                field_short(y)
            )),
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
                        (None, Some(_)) => Some(format!("{path}: only prost-reflect has this key")),
                        (None, None) => None,
                    }
                })
            }
            (Some(x), Some(y)) => Some(format!(
                "{path}: different shapes: views give {}, prost-reflect gives {}",
                field_short(x),
                field_short(y)
            )),
        };
        if diff.is_some() {
            return diff;
        }
    }
    None
}
