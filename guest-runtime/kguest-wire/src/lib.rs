//! Wire primitives for kguest's zero-copy protobuf views.
//!
//! Generated view types (see `kguest-k8s`) are thin wrappers around a borrowed
//! `&[u8]`. Every accessor calls into this crate with a field number: the
//! message is scanned when the field is read, and nothing is decoded, copied
//! or allocated up front. A guest links only the few functions its accessors
//! reach.
//!
//! - [`View`]: the trait every generated view implements.
//! - [`Repeated`] and [`Map`]: lazy, `Copy` iterators over repeated and map fields.
//! - [`Field`] and [`FieldSet`]: one-pass reads of several fields of one
//!   message (see [`fields`]).
//! - [`codec`]: how one field value is read (`Str`, `Int64`, `Msg<V>`, ...).
//! - [`utf8::to_str`]: UTF-8 validation in little code (the crate's one
//!   `unsafe` block), used by `&str` fields and the text helpers.
//! - [`schema`]: static message descriptions, used by [`View::validate`] and,
//!   with the `names` feature, by the JSON transcoder (the `kguest-json` crate).
//! - [`envelope`]: the API server's `k8s\0` + `runtime.Unknown` framing,
//!   unwrapped without a copy (wrapping needs the `encode` feature).
//!
//! Reading follows protobuf's rules: the last occurrence of a singular field
//! wins, unknown fields are skipped, fields may come in any order, repeated
//! scalars may be packed or not. Malformed input never panics: accessors return
//! `None` and iterators stop; [`View::validate`] names the first problem and
//! its byte offset.
//!
//! One deviation from a full decoder: a singular message field split over
//! several occurrences is merged by protobuf; a view reads the last
//! occurrence only. Kubernetes never writes such input.
//!
//! Code size: the guest read paths are `#[inline]` (or generic), so that
//! they are compiled in the guest's crate, where LTO may specialise them to
//! the fields it reads and drop the rest. A plain function of this crate is
//! an exported symbol of its rlib, which LTO keeps as it is when the guest
//! crate is an rlib too (`crate-type = ["cdylib", "rlib"]`). `#[inline]`
//! does not make LLVM inline at `opt-level = "z"`: a function with several
//! callers stays one function.

#![no_std]
#![deny(unsafe_code)]

#[cfg(feature = "encode")]
extern crate alloc;

pub mod codec;
#[cfg(feature = "encode")]
pub mod encode;
pub mod envelope;
mod error;
pub mod fields;
mod map;
pub mod quantity;
pub mod reflect;
mod repeated;
#[doc(hidden)]
pub mod rt;
pub mod schema;
pub mod timefmt;
pub mod utf8;
mod view;
pub mod wire;

pub use error::{DecodeError, ErrorKind};
pub use fields::{Field, FieldSet};
pub use map::Map;
pub use repeated::Repeated;
pub use view::View;
