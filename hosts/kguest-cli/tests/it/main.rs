//! The `kguest` binary end to end: round trips and one test per kind of bad
//! input (one clear line on stderr, exit code 1 for input, 2 for usage, never
//! a panic).

mod check;
mod completions;
mod guide;
mod help;
mod krm;
mod new;
mod run;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const POD_YAML: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels: {app: web, tier: frontend}
spec:
  nodeName: node-a
  containers:
  - name: web
    image: nginx:1.27
    ports: [{containerPort: 8080}]
    resources:
      requests: {cpu: 250m, memory: 0.5Gi}
";

pub fn kguest(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kguest"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kguest");
    // The command may exit before reading all of its input (e.g. on a
    // usage error): a closed pipe is not a test failure.
    match child.stdin.take().expect("stdin").write_all(stdin) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {err}"),
        _ => {}
    }
    child.wait_with_output().expect("wait")
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kguest-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

/// Exit code `code`, one line on stderr containing `needle`, no panic.
pub fn assert_fails(output: &Output, code: i32, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "stderr: {stderr}");
    assert!(
        stderr.contains(needle),
        "stderr {stderr:?} lacks {needle:?}"
    );
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "not one line: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn yaml_encodes_and_decodes_back() {
    let encoded = kguest(&["encode"], POD_YAML.as_bytes());
    assert!(
        encoded.status.success(),
        "{}",
        String::from_utf8_lossy(&encoded.stderr)
    );
    assert!(encoded.stdout.starts_with(b"k8s\0"));
    let decoded = kguest(&["decode"], &encoded.stdout);
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&decoded.stdout).expect("JSON");
    assert_eq!(json["kind"], "Pod");
    assert_eq!(json["spec"]["nodeName"], "node-a");
    assert_eq!(json["metadata"]["labels"]["tier"], "frontend");
    // Quantities come back in Kubernetes' canonical form.
    assert_eq!(
        json["spec"]["containers"][0]["resources"]["requests"]["memory"],
        "512Mi"
    );
    // And the decoded JSON encodes to the same bytes.
    let again = kguest(&["encode"], &decoded.stdout);
    assert_eq!(again.stdout, encoded.stdout);
}

/// `kubectl get -o json` prints members sorted by name with four spaces of
/// indent, which is also how serde_json pretty-prints a (sorted) map.
#[test]
fn decode_prints_like_kubectl() {
    let encoded = kguest(&["encode"], POD_YAML.as_bytes());
    let decoded = kguest(&["decode"], &encoded.stdout);
    assert!(decoded.status.success());
    let value: serde_json::Value = serde_json::from_slice(&decoded.stdout).expect("JSON");
    let mut want = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut want, formatter);
    serde::Serialize::serialize(&value, &mut ser).expect("serialize");
    want.push(b'\n');
    assert_eq!(
        String::from_utf8_lossy(&decoded.stdout),
        String::from_utf8_lossy(&want)
    );
    assert!(
        decoded
            .stdout
            .starts_with(b"{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",")
    );
}

/// `-o yaml` prints the same members as the JSON.
#[test]
fn decode_prints_yaml() {
    let encoded = kguest(&["encode"], POD_YAML.as_bytes());
    let json = kguest(&["decode"], &encoded.stdout);
    for flags in [
        &["decode", "-o", "yaml"][..],
        &["decode", "--output=yaml"][..],
    ] {
        let yaml = kguest(flags, &encoded.stdout);
        assert!(
            yaml.status.success(),
            "{}",
            String::from_utf8_lossy(&yaml.stderr)
        );
        let text = String::from_utf8(yaml.stdout).expect("UTF-8");
        assert!(
            text.starts_with("apiVersion: v1\nkind: Pod\nmetadata:\n"),
            "{text}"
        );
        let from_yaml: serde_json::Value = serde_norway::from_str(&text).expect("YAML");
        let from_json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
        assert_eq!(from_yaml, from_json);
    }
    // Usage errors exit before reading standard input: give it none.
    assert_fails(&kguest(&["decode", "-o", "xml"], b""), 2, "xml");
}

#[test]
fn raw_encoding_decodes_with_type() {
    let raw = kguest(&["encode", "--raw"], POD_YAML.as_bytes());
    assert!(raw.status.success());
    assert!(!raw.stdout.starts_with(b"k8s\0"));
    let decoded = kguest(&["decode", "--type", "core.v1.Pod"], &raw.stdout);
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&decoded.stdout).expect("JSON");
    assert_eq!(json["spec"]["containers"][0]["image"], "nginx:1.27");
}

#[test]
fn multi_document_streams_round_trip_as_a_list() {
    let two = format!(
        "{POD_YAML}---\n{}",
        POD_YAML.replace("name: web\n  namespace", "name: api\n  namespace")
    );
    let encoded = kguest(&["encode"], two.as_bytes());
    assert!(
        encoded.status.success(),
        "{}",
        String::from_utf8_lossy(&encoded.stderr)
    );
    let decoded = kguest(&["decode"], &encoded.stdout);
    let json: serde_json::Value = serde_json::from_slice(&decoded.stdout).expect("JSON");
    assert_eq!(json["kind"], "List");
    assert_eq!(json["items"][1]["metadata"]["name"], "api");
    let again = kguest(&["encode"], &decoded.stdout);
    assert_eq!(
        again.stdout, encoded.stdout,
        "a List encodes like the stream it came from"
    );
}

#[test]
fn output_file() {
    let out = std::env::temp_dir().join(format!("kguest-cli-out-{}.pb", std::process::id()));
    let result = kguest(
        &["encode", "-o", out.to_str().expect("utf8")],
        POD_YAML.as_bytes(),
    );
    assert!(result.status.success());
    assert!(
        std::fs::read(&out)
            .expect("output written")
            .starts_with(b"k8s\0")
    );
    let _ = std::fs::remove_file(out);
}

