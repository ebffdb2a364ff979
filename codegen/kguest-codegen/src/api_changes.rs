//! What changed between two releases' descriptor sets: messages and kinds
//! added or removed, fields added, removed, renumbered or retyped, per
//! protobuf package (one API group/version), and which of those changes
//! reach the messages guests read most (Pod, Node, their specs and
//! statuses).
//!
//! Pure: it compares two compiled [`FileDescriptorSet`]s. Rendering the
//! report and deciding what fails a bump is the caller's business.

use std::collections::{BTreeMap, BTreeSet};

use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};

/// The object metadata message: a top-level message with a `metadata` field
/// of this type is a kind (an object the API serves).
const OBJECT_META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The messages guests read most; a change in a message reachable from one
/// of them is flagged with its name.
pub const WATCHED: &[(&str, &str)] = &[
    ("Pod", "k8s.io.api.core.v1.Pod"),
    ("Node", "k8s.io.api.core.v1.Node"),
];

/// One field as the wire sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldShape {
    pub name: String,
    pub number: i32,
    /// `optional string`, `repeated k8s.io.api.core.v1.Container`, ...
    pub ty: String,
}

/// What happened to one message or field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    MessageAdded {
        kind: bool,
    },
    MessageRemoved {
        kind: bool,
    },
    FieldAdded(FieldShape),
    FieldRemoved(FieldShape),
    /// Same name, another number: old readers find nothing (or another field).
    FieldRenumbered {
        name: String,
        from: i32,
        to: i32,
    },
    /// Same name and number, another type or label.
    FieldRetyped {
        name: String,
        number: i32,
        from: String,
        to: String,
    },
}

impl ChangeKind {
    /// Whether the change breaks a reader built on the older release.
    pub fn breaks_readers(&self) -> bool {
        matches!(
            self,
            ChangeKind::FieldRenumbered { .. } | ChangeKind::FieldRetyped { .. }
        )
    }
}

/// One change to a message of `package`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Protobuf package (`k8s.io.api.core.v1`).
    pub package: String,
    /// The message's name inside its package (`PodSpec`, `PodSpec.Entry`).
    pub message: String,
    pub kind: ChangeKind,
    /// The [`WATCHED`] messages this one is reachable from (in the newer
    /// release, or the older one for what was removed).
    pub touches: Vec<&'static str>,
}

/// Every change from `old` to `new`, sorted by package, message, then field
/// number. Map entry messages are left out (their map field's type says it).
pub fn compare(old: &FileDescriptorSet, new: &FileDescriptorSet) -> Vec<Change> {
    let old = Index::new(old);
    let new = Index::new(new);
    let old_reach = old.reachable();
    let new_reach = new.reachable();
    let mut out = Vec::new();
    let names: BTreeSet<&String> = old.messages.keys().chain(new.messages.keys()).collect();
    for full in names {
        let (package, message) = split_name(full, &old, &new);
        let mut push = |kind: ChangeKind, reach: &BTreeMap<String, Vec<&'static str>>| {
            out.push(Change {
                package: package.clone(),
                message: message.clone(),
                kind,
                touches: reach.get(full).cloned().unwrap_or_default(),
            });
        };
        match (old.messages.get(full), new.messages.get(full)) {
            (Some(_), None) => push(
                ChangeKind::MessageRemoved {
                    kind: old.is_kind(full),
                },
                &old_reach,
            ),
            (None, Some(_)) => push(
                ChangeKind::MessageAdded {
                    kind: new.is_kind(full),
                },
                &new_reach,
            ),
            (Some(before), Some(after)) => {
                for kind in field_changes(before, after) {
                    let reach = if matches!(kind, ChangeKind::FieldRemoved(_)) {
                        &old_reach
                    } else {
                        &new_reach
                    };
                    push(kind, reach);
                }
            }
            (None, None) => {}
        }
    }
    out
}

