//! `kguest new`: bad requests get one line; a generated crate passes its
//! own tests, builds for wasm with `cargo wasm`, passes `kguest check
//! --strict` and decides on its sample objects through `kguest run`; a
//! generated KRM function (`--krm`) builds in its own target directory as a
//! user's would, runs under `kguest krm` and under `kubectl kustomize`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use kguest_test_support::built::target_dir;
use kguest_test_support::tools::kubectl;

use super::{assert_fails, kguest};

fn workspace() -> PathBuf {
    kguest_test_support::workspace()
        .canonicalize()
        .expect("workspace root")
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
    assert_fails(
        &kguest(&["new", "--krm", s(&fresh), "--hooks", "filter"], b""),
        2,
        "new: --hooks is for scheduler plugins; a KRM function (--krm) has none",
    );
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
        lib.contains("kguest::export!(MyPlugin => [load, score]);"),
        "{lib}"
    );
    assert!(!lib.contains("impl Filter"), "{lib}");

    let function = dir.join("my-function");
    let out = kguest(&["new", "--krm", s(&function)], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(function.join("Cargo.toml")).expect("manifest");
    assert!(
        manifest.contains(&format!(
            "\nkguest-krm = {{ version = \"{}\", default-features = false, features = [\"panic-handler\"] }}\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{manifest}"
    );
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

/// Runs cargo in `dir` with the crate's own profiles as they are (no
/// override), in a build directory kept between runs.
fn cargo_profiles(dir: &Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir().join("new-plugins"))
        .env_remove("CARGO_PROFILE_GUEST_STRIP")
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
    let toolchain = std::fs::read_to_string(plugin.join("rust-toolchain.toml")).expect("read");
    assert!(
        toolchain.contains(&format!("channel = \"{}\"", env!("CARGO_PKG_RUST_VERSION"))),
        "{toolchain}"
    );
    // The README's two builds: `cargo wasm`, the deployable file (stripped),
    // then `cargo wasm-names` for `kguest check --strict`, which leaves the
    // deployable file as it was.
    cargo_profiles(&plugin, &["wasm", "--quiet"]);
    let built = target_dir().join("new-plugins/wasm32-unknown-unknown");
    let deployable = std::fs::read(built.join("guest/zone_memory.wasm")).expect("cargo wasm");
    cargo_profiles(&plugin, &["wasm-names", "--quiet"]);
    let wasm = built.join("guest-names/zone_memory.wasm");
    assert!(wasm.is_file(), "{} missing", wasm.display());
    assert_eq!(
        std::fs::read(built.join("guest/zone_memory.wasm")).expect("read"),
        deployable,
        "cargo wasm-names changed the deployable file"
    );
    let plain = kguest(
        &[
            "check",
            "--strict",
            s(&built.join("guest/zone_memory.wasm")),
        ],
        b"",
    );
    assert!(
        String::from_utf8_lossy(&plain.stdout).contains("`cargo wasm-names`"),
        "{plain:?}"
    );

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

    // The plugin reads its config when the host loads it: a good one caps
    // the scores, a bad one stops the load with the plugin's own words.
    let run_with = |config: &str| {
        let file = dir.join("guest-config.json");
        std::fs::write(&file, config).expect("write config");
        kguest(
            &[
                "run",
                s(&built.join("guest/zone_memory.wasm")),
                "--pod",
                s(&plugin.join("pod.yaml")),
                "--nodes",
                s(&plugin.join("nodes.yaml")),
                "--guest-config",
                s(&file),
                "--json",
            ],
            b"",
        )
    };
    let capped = run_with(r#"{"maxScore": 20}"#);
    let text = String::from_utf8_lossy(&capped.stdout);
    assert!(capped.status.success(), "{text}");
    let scores: Vec<Option<i64>> = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON line")["score"].as_i64())
        .collect();
    assert_eq!(scores, [Some(16), Some(20), None], "{text}");
    assert_fails(
        &run_with(r#"{"maxScore": "20"}"#),
        1,
        "wasm: instantiate error: json: cannot unmarshal string into Go struct field \
         ZoneMemoryArgs.maxScore of type int",
    );
    assert_fails(
        &run_with(r#"{"maxScore": 1000}"#),
        1,
        "wasm: instantiate error: ZoneMemoryArgs.maxScore: want 0 to 100",
    );

    // The second hour, on this crate, as docs/second-hour.md shows it.
    super::guide::replay_second_hour(&plugin, &built.join("guest/zone_memory.wasm"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The snippets of every hook (`src/new/snippets/`) in one crate: it
/// compiles natively and for wasm, its tests pass, `kguest check --strict`
/// accepts it and `kguest run` runs its whole cycle.
#[test]
fn a_plugin_with_every_hook_tests_builds_checks_and_runs() {
    let dir = scratch("every-hook");
    let plugin = dir.join("every-hook");
    let root = workspace();
    let every: Vec<&str> = kguest_abi::HOOKS
        .iter()
        .map(|h| h.name)
        .filter(|h| *h != "unreserve")
        .collect();
    let list = every.join(",");
    let out = kguest(
        &[
            "new",
            s(&plugin),
            "--hooks",
            &list,
            "--kguest-path",
            s(&root),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = std::fs::read_to_string(plugin.join("src/lib.rs")).expect("lib.rs");
    assert!(
        lib.contains(&format!(
            "kguest::export!(EveryHook => [load, {}]);",
            every.join(", ")
        )),
        "{lib}"
    );
    cargo(&plugin, &["test", "--quiet"]);
    cargo(&plugin, &["wasm", "--quiet"]);
    let wasm = target_dir().join("size-unstripped/wasm32-unknown-unknown/guest/every_hook.wasm");
    let out = kguest(&["check", "--strict", s(&wasm)], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every hook is exported (`reserve` brings `unreserve`).
    let hooks = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("hooks:"))
        .expect("hooks line")
        .trim();
    let exported: Vec<&str> = hooks.split('|').collect();
    for hook in kguest_abi::HOOKS {
        assert!(exported.contains(&hook.name), "{}: {text}", hook.name);
    }
    let out = kguest(
        &[
            "run",
            s(&wasm),
            "--pod",
            s(&plugin.join("pod.yaml")),
            "--nodes",
            s(&plugin.join("nodes.yaml")),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs cargo in `dir` as a user of the generated crate would: with the
/// crate's own target directory (`target/`), not the workspace's.
fn cargo_as_user(dir: &Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {args:?} in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the generated `add-labels` function writes for its `list.yaml`.
const ADD_LABELS_OUTPUT: &str = "\
# A sample ResourceList, as kustomize and kpt hand it to the function:
#   kguest krm target/wasm32-wasip1/guest/add_labels.wasm < list.yaml
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # comments, key order and quoting are kept
    labels:
      app: web
      team: platform
      tier: web
  spec:
    replicas: 2
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, labels: {team: platform, tier: web}}
  data: {mode: \"fast\"}
functionConfig:
  apiVersion: example.kguest.dev/v1
  kind: AddLabels
  metadata:
    name: add-labels
  labels:
    team: platform
    tier: web
";

#[test]
fn a_new_krm_function_tests_builds_checks_and_runs() {
    let dir = scratch("krm");
    let function = dir.join("add-labels");
    let root = workspace();
    let out = kguest(
        &["new", "--krm", s(&function), "--kguest-path", s(&root)],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plugin = "kustomize/plugin/example.kguest.dev/v1/addlabels/AddLabels";
    for file in [
        "Cargo.toml",
        ".cargo/config.toml",
        "rust-toolchain.toml",
        "src/lib.rs",
        "list.yaml",
        "README.md",
        "kustomize/kustomization.yaml",
        "kustomize/resources.yaml",
        "kustomize/config.yaml",
        plugin,
    ] {
        assert!(function.join(file).is_file(), "{file} missing");
    }
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(function.join(plugin))
            .expect("plugin")
            .permissions();
        assert_eq!(
            mode.mode() & 0o111,
            0o111,
            "the plugin wrapper is executable"
        );
    }

    // Its native tests pass and the documented build works, in the crate's
    // own target directory, outside any workspace.
    cargo_as_user(&function, &["test", "--quiet"]);
    cargo_as_user(&function, &["wasm", "--quiet"]);
    let wasm = function.join("target/wasm32-wasip1/guest/add_labels.wasm");
    assert!(wasm.is_file(), "{} missing", wasm.display());

    let out = kguest(&["check", s(&wasm)], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("kind:      KRM function"), "{text}");

    let list = std::fs::read(function.join("list.yaml")).expect("list.yaml");
    let out = kguest(&["krm", s(&wasm)], &list);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), ADD_LABELS_OUTPUT);

    // The kustomization runs it through `kubectl kustomize`, as the README
    // says.
    let Some(kubectl) = kubectl() else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    let out = Command::new(kubectl)
        .args(["kustomize", "--enable-alpha-plugins", "kustomize"])
        .current_dir(&function)
        .env("KUSTOMIZE_PLUGIN_HOME", function.join("kustomize/plugin"))
        .env("KGUEST", env!("CARGO_BIN_EXE_kguest"))
        .output()
        .expect("kubectl");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Value> = stdout
        .split("---\n")
        .map(|d| serde_norway::from_str(d).expect("a YAML document"))
        .collect();
    assert_eq!(docs.len(), 2, "{stdout}");
    for doc in &docs {
        assert_eq!(doc["metadata"]["labels"]["team"], "platform", "{stdout}");
    }
    let deployment = docs
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("Deployment");
    assert_eq!(deployment["metadata"]["labels"]["app"], "web");
    let _ = std::fs::remove_dir_all(&dir);
}
