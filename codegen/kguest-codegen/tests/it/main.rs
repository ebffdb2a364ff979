//! Integration tests of kguest-codegen, in one test binary.
//!
//! - `snapshots`: every generated file for `tests/protos/` against its blessed
//!   copy in `tests/snapshots/`. Bless with
//!   `UPDATE_EXPECT=1 cargo test -p kguest-codegen --test it`, then read the diff.
//! - `behaviour`: the blessed files, compiled right here, on hand-encoded input.
//! - `one_pass`: their one-pass reads (`view.read(..)`) against their accessors.
//! - `determinism`, `write` (`write_files`/`stale_files`), `errors`.
//! - `openapi`: the k8s-openapi encoder emitter on `tests/protos/kt/openapi.proto`
//!   and the k8s-openapi-shaped fixture in `tests/openapi/src/`, against the
//!   blessed `tests/openapi/openapi.rs` (same bless command), and its errors.
//!
//! Because the snapshots are compiled into this binary, a change to the
//! runtime that breaks the *old* snapshots stops the binary from building, so
//! it cannot bless itself: comment out the two mounts below (and `behaviour`),
//! bless, then restore them.

mod behaviour;
mod determinism;
mod enc;
mod errors;
mod one_pass;
mod openapi;
mod snapshots;
mod util;
mod write;

// The blessed snapshots, mounted where the generator expects its crate root
// (`crate::kt::...`, `crate::registry`), so `behaviour` runs the real output.
// Their `Reflect` impls need a `reflect` feature this package does not have,
// so they are compiled out. `unused_qualifications`: the generator writes
// `crate::kt::shapes::pod::Spec` where `pod::Spec` would do.
#[rustfmt::skip]
#[allow(dead_code, unexpected_cfgs, unused_qualifications)]
#[path = "../snapshots/kt/mod.rs"]
mod kt;

#[rustfmt::skip]
#[allow(dead_code)]
#[path = "../snapshots/registry.rs"]
mod registry;
