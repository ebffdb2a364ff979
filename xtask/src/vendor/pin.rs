//! The pins: what each one vendors, from where, and how its lock keys and
//! download URLs are made.

use std::path::PathBuf;

use super::args::usage;
use super::lock::Lock;
use crate::paths;

/// A lock's `key value` lines, in order.
pub(super) type Keys = Vec<(String, String)>;

/// One pinned set of upstream files: its lock, where it is vendored, where
/// its files come from.
#[derive(Debug)]
pub struct Pin {
    /// The name on the command line.
    pub(super) name: &'static str,
    /// The lock's file name in `proto-vendor/`.
    pub(super) lock_name: &'static str,
    /// Where the files go, below `proto-vendor/` (empty: `proto-vendor/` itself).
    subdir: &'static str,
    /// How the vendor dir is named in messages.
    pub(super) label: &'static str,
    /// Environment variable naming a local source laid out like the lock.
    pub(super) env: &'static str,
    /// The `key value` lines every lock has, in this order.
    pub(super) keys: &'static [&'static str],
    /// The `--update-lock` flag that sets the keys (`--kubernetes`, `--commit`).
    pub(super) key_flag: &'static str,
    /// Top-level folders holding the files; `None` when the pin owns its
    /// whole vendor dir.
    pub(super) trees: Option<&'static [&'static str]>,
    /// Written at the top of a fresh lock.
    pub(super) header: &'static str,
    /// Keys from the `key_flag` value.
    pub(super) keys_from: fn(&str) -> Result<Keys, String>,
    /// Which files of a source dir `--update-lock` pins.
    pub(super) wanted: fn(&str) -> bool,
    /// The download URL of a lock path.
    pub(super) url: fn(&Lock, &str) -> Result<String, String>,
}

/// The Kubernetes protos and fixtures.
pub static KUBERNETES: Pin = Pin {
    name: "kubernetes",
    lock_name: "kubernetes.lock",
    subdir: "",
    label: "proto-vendor/",
    env: "KGUEST_K8S_DIR",
    keys: &["kubernetes", "tag"],
    key_flag: "--kubernetes",
    trees: Some(&["proto", "testdata"]),
    header: "\
# Kubernetes sources pinned for kguest; `cargo xtask vendor` fetches them into
# proto-vendor/ and checks every file against this list. Only this manifest is
# committed, never the files.
#
#   proto/<import path>   generated.proto files of kubernetes/api and
#                         kubernetes/apimachinery at `tag`
#   testdata/<file>       testdata/HEAD/<file> of kubernetes/api at `tag`
#
# Format: `kubernetes <version>`, `tag <git tag>`, then `<sha256>  <path>` lines
# sorted by path. After a Kubernetes bump, regenerate it with
#   cargo xtask vendor --update-lock --from DIR --kubernetes X.Y.Z",
    keys_from: kubernetes_keys,
    wanted: |path| !path.starts_with("proto/") || path.ends_with(".proto"),
    url: kubernetes_url,
};

/// The previous Kubernetes release's protos and fixtures, kept by `cargo
/// xtask bump` so the API-change report (`regen`) can compare the two.
pub static KUBERNETES_PREVIOUS: Pin = Pin {
    name: "kubernetes-previous",
    lock_name: "kubernetes-previous.lock",
    subdir: "previous",
    label: "proto-vendor/previous/",
    env: "KGUEST_K8S_PREVIOUS_DIR",
    ..KUBERNETES
};

/// kube-scheduler-wasm-extension's guests and host test suite.
pub static KSW: Pin = Pin {
    name: "ksw",
    lock_name: "ksw.lock",
    subdir: "ksw",
    label: "proto-vendor/ksw/",
    env: "KGUEST_KSW_DIR",
    keys: &["repository", "commit"],
    key_flag: "--commit",
    trees: None,
    header: "\
# kube-scheduler-wasm-extension test material pinned for kguest: its TinyGo and
# WAT guests, the YAML objects and Go sources of its host test suite, which
# kguest-host's tests run; the host's Go module (scheduler/) and upstream's
# e2e material (internal/e2e/), which the Go harnesses under tests/ use.
# `cargo xtask vendor` fetches them into proto-vendor/ksw/ (from
# $KGUEST_KSW_DIR or GitHub at `commit`) and checks every file against this
# list. Only this manifest is committed, never the files.
#
# Format: `repository <owner/name>`, `commit <git hash>`, then
# `<sha256>  <path>` lines (paths in the repository) sorted by path. Bump with
#   cargo xtask vendor ksw --update-lock --from DIR --commit HASH",
    keys_from: ksw_keys,
    wanted: |_| true,
    url: ksw_url,
};

