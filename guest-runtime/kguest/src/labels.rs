//! Labels and annotations: reading them off a Pod or Node in one call, and
//! `KEY=VALUE` label pairs (from a config or an annotation) checked as
//! Kubernetes checks labels, with a typed error. Generic and `#[inline]`:
//! a plugin that calls none of it links none of it.
//!
//! ```
//! use kguest::labels::{self, Meta, PairError};
//! use kguest::k8s::api::core::v1::Node;
//! use kguest::testing::proto::NodeBuilder;
//!
//! let bytes = NodeBuilder::new("n1").label("disk", "ssd").build();
//! let node = Node::from_bytes(&bytes);
//! assert!(node.has_label("disk", "ssd"));
//! assert_eq!(node.label("zone"), None);
//!
//! assert_eq!(labels::pair("disk=ssd"), Ok(("disk", "ssd")));
//! assert_eq!(labels::pair("example.com/tier="), Ok(("example.com/tier", "")));
//! assert_eq!(labels::pair("disk"), Err(PairError::NoEquals));
//! assert_eq!(labels::pair("disk=s s d"), Err(PairError::Value));
//! ```

use kguest_k8s::api::core::v1::{Node, Pod};
use kguest_k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// An object with `metadata`: its labels and annotations by key.
pub trait Meta<'a>: Copy {
    /// The object's `metadata`, if present.
    fn meta(self) -> Option<ObjectMeta<'a>>;

    /// The value of label `key`.
    #[inline]
    fn label(self, key: &str) -> Option<&'a str> {
        self.meta()?.labels().get(key)
    }

    /// The value of annotation `key`.
    #[inline]
    fn annotation(self, key: &str) -> Option<&'a str> {
        self.meta()?.annotations().get(key)
    }

    /// Whether label `key` is set to `value`.
    #[inline]
    fn has_label(self, key: &str, value: &str) -> bool {
        self.label(key) == Some(value)
    }

    /// Whether annotation `key` is set to `value`.
    #[inline]
    fn has_annotation(self, key: &str, value: &str) -> bool {
        self.annotation(key) == Some(value)
    }
}

impl<'a> Meta<'a> for ObjectMeta<'a> {
    #[inline]
    fn meta(self) -> Option<ObjectMeta<'a>> {
        Some(self)
    }
}

impl<'a> Meta<'a> for Pod<'a> {
    #[inline]
    fn meta(self) -> Option<ObjectMeta<'a>> {
        self.metadata()
    }
}

impl<'a> Meta<'a> for Node<'a> {
    #[inline]
    fn meta(self) -> Option<ObjectMeta<'a>> {
        self.metadata()
    }
}

/// Why a `KEY=VALUE` label pair is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairError {
    /// No `=`.
    NoEquals,
    /// The key is not a label key.
    Key,
    /// The value is not a label value.
    Value,
}

impl PairError {
    /// One line for a `Status` reason or a `Refusal`.
    pub const fn as_str(self) -> &'static str {
        match self {
            PairError::NoEquals => "want KEY=VALUE",
            PairError::Key => {
                "KEY is not a label key ([DNS-subdomain/]name, the name 1-63 of \
                 A-Z a-z 0-9 - _ . beginning and ending alphanumeric)"
            }
            PairError::Value => {
                "VALUE is not a label value (0-63 of A-Z a-z 0-9 - _ . beginning and \
                 ending alphanumeric)"
            }
        }
    }
}

/// `KEY=VALUE` (split at the first `=`), both checked as Kubernetes checks
/// a label's key and value. Surrounding spaces are not trimmed.
#[inline]
pub fn pair(s: &str) -> Result<(&str, &str), PairError> {
    let at = s
        .bytes()
        .position(|b| b == b'=')
        .ok_or(PairError::NoEquals)?;
    let (Some(key), Some(value)) = (s.get(..at), s.get(at + 1..)) else {
        return Err(PairError::NoEquals);
    };
    if !is_key(key) {
        return Err(PairError::Key);
    }
    if !is_value(value) {
        return Err(PairError::Value);
    }
    Ok((key, value))
}

/// A label key: an optional prefix (a DNS subdomain of at most 253
/// characters) and `/`, then a name as [`is_value`] but not empty.
#[inline]
pub fn is_key(key: &str) -> bool {
    let b = key.as_bytes();
    let (prefix, name) = match b.iter().position(|c| *c == b'/') {
        Some(at) => (b.get(..at), b.get(at + 1..).unwrap_or_default()),
        None => (None, b),
    };
    let prefix_ok = prefix.is_none_or(is_dns_subdomain);
    prefix_ok && !name.is_empty() && is_name(name)
}

