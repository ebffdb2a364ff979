//! The ResourceList protocol around a run, with WAT functions (an echo and
//! fixed writers): what goes in, what comes out, what fails and how.

use kguest_krm_host::{KrmError, Limits, Mode, Response, execute, function_input, legacy_input};
use serde_json::Value;

use super::{Captured, ECHO, module};

const LIST: &str = "\
# from kpt
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1 # keep me
  kind: ConfigMap
  metadata:
    name: a
    annotations:
      internal.config.kubernetes.io/path: 'cm.yaml'
functionConfig: # old
  apiVersion: v1
  kind: ConfigMap
  data: {x: '1'}
";

fn exec(wat: &str, input: &[u8], mode: &Mode) -> Result<Response, KrmError> {
    let wasm = wat::parse_str(wat).unwrap();
    execute(
        &wasm,
        input,
        mode,
        &Limits::default(),
        Box::new(Captured::default()),
    )
}

fn echo(input: &[u8], mode: &Mode) -> Result<Response, KrmError> {
    exec(&module(ECHO), input, mode)
}

/// A function that writes `text` and exits with `code`.
fn writer(text: &str, code: i32) -> String {
    let escaped: String = text.bytes().map(|b| format!("\\{b:02x}")).collect();
    module(&format!(
        r#"(data (i32.const 1024) "{escaped}")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const {len}))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20)))
    (call $exit (i32.const {code})))"#,
        len = text.len()
    ))
}

const FUNCTION: Mode = Mode::Function { config: None };

#[test]
fn the_output_is_written_as_the_function_wrote_it() {
    let r = echo(LIST.as_bytes(), &FUNCTION).unwrap();
    assert_eq!(r.stdout, LIST.as_bytes());
    assert!(r.failure.is_none());
}

#[test]
fn json_input_reaches_the_function_as_yaml() {
    let json = r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}"#;
    let r = echo(json.as_bytes(), &FUNCTION).unwrap();
    let text = String::from_utf8(r.stdout).unwrap();
    assert!(
        text.starts_with(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n"
        ),
        "{text}"
    );
}

#[test]
fn json_output_becomes_yaml() {
    let json = r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "Pod"}]}"#;
    let r = exec(&writer(json, 0), LIST.as_bytes(), &FUNCTION).unwrap();
    assert_eq!(
        String::from_utf8(r.stdout).unwrap(),
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n"
    );
}

