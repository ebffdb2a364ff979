//! The vendored upstream material, found the same way by every test.
//!
//! `cargo xtask vendor` copies it, pinned by `proto-vendor/*.lock`, into
//! `proto-vendor/`: the Kubernetes protos and wire fixtures (from
//! `$KGUEST_K8S_DIR` or upstream) and kube-scheduler-wasm-extension's
//! guests and host test suite (`proto-vendor/ksw/`, from `$KGUEST_KSW_DIR`
//! or upstream). Tests read `$KGUEST_VENDOR_DIR` and `$KGUEST_KSW_DIR` when
//! set. Missing material is a failure that says how to get it.

use std::path::PathBuf;

use crate::{env_path, workspace};

/// The vendored Kubernetes tree: `$KGUEST_VENDOR_DIR`, else `proto-vendor/`.
pub fn vendor_dir() -> PathBuf {
    env_path("KGUEST_VENDOR_DIR").unwrap_or_else(|| workspace().join("proto-vendor"))
}

fn vendored(sub: &str) -> PathBuf {
    let dir = vendor_dir().join(sub);
    assert!(
        dir.is_dir(),
        "{} is missing: run `cargo xtask vendor` (or `cargo xtask vendor --from DIR`) first, \
         or set KGUEST_VENDOR_DIR",
        dir.display()
    );
    dir
}

/// The vendored `.proto` files (`<vendor>/proto`).
pub fn proto_dir() -> PathBuf {
    vendored("proto")
}

/// Upstream's wire fixtures (`<vendor>/testdata`).
pub fn testdata_dir() -> PathBuf {
    vendored("testdata")
}

/// The previous release's fixtures (`<vendor>/previous/testdata`), kept by
/// `cargo xtask bump` (`proto-vendor/kubernetes-previous.lock`).
pub fn previous_testdata_dir() -> PathBuf {
    vendored("previous/testdata")
}

fn ksw_root() -> PathBuf {
    env_path("KGUEST_KSW_DIR").unwrap_or_else(|| workspace().join("proto-vendor/ksw"))
}

fn ksw_missing(path: &std::path::Path) -> String {
    format!(
        "kube-scheduler-wasm-extension's material is missing at {}: run `cargo xtask vendor` \
         (or set KGUEST_KSW_DIR to a copy, e.g. ../shared/ksw/9b2791f)",
        path.display()
    )
}

/// kube-scheduler-wasm-extension's material (`$KGUEST_KSW_DIR`, else
/// `proto-vendor/ksw`), with its host test suite (`scheduler/plugin`).
pub fn ksw_dir() -> PathBuf {
    let dir = ksw_root();
    assert!(
        dir.join("scheduler/plugin").is_dir(),
        "{}",
        ksw_missing(&dir)
    );
    dir
}

/// One file of kube-scheduler-wasm-extension's material, e.g.
/// `examples/nodenumber/main.wasm`.
pub fn ksw_file(relative: &str) -> PathBuf {
    let path = ksw_root().join(relative);
    assert!(path.is_file(), "{}", ksw_missing(&path));
    path
}

/// kube-scheduler-wasm-extension's material when it is there: for the
/// benchmarks, which measure its guests only beside kguest's own.
pub fn ksw_dir_if_present() -> Option<PathBuf> {
    Some(ksw_root()).filter(|dir| dir.is_dir())
}

/// The k8s.io/api module of the pinned release (v0.37.2; its `testdata/`
/// holds the fixtures of older releases): `$KGUEST_K8S_API_DIR`, which `cargo xtask test` sets.
pub fn k8s_api_dir() -> PathBuf {
    env_path("KGUEST_K8S_API_DIR").unwrap_or_else(|| {
        panic!(
            "KGUEST_K8S_API_DIR is not set: run `cargo xtask test` (it downloads k8s.io/api \
             v0.37.2 with Go and sets it), or set it to that module's directory \
             (`go mod download -json k8s.io/api@v0.37.2` prints it)"
        )
    })
}
