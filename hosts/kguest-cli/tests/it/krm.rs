//! `kguest krm` end to end: the example functions (built for wasm32-wasip1
//! by `cargo xtask examples` into `target/krm/`, or `$KGUEST_KRM_DIR`), bad
//! input and misbehaving functions (one line on stderr, nothing on stdout),
//! and the real `kubectl kustomize --enable-alpha-plugins` and `kpt fn
//! eval --exec` running them.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{assert_fails, kguest, temp_file};

fn function(name: &str) -> String {
    let dir = std::env::var_os("KGUEST_KRM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(
                    || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
                    PathBuf::from,
                )
                .join("krm")
        });
    let path = dir.join(format!("{name}.wasm"));
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask examples` first",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

const LIST: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: Service # the front door
  metadata:
    name: web
- apiVersion: v1
  kind: Namespace
  metadata:
    name: prod
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  data:
    namespace: prod
";

#[test]
fn runs_a_function() {
    let out = kguest(&["krm", &function("set-namespace")], LIST.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        LIST.replace(
            "  metadata:\n    name: web\n",
            "  metadata:\n    name: web\n    namespace: prod\n"
        )
    );
}

#[test]
fn config_and_timing() {
    let config = temp_file(
        "krm-config.yaml",
        b"kind: SetNamespace\nnamespace: staging\n",
    );
    let out = kguest(
        &[
            "krm",
            &function("set-namespace"),
            "--config",
            config.to_str().unwrap(),
            "--timing",
        ],
        LIST.as_bytes(),
    );
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("    name: web\n    namespace: staging\n"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("functionConfig:\n  kind: SetNamespace\n  namespace: staging\n"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("kguest krm: compile ") && stderr.contains(" ms, run "),
        "{stderr}"
    );
}

#[test]
fn error_results_fail_but_keep_the_output() {
    let input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers: [{name: c}]\n";
    let out = kguest(&["krm", &function("require-requests")], input.as_bytes());
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        stdout.starts_with(input)
            && stdout.contains("results:\n- message: \"container c has no cpu request\""),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr.trim_end(),
        "error: the function exited with code 1; 2 error result(s), the first: Pod/p: container c has no cpu request"
    );
}

#[test]
fn bad_input_and_usage() {
    let f = function("set-namespace");
    let no_output = |out: &std::process::Output| {
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        )
    };
    for (input, needle) in [
        (&b"{not yaml"[..], "input: invalid"),
        (b"apiVersion: v1\nkind: Pod\n", "not a ResourceList: kind is `Pod`"),
        (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {kind: Pod}\n", "item 0 has no apiVersion"),
        (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1}\n", "item 0 has no kind"),
    ] {
        let out = kguest(&["krm", &f], input);
        assert_fails(&out, 1, needle);
        no_output(&out);
    }
    assert_fails(&kguest(&["krm"], b""), 2, "missing FUNCTION.wasm");
    assert_fails(&kguest(&["krm", &f, "--bogus"], b""), 2, "unknown option");
    assert_fails(
        &kguest(&["krm", &f, "--timeout", "soon"], b""),
        2,
        "--timeout",
    );
    assert_fails(
        &kguest(&["krm", &f, "--config", "a", "--legacy", "b"], b""),
        2,
        "exclude each other",
    );
    assert_fails(
        &kguest(&["krm", "/nonexistent.wasm"], LIST.as_bytes()),
        1,
        "/nonexistent.wasm",
    );
    let not_wasm = temp_file("not.wasm", b"\0asm\x01\0\0\0garbage");
    let out = kguest(&["krm", not_wasm.to_str().unwrap()], LIST.as_bytes());
    assert_fails(&out, 1, "not a valid wasm module");
    no_output(&out);
}

/// Module text for a misbehaving function.
fn wat_function(name: &str, body: &str) -> String {
    let wat = format!(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "garbage: [")
  {body})"#
    );
    temp_file(name, &wat_bytes(&wat))
        .to_string_lossy()
        .into_owned()
}

/// WAT text to a module (the `wat` crate; wasmtime's own WAT support is a
/// feature the workspace leaves off).
fn wat_bytes(wat: &str) -> Vec<u8> {
    wat::parse_str(wat).expect("valid WAT")
}

#[test]
fn misbehaving_functions_fail_cleanly() {
    let cases = [
        (
            "trap.wasm",
            r#"(func (export "_start") unreachable)"#,
            "the function trapped",
        ),
        (
            "loop.wasm",
            r#"(func (export "_start") (loop $l (br $l)))"#,
            "ran longer than 0.3 s",
        ),
        (
            "exit.wasm",
            r#"(func (export "_start") (call $exit (i32.const 7)))"#,
            "exited with code 7 and wrote no output",
        ),
        (
            "garbage.wasm",
            r#"(func (export "_start")
                (i32.store (i32.const 0) (i32.const 1024)) (i32.store (i32.const 4) (i32.const 10))
                (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))"#,
            "output is not a ResourceList",
        ),
        (
            "flood.wasm",
            r#"(func (export "_start")
                (i32.store (i32.const 0) (i32.const 0)) (i32.store (i32.const 4) (i32.const 65536))
                (loop $l (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))) (br $l)))"#,
            "wrote more than 256 MiB to standard output",
        ),
        (
            "grow.wasm",
            r#"(func (export "_start") (drop (memory.grow (i32.const 30000))))"#,
            "over the limit of 64 MiB",
        ),
    ];
    for (name, body, needle) in cases {
        let f = wat_function(name, body);
        // Only the endless loop needs a short deadline.
        let timeout = if name == "loop.wasm" { "0.3" } else { "60" };
        let out = kguest(
            &["krm", &f, "--timeout", timeout, "--memory", "64"],
            LIST.as_bytes(),
        );
        assert_fails(&out, 1, needle);
        assert!(out.stdout.is_empty(), "{name}");
    }
}

/// A kustomize legacy exec plugin: the one-line wrapper around `kguest krm`.
fn plugin(config_home: &Path, kind: &str, function_path: &str) {
    let dir = config_home
        .join("kustomize/plugin/krm.kguest.dev/v1")
        .join(kind.to_lowercase());
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "#!/bin/sh\nexec '{}' krm '{function_path}' --legacy \"$1\"\n",
        env!("CARGO_BIN_EXE_kguest")
    );
    let path = dir.join(kind);
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn tool(name: &str, version: &[&str]) -> bool {
    let found = Command::new(name)
        .args(version)
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: `{name}` is not installed on this machine");
    }
    found
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kguest-krm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const RESOURCES: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: web
        image: ghcr.io/acme/wasm/web:1
        resources:
          requests: {cpu: 100m, memory: 64Mi}
      - name: proxy
        image: envoyproxy/envoy:v1.30
        resources:
          requests: {cpu: 50m, memory: 32Mi}
---
apiVersion: v1
kind: Namespace
metadata:
  name: prod
";

#[test]
fn kubectl_kustomize_runs_the_functions_as_legacy_plugins() {
    if !tool("kubectl", &["version", "--client"]) {
        return;
    }
    let dir = scratch("kustomize");
    let config = dir.join("config");
    plugin(&config, "SetNamespace", &function("set-namespace"));
    plugin(&config, "WasmSmart", &function("wasm-smart"));
    plugin(&config, "RequireRequests", &function("require-requests"));
    let app = dir.join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("resources.yaml"), RESOURCES).unwrap();
    std::fs::write(
        app.join("transformers.yaml"),
        "apiVersion: krm.kguest.dev/v1\nkind: SetNamespace\nmetadata: {name: ns}\nnamespace: prod\n---\n\
         apiVersion: krm.kguest.dev/v1\nkind: WasmSmart\nmetadata: {name: ws}\nimages: ['*/wasm/*']\nruntimeClassName: wasm-smart\n",
    )
    .unwrap();
    // A validator, listed under `transformers:`: kustomize v5.5's
    // `validators:` rejects what any exec plugin returns, even `cat`'s
    // (kubernetes-sigs/kustomize#5036).
    std::fs::write(
        app.join("validators.yaml"),
        "apiVersion: krm.kguest.dev/v1\nkind: RequireRequests\nmetadata: {name: rr}\n",
    )
    .unwrap();
    std::fs::write(
        app.join("kustomization.yaml"),
        "resources: [resources.yaml]\ntransformers: [transformers.yaml, validators.yaml]\n",
    )
    .unwrap();
    let build = || {
        Command::new("kubectl")
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(&app)
            .env("XDG_CONFIG_HOME", &config)
            .output()
            .expect("kubectl")
    };
    let out = build();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .split("---\n")
        .map(|d| serde_norway::from_str(d).unwrap())
        .collect();
    let deployment = docs
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("deployment");
    let namespace = docs
        .iter()
        .find(|d| d["kind"] == "Namespace")
        .expect("namespace");
    assert_eq!(deployment["metadata"]["namespace"], "prod");
    assert!(
        namespace["metadata"].get("namespace").is_none(),
        "cluster-scoped"
    );
    let template = &deployment["spec"]["template"];
    assert_eq!(
        template["metadata"]["annotations"]["module.wasm.image/variant"],
        "compat-smart"
    );
    assert_eq!(template["spec"]["runtimeClassName"], "wasm-smart");
    assert!(
        deployment["metadata"].get("annotations").is_none(),
        "kustomize's id annotations were returned and removed"
    );

    // The validator fails the build when a request is missing.
    std::fs::write(
        app.join("resources.yaml"),
        RESOURCES.replace("          requests: {cpu: 50m, memory: 32Mi}\n", ""),
    )
    .unwrap();
    let out = build();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("container proxy has no cpu request"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kpt_fn_eval_exec_runs_a_function() {
    if !tool("kpt", &["version"]) {
        return;
    }
    let dir = scratch("kpt");
    std::fs::write(dir.join("resources.yaml"), RESOURCES).unwrap();
    let exec = format!(
        "{} krm {}",
        env!("CARGO_BIN_EXE_kguest"),
        function("set-namespace")
    );
    let out = Command::new("kpt")
        .args(["fn", "eval"])
        .arg(&dir)
        .args(["--exec", &exec, "--", "namespace=staging"])
        .output()
        .expect("kpt");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("resources.yaml")).unwrap();
    assert!(
        text.contains("  name: web\n  namespace: staging\n"),
        "{text}"
    );
    assert!(
        text.contains("kind: Namespace\nmetadata:\n  name: prod\n"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
