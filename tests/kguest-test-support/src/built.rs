//! What `cargo xtask examples` builds for the tests: the example plugins
//! (`<target>/plugins/`, or `$KGUEST_PLUGIN_DIR`) and the KRM functions
//! (`<target>/krm/`, or `$KGUEST_KRM_DIR`), `<target>` being cargo's target
//! folder as xtask finds it.

use std::path::PathBuf;

use crate::{env_path, workspace};

/// Cargo's target folder: `$CARGO_TARGET_DIR` (relative to the workspace
/// root when relative), else `target/`.
pub fn target_dir() -> PathBuf {
    match env_path("CARGO_TARGET_DIR") {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => workspace().join(dir),
        None => workspace().join("target"),
    }
}

/// Where the example plugins are: `$KGUEST_PLUGIN_DIR`, else
/// `<target>/plugins`.
pub fn plugin_dir() -> PathBuf {
    env_path("KGUEST_PLUGIN_DIR").unwrap_or_else(|| target_dir().join("plugins"))
}

/// Where the KRM functions are: `$KGUEST_KRM_DIR`, else `<target>/krm`.
pub fn krm_dir() -> PathBuf {
    env_path("KGUEST_KRM_DIR").unwrap_or_else(|| target_dir().join("krm"))
}

fn existing(path: PathBuf, var: &str) -> PathBuf {
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask examples` first (or set {var})",
        path.display()
    );
    path
}

/// The built example plugin `name` (`nodenumber` -> `nodenumber.wasm`).
pub fn plugin(name: &str) -> PathBuf {
    existing(
        plugin_dir().join(format!("{name}.wasm")),
        "KGUEST_PLUGIN_DIR",
    )
}

/// The built KRM function `name` (`set-namespace` -> `set-namespace.wasm`).
pub fn krm_function(name: &str) -> PathBuf {
    existing(krm_dir().join(format!("{name}.wasm")), "KGUEST_KRM_DIR")
}

/// The test and baseline guests KSW's own Go host runs beside the example
/// plugins (`tests/ksw-host`): `cargo xtask test` builds them (xtask's
/// `kswhost`) and kguest-host's `ksw::go_host` runs them, both from this
/// list, so a guest is added here only.
pub const KSW_HOST_TEST_GUESTS: &[&str] = &[
    "annotation-memory",
    "nodename-view",
    "podspec-read",
    "baseline-copy",
    "baseline-empty",
    "baseline-json",
    "baseline-prost",
    "baseline-scan",
];

/// The crate `kguest new` writes (its default hooks), which xtask's
/// `kswhost` generates under `<target>/ksw-host/` and builds with its own
/// `guest` profile beside the test guests: the template, judged in KSW's
/// host as a user would deploy it.
pub const NEW_PLUGIN: &str = "kguest-new-plugin";

/// A test guest as `cargo xtask test` builds it:
/// `<target>/wasm32-unknown-unknown/guest/<package>.wasm`.
pub fn test_guest(package: &str) -> PathBuf {
    target_dir()
        .join("wasm32-unknown-unknown/guest")
        .join(format!("{}.wasm", package.replace('-', "_")))
}
