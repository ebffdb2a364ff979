//! The example functions and a Rust std function, built for wasm32-wasip1
//! by `cargo xtask examples` (into `target/krm/`, or `$KGUEST_KRM_DIR`),
//! run through the host.

use kguest_krm_host::{Limits, Mode, execute, run};
use serde_json::Value;

use super::Captured;

pub fn function(name: &str) -> Vec<u8> {
    let path = kguest_test_support::built::krm_function(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const LIST: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment # the workload
  metadata:
    name: web
    annotations:
      internal.config.kubernetes.io/path: 'web.yaml'
      internal.config.kubernetes.io/index: '0'
  spec:
    template:
      spec:
        containers:
        - name: web
          image: ghcr.io/acme/wasm/web:1
          resources: {requests: {cpu: 100m}}
- apiVersion: example.com/v1
  kind: Widget # unknown kind, no namespace: stays as is
  metadata: {name: w}
- apiVersion: v1
  kind: Namespace
  metadata: {name: prod}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  data: {namespace: prod, images: '*/wasm/*'}
";

fn exec(name: &str, input: &str, mode: &Mode) -> (kguest_krm_host::Response, String) {
    let err = Captured::default();
    let r = execute(
        &function(name),
        input.as_bytes(),
        mode,
        &Limits::default(),
        Box::new(err.clone()),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    (r, err.text())
}

const PLAIN: Mode = Mode::Function { config: None };

#[test]
fn set_namespace() {
    let (r, _) = exec("set-namespace", LIST, &PLAIN);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    let want = LIST.replace(
        "      internal.config.kubernetes.io/index: '0'\n",
        "      internal.config.kubernetes.io/index: '0'\n    namespace: prod\n",
    );
    assert_eq!(String::from_utf8(r.stdout).unwrap(), want);
}

#[test]
fn require_requests() {
    let (r, _) = exec("require-requests", LIST, &PLAIN);
    assert_eq!(
        r.failure.as_deref(),
        Some(
            "the function exited with code 1; 1 error result(s): Deployment/web: container web has no memory request"
        )
    );
    let out: Value = serde_norway::from_slice(&r.stdout).unwrap();
    let result = &out["results"][0];
    assert_eq!(
        result["field"]["path"],
        "spec.template.spec.containers[0].resources.requests.memory"
    );
    assert_eq!(result["file"]["path"], "web.yaml");
    assert!(String::from_utf8(r.stdout).unwrap().starts_with(LIST));
}

#[test]
fn wasm_smart_with_a_config_file() {
    let mode = Mode::Function {
        config: Some(b"apiVersion: krm.kguest.dev/v1\nkind: WasmSmart\nimages: ['*/wasm/*']\nruntimeClassName: wasm-smart\n".to_vec()),
    };
    let (r, _) = exec("wasm-smart", LIST, &mode);
    assert!(r.failure.is_none());
    let out: Value = serde_norway::from_slice(&r.stdout).unwrap();
    let template = &out["items"][0]["spec"]["template"];
    assert_eq!(
        template["metadata"]["annotations"]["module.wasm.image/variant"],
        "compat-smart"
    );
    assert_eq!(template["spec"]["runtimeClassName"], "wasm-smart");
    assert_eq!(out["functionConfig"]["kind"], "WasmSmart");
}

#[test]
fn legacy_mode() {
    let stream = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    kustomize.config.k8s.io/id: |\n      kind: ConfigMap\n      name: a\n      version: v1\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n";
    let mode = Mode::Legacy {
        config: b"apiVersion: krm.kguest.dev/v1\nkind: SetNamespace\nnamespace: prod\n".to_vec(),
    };
    let (r, _) = exec("set-namespace", stream, &mode);
    assert!(r.failure.is_none());
    let out = String::from_utf8(r.stdout).unwrap();
    let docs: Vec<Value> = out
        .split("---\n")
        .map(|d| serde_norway::from_str(d).unwrap())
        .collect();
    assert_eq!(docs[0]["metadata"]["namespace"], "prod");
    assert_eq!(
        docs[0]["metadata"]["annotations"]["kustomize.config.k8s.io/id"],
        "kind: ConfigMap\nname: a\nversion: v1\n"
    );
    assert!(docs[1]["metadata"].get("namespace").is_none());
}

#[test]
fn the_functions_check_their_input_themselves() {
    // Straight to the module, without the host's checks (as another
    // runtime would call it): one line on stderr, exit 1, no output.
    for name in ["set-namespace", "require-requests", "wasm-smart"] {
        for input in [
            &b"items: [unclosed"[..],
            b"apiVersion: v1\nkind: Pod\n",
            b"\xff",
        ] {
            let err = Captured::default();
            let out = run(
                &function(name),
                input.to_vec(),
                &Limits::default(),
                Box::new(err.clone()),
            )
            .unwrap();
            assert_eq!(out.exit_code, 1, "{name}");
            assert!(out.stdout.is_empty(), "{name}");
            let text = err.text();
            assert!(text.starts_with("error: input: "), "{name}: {text}");
            assert_eq!(text.lines().count(), 1, "{text}");
        }
    }
}

#[test]
fn a_thousand_items() {
    let mut input =
        String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in 0..1000 {
        input.push_str(&format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i} # {i}\n  spec:\n    containers:\n    - name: c\n      image: x/wasm/y\n      resources: {{requests: {{cpu: 1, memory: 1Gi}}}}\n"
        ));
    }
    input.push_str("functionConfig: {data: {namespace: prod, images: '*/wasm/*'}}\n");
    for name in ["set-namespace", "require-requests", "wasm-smart"] {
        let (r, _) = exec(name, &input, &PLAIN);
        assert!(r.failure.is_none(), "{name}: {:?}", r.failure);
        let out: Value = serde_norway::from_slice(&r.stdout).unwrap();
        assert_eq!(out["items"].as_array().unwrap().len(), 1000, "{name}");
    }
}

#[test]
fn a_rust_std_function_runs_the_same_way() {
    let (r, err) = exec("std-echo", LIST, &PLAIN);
    assert!(r.failure.is_none(), "{:?} {err}", r.failure);
    assert_eq!(String::from_utf8(r.stdout).unwrap(), LIST);
    assert_eq!(err, format!("std-echo: {} bytes\n", LIST.len()));
}
