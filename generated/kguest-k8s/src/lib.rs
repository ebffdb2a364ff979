//! Zero-copy views of every Kubernetes protobuf message (Kubernetes 1.36).
//!
//! Each message of `k8s.io/api` and `k8s.io/apimachinery` has a `Copy` view
//! type that borrows the encoded bytes. Module paths and accessor names follow
//! k8s-openapi: `api::core::v1::Pod`, `pod.spec()?.node_name()`. Reading a
//! field scans only the message it lives in; nothing is decoded up front and
//! nothing is allocated, so a wasm guest pays only for the fields it reads.
//!
//! ```
//! use kguest_k8s::api::core::v1::Pod;
//!
//! // spec { nodeName: "node-a" }
//! let bytes = [0x12, 0x08, 0x52, 0x06, b'n', b'o', b'd', b'e', b'-', b'a'];
//! let pod = Pod::from_bytes(&bytes);
//! assert_eq!(pod.spec().and_then(|s| s.node_name()), Some("node-a"));
//! assert_eq!(pod.metadata().and_then(|m| m.name()), None);
//! ```
//!
//! Beside the generated views: [`quantity`] (exact `resource.Quantity`
//! arithmetic), helpers on `IntOrString`, `Time` and `MicroTime`
//! ([`helpers`]), and [`envelope`] for the API server's `k8s\0` framing.
//! With the `json` feature: Kubernetes JSON output ([`json`]) and the type
//! [`registry`].

#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "json")]
extern crate std;

pub mod api;
pub mod apimachinery;

pub mod envelope;
pub mod groups;
pub mod helpers;
#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "json")]
pub mod registry;

pub use kguest_wire::{DecodeError, ErrorKind, Map, Repeated, View, quantity};
