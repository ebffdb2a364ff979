//! The descriptors, lowered once into what the emitters need. Public so
//! that other emitters (e.g. host-side encoders) can reuse the decisions.
//!
//! Every decision about names, labels, maps and JSON forms is made here, so
//! the emitters only print.

use std::collections::{BTreeMap, HashMap};

use prost_types::field_descriptor_proto::{Label as ProtoLabel, Type as ProtoType};
use prost_types::{DescriptorProto, FileDescriptorSet};

use crate::{Config, Error, JsonForm, naming};

/// All packages to generate, by protobuf package name.
#[derive(Debug)]
pub struct Model {
    pub packages: BTreeMap<String, Package>,
}

#[derive(Debug)]
pub struct Package {
    /// Protobuf package, e.g. `k8s.io.api.core.v1`.
    pub name: String,
    /// Rust module path below the crate root, e.g. `["api", "core", "v1"]`.
    pub module: Vec<String>,
    /// Messages in declaration order of nesting, sorted by name; map entries included.
    pub messages: Vec<Message>,
}

#[derive(Debug)]
pub struct Message {
    /// Fully qualified protobuf name without the leading dot.
    pub full_name: String,
    /// Message names from the package down: `["PodSpec", "NodeSelectorEntry"]`.
    pub nesting: Vec<String>,
    pub type_name: String,
    pub schema_static: String,
    pub map_entry: bool,
    pub json: JsonForm,
    pub fields: Vec<Field>,
    /// The order JSON writes `fields` in (indexes into `fields`), when it is
    /// not their number order.
    pub json_order: Vec<u16>,
}

