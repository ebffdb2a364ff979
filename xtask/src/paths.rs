//! Where things live in the repository.

use std::path::{Path, PathBuf};

/// The workspace root (the parent of `xtask/`). `cargo xtask` sets
/// `CARGO_MANIFEST_DIR` when it runs us; the compiled-in path is only the
/// fallback, because cargo reuses this binary from a target directory shared
/// with a checkout at another path, and that checkout's files are not ours.
pub fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The vendored tree: `proto-vendor/` holds `proto/` and `testdata/`.
pub fn vendor_dir() -> PathBuf {
    root().join("proto-vendor")
}

/// Cargo's target directory (`CARGO_TARGET_DIR` or `<root>/target`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root().join(dir)
            }
        }
        None => root().join("target"),
    }
}

/// Every file below `dir` whose name ends in `.{extension}`, relative to
/// `dir`, sorted.
pub fn files_below(dir: &Path, extension: &str) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .map_err(|err| format!("reading {}: {err}", dir.join(&rel).display()))?;
        for entry in entries {
            let entry = entry.map_err(|err| err.to_string())?;
            let path = rel.join(entry.file_name());
            if entry.file_type().map_err(|err| err.to_string())?.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A file of kube-scheduler-wasm-extension's pinned material (its TinyGo
/// guests), from `$KGUEST_KSW_DIR` or `proto-vendor/ksw` (`cargo xtask
/// vendor ksw`), if present. Nothing is downloaded here.
pub fn ksw_file(rel: &str) -> Option<PathBuf> {
    let from_env = std::env::var_os("KGUEST_KSW_DIR").map(|dir| Path::new(&dir).join(rel));
    from_env
        .into_iter()
        .chain([vendor_dir().join("ksw").join(rel)])
        .find(|path| path.is_file())
}

/// Upstream's TinyGo guests measured beside ours: (table name, file in the
/// KSW material, what it does).
pub const TINYGO_GUESTS: &[(&str, &str, &str)] = &[
    (
        "tinygo-filter",
        "guest/testdata/filter/main.wasm",
        "upstream's filter test guest (TinyGo), run with guest arg `filter`: the nodeName match",
    ),
    (
        "tinygo-nodenumber",
        "examples/nodenumber/main.wasm",
        "upstream's nodenumber example (TinyGo)",
    ),
];
