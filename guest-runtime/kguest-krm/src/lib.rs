//! Rust SDK for KRM functions (the kustomize/kpt function protocol) built
//! for `wasm32-wasip1`: `no_std`, no allocator, no `core::fmt` on the
//! function's path, and edits that keep every byte they do not touch.
//!
//! ```
//! use kguest_krm::{ResourceList, Value};
//!
//! /// Labels every item `team: platform`.
//! fn run(list: &mut ResourceList) {
//!     for i in 0..list.len() {
//!         if list.item(i).is_some() {
//!             let _ = list.set(i, &["metadata", "labels", "team"], Value::Str("platform"));
//!         }
//!     }
//! }
//!
//! kguest_krm::export!(run);
//! # let out = kguest_krm::testing::run(
//! #     "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap # keep me\n",
//! #     run,
//! # );
//! # assert!(out.stdout.contains("kind: ConfigMap # keep me\n  metadata:\n    labels:\n      team: platform"), "{}", out.stdout);
//! ```
//!
//! The function is a plain WASI preview1 command: `_start` reads the
//! `ResourceList` on standard input and writes the result on standard
//! output, so it runs under `kguest krm`, KEP-4944's wasm runtime and any
//! WASI runtime that wires stdin/stdout (wasmtime, wazero). It exits 1 when
//! it reported an error result or the input is not a ResourceList.
//!
//! - [`ResourceList`]: items ([`Item`]: apiVersion, kind, name, namespace,
//!   annotations, any field as a [`Node`]), `functionConfig`, edits
//!   ([`ResourceList::set`], [`ResourceList::delete`],
//!   [`ResourceList::add`], [`ResourceList::remove`]) and results
//!   ([`Report`]).
//! - [`Node`]: a YAML node read in place (the text is parsed once into a
//!   tape of byte ranges; nothing is copied). With the `views` feature,
//!   `Node::view` reads a Kubernetes object through the kguest views
//!   (times, durations and raw JSON fields also need `views-all`; both are
//!   default features, which functions trim for size).
//! - [`scope`]: which Kubernetes kinds are namespaced; [`workload`]: where
//!   a workload's pod template is.
//! - [`Text`]: messages built without `core::fmt`; [`field_path`]: the
//!   dotted `field.path` of a result; [`Path`]: a path joined from pieces
//!   (a pod template's path and the fields below it).
//!
//! [`Item`] and [`Node`] are snapshots: after an edit of an item, handles
//! taken before it still show the old text; fetch the item again
//! ([`ResourceList::item`]).
//!
//! Edits splice the source text, so comments, key order, quoting, unknown
//! fields and the `internal.config.kubernetes.io/*` annotations of
//! everything a function does not touch come out byte for byte.
//!
//! Memory comes from a bump arena grown with `memory.grow` and never
//! freed: a function's lifetime is one run.

#![no_std]
#![deny(unsafe_code)]

#[cfg(not(target_arch = "wasm32"))]
extern crate std;

mod bytes;
mod decode;
mod edit;
mod emit;
mod list;
mod node;
#[doc(hidden)]
pub mod rt;
pub mod scope;
#[allow(unsafe_code)] // the bump arena and the WASI imports: the one audited module
mod sys;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
mod text;
#[cfg(feature = "views")]
mod views;
pub mod workload;
pub mod yaml;

pub use edit::EditError;
pub use emit::{Value, plain_ok};
pub use list::{Item, LoadError, Report, ResourceList, Severity, Sink, set_in_text};
pub use node::{Elements, Entries, Kind, Node};
pub use sys::Arena;
pub use text::{Path, Text, field_path};
#[cfg(feature = "views")]
pub use views::ViewError;
pub use yaml::{ParseError, Style};

/// Exports `f: fn(&mut ResourceList)` as the function's `_start`.
#[macro_export]
macro_rules! export {
    ($f:path) => {
        #[cfg(target_arch = "wasm32")]
        #[unsafe(no_mangle)]
        pub extern "C" fn _start() {
            $crate::rt::main($f)
        }
    };
}