#[test]
fn decode_missing_file() {
    assert_fails(
        &kguest(&["decode", "/nonexistent/pod.pb"], b""),
        1,
        "/nonexistent/pod.pb",
    );
}

#[test]
fn decode_empty_input() {
    let path = temp_file("empty.pb", b"");
    assert_fails(
        &kguest(&["decode", path.to_str().expect("utf8")], b""),
        1,
        "input is empty",
    );
}

#[test]
fn decode_garbage_without_type() {
    assert_fails(&kguest(&["decode"], b"\xff\xfe garbage"), 1, "pass --type");
}

#[test]
fn decode_garbage_with_type() {
    assert_fails(
        &kguest(&["decode", "--type", "core.v1.Pod"], b"\x0f\xff\xfe"),
        1,
        "malformed protobuf",
    );
}

#[test]
fn decode_truncated_protobuf() {
    let encoded = kguest(&["encode"], POD_YAML.as_bytes()).stdout;
    let truncated = &encoded[..encoded.len() - 5];
    assert_fails(&kguest(&["decode"], truncated), 1, "at byte");
}

#[test]
fn decode_unknown_type() {
    assert_fails(
        &kguest(&["decode", "--type", "core.v1.Nope"], b"\x0a\x00"),
        2,
        "unknown type",
    );
}

#[test]
fn decode_unknown_kind_in_envelope() {
    let yaml = POD_YAML.replace("kind: Pod", "kind: Nope");
    let encoded = kguest(&["encode", "--type", "core.v1.Pod"], yaml.as_bytes());
    assert!(
        encoded.status.success(),
        "{}",
        String::from_utf8_lossy(&encoded.stderr)
    );
    assert_fails(
        &kguest(&["decode"], &encoded.stdout),
        1,
        "unknown apiVersion",
    );
}

#[test]
fn encode_invalid_yaml() {
    assert_fails(&kguest(&["encode"], b"{bad"), 1, "line 1 column 2");
}

#[test]
fn encode_unknown_kind() {
    assert_fails(
        &kguest(&["encode"], b"apiVersion: v1\nkind: Nope\n"),
        1,
        "unknown apiVersion `v1` / kind `Nope`",
    );
}

#[test]
fn encode_wrong_field_type_names_the_path() {
    let yaml = POD_YAML.replace("nodeName: node-a", "nodeName: [1]");
    assert_fails(
        &kguest(&["encode"], yaml.as_bytes()),
        1,
        "spec.nodeName: expected a string",
    );
}

#[test]
fn encode_unknown_field_names_the_path() {
    let yaml = POD_YAML.replace("image: nginx:1.27", "imagee: nginx:1.27");
    assert_fails(
        &kguest(&["encode"], yaml.as_bytes()),
        1,
        "spec.containers[0].imagee: unknown field",
    );
}

#[test]
fn encode_bad_quantity() {
    let yaml = POD_YAML.replace("cpu: 250m", "cpu: lots");
    assert_fails(
        &kguest(&["encode"], yaml.as_bytes()),
        1,
        "is not a quantity",
    );
}

#[test]
fn encode_names_the_document() {
    let two = format!("{POD_YAML}---\napiVersion: v1\nkind: Pod\nspec: 3\n");
    assert_fails(
        &kguest(&["encode"], two.as_bytes()),
        1,
        "document 2: spec: expected an object",
    );
}

#[test]
fn encode_binary_garbage() {
    assert_fails(&kguest(&["encode"], b"\xff\x00\xfe"), 1, "not UTF-8");
}

#[test]
fn encode_raw_refuses_several_objects() {
    let two = format!("{POD_YAML}---\n{POD_YAML}");
    assert_fails(
        &kguest(&["encode", "--raw"], two.as_bytes()),
        1,
        "--raw writes one message",
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_fails(&kguest(&[], b""), 2, "missing command");
    assert_fails(&kguest(&["frobnicate"], b""), 2, "unknown command");
    assert_fails(
        &kguest(&["decode", "--type"], b""),
        2,
        "--type needs a value",
    );
    assert_fails(&kguest(&["encode", "--bogus"], b""), 2, "unknown option");
}

/// A field this release does not have (a 1.35 Pod's `spec.workloadRef`),
/// under each `--validate` mode, as kubectl's flag has them.
#[test]
fn encode_validate_modes() {
    let newer = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  workloadRef: {name: w}\n  nodeName: a\n";
    let strict = kguest(&["encode"], newer.as_bytes());
    assert_eq!(strict.status.code(), Some(1), "{strict:?}");
    let err = String::from_utf8_lossy(&strict.stderr);
    assert!(err.contains("spec.workloadRef: unknown field"), "{err}");
    assert!(strict.stdout.is_empty());

    let plain = kguest(
        &["encode"],
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  nodeName: a\n",
    );
    assert!(plain.status.success());
    for mode in ["warn", "ignore"] {
        let out = kguest(&["encode", "--validate", mode], newer.as_bytes());
        assert!(out.status.success(), "{mode}: {out:?}");
        assert_eq!(
            out.stdout, plain.stdout,
            "{mode}: the unknown field is dropped"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        if mode == "warn" {
            assert!(
                err.contains(r#"warning: <stdin>: unknown field "spec.workloadRef""#),
                "{err}"
            );
        } else {
            assert!(err.is_empty(), "ignore is silent: {err}");
        }
    }
    let bad = kguest(&["encode", "--validate=maybe"], newer.as_bytes());
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("strict, warn or ignore"));
}