#[test]
fn config_replaces_function_config_and_keeps_the_rest() {
    let text = function_input(
        LIST.as_bytes(),
        Some(b"# new config\nkind: SetNamespace\nnamespace: prod\n"),
    )
    .unwrap();
    let text = String::from_utf8(text).unwrap();
    let (head, _) = LIST.split_once("functionConfig:").unwrap();
    assert_eq!(
        text,
        format!(
            "{head}functionConfig: # old\n  # new config\n  kind: SetNamespace\n  namespace: prod\n"
        )
    );
    // JSON config, and a list without functionConfig.
    let bare = LIST.split("functionConfig:").next().unwrap();
    let text =
        String::from_utf8(function_input(bare.as_bytes(), Some(br#"{"namespace": "x"}"#)).unwrap())
            .unwrap();
    assert_eq!(text, format!("{bare}functionConfig:\n  namespace: x\n"));
    // Through a run.
    let mode = Mode::Function {
        config: Some(b"---\nnamespace: y\n".to_vec()),
    };
    let out: Value =
        serde_norway::from_slice(&echo(LIST.as_bytes(), &mode).unwrap().stdout).unwrap();
    assert_eq!(out["functionConfig"]["namespace"], "y");
    assert!(out["functionConfig"].get("data").is_none());
}

#[test]
fn bad_input_is_refused_before_running() {
    for (input, needle) in [
        (&b"items: [unclosed"[..], "input: invalid YAML"),
        (b"\xff\xfe", "input: not UTF-8"),
        (b"apiVersion: v1\nkind: List\nitems: []\n", "input: not a ResourceList: kind is `List`"),
        (b"apiVersion: v1\nkind: ResourceList\n", "apiVersion `v1` is not config.kubernetes.io/*"),
        (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: Pod\n", "input: item 0 has no apiVersion"),
        (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1}\n", "item 0 has no kind"),
        (b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: 3\n", "`items` is not a sequence"),
        (b"{\"kind\": ", "input: invalid JSON"),
    ] {
        match echo(input, &FUNCTION) {
            Err(KrmError::Input(m)) => {
                assert!(m.contains(needle), "{m:?} lacks {needle:?}");
                assert_eq!(m.lines().count(), 1);
            }
            other => panic!("{needle}: {other:?}"),
        }
    }
    let bad_config = Mode::Function {
        config: Some(b"- a list\n".to_vec()),
    };
    assert!(
        matches!(echo(LIST.as_bytes(), &bad_config), Err(KrmError::Input(m)) if m == "config: not a mapping")
    );
}

#[test]
fn garbage_or_no_output_is_an_error_and_nothing_is_written() {
    for (text, code, needle) in [
        (
            "garbage: [",
            0,
            "the function's output is not a ResourceList: invalid YAML",
        ),
        (
            "apiVersion: v1\nkind: Pod\n",
            0,
            "not a ResourceList: kind is `Pod`",
        ),
        ("", 0, "the function wrote no output"),
        ("", 2, "the function exited with code 2 and wrote no output"),
        (
            "\u{1}\u{2}binary",
            1,
            "the function exited with code 1; its output is not a ResourceList",
        ),
    ] {
        match exec(&writer(text, code), LIST.as_bytes(), &FUNCTION) {
            Err(KrmError::Output(m)) => assert!(m.contains(needle), "{m:?} lacks {needle:?}"),
            other => panic!("{needle}: {other:?}"),
        }
    }
}

#[test]
fn failures_keep_the_output() {
    let out = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n- message: too big\n  severity: warning\n- message: no requests\n  resourceRef: {kind: Pod, name: p}\n";
    let r = exec(&writer(out, 0), LIST.as_bytes(), &FUNCTION).unwrap();
    assert_eq!(r.stdout, out.as_bytes());
    assert_eq!(
        r.failure.as_deref(),
        Some("the function reported 1 error result(s): Pod/p: no requests"),
        "a result without severity is an error"
    );
    let r = exec(&writer(out, 1), LIST.as_bytes(), &FUNCTION).unwrap();
    assert_eq!(
        r.failure.as_deref(),
        Some("the function exited with code 1; 1 error result(s): Pod/p: no requests")
    );
    let clean = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n";
    let r = exec(&writer(clean, 3), LIST.as_bytes(), &FUNCTION).unwrap();
    assert_eq!(
        r.failure.as_deref(),
        Some("the function exited with code 3")
    );
}

/// What kustomize (v5.5) writes to a legacy plugin.
const STREAM: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    kustomize.config.k8s.io/id: |
      group: apps
      kind: Deployment
      name: web
      version: v1
  name: web
spec:
  replicas: 1
---
apiVersion: v1
kind: Service
metadata:
  annotations:
    kustomize.config.k8s.io/id: |
      kind: Service
      name: web
      version: v1
  name: web
";

#[test]
fn legacy_input_carries_every_document_byte_for_byte() {
    let list = legacy_input(
        STREAM.as_bytes(),
        b"apiVersion: krm.example.com/v1\nkind: SetNamespace\nnamespace: prod\n",
    )
    .unwrap();
    let list = String::from_utf8(list).unwrap();
    let v: Value = serde_norway::from_str(&list).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), 2);
    assert_eq!(
        v["items"][0]["metadata"]["annotations"]["kustomize.config.k8s.io/id"],
        "group: apps\nkind: Deployment\nname: web\nversion: v1\n"
    );
    assert_eq!(v["functionConfig"]["namespace"], "prod");
    assert!(list.contains("- apiVersion: apps/v1\n  kind: Deployment\n"));
    let empty = String::from_utf8(legacy_input(b"", b"a: 1\n").unwrap()).unwrap();
    assert!(empty.contains("items: []\n"), "{empty}");
    assert!(
        matches!(legacy_input(b"kind: X\n", b"a: 1\n"), Err(KrmError::Input(m)) if m.contains("input document 1: has no apiVersion"))
    );
    assert!(
        matches!(legacy_input(b"apiVersion: v1\nkind: X\n---\n: [\n", b"a: 1\n"), Err(KrmError::Input(m)) if m.contains("input document 2: invalid YAML"))
    );
}

#[test]
fn legacy_output_is_the_items_as_a_stream() {
    let mode = Mode::Legacy {
        config: b"kind: Anything\n".to_vec(),
    };
    let r = echo(STREAM.as_bytes(), &mode).unwrap();
    assert!(r.failure.is_none());
    let out = String::from_utf8(r.stdout).unwrap();
    let docs: Vec<Value> = out
        .split("---\n")
        .map(|d| serde_norway::from_str(d).unwrap())
        .collect();
    let want: Vec<Value> = STREAM
        .split("---\n")
        .map(|d| serde_norway::from_str(d).unwrap())
        .collect();
    assert_eq!(docs, want);
}

#[test]
fn legacy_failures_write_nothing_and_warnings_become_notes() {
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n- {message: careful, severity: warning}\n";
    let mode = Mode::Legacy {
        config: b"a: 1\n".to_vec(),
    };
    let r = exec(&writer(list, 0), STREAM.as_bytes(), &mode).unwrap();
    assert_eq!(r.notes, ["warning: careful"]);
    assert!(r.failure.is_none());
    let failing = format!("{list}- {{message: broken, severity: error}}\n");
    let r = exec(&writer(&failing, 1), STREAM.as_bytes(), &mode).unwrap();
    assert!(r.stdout.is_empty());
    assert!(r.failure.unwrap().contains("broken"));
}
