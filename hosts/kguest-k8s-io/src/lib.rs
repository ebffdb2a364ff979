//! Kubernetes objects in and out, for hosts and tools (`std`; never in
//! guests): the type registry of [`kguest_k8s`] by name or by
//! `apiVersion`/`kind`, top-level objects from JSON (and, with feature
//! `yaml`, YAML) text to the protobuf Kubernetes' Go marshaller writes, and
//! back to Kubernetes JSON or to YAML as `kubectl get -o yaml` prints it.
//!
//! - [`json`]: type lookup ([`json::schema_by_type_name`],
//!   [`json::schema_for_api_version`]) and one object both ways
//!   ([`json::object_from_json_text`], [`json::write_object`]);
//! - [`load`]: [`load::Loader`], objects from JSON/YAML text or readers,
//!   multi-document streams and Lists, each with an origin label;
//! - [`stream`]: the length-framed object streams of `kguest encode`;
//! - [`kubectl_yaml`]: JSON text as `kubectl get -o yaml` prints it;
//! - [`groups`]: API group <-> `k8s.io/api` folder;
//! - `yaml` (feature `yaml`): saphyr-parser events -> the JSON encoder.
//!
//! ```
//! use kguest_k8s_io::json::object_from_json_text;
//!
//! let pod = object_from_json_text(r#"{"apiVersion":"v1","kind":"Pod","spec":{"nodeName":"a"}}"#)
//!     .expect("encodes");
//! let view = kguest_k8s::api::core::v1::Pod::from_bytes(&pod.raw);
//! assert_eq!(view.spec().and_then(|s| s.node_name()), Some("a"));
//! ```

#![forbid(unsafe_code)]

pub mod groups;
pub mod json;
pub mod kubectl_yaml;
pub mod load;
pub mod stream;
#[cfg(feature = "yaml")]
pub mod yaml;
