//! Building wasm guests with the size profile.

use std::path::PathBuf;

use crate::cargo::cargo;
use crate::paths;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// KRM functions are WASI preview1 commands.
pub const WASI_TARGET: &str = "wasm32-wasip1";

/// Builds `package` for wasm32 with the `guest` profile; returns the .wasm path.
pub fn build(package: &str) -> Result<PathBuf, String> {
    build_for(package, WASM_TARGET)
}

/// [`build`] for another wasm target.
pub fn build_for(package: &str, target: &str) -> Result<PathBuf, String> {
    cargo(&[
        "build",
        "--quiet",
        "-p",
        package,
        "--profile",
        "guest",
        "--target",
        target,
    ])?;
    let file = format!("{}.wasm", package.replace('-', "_"));
    Ok(paths::target_dir().join(target).join("guest").join(file))
}

/// Builds `package` like [`build`] but unstripped (keeping the `name`
/// section) into `target_dir`, so the stripped artifacts are not replaced.
pub fn build_unstripped(package: &str, target_dir: &std::path::Path) -> Result<PathBuf, String> {
    build_unstripped_for(package, target_dir, WASM_TARGET)
}

/// [`build_unstripped`] for another wasm target.
pub fn build_unstripped_for(
    package: &str,
    target_dir: &std::path::Path,
    target: &str,
) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!(
        "$ CARGO_PROFILE_GUEST_STRIP=false cargo build -p {package} --profile guest (unstripped)"
    );
    let status = std::process::Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            package,
            "--profile",
            "guest",
            "--target",
            target,
        ])
        .env("CARGO_PROFILE_GUEST_STRIP", "false")
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(paths::root())
        .status()
        .map_err(|err| format!("running cargo: {err}"))?;
    if !status.success() {
        return Err(format!("unstripped build of {package} failed ({status})"));
    }
    let file = format!("{}.wasm", package.replace('-', "_"));
    Ok(target_dir.join(target).join("guest").join(file))
}