impl Pin {
    pub(super) fn lock_file(&self) -> PathBuf {
        paths::vendor_dir().join(self.lock_name)
    }

    pub(super) fn vendor_dir(&self) -> PathBuf {
        match self.subdir {
            "" => paths::vendor_dir(),
            sub => paths::vendor_dir().join(sub),
        }
    }

    /// The folders of the vendor dir this pin owns (`""` = all of it).
    pub(super) fn roots(&self) -> &'static [&'static str] {
        self.trees.unwrap_or(&[""])
    }
}

impl PartialEq for Pin {
    fn eq(&self, other: &Pin) -> bool {
        self.name == other.name
    }
}

impl Eq for Pin {}

/// `1.36.3` (or `v1.36.3`) → `kubernetes 1.36.3`, `tag v0.36.3`: the staging
/// repos are tagged `v0.<minor>.<patch>` for Kubernetes `1.<minor>.<patch>`.
pub(super) fn kubernetes_keys(version: &str) -> Result<Keys, String> {
    let version = version.strip_prefix('v').unwrap_or(version);
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, format!("-{pre}")),
        None => (version, String::new()),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match numbers[..] {
        ["1", minor, patch] if [minor, patch].iter().all(numeric) => Ok(vec![
            ("kubernetes".to_string(), version.to_string()),
            ("tag".to_string(), format!("v0.{minor}.{patch}{pre}")),
        ]),
        _ => Err(usage(&format!(
            "`--kubernetes {version}`: expected a release like 1.36.3"
        ))),
    }
}

/// The upstream repository of kube-scheduler-wasm-extension.
const KSW_REPOSITORY: &str = "kubernetes-sigs/kube-scheduler-wasm-extension";

/// `HASH` → `repository ...`, `commit HASH` (7 to 40 lowercase hex digits).
pub(super) fn ksw_keys(commit: &str) -> Result<Keys, String> {
    let hex = commit
        .bytes()
        .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !(7..=40).contains(&commit.len()) || !hex {
        return Err(usage(&format!(
            "`--commit {commit}`: expected a git commit hash (7 to 40 lowercase hex digits)"
        )));
    }
    Ok(vec![
        ("repository".to_string(), KSW_REPOSITORY.to_string()),
        ("commit".to_string(), commit.to_string()),
    ])
}

/// Raw-file host for the `kubernetes/api` and `kubernetes/apimachinery` repos.
const KUBERNETES_UPSTREAM: &str = "https://raw.githubusercontent.com/kubernetes";

/// The raw upstream URL of a Kubernetes lock path at the lock's `tag`.
pub(super) fn kubernetes_url(lock: &Lock, path: &str) -> Result<String, String> {
    let tag = lock.key("tag");
    if let Some(rest) = path.strip_prefix("proto/k8s.io/api/") {
        return Ok(format!("{KUBERNETES_UPSTREAM}/api/{tag}/{rest}"));
    }
    if let Some(rest) = path.strip_prefix("proto/k8s.io/apimachinery/") {
        return Ok(format!("{KUBERNETES_UPSTREAM}/apimachinery/{tag}/{rest}"));
    }
    if let Some(rest) = path.strip_prefix("testdata/") {
        return Ok(format!(
            "{KUBERNETES_UPSTREAM}/api/{tag}/testdata/HEAD/{rest}"
        ));
    }
    Err(format!("{path}: no upstream location known for this path"))
}

/// The raw URL of a kube-scheduler-wasm-extension file at the lock's
/// `commit`. A full 40-digit hash goes straight to
/// raw.githubusercontent.com; an abbreviated one goes through github.com's
/// `raw` route, which resolves it to its commit. Either way every file is
/// checked against its sha256 before it is used, so a hash that came to
/// name another commit fails loudly instead of vendoring other bytes.
fn ksw_url(lock: &Lock, path: &str) -> Result<String, String> {
    let commit = lock.key("commit");
    let repository = lock.key("repository");
    Ok(if commit.len() == 40 {
        format!("https://raw.githubusercontent.com/{repository}/{commit}/{path}")
    } else {
        format!("https://github.com/{repository}/raw/{commit}/{path}")
    })
}