/// A label value: empty, or at most 63 of `A-Z a-z 0-9 - _ .` beginning
/// and ending with an alphanumeric.
#[inline]
pub fn is_value(value: &str) -> bool {
    value.is_empty() || is_name(value.as_bytes())
}

#[inline]
fn is_name(s: &[u8]) -> bool {
    let inner = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.');
    s.len() <= 63 && ends_alphanumeric(s, u8::is_ascii_alphanumeric) && s.iter().all(inner)
}

/// RFC 1123 subdomain, as Kubernetes' `IsDNS1123Subdomain`.
#[inline]
fn is_dns_subdomain(s: &[u8]) -> bool {
    let lower = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let inner = |c: &u8| lower(c) || matches!(c, b'-' | b'.');
    s.len() <= 253 && ends_alphanumeric(s, lower) && s.iter().all(inner)
        // Each dot-separated part begins and ends alphanumeric.
        && s.windows(2).all(|w| !matches!(w, [b'.', b'.' | b'-'] | [b'-', b'.']))
}

#[inline]
fn ends_alphanumeric(s: &[u8], ok: impl Fn(&u8) -> bool) -> bool {
    matches!((s.first(), s.last()), (Some(a), Some(z)) if ok(a) && ok(z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::proto::{NodeBuilder, PodBuilder};

    #[test]
    fn labels_and_annotations_of_pods_and_nodes() {
        let pod = PodBuilder::new("p")
            .label("app", "web")
            .annotation("example.com/hold", "true")
            .build();
        let pod = Pod::from_bytes(&pod);
        assert!(pod.has_label("app", "web"));
        assert!(!pod.has_label("app", "db"));
        assert!(!pod.has_label("tier", ""));
        assert!(pod.has_annotation("example.com/hold", "true"));
        assert_eq!(pod.annotation("missing"), None);
        let meta = pod.metadata().expect("metadata");
        assert_eq!(meta.label("app"), Some("web"));

        let node = NodeBuilder::new("n").label("zone", "a").build();
        let node = Node::from_bytes(&node);
        assert!(node.has_label("zone", "a"));
        // No metadata at all: nothing is set.
        assert!(!Node::from_bytes(&[]).has_label("zone", "a"));
    }

    #[test]
    fn pairs_are_checked_as_kubernetes_checks_labels() {
        assert_eq!(pair("a=b"), Ok(("a", "b")));
        assert_eq!(pair("a="), Ok(("a", "")));
        assert_eq!(pair("a=b=c"), Err(PairError::Value));
        assert_eq!(pair("k8s.io/zone=eu-1"), Ok(("k8s.io/zone", "eu-1")));
        assert_eq!(pair("A_b.c-D=x_Y.z-1"), Ok(("A_b.c-D", "x_Y.z-1")));
        assert_eq!(pair(""), Err(PairError::NoEquals));
        assert_eq!(pair("ab"), Err(PairError::NoEquals));
        assert_eq!(pair("=b"), Err(PairError::Key));
        assert_eq!(pair(" a=b"), Err(PairError::Key));
        assert_eq!(pair("-a=b"), Err(PairError::Key));
        assert_eq!(pair("Example.com/a=b"), Err(PairError::Key));
        assert_eq!(pair("a..b/c=d"), Err(PairError::Key));
        assert_eq!(pair("a/=b"), Err(PairError::Key));
        assert_eq!(pair("/a=b"), Err(PairError::Key));
        assert_eq!(pair("a/b/c=d"), Err(PairError::Key));
        assert_eq!(pair("a=b "), Err(PairError::Value));
        assert_eq!(pair("a=-b"), Err(PairError::Value));
        let long = "x".repeat(63);
        assert!(is_value(&long) && is_key(&long));
        let longer = "x".repeat(64);
        assert!(!is_value(&longer) && !is_key(&longer));
        let prefix = std::format!("{}/a", "p".repeat(253));
        assert!(is_key(&prefix));
        let prefix = std::format!("{}/a", "p".repeat(254));
        assert!(!is_key(&prefix));
        for e in [PairError::NoEquals, PairError::Key, PairError::Value] {
            assert!(!e.as_str().is_empty());
        }
    }
}
