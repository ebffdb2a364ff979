//! `cargo xtask package [--no-verify]`: `cargo package` for every crate
//! that can be published, all in one cargo run (so the interdependent
//! workspace crates are packaged and verified against each other's
//! packages, as crates.io would see them).
//!
//! The crates are the workspace members without `publish = false`, read
//! from `cargo metadata`, so a new library crate is packaged without
//! touching this file. Without `--no-verify` each package is also built
//! from its `.crate` file, which catches a source file left out by
//! `include`. A `.crate` over crates.io's 10 MB limit is an error. Last,
//! `cargo doc --no-deps` for the same crates must build without a warning
//! (docs.rs builds these docs).

use std::process::Command;

use serde_json::Value;

use crate::paths;
use crate::test::cargo;

/// crates.io's limit on a `.crate` file.
const MAX_CRATE_BYTES: u64 = 10 * 1024 * 1024;

pub fn run(args: &[String]) -> Result<(), String> {
    let mut verify = true;
    for arg in args {
        match arg.as_str() {
            "--no-verify" => verify = false,
            other => {
                return Err(format!(
                    "usage: cargo xtask package [--no-verify] (unknown argument `{other}`)"
                ));
            }
        }
    }
    let crates = publishable()?;
    let mut cmd = vec!["package", "--quiet", "--allow-dirty"];
    if !verify {
        cmd.push("--no-verify");
    }
    for name in &crates {
        cmd.extend(["-p", name.as_str()]);
    }
    cargo(&cmd)?;
    let version = env!("CARGO_PKG_VERSION");
    let mut too_big = Vec::new();
    for name in &crates {
        let file = paths::target_dir()
            .join("package")
            .join(format!("{name}-{version}.crate"));
        let bytes = std::fs::metadata(&file)
            .map_err(|err| format!("{}: {err}", file.display()))?
            .len();
        println!("{name}: {} bytes packaged", crate::size::group(bytes));
        if bytes > MAX_CRATE_BYTES {
            too_big.push(format!("{name} ({bytes} bytes)"));
        }
    }
    if !too_big.is_empty() {
        return Err(format!(
            "over crates.io's 10 MB limit: {}",
            too_big.join(", ")
        ));
    }
    docs(&crates)
}

/// `cargo doc --no-deps` for `crates`, warnings denied.
fn docs(crates: &[String]) -> Result<(), String> {
    let mut args = vec!["doc", "--no-deps", "--quiet"];
    for name in crates {
        args.extend(["-p", name.as_str()]);
    }
    eprintln!("$ RUSTDOCFLAGS=\"-D warnings\" cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(&args)
        .env("RUSTDOCFLAGS", "-D warnings")
        .current_dir(paths::root())
        .status()
        .map_err(|err| format!("running cargo doc: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo doc found problems ({status})"))
    }
}

/// Workspace members that may be published, in `cargo metadata` order.
fn publishable() -> Result<Vec<String>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(paths::root())
        .output()
        .map_err(|err| format!("running cargo metadata: {err}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let metadata: Value =
        serde_json::from_slice(&out.stdout).map_err(|err| format!("cargo metadata: {err}"))?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata: no `packages`")?;
    // `publish` is null when unrestricted and `[]` for `publish = false`.
    let names: Vec<String> = packages
        .iter()
        .filter(|p| p["publish"].is_null())
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    if names.is_empty() {
        return Err("no publishable crate in the workspace".into());
    }
    Ok(names)
}
