//! Kubernetes JSON for any view, and finding a message type by name or by
//! `apiVersion` and `kind`.

use kguest_json::{
    Encoder, JsonError, Reader, Source, SourceEvent, Style, Text, ValueSource, WriteOptions, skip,
};
use kguest_k8s::registry::MESSAGES;
use kguest_wire::schema::MessageSchema;
use serde_json::Value;

use crate::groups::{folder_of_group, group_of_folder};

pub use kguest_json::JsonError as Error;

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
        return schema_by_full_name(&format!(
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
    schema_by_full_name(&format!("k8s.io.api.{folder}.{version}.{kind}")).or_else(|| {
        schema_by_full_name(&format!(
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
        format!("{group}/{version}")
    })
}

/// The message `bytes` of type `schema` as Kubernetes JSON.
pub fn to_json(schema: &MessageSchema, bytes: &[u8]) -> Result<Value, JsonError> {
    kguest_json::to_json(schema, bytes)
}

/// The schema of an object embedded in a `RawExtension` as protobuf, for
/// [`WriteOptions::resolver`].
fn resolve(api_version: &str, kind: &str) -> Option<&'static MessageSchema> {
    schema_for_api_version(api_version, kind)
}

/// Writes a top-level object as Kubernetes JSON text: `kind` and
/// `apiVersion` first (they travel in the envelope, not in the object's
/// message), then the fields as Go's `encoding/json` writes them. Objects
/// embedded as protobuf in `RawExtension`s (list items, watch events) are
/// written as JSON too.
pub fn write_object(
    api_version: &str,
    kind: &str,
    schema: &MessageSchema,
    bytes: &[u8],
    style: Style,
    out: &mut Vec<u8>,
) -> Result<(), JsonError> {
    let options = WriteOptions {
        style,
        resolver: Some(resolve),
    };
    kguest_json::write_object_json(api_version, kind, schema, bytes, options, out)
}

/// A top-level object as a Kubernetes JSON value, with `apiVersion` and
/// `kind` (see [`write_object`]).
pub fn object_to_json(
    api_version: &str,
    kind: &str,
    schema: &MessageSchema,
    bytes: &[u8],
) -> Result<Value, JsonError> {
    let mut out = Vec::new();
    write_object(api_version, kind, schema, bytes, Style::Compact, &mut out)?;
    serde_json::from_slice(&out).map_err(|err| JsonError::Unrepresentable {
        path: ".".into(),
        reason: err.to_string(),
    })
}

/// Encodes the JSON of one message of type `schema` as Kubernetes' Go
/// marshaller would.
pub fn from_json(schema: &'static MessageSchema, json: &Value) -> Result<Vec<u8>, JsonError> {
    kguest_json::from_json(schema, json)
}

/// A top-level object encoded from its JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedObject {
    pub api_version: String,
    pub kind: String,
    /// The object's own message, without envelope.
    pub raw: Vec<u8>,
}

impl EncodedObject {
    /// The object as the API server sends it (`k8s\0` + `runtime.Unknown`).
    pub fn enveloped(&self) -> Vec<u8> {
        kguest_k8s::envelope::wrap(&self.api_version, &self.kind, &self.raw)
    }
}

/// `apiVersion` and `kind` travel in the envelope; members of those names
/// are dropped from the object unless its message has such fields.
pub(crate) const TYPE_META: &[&str] = &["apiVersion", "kind"];

fn invalid(reason: String) -> JsonError {
    JsonError::Invalid {
        path: ".".into(),
        reason,
    }
}

/// The schema an object's `apiVersion` and `kind` name, checking both are
/// there and non-empty.
pub(crate) fn schema_of(
    api_version: Option<&str>,
    kind: Option<&str>,
) -> Result<&'static MessageSchema, JsonError> {
    let text = |key: &str, value: Option<&str>| match value {
        Some(v) if !v.is_empty() => Ok(()),
        Some(_) => Err(invalid(format!("`{key}` must be a non-empty string"))),
        None => Err(invalid(format!("missing `{key}`"))),
    };
    text("apiVersion", api_version)?;
    text("kind", kind)?;
    let (api_version, kind) = (api_version.unwrap_or(""), kind.unwrap_or(""));
    schema_for_api_version(api_version, kind).ok_or_else(|| {
        invalid(format!(
            "unknown apiVersion `{api_version}` / kind `{kind}`"
        ))
    })
}

