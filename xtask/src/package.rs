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

use crate::cargo::cargo;
use crate::paths;

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
    let version = env!("CARGO_PKG_VERSION");
    forget_unpacked(&crates, version)?;
    let mut cmd = vec!["package", "--quiet", "--allow-dirty"];
    if !verify {
        cmd.push("--no-verify");
    }
    for name in &crates {
        cmd.extend(["-p", name.as_str()]);
    }
    cargo(&cmd)?;
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

/// Verifying builds each package against the others' new `.crate` files,
/// served from a temporary local registry. Cargo treats registry crates as
/// immutable: it unpacks one into `$CARGO_HOME/registry/src/-<hash>/
/// <name>-<version>` once and reuses that directory, and its build keeps a
/// fingerprint that lists no source file, so it never looks stale. With the
/// same name and version as an earlier run, last run's sources and build
/// would be used. So first drop our crates' unpacked copies under local
/// registries (the `-<hash>` directories, no host name) and the
/// fingerprints of their registry builds (dep-info without any path).
fn forget_unpacked(crates: &[String], version: &str) -> Result<(), String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
    if let Some(src) = home.map(|h| h.join("registry").join("src"))
        && let Ok(registries) = std::fs::read_dir(&src)
    {
        for registry in registries.flatten() {
            if !registry.file_name().to_string_lossy().starts_with('-') {
                continue;
            }
            for name in crates {
                remove_dir(&registry.path().join(format!("{name}-{version}")))?;
            }
        }
    }
    let fingerprints = paths::target_dir().join("debug").join(".fingerprint");
    let Ok(units) = std::fs::read_dir(&fingerprints) else {
        return Ok(());
    };
    for unit in units.flatten() {
        let dir_name = unit.file_name().to_string_lossy().into_owned();
        // `<package>-<16 hex digits>`
        let Some((package, hash)) = dir_name.rsplit_once('-') else {
            continue;
        };
        if hash.len() != 16 || !crates.iter().any(|c| c == package) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(unit.path()) else {
            continue;
        };
        let registry_build = files.flatten().any(|f| {
            f.file_name().to_string_lossy().starts_with("dep-lib-")
                && f.metadata().is_ok_and(|m| m.len() < 64)
        });
        if registry_build {
            remove_dir(&unit.path())?;
        }
    }
    Ok(())
}

fn remove_dir(dir: &std::path::Path) -> Result<(), String> {
    if dir.is_dir() {
        std::fs::remove_dir_all(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    }
    Ok(())
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
