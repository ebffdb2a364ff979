//! `cargo xtask vendor`: fetch the pinned upstream files.
//!
//! Two pins, each a lock of sha256 entries under `proto-vendor/`:
//!
//! * `kubernetes.lock`: the Kubernetes protos and wire fixtures, vendored
//!   into `proto-vendor/{proto,testdata}` (source: `$KGUEST_K8S_DIR`);
//! * `ksw.lock`: kube-scheduler-wasm-extension's guests and host test suite
//!   at one commit, vendored into `proto-vendor/ksw/` (source:
//!   `$KGUEST_KSW_DIR`).
//!
//! The files are not committed: this task copies them from a local copy
//! (`--from DIR` or the pin's environment variable) or downloads them with
//! `curl`, verifies each one before it is put in place, and removes anything
//! the lock does not list.
//!
//! Here: the commands. `pin.rs` describes the two pins, `lock.rs` reads
//! and writes a lock, `update.rs` builds one (`--update-lock`), `sync.rs`
//! brings the vendor dir in line with it (or checks it) using `fetch.rs`;
//! `args.rs` reads the command line, `files.rs` has file helpers.

mod args;
mod fetch;
mod files;
mod lock;
mod pin;
mod sync;
#[cfg(test)]
mod tests;
mod update;

use std::path::PathBuf;

use crate::paths;
use args::{USAGE, parse_args};
use fetch::{Source, choose_source};
use lock::read_lock;
use pin::{KSW, KUBERNETES, KUBERNETES_PREVIOUS, Pin};
use sync::{check, print_summary, sync};
use update::update_lock;

/// The directory holding the vendored `.proto` files (the protoc include root).
#[allow(dead_code)] // for `regen` and the conformance tooling
pub fn proto_dir() -> PathBuf {
    paths::vendor_dir().join("proto")
}

/// The directory holding the vendored upstream fixtures.
#[allow(dead_code)] // for `regen` and the conformance tooling
pub fn testdata_dir() -> PathBuf {
    paths::vendor_dir().join("testdata")
}

/// `cargo xtask vendor [...]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse_args(args)?;
    if opts.help {
        println!("usage:\n{USAGE}");
        return Ok(());
    }
    let pins: Vec<&Pin> = match &opts.pin {
        Some(pin) => vec![pin],
        // The previous release's files too, once a bump has kept its lock.
        None if KUBERNETES_PREVIOUS.lock_file().exists() => {
            vec![&KUBERNETES, &KUBERNETES_PREVIOUS, &KSW]
        }
        None => vec![&KUBERNETES, &KSW],
    };
    for pin in pins {
        if opts.update_lock {
            update_lock(pin, &opts)?;
            continue;
        }
        let lock = read_lock(&pin.lock_file(), pin)?;
        let vendor = pin.vendor_dir();
        if opts.check {
            let count = check(&vendor, pin, &lock, pin.label)?;
            println!(
                "vendor: {count} files verified in {} (check only)",
                pin.label
            );
            continue;
        }
        let source = choose_source(pin, opts.from.clone(), &lock)?;
        let summary = sync(&vendor, pin, &lock, &source)?;
        print_summary(&summary, pin.label);
    }
    Ok(())
}

/// Makes sure the Kubernetes files match their lock (like a plain `vendor`,
/// honouring `$KGUEST_K8S_DIR`) and returns the vendor dir. Quiet when
/// nothing had to change.
pub fn ensure_vendored() -> Result<PathBuf, String> {
    ensure(&KUBERNETES)
}

/// The same for kube-scheduler-wasm-extension's material
/// (`$KGUEST_KSW_DIR`), which kguest-host's tests read.
pub fn ensure_ksw_vendored() -> Result<PathBuf, String> {
    ensure(&KSW)
}

/// The previous release's files (`kubernetes-previous.lock`, from
/// `$KGUEST_K8S_PREVIOUS_DIR`), which the API-change report compares with
/// the current ones; `None` when no bump has kept a previous lock.
pub fn ensure_previous_vendored() -> Result<Option<PathBuf>, String> {
    if !KUBERNETES_PREVIOUS.lock_file().exists() {
        return Ok(None);
    }
    ensure(&KUBERNETES_PREVIOUS).map(Some)
}

/// A Kubernetes release as a lock names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// `1.37.2`.
    pub version: String,
    /// The staging modules' tag, `v0.37.2`.
    pub tag: String,
}

impl Release {
    /// The minor version, `37`.
    pub fn minor(&self) -> &str {
        self.version.split('.').nth(1).unwrap_or("")
    }

    /// `1.37`.
    pub fn major_minor(&self) -> String {
        format!("1.{}", self.minor())
    }

    /// The release whose version `version` names (`1.37.2`).
    pub fn parse(version: &str) -> Result<Release, String> {
        let keys = pin::kubernetes_keys(version)?;
        Ok(Release {
            version: keys[0].1.clone(),
            tag: keys[1].1.clone(),
        })
    }
}

/// The release `proto-vendor/kubernetes.lock` pins.
pub fn kubernetes_release() -> Result<Release, String> {
    release_of(&KUBERNETES)
}

/// The release `proto-vendor/kubernetes-previous.lock` pins, if there is one.
pub fn previous_release() -> Result<Option<Release>, String> {
    if !KUBERNETES_PREVIOUS.lock_file().exists() {
        return Ok(None);
    }
    release_of(&KUBERNETES_PREVIOUS).map(Some)
}

fn release_of(pin: &Pin) -> Result<Release, String> {
    let lock = read_lock(&pin.lock_file(), pin)?;
    Ok(Release {
        version: lock.key("kubernetes").to_string(),
        tag: lock.key("tag").to_string(),
    })
}

/// Writes a fresh Kubernetes lock for the files of `dir` (laid out as
/// `proto/` and `testdata/`) at `release`, keeping the lock it replaces as
/// `kubernetes-previous.lock`; then vendors both.
pub fn bump_locks(dir: &std::path::Path, release: &Release) -> Result<(), String> {
    let current = KUBERNETES.lock_file();
    let old = read_lock(&current, &KUBERNETES)?;
    if old.key("kubernetes") != release.version {
        std::fs::copy(&current, KUBERNETES_PREVIOUS.lock_file())
            .map_err(|err| format!("keeping the previous lock: {err}"))?;
    }
    let opts = args::Options {
        pin: Some(&KUBERNETES),
        from: Some(dir.to_path_buf()),
        update_lock: true,
        key_value: Some(("--kubernetes".to_string(), release.version.clone())),
        ..Default::default()
    };
    update_lock(&KUBERNETES, &opts)?;
    let lock = read_lock(&current, &KUBERNETES)?;
    let summary = sync(
        &KUBERNETES.vendor_dir(),
        &KUBERNETES,
        &lock,
        &Source::Dir(dir.to_path_buf()),
    )?;
    print_summary(&summary, KUBERNETES.label);
    ensure_previous_vendored()?;
    Ok(())
}

fn ensure(pin: &Pin) -> Result<PathBuf, String> {
    let lock = read_lock(&pin.lock_file(), pin)?;
    let vendor = pin.vendor_dir();
    let summary = sync(&vendor, pin, &lock, &choose_source(pin, None, &lock)?)?;
    if summary.changed() {
        print_summary(&summary, pin.label);
    }
    Ok(vendor)
}
