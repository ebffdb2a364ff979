//! The Go harnesses under `tests/` (judges built on Kubernetes' and
//! kube-scheduler-wasm-extension's own Go modules): checking the toolchain,
//! building a harness binary, and the `gofmt`/`go vet` lint.
//!
//! Go is a test prerequisite only, never part of the product. Every harness is
//! its own Go module (`go.mod` + `go.sum` committed); CI sets
//! `GOFLAGS=-mod=readonly` and keeps `GOMODCACHE`/`GOCACHE` outside the clone.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The oldest Go the harnesses are tested with.
const MIN_GO: (u32, u32) = (1, 26);

/// The Go modules under `tests/`, relative to the workspace root.
pub const MODULES: &[&str] = &[
    "tests/go-judge",
    "tests/krm-go",
    "tests/ksw-e2e",
    "tests/ksw-host",
];

/// Fails with one line naming what is missing unless `go` ≥ 1.26 runs.
pub fn require() -> Result<(), String> {
    let hint = "install Go >= 1.26 (https://go.dev/dl) with access to the Go module proxy";
    let out = Command::new("go")
        .arg("version")
        .output()
        .map_err(|err| format!("the Go harnesses need `go` on PATH ({err}): {hint}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("go1."))
        .ok_or_else(|| format!("`go version` printed `{}`: {hint}", text.trim()))?;
    let minor: u32 = version
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if (1, minor) < MIN_GO {
        return Err(format!(
            "found {}, need go1.{}: {hint}",
            text.trim(),
            MIN_GO.1
        ));
    }
    Ok(())
}

/// Where harness binaries go: `<target>/go-harness/`.
pub fn bin_dir() -> PathBuf {
    crate::paths::target_dir().join("go-harness")
}

/// Builds package `pkg` (e.g. `.` or `./cmd/x`) of the module at `module`
/// (relative to the workspace root) into `<target>/go-harness/<name>`.
pub fn build(module: &str, pkg: &str, name: &str) -> Result<PathBuf, String> {
    require()?;
    let out = bin_dir().join(name);
    std::fs::create_dir_all(bin_dir())
        .map_err(|err| format!("creating {}: {err}", bin_dir().display()))?;
    let started = std::time::Instant::now();
    run_go(module, &["build", "-o", &out.to_string_lossy(), pkg])?;
    eprintln!(
        "built {} from {module} in {:.1} s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(out)
}

/// `go <args>` in `module`, failing with the command and its exit status.
pub fn run_go(module: &str, args: &[&str]) -> Result<(), String> {
    let dir = crate::paths::root().join(module);
    eprintln!("$ (cd {module} && go {})", args.join(" "));
    let status = Command::new("go")
        .args(args)
        .current_dir(&dir)
        .status()
        .map_err(|err| format!("running go in {module}: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`go {}` in {module} failed ({status})",
            args.join(" ")
        ))
    }
}

/// Runs a harness binary built by `build` with `args`, echoing the command;
/// fails naming the binary and its subcommand (the arguments before the
/// first flag).
pub fn run_harness<S: AsRef<str>>(harness: &Path, args: &[S]) -> Result<(), String> {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    eprintln!("$ {} {}", harness.display(), args.join(" "));
    let status = Command::new(harness)
        .args(&args)
        .status()
        .map_err(|err| format!("running {}: {err}", harness.display()))?;
    if status.success() {
        return Ok(());
    }
    let name = harness.file_name().map_or_else(
        || harness.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let command: Vec<&str> = args
        .iter()
        .copied()
        .take_while(|a| !a.starts_with("--"))
        .collect();
    Err(format!("`{name} {}` failed ({status})", command.join(" ")))
}

/// The directory of a downloaded module (`go mod download -json M@V`), from
/// within `module` so its go.sum vouches for the download.
pub fn module_dir(module: &str, path_at_version: &str) -> Result<PathBuf, String> {
    require()?;
    let out = Command::new("go")
        .args(["mod", "download", "-json", path_at_version])
        .current_dir(crate::paths::root().join(module))
        .output()
        .map_err(|err| format!("running go mod download: {err}"))?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|err| {
        format!(
            "go mod download -json {path_at_version}: {err}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })?;
    if let Some(err) = json.get("Error").and_then(|e| e.as_str()) {
        return Err(format!("go mod download {path_at_version}: {err}"));
    }
    json.get("Dir")
        .and_then(|d| d.as_str())
        .map(PathBuf::from)
        .ok_or_else(|| format!("go mod download -json {path_at_version}: no Dir in its answer"))
}

/// `cargo xtask go-lint`.
pub fn lint_command(args: &[String]) -> Result<(), String> {
    match args {
        [] => lint(),
        _ => Err("usage: cargo xtask go-lint".into()),
    }
}

/// `gofmt -l` and `go vet ./...` over every harness module (KSW's module
/// vendored first).
pub fn lint() -> Result<(), String> {
    require()?;
    // tests/ksw-host replaces KSW's module with the vendored copy, which `go
    // vet` must be able to read.
    crate::vendor::ensure_ksw_vendored()?;
    for module in MODULES.iter().chain(crate::extender_e2e::MODULES) {
        let dir = crate::paths::root().join(module);
        if !Path::new(&dir).join("go.mod").is_file() {
            return Err(format!("{module}/go.mod is missing"));
        }
        let out = Command::new("gofmt")
            .args(["-l", "."])
            .current_dir(&dir)
            .output()
            .map_err(|err| format!("running gofmt: {err}"))?;
        let unformatted = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !unformatted.trim().is_empty() {
            return Err(format!(
                "gofmt: not formatted in {module}: {} {}",
                unformatted.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        run_go(module, &["vet", "./..."])?;
    }
    Ok(())
}