fn field_changes(before: &MessageInfo, after: &MessageInfo) -> Vec<ChangeKind> {
    let mut out = Vec::new();
    for old in &before.fields {
        match after.fields.iter().find(|f| f.name == old.name) {
            None => out.push(ChangeKind::FieldRemoved(old.clone())),
            Some(new) if new.number != old.number => out.push(ChangeKind::FieldRenumbered {
                name: old.name.clone(),
                from: old.number,
                to: new.number,
            }),
            Some(new) if new.ty != old.ty => out.push(ChangeKind::FieldRetyped {
                name: old.name.clone(),
                number: old.number,
                from: old.ty.clone(),
                to: new.ty.clone(),
            }),
            Some(_) => {}
        }
    }
    for new in &after.fields {
        if !before.fields.iter().any(|f| f.name == new.name) {
            out.push(ChangeKind::FieldAdded(new.clone()));
        }
    }
    out.sort_by_key(|kind| match kind {
        ChangeKind::FieldAdded(f) | ChangeKind::FieldRemoved(f) => f.number,
        ChangeKind::FieldRenumbered { from, .. } => *from,
        ChangeKind::FieldRetyped { number, .. } => *number,
        _ => 0,
    });
    out
}

/// The package and in-package name of `full`, from whichever set has it.
fn split_name(full: &str, old: &Index, new: &Index) -> (String, String) {
    let package = new
        .messages
        .get(full)
        .or_else(|| old.messages.get(full))
        .map(|m| m.package.clone())
        .unwrap_or_default();
    let message = full
        .strip_prefix(&package)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(full)
        .to_string();
    (package, message)
}

#[derive(Debug)]
struct MessageInfo {
    package: String,
    top_level: bool,
    fields: Vec<FieldShape>,
    /// Message types its fields refer to (map entries looked through).
    refs: Vec<String>,
}

/// Every message of a set by full name (no leading dot), map entries
/// folded into the fields that use them.
struct Index {
    messages: BTreeMap<String, MessageInfo>,
}

impl Index {
    fn new(set: &FileDescriptorSet) -> Index {
        let mut entries = BTreeMap::new();
        for file in &set.file {
            let package = file.package().to_string();
            for message in &file.message_type {
                collect_entries(&package, message, &mut entries);
            }
        }
        let mut messages = BTreeMap::new();
        for file in &set.file {
            let package = file.package().to_string();
            for message in &file.message_type {
                collect(&package, &package, message, true, &entries, &mut messages);
            }
        }
        Index { messages }
    }

    fn is_kind(&self, full: &str) -> bool {
        self.messages.get(full).is_some_and(|m| {
            m.top_level
                && m.fields
                    .iter()
                    .any(|f| f.name == "metadata" && f.ty.ends_with(OBJECT_META))
        })
    }

    /// For each message, the [`WATCHED`] roots it is reachable from.
    fn reachable(&self) -> BTreeMap<String, Vec<&'static str>> {
        let mut out: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
        for (label, root) in WATCHED {
            let mut pending = vec![root.to_string()];
            let mut seen = BTreeSet::new();
            while let Some(name) = pending.pop() {
                if !seen.insert(name.clone()) {
                    continue;
                }
                if let Some(message) = self.messages.get(&name) {
                    pending.extend(message.refs.iter().cloned());
                    out.entry(name).or_default().push(label);
                }
            }
        }
        out
    }
}

/// Map entry messages (by full name): their key and value types.
fn collect_entries(
    scope: &str,
    message: &DescriptorProto,
    out: &mut BTreeMap<String, (String, String)>,
) {
    let full = format!("{scope}.{}", message.name());
    if message.options.as_ref().is_some_and(|o| o.map_entry()) {
        let ty = |name: &str| {
            message
                .field
                .iter()
                .find(|f| f.name() == name)
                .map(scalar_or_message)
                .unwrap_or_default()
        };
        out.insert(full.clone(), (ty("key"), ty("value")));
    }
    for nested in &message.nested_type {
        collect_entries(&full, nested, out);
    }
}