#[derive(Debug)]
pub struct Field {
    pub number: u32,
    pub proto_name: String,
    pub method: String,
    /// The associated constant naming the field for one-pass reads.
    pub constant: String,
    /// The raw-bytes accessor, for singular strings.
    pub raw_method: Option<String>,
    /// Written by encoders even when zero (Go non-pointer fields).
    pub always: bool,
    /// The JSON name, when it differs from the protobuf name.
    pub json_name: Option<String>,
    /// Inlined into the parent's JSON object.
    pub inline: bool,
    /// Written to JSON even when empty (Go's json tag lacks `omitempty`).
    pub emit_empty: bool,
    /// Left out of JSON when zero (Go's json tag has `omitzero`).
    pub omit_zero: bool,
    /// The other members of this field's oneof (a member is present only
    /// when no other member comes after it on the wire).
    pub oneof_siblings: Vec<u32>,
    pub label: Label,
    pub ty: FieldType,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    Singular,
    Repeated,
    /// A `map<K, V>` field; `ty` is the entry message.
    Map {
        key: FieldType,
        value: FieldType,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    Scalar(Scalar),
    String,
    Bytes,
    /// A message, by fully qualified name.
    Message(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Bool,
    Enum,
    Fixed32,
    Sfixed32,
    Float,
    Fixed64,
    Sfixed64,
    Double,
}

/// Where a message's generated items live.
#[derive(Debug, Clone)]
pub struct MessagePath {
    pub package: String,
    /// Rust module path of the package.
    pub module: Vec<String>,
    /// Modules for nesting (parents' names, snake-cased).
    pub nested_modules: Vec<String>,
    pub type_name: String,
    pub schema_static: String,
}

impl Model {
    /// An index from fully qualified message name to where it is generated.
    pub fn paths(&self) -> HashMap<String, MessagePath> {
        let mut out = HashMap::new();
        for package in self.packages.values() {
            for message in &package.messages {
                let nested_modules = message.nesting[..message.nesting.len() - 1]
                    .iter()
                    .map(|n| naming::module(n))
                    .collect();
                out.insert(
                    message.full_name.clone(),
                    MessagePath {
                        package: package.name.clone(),
                        module: package.module.clone(),
                        nested_modules,
                        type_name: message.type_name.clone(),
                        schema_static: message.schema_static.clone(),
                    },
                );
            }
        }
        out
    }
}

/// Lowers the compiled descriptors of the files selected in `config`.
pub fn lower(config: &Config, set: &FileDescriptorSet) -> Result<Model, Error> {
    let mut packages: BTreeMap<String, Package> = BTreeMap::new();
    for file in &set.file {
        let package_name = file.package().to_string();
        if package_name.is_empty() && !file.message_type.is_empty() {
            return Err(Error::NoPackage(file.name().to_string()));
        }
        let module = config.module_path(&package_name);
        let package = packages
            .entry(package_name.clone())
            .or_insert_with(|| Package {
                name: package_name.clone(),
                module,
                messages: Vec::new(),
            });
        for message in &file.message_type {
            lower_message(config, &package_name, &[], message, &mut package.messages)?;
        }
    }
    for package in packages.values_mut() {
        package.messages.sort_by(|a, b| a.nesting.cmp(&b.nesting));
    }
    let model = Model { packages };
    check_unique_names(&model)?;
    check_field_tables(config, &model)?;
    Ok(model)
}

/// Every field named in the configuration's tables exists: a typo or a field
/// removed upstream is an error, not a silently ignored entry.
fn check_field_tables(config: &Config, model: &Model) -> Result<(), Error> {
    let fields: std::collections::HashSet<(&str, &str)> = model
        .packages
        .values()
        .flat_map(|p| &p.messages)
        .flat_map(|m| {
            m.fields
                .iter()
                .map(move |f| (m.full_name.as_str(), f.proto_name.as_str()))
        })
        .collect();
    let named = config
        .explicit_presence
        .iter()
        .chain(&config.json_inline)
        .chain(&config.json_emit_empty)
        .chain(&config.json_omit_zero)
        .chain(&config.json_order)
        .flat_map(|(message, fields)| fields.iter().map(move |f| (message.as_str(), f.as_str())))
        .chain(
            config
                .json_names
                .keys()
                .map(|(m, f)| (m.as_str(), f.as_str())),
        );
    for (message, field) in named {
        if !fields.contains(&(message, field)) {
            return Err(Error::UnknownField(format!("{message}.{field}")));
        }
    }
    for message in config.json_forms.keys() {
        if !model
            .packages
            .values()
            .flat_map(|p| &p.messages)
            .any(|m| &m.full_name == message)
        {
            return Err(Error::UnknownField(format!(
                "{message} (a message with a JSON form)"
            )));
        }
    }
    Ok(())
}

fn lower_message(
    config: &Config,
    package: &str,
    parents: &[String],
    proto: &DescriptorProto,
    out: &mut Vec<Message>,
) -> Result<(), Error> {
    let mut nesting = parents.to_vec();
    nesting.push(proto.name().to_string());
    let full_name = if package.is_empty() {
        nesting.join(".")
    } else {
        format!("{package}.{}", nesting.join("."))
    };
    let map_entry = proto.options.as_ref().is_some_and(|o| o.map_entry());

    let map_entries: HashMap<String, &DescriptorProto> = proto
        .nested_type
        .iter()
        .filter(|n| n.options.as_ref().is_some_and(|o| o.map_entry()))
        .map(|n| (format!(".{full_name}.{}", n.name()), n))
        .collect();

    let mut fields = Vec::new();
    for field in &proto.field {
        let ty = field_type(field).map_err(|what| Error::Unsupported {
            message: full_name.clone(),
            field: field.name().to_string(),
            what,
        })?;
        let label = match field.label() {
            ProtoLabel::Repeated => match (&ty, field.r#type()) {
                (FieldType::Message(name), _) if map_entries.contains_key(&format!(".{name}")) => {
                    let entry = map_entries[&format!(".{name}")];
                    let part = |number: i32| {
                        entry
                            .field
                            .iter()
                            .find(|f| f.number() == number)
                            .ok_or_else(|| Error::Unsupported {
                                message: full_name.clone(),
                                field: field.name().to_string(),
                                what: "a map entry without key or value".into(),
                            })
                            .and_then(|f| {
                                field_type(f).map_err(|what| Error::Unsupported {
                                    message: full_name.clone(),
                                    field: field.name().to_string(),
                                    what,
                                })
                            })
                    };
                    Label::Map {
                        key: part(1)?,
                        value: part(2)?,
                    }
                }
                _ => Label::Repeated,
            },
            _ => Label::Singular,
        };
        fields.push(Field {
            number: u32::try_from(field.number()).map_err(|_| Error::Unsupported {
                message: full_name.clone(),
                field: field.name().to_string(),
                what: "a negative field number".into(),
            })?,
            proto_name: field.name().to_string(),
            method: naming::field_method(field.name()),
            constant: naming::field_const(field.name()),
            raw_method: (ty == FieldType::String && label == Label::Singular)
                .then(|| naming::raw_bytes_method(field.name())),
            // Go writes `[]byte` only when non-nil, whatever the pointer-ness.
            always: config.go_presence
                && label == Label::Singular
                && ty != FieldType::Bytes
                && !config
                    .explicit_presence
                    .get(&full_name)
                    .is_some_and(|fields| fields.iter().any(|f| f == field.name())),
            json_name: config
                .json_names
                .get(&(full_name.clone(), field.name().to_string()))
                .cloned(),
            oneof_siblings: real_oneof(proto, field)
                .map(|index| {
                    proto
                        .field
                        .iter()
                        .filter(|f| f.oneof_index == Some(index) && f.number != field.number)
                        .filter_map(|f| u32::try_from(f.number()).ok())
                        .collect()
                })
                .unwrap_or_default(),
            inline: config
                .json_inline
                .get(&full_name)
                .is_some_and(|fields| fields.iter().any(|f| f == field.name())),
            emit_empty: config
                .json_emit_empty
                .get(&full_name)
                .is_some_and(|fields| fields.iter().any(|f| f == field.name())),
            omit_zero: config
                .json_omit_zero
                .get(&full_name)
                .is_some_and(|fields| fields.iter().any(|f| f == field.name())),
            label,
            ty,
        });
    }
    fields.sort_by_key(|f| f.number);
    let json_order = match config.json_order.get(&full_name) {
        None => Vec::new(),
        Some(names) => {
            let mut order = Vec::with_capacity(fields.len());
            for name in names {
                // Unknown names are reported by the check of named fields.
                if let Some(i) = fields.iter().position(|f| &f.proto_name == name) {
                    order.push(u16::try_from(i).unwrap_or(u16::MAX));
                }
            }
            // Fields the order leaves out keep their number order, last.
            for i in 0..fields.len() {
                let i = u16::try_from(i).unwrap_or(u16::MAX);
                if !order.contains(&i) {
                    order.push(i);
                }
            }
            order
        }
    };

    let json = config
        .json_forms
        .get(&full_name)
        .copied()
        .unwrap_or(JsonForm::Object);
    out.push(Message {
        type_name: naming::type_name(proto.name()),
        schema_static: naming::schema_static(&nesting),
        full_name,
        nesting: nesting.clone(),
        map_entry,
        json,
        fields,
        json_order,
    });
    for nested in &proto.nested_type {
        lower_message(config, package, &nesting, nested, out)?;
    }
    Ok(())
}

/// The index of the field's oneof, unless it is the synthetic oneof of a
/// proto3 `optional` field (which has ordinary presence).
fn real_oneof(message: &DescriptorProto, field: &prost_types::FieldDescriptorProto) -> Option<i32> {
    let index = field.oneof_index?;
    if field.proto3_optional() {
        return None;
    }
    message
        .oneof_decl
        .get(usize::try_from(index).ok()?)
        .map(|_| index)
}

fn field_type(field: &prost_types::FieldDescriptorProto) -> Result<FieldType, String> {
    let scalar = |s| Ok(FieldType::Scalar(s));
    match field.r#type() {
        ProtoType::Double => scalar(Scalar::Double),
        ProtoType::Float => scalar(Scalar::Float),
        ProtoType::Int64 => scalar(Scalar::Int64),
        ProtoType::Uint64 => scalar(Scalar::Uint64),
        ProtoType::Int32 => scalar(Scalar::Int32),
        ProtoType::Fixed64 => scalar(Scalar::Fixed64),
        ProtoType::Fixed32 => scalar(Scalar::Fixed32),
        ProtoType::Bool => scalar(Scalar::Bool),
        ProtoType::String => Ok(FieldType::String),
        ProtoType::Bytes => Ok(FieldType::Bytes),
        ProtoType::Uint32 => scalar(Scalar::Uint32),
        ProtoType::Enum => scalar(Scalar::Enum),
        ProtoType::Sfixed32 => scalar(Scalar::Sfixed32),
        ProtoType::Sfixed64 => scalar(Scalar::Sfixed64),
        ProtoType::Sint32 => scalar(Scalar::Sint32),
        ProtoType::Sint64 => scalar(Scalar::Sint64),
        ProtoType::Message => Ok(FieldType::Message(
            field.type_name().trim_start_matches('.').to_string(),
        )),
        ProtoType::Group => Err("groups".into()),
    }
}

/// Names every generated module file imports from `kguest_wire`, plus the
/// schema module; no item of a package may take them.
const MODULE_RESERVED: &[&str] = &[
    "Field",
    "FieldSet",
    "Map",
    "Repeated",
    "View",
    "codec",
    "rt",
    "MessageSchema",
    "_schema",
];

fn check_unique_names(model: &Model) -> Result<(), Error> {
    const RESERVED: &[&str] = &["from_bytes", "as_bytes", "validate", "read"];
    // Associated constants of a view: one per field, plus `View::SCHEMA`,
    // which an inherent constant of that name would shadow.
    const RESERVED_CONSTS: &[&str] = &["SCHEMA"];
    for package in model.packages.values() {
        // Items at the package module's level: child packages, view types and
        // the modules holding nested views.
        let mut items: HashMap<String, String> = HashMap::new();
        let children = model
            .packages
            .values()
            .filter(|p| {
                p.module.len() == package.module.len() + 1 && p.module.starts_with(&package.module)
            })
            .map(|p| {
                (
                    p.module[package.module.len()].clone(),
                    format!("package {}", p.name),
                )
            });
        let top_level = package
            .messages
            .iter()
            .filter(|m| m.nesting.len() == 1 && !m.map_entry);
        let views = top_level
            .clone()
            .map(|m| (m.type_name.clone(), format!("message {}", m.full_name)));
        let nested_parents = package
            .messages
            .iter()
            .filter(|m| m.nesting.len() == 2 && !m.map_entry)
            .map(|m| {
                (
                    naming::module(&m.nesting[0]),
                    format!("nested types of {}.{}", package.name, m.nesting[0]),
                )
            });
        for (name, what) in children.chain(views).chain(nested_parents) {
            if MODULE_RESERVED.contains(&name.as_str()) {
                return Err(Error::NameClash(format!(
                    "{what} takes the reserved name {name}"
                )));
            }
            if let Some(other) = items.get(&name).filter(|other| **other != what) {
                return Err(Error::NameClash(format!(
                    "{other} and {what} both map to {name}"
                )));
            }
            items.insert(name, what);
        }
        let mut statics = HashMap::new();
        for message in &package.messages {
            if let Some(other) = statics.insert(&message.schema_static, &message.full_name) {
                return Err(Error::NameClash(format!(
                    "{} and {} both map to the static {}",
                    other, message.full_name, message.schema_static
                )));
            }
            let mut methods = HashMap::new();
            let mut consts = HashMap::new();
            for field in &message.fields {
                let names = std::iter::once(field.method.clone()).chain(field.raw_method.clone());
                for name in names {
                    if RESERVED.contains(&name.as_str()) {
                        return Err(Error::NameClash(format!(
                            "{}.{} maps to the reserved method {name}",
                            message.full_name, field.proto_name
                        )));
                    }
                    if let Some(other) = methods.insert(name.clone(), &field.proto_name) {
                        return Err(Error::NameClash(format!(
                            "{}: fields {other} and {} both map to {name}",
                            message.full_name, field.proto_name
                        )));
                    }
                }
                if RESERVED_CONSTS.contains(&field.constant.as_str()) {
                    return Err(Error::NameClash(format!(
                        "{}.{} maps to the reserved constant {}",
                        message.full_name, field.proto_name, field.constant
                    )));
                }
                if let Some(other) = consts.insert(&field.constant, &field.proto_name) {
                    return Err(Error::NameClash(format!(
                        "{}: fields {other} and {} both map to {}",
                        message.full_name, field.proto_name, field.constant
                    )));
                }
            }
        }
    }
    Ok(())
}
