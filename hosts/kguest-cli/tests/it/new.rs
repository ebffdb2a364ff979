//! `kguest new`: bad requests get one line; a generated crate passes its
//! own tests, builds for wasm with `cargo wasm`, passes `kguest check
//! --strict` and decides on its sample objects through `kguest run`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{assert_fails, kguest};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// The workspace's target directory.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace().join("target"), PathBuf::from)
}

/// A fresh directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kguest-new-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn s(path: &Path) -> &str {
    path.to_str().expect("utf8 path")
}

#[test]
fn new_refuses_bad_requests() {
    let dir = scratch("refuses");
    let root = workspace();
    let target = dir.join("plugin");
    std::fs::create_dir_all(&target).expect("dir");
    std::fs::write(target.join("keep.txt"), "mine").expect("file");
    assert_fails(
        &kguest(&["new", s(&target)], b""),
        1,
        "exists and is not empty; choose a new directory",
    );
    assert_eq!(
        std::fs::read_to_string(target.join("keep.txt")).expect("kept"),
        "mine"
    );

    let fresh = dir.join("fresh");
    assert_fails(
        &kguest(&["new", s(&fresh), "--hooks", "filter,prescore"], b""),
        2,
        "--hooks filter,prescore: prescore and normalizescore need score",
    );
    assert_fails(
        &kguest(&["new", s(&fresh), "--hooks", "reserve,permit"], b""),
        2,
        "rejects this combination",
    );
    assert_fails(
        &kguest(&["new", s(&fresh), "--hooks", "filtre"], b""),
        2,
        "unknown hook `filtre`",
    );
    assert_fails(
        &kguest(&["new", s(&dir.join("2fast"))], b""),
        1,
        "`2fast` is not a crate name",
    );
    assert_fails(
        &kguest(&["new", s(&fresh), "--kguest-path", s(&dir)], b""),
        1,
        "not a kguest checkout",
    );
    assert_fails(&kguest(&["new"], b""), 2, "new: missing PATH");
    assert!(!fresh.exists(), "nothing is written for a refused request");

    // An empty directory is fine.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    let out = kguest(&["new", s(&empty), "--kguest-path", s(&root)], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(empty.join("src/lib.rs").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_published_dependency_names_this_version() {
    let dir = scratch("published");
    let plugin = dir.join("my-plugin");
    let out = kguest(&["new", s(&plugin), "--hooks", "score"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(plugin.join("Cargo.toml")).expect("manifest");
    assert!(
        manifest.contains(&format!("\nkguest = \"{}\"\n", env!("CARGO_PKG_VERSION"))),
        "{manifest}"
    );
    let lib = std::fs::read_to_string(plugin.join("src/lib.rs")).expect("lib.rs");
    assert!(
        lib.contains("kguest::export!(MyPlugin => [score]);"),
        "{lib}"
    );
    assert!(!lib.contains("impl Filter"), "{lib}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs cargo in `dir` with the build directory xtask's size gate uses for
/// unstripped guests, so the dependencies built there are reused.
fn cargo(dir: &Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir().join("size-unstripped"))
        .env("CARGO_PROFILE_GUEST_STRIP", "false")
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {args:?} in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_new_plugin_tests_builds_checks_and_runs() {
    let dir = scratch("e2e");
    let plugin = dir.join("zone-memory");
    let root = workspace();
    let out = kguest(&["new", s(&plugin), "--kguest-path", s(&root)], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        "Cargo.toml",
        ".cargo/config.toml",
        "rust-toolchain.toml",
        "src/lib.rs",
        "pod.yaml",
        "nodes.yaml",
        "README.md",
    ] {
        assert!(plugin.join(file).is_file(), "{file} missing");
    }

    // The native tests the template ships pass.
    cargo(&plugin, &["test", "--quiet"]);
    // The documented one-word build (kept unstripped so `check` can name
    // functions).
    cargo(&plugin, &["wasm", "--quiet"]);
    let wasm = target_dir().join("size-unstripped/wasm32-unknown-unknown/guest/zone_memory.wasm");
    assert!(wasm.is_file(), "{} missing", wasm.display());

    let out = kguest(&["check", "--strict", s(&wasm)], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("hooks:     prefilter|filter|score"), "{text}");
    assert!(text.contains("panic/fmt: none"), "{text}");

    let out = kguest(
        &[
            "run",
            s(&wasm),
            "--pod",
            s(&plugin.join("pod.yaml")),
            "--nodes",
            s(&plugin.join("nodes.yaml")),
            "--json",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<(String, String, Option<i64>)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).expect("JSON line");
            (
                row["node"].as_str().unwrap_or_default().to_string(),
                row["filter"].as_str().unwrap_or_default().to_string(),
                row["score"].as_i64(),
            )
        })
        .collect();
    let expected = [
        ("node-a1", "Success", Some(16)),
        ("node-a2", "Success", Some(64)),
        ("node-b1", "UnschedulableAndUnresolvable", None),
    ];
    let rows: Vec<(&str, &str, Option<i64>)> = rows
        .iter()
        .map(|(n, f, sc)| (n.as_str(), f.as_str(), *sc))
        .collect();
    assert_eq!(rows, expected);
    let _ = std::fs::remove_dir_all(&dir);
}