fn collect(
    package: &str,
    scope: &str,
    message: &DescriptorProto,
    top_level: bool,
    entries: &BTreeMap<String, (String, String)>,
    out: &mut BTreeMap<String, MessageInfo>,
) {
    let full = format!("{scope}.{}", message.name());
    if entries.contains_key(&full) {
        return;
    }
    let mut fields = Vec::new();
    let mut refs = Vec::new();
    for field in &message.field {
        let referenced = field.type_name().trim_start_matches('.').to_string();
        let ty = match entries.get(&referenced) {
            Some((key, value)) => {
                refs.push(value.clone());
                format!("map<{key}, {value}>")
            }
            None => {
                if field.r#type() == Type::Message {
                    refs.push(referenced);
                }
                let label = match field.label() {
                    Label::Repeated => "repeated",
                    Label::Required => "required",
                    Label::Optional => "optional",
                };
                format!("{label} {}", scalar_or_message(field))
            }
        };
        fields.push(FieldShape {
            name: field.name().to_string(),
            number: field.number(),
            ty,
        });
    }
    out.insert(
        full.clone(),
        MessageInfo {
            package: package.to_string(),
            top_level,
            fields,
            refs,
        },
    );
    for nested in &message.nested_type {
        collect(package, &full, nested, false, entries, out);
    }
}

/// A field's type as written in a `.proto` file (message types by full name).
fn scalar_or_message(field: &FieldDescriptorProto) -> String {
    match field.r#type() {
        Type::Message | Type::Enum | Type::Group => {
            field.type_name().trim_start_matches('.').to_string()
        }
        scalar => scalar
            .as_str_name()
            .trim_start_matches("TYPE_")
            .to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(source: &str) -> FileDescriptorSet {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("kguest-api-changes-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("t.proto"), source).unwrap();
        let set = protox::compile(["t.proto"], [&dir]).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        set
    }

    const OLD: &str = r#"syntax = "proto2";
package k8s.io.api.core.v1;
message Pod { optional PodSpec spec = 2; }
message PodSpec { optional string nodeName = 10; optional int64 priority = 11; optional string gone = 12; map<string, string> labels = 13; }
message Node { optional string name = 1; }
message Other { optional string a = 1; }
message Dropped { optional string a = 1; }
"#;

    const NEW: &str = r#"syntax = "proto2";
package k8s.io.api.core.v1;
message Pod { optional PodSpec spec = 2; }
message PodSpec { optional string nodeName = 14; optional int32 priority = 11; map<string, int32> labels = 13; repeated string added = 15; }
message Node { optional string name = 1; }
message Other { optional string a = 1; }
message Fresh { optional string a = 1; }
"#;

    #[test]
    fn finds_every_kind_of_change_and_what_it_touches() {
        let changes = compare(&set(OLD), &set(NEW));
        let lines: Vec<String> = changes
            .iter()
            .map(|c| format!("{} {:?} {:?}", c.message, c.kind, c.touches))
            .collect();
        let expected = [
            r#"Dropped MessageRemoved { kind: false } []"#,
            r#"Fresh MessageAdded { kind: false } []"#,
            r#"PodSpec FieldRenumbered { name: "nodeName", from: 10, to: 14 } ["Pod"]"#,
        ];
        // The map's value type is compared, not its entry's name.
        assert_eq!(lines.len(), 7, "{lines:#?}");
        assert_eq!(lines[..3], expected[..3], "{lines:#?}");
        assert!(lines[3].contains("priority"), "{lines:#?}");
        assert!(lines[4].contains("gone"), "{lines:#?}");
        assert!(
            lines[5].contains(r#"from: "map<string, string>", to: "map<string, int32>""#),
            "{lines:#?}"
        );
        assert!(lines[6].contains("FieldAdded") && lines[6].contains("added"));
        assert_eq!(
            changes.iter().filter(|c| c.kind.breaks_readers()).count(),
            3
        );
    }

    #[test]
    fn kinds_are_top_level_messages_with_object_metadata() {
        let meta = r#"syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;
message ObjectMeta { optional string name = 1; }
"#;
        let old = set(meta);
        let with_kind = format!(
            "{meta}message Thing {{ optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; }}\n"
        );
        let new = set(&with_kind);
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::MessageAdded { kind: true });
    }
}
