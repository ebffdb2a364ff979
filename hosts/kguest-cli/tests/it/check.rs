//! `kguest check`: the example plugins pass; small WAT modules with one
//! defect each fail with the defect named; bad input gets one line.

use kguest_test_support::built;

use super::{assert_fails, kguest, temp_file};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn wasm_file(name: &str, wat: &str) -> String {
    let wasm = wat::parse_str(wat).expect("valid WAT");
    temp_file(name, &wasm).to_string_lossy().into_owned()
}

#[test]
fn every_example_plugin_passes() {
    for (name, hooks) in [
        ("nodename", "prefilter|filter"),
        ("nodenumber", "enqueue|prefilter|prescore|score"),
        ("fit", "prefilter|filter"),
        ("imagelocality", "prefilter|score"),
    ] {
        let path = built::plugin(name);
        let out = kguest(&["check", path.to_str().expect("utf8")], b"");
        let text = stdout(&out);
        assert!(out.status.success(), "{name}: {text}");
        assert!(
            text.contains(&format!("hooks:     {hooks}\n")),
            "{name}: {text}"
        );
        assert!(text.contains("ok: kube-scheduler-wasm-extension can load it"));
        assert!(
            !text.contains("violation") && !text.contains("warning"),
            "{text}"
        );
        // The examples are stripped: nothing to name panic code with.
        assert!(text.contains("no `name` section"), "{text}");
        assert_fails(
            &kguest(&["check", "--strict", path.to_str().expect("utf8")], b""),
            1,
            "no name section to look for panic/fmt code in (--strict)",
        );
    }
}

#[test]
fn a_krm_function_is_checked_as_one() {
    let good = wasm_file(
        "krm-good.wasm",
        r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))"#,
    );
    let out = kguest(&["check", &good], b"");
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("kind:      KRM function"), "{text}");
    assert!(text.contains("ok: a WASI preview1 KRM runtime"), "{text}");
    let foreign = wasm_file(
        "krm-foreign.wasm",
        r#"(module
  (import "env" "host_call" (func))
  (memory (export "memory") 1)
  (func (export "_start")))"#,
    );
    let out = kguest(&["check", &foreign], b"");
    assert_fails(&out, 1, "1 ABI violation");
    assert!(
        stdout(&out).contains("not WASI preview1"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn abi_violations_fail_with_the_violation_named() {
    let path = wasm_file(
        "violations.wasm",
        r#"(module
          (import "k8s.io/scheduler" "currentPod" (func (param i32) (result i32)))
          (memory (export "memory") 1)
          (func (export "filter") (result i64) (i64.const 0)))"#,
    );
    let out = kguest(&["check", &path], b"");
    assert_fails(&out, 1, "violations.wasm: 2 ABI violation(s)");
    let text = stdout(&out);
    assert!(
        text.contains(
            "violation: imports `k8s.io/scheduler`.`currentPod` as (i32) -> i32; the host's is (i32, i32) -> i32"
        ),
        "{text}"
    );
    assert!(
        text.contains("exports `filter` as () -> i64; the scheduler calls it as () -> i32"),
        "{text}"
    );

    let path = wasm_file(
        "no-hooks.wasm",
        r#"(module (memory (export "memory") 1) (func (export "run")))"#,
    );
    let out = kguest(&["check", &path], b"");
    assert_fails(&out, 1, "1 ABI violation(s)");
    assert!(stdout(&out).contains(
        "hook set (none): the scheduler refuses it with `wasm: guest does not export any plugin functions`"
    ));

    // reserve without unreserve loads in KSW: a warning, not a violation.
    let path = wasm_file(
        "reserve-only.wasm",
        r#"(module (memory (export "memory") 1) (func (export "reserve") (result i32) (i32.const 0)))"#,
    );
    let out = kguest(&["check", &path], b"");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("warning:   exports `reserve` without `unreserve`"),
        "{text}"
    );
}

/// A plugin whose `filter` reaches panic code through a user function.
const PANICKY: &str = r#"(module
  (memory (export "memory") 1)
  (func $core::panicking::panic_bounds_check unreachable)
  (func $my_plugin::index (param i32) (result i32)
    (if (local.get 0) (then (call $core::panicking::panic_bounds_check)))
    (i32.const 0))
  (func $prefilter (export "prefilter") (result i32) (i32.const 0))
  (func $filter (export "filter") (result i32) (call $my_plugin::index (i32.const 1))))"#;

#[test]
fn strict_fails_on_panic_code_and_names_its_caller() {
    let path = wasm_file("panicky.wasm", PANICKY);
    let out = kguest(&["check", &path], b"");
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "panic code alone is no ABI violation: {text}"
    );
    assert!(
        text.contains("panic/fmt: 1 function(s): core::panicking::panic_bounds_check\n"),
        "{text}"
    );
    assert!(
        text.contains("pulled in: my_plugin::index (calls core::panicking::panic_bounds_check)"),
        "{text}"
    );
    assert_fails(
        &kguest(&["check", "--strict", &path], b""),
        1,
        "panicky.wasm: 1 panic/fmt function(s) (--strict)",
    );
}

#[test]
fn max_bytes_is_a_size_gate() {
    let path = wasm_file("small.wasm", PANICKY);
    let size = std::fs::metadata(&path).expect("size").len().to_string();
    assert!(
        kguest(&["check", "--max-bytes", &size, &path], b"")
            .status
            .success()
    );
    let smaller = (size.parse::<u64>().expect("number") - 1).to_string();
    assert_fails(
        &kguest(&["check", "--max-bytes", &smaller, &path], b""),
        1,
        &format!("over --max-bytes {smaller}"),
    );
}

#[test]
fn check_rejects_bad_input() {
    assert_fails(&kguest(&["check"], b""), 2, "check: missing PLUGIN.wasm");
    assert_fails(&kguest(&["check", "--frob", "x"], b""), 2, "unknown option");
    assert_fails(
        &kguest(&["check", "--max-bytes", "lots", "x"], b""),
        2,
        "`lots` is not a number of bytes",
    );
    assert_fails(
        &kguest(&["check", "/nonexistent/p.wasm"], b""),
        1,
        "/nonexistent/p.wasm",
    );
    let text = temp_file("text.wasm", b"hello")
        .to_string_lossy()
        .into_owned();
    assert_fails(
        &kguest(&["check", &text], b""),
        1,
        "not a WebAssembly module",
    );
    let mut wasm = wat::parse_str(PANICKY).expect("valid WAT");
    wasm.truncate(wasm.len() / 2);
    let cut = temp_file("cut.wasm", &wasm).to_string_lossy().into_owned();
    let out = kguest(&["check", &cut], b"");
    assert_fails(&out, 1, "malformed wasm at byte");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}
