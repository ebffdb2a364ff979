//! The event a guest records through `handle.eventrecorder.eventf`.

use std::fmt;

use serde_json::Value;

/// A reference to the object an event is about (KSW's `ObjectReference`,
/// Go field names as JSON keys).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectReference {
    /// e.g. `Pod`.
    pub kind: String,
    /// e.g. `v1`.
    pub api_version: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.uid`.
    pub uid: String,
    /// `metadata.resourceVersion`.
    pub resource_version: String,
}

/// KSW's `EventMessage`: the arguments of `EventRecorder().Eventf`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// The object the event is about.
    pub regarding: ObjectReference,
    /// A second object, if any (empty fields otherwise).
    pub related: ObjectReference,
    /// `Normal` or `Warning` by convention (KSW passes what the guest gives).
    pub event_type: String,
    /// Why the action was taken.
    pub reason: String,
    /// What was done.
    pub action: String,
    /// A human-readable note.
    pub note: String,
}

impl Event {
    /// Parses the JSON a guest passes to `handle.eventrecorder.eventf`.
    /// Missing fields are empty, as in Go.
    pub fn from_json(json: &[u8]) -> Result<Event, String> {
        let value: Value =
            serde_json::from_slice(json).map_err(|err| format!("invalid event JSON: {err}"))?;
        if !value.is_object() {
            return Err("invalid event JSON: not an object".into());
        }
        let text = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().to_string();
        let reference = |v: &Value| ObjectReference {
            kind: text(v, "Kind"),
            api_version: text(v, "APIVersion"),
            name: text(v, "Name"),
            namespace: text(v, "Namespace"),
            uid: text(v, "UID"),
            resource_version: text(v, "ResourceVersion"),
        };
        Ok(Event {
            regarding: reference(&value["RegardingReference"]),
            related: reference(&value["RelatedReference"]),
            event_type: text(&value, "Eventtype"),
            reason: text(&value, "Reason"),
            action: text(&value, "Action"),
            note: text(&value, "Note"),
        })
    }
}

impl fmt::Display for Event {
    /// `<type> <reason> <action> <namespace>/<name>: <note>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.event_type, self.reason, self.action)?;
        let r = &self.regarding;
        if !r.name.is_empty() {
            let kind = if r.kind.is_empty() { "object" } else { &r.kind };
            write!(f, " {kind} ")?;
            if !r.namespace.is_empty() {
                write!(f, "{}/", r.namespace)?;
            }
            f.write_str(&r.name)?;
        }
        if !self.note.is_empty() {
            write!(f, ": {}", self.note)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_field_names_and_defaults_missing_ones() {
        let json = br#"{"RegardingReference":{"Kind":"Pod","APIVersion":"v1","Name":"p","Namespace":"ns","UID":"u"},
            "RelatedReference":{},"Eventtype":"Normal","Reason":"r","Action":"a","Note":"n"}"#;
        let event = Event::from_json(json).unwrap();
        assert_eq!(event.regarding.name, "p");
        assert_eq!(event.regarding.uid, "u");
        assert_eq!(event.regarding.resource_version, "");
        assert_eq!(event.related, ObjectReference::default());
        assert_eq!(event.to_string(), "Normal r a Pod ns/p: n");
        assert!(Event::from_json(b"[]").is_err());
        assert!(Event::from_json(b"{").is_err());
    }
}
