//! `cargo xtask test`: everything CI checks, in the order that fails fastest.
//!
//! 1. vendor the pinned upstream files (from `KGUEST_K8S_DIR` and
//!    `KGUEST_KSW_DIR`, or upstream),
//! 2. `regen --check`: the committed generated code is what the generator writes,
//! 3. build the example plugins (the end-to-end tests run them),
//! 4. `cargo test --workspace`,
//! 5. `size --check`: build every guest with the size profile, check its
//!    budget, that it links no panic or `core::fmt` code, and its ABI surface.

use std::process::Command;

use crate::{examples, regen, size, vendor};

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask test (unknown argument `{arg}`)"
        ));
    }
    vendor::ensure_vendored()?;
    let ksw = vendor::ensure_ksw_vendored()?;
    regen::run(&["--check".to_string()])?;
    examples::build_all()?;
    // SAFETY of the env change: xtask is single-threaded here.
    unsafe { std::env::set_var("KGUEST_PLUGIN_DIR", examples::plugin_dir()) };
    // The tests read the copy just verified against proto-vendor/ksw.lock.
    unsafe { std::env::set_var("KGUEST_KSW_DIR", ksw) };
    cargo(&[
        "test",
        "--workspace",
        "--quiet",
        "--exclude",
        "kguest-conformance",
        "--",
        "--skip",
        "ksw::suite",
    ])?;
    // kube-scheduler-wasm-extension's own host suite, ported; prints
    // `ksw host suite: N/M cases` and the cases left out.
    cargo(&[
        "test",
        "--quiet",
        "-p",
        "kguest-host",
        "--test",
        "it",
        "--",
        "--nocapture",
        "--exact",
        "ksw::suite",
    ])?;
    // The conformance suite prints its counts (`185/185 fixtures ...`).
    cargo(&[
        "test",
        "--quiet",
        "-p",
        "kguest-conformance",
        "--",
        "--nocapture",
    ])?;
    // The size gate: budgets, no fmt/panic machinery, only host imports.
    size::run(&["--check".to_string()])?;
    Ok(())
}

/// Runs cargo with `args` in the workspace, failing on a non-zero exit.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .current_dir(crate::paths::root())
        .status()
        .map_err(|err| format!("running cargo: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}