/// Encodes a top-level object: its `apiVersion` and `kind` pick the message
/// type and go to the envelope, the rest is the message.
pub fn object_from_json(json: &Value) -> Result<EncodedObject, JsonError> {
    let Value::Object(members) = json else {
        return Err(invalid("expected an object".into()));
    };
    let text = |key: &str| match members.get(key) {
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(invalid(format!("`{key}` must be a non-empty string"))),
        None => Ok(None),
    };
    let (api_version, kind) = (text("apiVersion")?, text("kind")?);
    let schema = schema_of(api_version, kind)?;
    let mut raw = Vec::new();
    Encoder::new().encode(schema, &mut ValueSource::new(json), TYPE_META, &mut raw)?;
    Ok(EncodedObject {
        api_version: api_version.unwrap_or_default().into(),
        kind: kind.unwrap_or_default().into(),
        raw,
    })
}

/// Encodes a top-level object from JSON text in one pass (after finding its
/// `apiVersion` and `kind`, usually its first two members).
pub fn object_from_json_text(text: &str) -> Result<EncodedObject, JsonError> {
    let mut encoder = Encoder::new();
    let mut raw = Vec::new();
    let (api_version, kind) = encode_object_text(&mut encoder, text, &mut raw)?;
    Ok(EncodedObject {
        api_version,
        kind,
        raw,
    })
}

/// [`object_from_json_text`] with a reusable encoder and output buffer
/// (appended to); returns the `apiVersion` and `kind`.
pub fn encode_object_text(
    encoder: &mut Encoder,
    text: &str,
    out: &mut Vec<u8>,
) -> Result<(String, String), JsonError> {
    let (api_version, kind) = type_meta(&mut Reader::new(text))?;
    let schema = schema_of(api_version.as_deref(), kind.as_deref())?;
    encoder.encode_text(schema, text, TYPE_META, out)?;
    Ok((api_version.unwrap_or_default(), kind.unwrap_or_default()))
}

/// Reads the top-level `apiVersion` and `kind` of the object `src` starts
/// with, stopping as soon as both are found.
pub(crate) fn type_meta<'s, S: Source<'s>>(
    src: &mut S,
) -> Result<(Option<String>, Option<String>), JsonError> {
    match src.next_event()? {
        SourceEvent::ObjectStart => {}
        other => {
            return Err(invalid(format!(
                "expected an object, found {}",
                other.describe()
            )));
        }
    }
    let (mut api_version, mut kind) = (None, None);
    while api_version.is_none() || kind.is_none() {
        let key = match src.next_event()? {
            SourceEvent::Key(key) => key,
            _ => break,
        };
        let value = src.next_event()?;
        let slot = if names(&key, "apiVersion") {
            &mut api_version
        } else if names(&key, "kind") {
            &mut kind
        } else {
            skip(value, src)?;
            continue;
        };
        match value {
            SourceEvent::String(t) => {
                let mut buf = Vec::new();
                t.decode_into(&mut buf);
                *slot = Some(String::from_utf8_lossy(&buf).into_owned());
            }
            SourceEvent::Null => {}
            _ => {
                let key = if names(&key, "kind") {
                    "kind"
                } else {
                    "apiVersion"
                };
                return Err(invalid(format!("`{key}` must be a non-empty string")));
            }
        }
    }
    Ok((api_version, kind))
}

/// Whether a top-level member names `name` as the API server's type
/// detection reads it: Go's `encoding/json`, which matches member names
/// without regard to ASCII case (`apiversion` is `apiVersion`; the object
/// itself is then decoded case-sensitively, so that member is unknown there).
/// Go also folds `K` (U+212A) and `ſ` (U+017F); kguest does not.
fn names(key: &Text<'_>, name: &str) -> bool {
    match key.as_plain() {
        Some(plain) => plain.eq_ignore_ascii_case(name),
        None => {
            let mut buf = Vec::new();
            key.decode_into(&mut buf);
            buf.eq_ignore_ascii_case(name.as_bytes())
        }
    }
}
