//! Kubernetes JSON for any view, and finding a message type by name
//! (feature `json`; hosts and tools only).

use std::string::{String, ToString};

use kguest_wire::json::{self as wire_json, JsonError};
use kguest_wire::schema::MessageSchema;
use serde_json::Value;

use crate::groups::{folder_of_group, group_of_folder};
use crate::registry::MESSAGES;

pub use kguest_wire::json::JsonError as Error;

/// The schema of the message with this fully qualified protobuf name.
pub fn schema_by_full_name(full_name: &str) -> Option<&'static MessageSchema> {
    MESSAGES
        .binary_search_by(|s| s.name().cmp(full_name))
        .ok()
        .and_then(|i| MESSAGES.get(i).copied())
}

/// The schema for a type name as users write it:
/// - `core.v1.Pod`, `apps.v1.Deployment`, `rbac.v1.Role` (folder in `k8s.io/api`),
/// - `rbac.authorization.k8s.io.v1.Role` (API group, as upstream fixtures are named),
/// - `meta.v1.Status` (apimachinery's `meta/v1`),
/// - `k8s.io.api.core.v1.Pod` (the full protobuf name).
pub fn schema_by_type_name(name: &str) -> Option<&'static MessageSchema> {
    if let Some(schema) = schema_by_full_name(name) {
        return Some(schema);
    }
    let (rest, kind) = name.rsplit_once('.')?;
    let (prefix, version) = rest.rsplit_once('.')?;
    if prefix == "meta" {
        return schema_by_full_name(&std::format!(
            "k8s.io.apimachinery.pkg.apis.meta.{version}.{kind}"
        ));
    }
    let folder = if group_of_folder(prefix).is_some() {
        prefix
    } else {
        folder_of_group(prefix)?
    };
    schema_for_folder(folder, version, kind)
}

/// The schema for an object's `apiVersion` and `kind` (`v1` + `Pod`,
/// `apps/v1` + `Deployment`). Kinds that apimachinery defines for every
/// group (`Status`, `APIGroup`, `WatchEvent`, ...) are found too.
pub fn schema_for_api_version(api_version: &str, kind: &str) -> Option<&'static MessageSchema> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    schema_for_folder(folder_of_group(group)?, version, kind)
}

fn schema_for_folder(folder: &str, version: &str, kind: &str) -> Option<&'static MessageSchema> {
    schema_by_full_name(&std::format!("k8s.io.api.{folder}.{version}.{kind}")).or_else(|| {
        schema_by_full_name(&std::format!(
            "k8s.io.apimachinery.pkg.apis.meta.{version}.{kind}"
        ))
    })
}

/// The `apiVersion` of objects whose type is the protobuf message
/// `full_name` (`k8s.io.api.apps.v1.Deployment` → `apps/v1`), if it lives in
/// an API group.
pub fn api_version_of(full_name: &str) -> Option<String> {
    let rest = full_name.strip_prefix("k8s.io.api.")?;
    let mut parts = rest.split('.');
    let (folder, version) = (parts.next()?, parts.next()?);
    let group = group_of_folder(folder)?;
    Some(if group.is_empty() {
        version.to_string()
    } else {
        std::format!("{group}/{version}")
    })
}

/// The message `bytes` of type `schema` as Kubernetes JSON.
pub fn to_json(schema: &MessageSchema, bytes: &[u8]) -> Result<Value, JsonError> {
    wire_json::to_json(schema, bytes)
}

/// A top-level object as Kubernetes JSON, with `apiVersion` and `kind` first
/// (they travel in the envelope, not in the object's message).
pub fn object_to_json(
    api_version: &str,
    kind: &str,
    schema: &MessageSchema,
    bytes: &[u8],
) -> Result<Value, JsonError> {
    let body = wire_json::to_json(schema, bytes)?;
    let mut object = serde_json::Map::new();
    if !kind.is_empty() {
        object.insert("kind".into(), Value::String(kind.into()));
    }
    if !api_version.is_empty() {
        object.insert("apiVersion".into(), Value::String(api_version.into()));
    }
    match body {
        Value::Object(fields) => object.extend(fields),
        other => return Ok(other),
    }
    Ok(Value::Object(object))
}

/// Encodes the JSON of one message of type `schema` as Kubernetes' Go
/// marshaller would.
pub fn from_json(schema: &MessageSchema, json: &Value) -> Result<std::vec::Vec<u8>, JsonError> {
    wire_json::from_json(schema, json)
}

/// A top-level object encoded from its JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedObject {
    pub api_version: String,
    pub kind: String,
    /// The object's own message, without envelope.
    pub raw: std::vec::Vec<u8>,
}

impl EncodedObject {
    /// The object as the API server sends it (`k8s\0` + `runtime.Unknown`).
    pub fn enveloped(&self) -> std::vec::Vec<u8> {
        crate::envelope::wrap(&self.api_version, &self.kind, &self.raw)
    }
}

/// Encodes a top-level object: its `apiVersion` and `kind` pick the message
/// type and go to the envelope, the rest is the message.
pub fn object_from_json(json: &Value) -> Result<EncodedObject, JsonError> {
    let invalid = |reason: String| JsonError::Invalid {
        path: ".".into(),
        reason,
    };
    let Value::Object(members) = json else {
        return Err(invalid("expected an object".into()));
    };
    let text = |key: &str| match members.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(_) => Err(invalid(std::format!("`{key}` must be a non-empty string"))),
        None => Err(invalid(std::format!("missing `{key}`"))),
    };
    let (api_version, kind) = (text("apiVersion")?, text("kind")?);
    let schema = schema_for_api_version(&api_version, &kind).ok_or_else(|| {
        invalid(std::format!(
            "unknown apiVersion `{api_version}` / kind `{kind}`"
        ))
    })?;
    let mut body = members.clone();
    for key in ["apiVersion", "kind"] {
        if !schema.fields.iter().any(|f| f.json_name() == key) {
            body.remove(key);
        }
    }
    let raw = wire_json::from_json(schema, &Value::Object(body))?;
    Ok(EncodedObject {
        api_version,
        kind,
        raw,
    })
}
