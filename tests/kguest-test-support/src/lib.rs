//! What kguest's tests, benchmarks and fuzz targets share.
//!
//! Without features the crate has no dependency: the folders of vendored
//! and built material ([`vendor`], [`built`]), external tools ([`tools`]),
//! a wire test encoder ([`wire`]), a seeded generator ([`rng`]) and byte
//! differences ([`diff`]). Feature `views` adds walking views ([`walk`]) and
//! the documented deviations ([`deviations`]); `oracle` the differential
//! oracle over prost-reflect ([`oracle`]); `fixtures` the upstream fixtures
//! ([`fixtures`]) and JSON comparisons ([`json`]); `host` a recording
//! scheduler handle for kguest-host's integration tests ([`recorder`]).
//!
//! Material that is missing fails the caller with a message naming the
//! `cargo xtask` command that provides it: a test never passes by skipping.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

pub mod built;
pub mod diff;
pub mod rng;
pub mod tools;
pub mod vendor;
pub mod wire;

#[cfg(feature = "views")]
pub mod deviations;
#[cfg(feature = "fixtures")]
pub mod fixtures;
#[cfg(feature = "fixtures")]
pub mod json;
#[cfg(feature = "oracle")]
pub mod oracle;
#[cfg(feature = "host")]
pub mod recorder;
#[cfg(feature = "views")]
pub mod walk;

/// The workspace root: the nearest directory with a `Cargo.lock` above the
/// package whose tests run (`cargo test` sets `CARGO_MANIFEST_DIR`). Not
/// this crate's compiled-in path: cargo reuses test binaries from a target
/// directory shared with a checkout at another path.
pub fn workspace() -> PathBuf {
    let package = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .map(Path::to_path_buf)
        .unwrap_or(package)
}

/// The environment variable `name` as a path, unless unset or empty.
fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}
