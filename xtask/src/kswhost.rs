//! KSW's own Go host as a judge (`tests/ksw-host`): builds the harness, the
//! test guests it runs beside the example plugins and the crate `kguest
//! new` writes, and points
//! kguest-host's test `ksw::go_host` at them (`KGUEST_KSW_HOST`). The test
//! prints `ksw go host: N/M cases identical`.

use std::path::PathBuf;
use std::process::Command;

use kguest_test_support::built::{KSW_HOST_TEST_GUESTS, NEW_PLUGIN, test_guest};

use crate::cargo::{cargo, cargo_with_env};
use crate::{examples, golang, guests, paths, vendor};

/// `cargo xtask ksw-host`: what `cargo xtask test` runs for this judge
/// alone (the examples, the harness and guests, then `ksw::go_host`).
pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!("ksw-host: unexpected argument `{arg}`"));
    }
    let ksw = vendor::ensure_ksw_vendored()?;
    examples::build_all()?;
    let harness = prepare()?;
    let plugins = examples::plugin_dir();
    cargo_with_env(
        &[
            "test",
            "--quiet",
            "-p",
            "kguest-host",
            "--test",
            "it",
            "--",
            "--nocapture",
            "ksw::go_host",
        ],
        &[
            ("KGUEST_PLUGIN_DIR", plugins.as_os_str()),
            ("KGUEST_KSW_DIR", ksw.as_os_str()),
            ("KGUEST_KSW_HOST", harness.as_os_str()),
        ],
    )
}

/// Builds the harness (it needs `proto-vendor/ksw/scheduler`, vendored
/// first), the test guests and the crate `kguest new` writes; returns the
/// harness, for `KGUEST_KSW_HOST`.
pub fn prepare() -> Result<PathBuf, String> {
    let harness = golang::build("tests/ksw-host", ".", "ksw-host")?;
    for package in KSW_HOST_TEST_GUESTS {
        guests::build(package)?;
    }
    build_new_plugin()?;
    Ok(harness)
}

/// `kguest new <target>/ksw-host/kguest-new-plugin`, built as its README
/// says (`cargo wasm`: its own `guest` profile) into the test guests'
/// folder ([`test_guest`]).
fn build_new_plugin() -> Result<PathBuf, String> {
    let dir = paths::target_dir().join("ksw-host").join(NEW_PLUGIN);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    }
    let (dir_arg, root) = (dir.to_string_lossy(), paths::root());
    let root_arg = root.to_string_lossy();
    cargo(&[
        "run",
        "--quiet",
        "-p",
        "kguest-cli",
        "--",
        "new",
        &dir_arg,
        "--kguest-path",
        &root_arg,
    ])?;
    let cargo_bin = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("$ cargo wasm (in {})", dir.display());
    let status = Command::new(cargo_bin)
        .args(["wasm", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", paths::target_dir())
        .status()
        .map_err(|err| format!("running cargo: {err}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo wasm` in {} failed ({status})",
            dir.display()
        ));
    }
    Ok(test_guest(NEW_PLUGIN))
}
