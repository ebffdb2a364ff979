//! Running cargo from xtask's tasks.

use std::process::Command;

/// Runs cargo with `args` in the workspace, failing on a non-zero exit.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    cargo_with_env(args, &[])
}

/// [`cargo`] with `env` set for the child only (a test's inputs).
pub fn cargo_with_env(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(crate::paths::root())
        .status()
        .map_err(|err| format!("running cargo: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}
