//! Load-time validation: exports, imports and KSW's registration rule.

use kguest_host::{Hook, HookSet, LoadError, Plugin};

use crate::util::{config, guest, rt, wat};

fn load_err(wasm: &[u8]) -> LoadError {
    Plugin::load(rt(), wasm, config()).unwrap_err()
}

/// A module exporting memory plus one function per `(name, signature)`.
fn exports(list: &[(&str, &str)]) -> Vec<u8> {
    let mut body = String::new();
    for (name, sig) in list {
        let ret = if sig.contains("i64") && sig.contains("result") {
            "(i64.const 0)"
        } else if sig.contains("result i32") {
            "(i32.const 0)"
        } else {
            ""
        };
        body.push_str(&format!("(func (export \"{name}\") {sig} {ret})\n"));
    }
    wat(&format!("(module (memory (export \"memory\") 1) {body})"))
}

fn right_sig(hook: Hook) -> &'static str {
    match hook.result() {
        kguest_host::HookResult::Unit => "",
        kguest_host::HookResult::I32 => "(result i32)",
        kguest_host::HookResult::I64 => "(result i64)",
    }
}

fn wrong_sig(hook: Hook) -> &'static str {
    match hook.result() {
        kguest_host::HookResult::Unit => "(result i32)",
        kguest_host::HookResult::I32 => "(result i64)",
        kguest_host::HookResult::I64 => "(result i32)",
    }
}

#[test]
fn compile_error_is_typed() {
    assert!(matches!(
        load_err(b"\0asm\x01\0\0\0garbage"),
        LoadError::Compile(_)
    ));
}

/// A file that is not wasm gets wasmparser's reason on one line, without
/// the byte dump wasmparser writes after it.
#[test]
fn compile_errors_are_one_line() {
    let cases: [(&[u8], &str); 3] = [
        (
            b"apiVersion: v1\nkind: Pod\n",
            "wasm: error compiling guest: failed to parse WebAssembly module: \
             magic header not detected: bad magic number",
        ),
        (
            b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
            "wasm: error compiling guest: failed to parse WebAssembly module: \
             magic header not detected: bad magic number",
        ),
        (
            b"\0asm\x01\0\0\0garbage",
            "wasm: error compiling guest: failed to parse WebAssembly module: ",
        ),
    ];
    for (bytes, start) in cases {
        let err = load_err(bytes);
        assert!(matches!(err, LoadError::Compile(_)), "{err:?}");
        let text = err.to_string();
        assert!(!text.contains('\n'), "not one line: {text}");
        assert!(text.starts_with(start), "{text}");
        assert!(!text.contains("expected="), "{text}");
    }
}

#[test]
fn missing_memory_is_rejected() {
    let wasm = wat(r#"(module (func (export "filter") (result i32) (i32.const 0)))"#);
    assert!(matches!(load_err(&wasm), LoadError::MissingMemory));
    // A memory under another name does not count.
    let wasm = wat(
        r#"(module (memory (export "mem") 1) (func (export "filter") (result i32) (i32.const 0)))"#,
    );
    assert!(matches!(load_err(&wasm), LoadError::MissingMemory));
}

#[test]
fn each_hook_with_a_wrong_signature_is_rejected() {
    for hook in Hook::ALL {
        let companion = if hook == Hook::Filter {
            ("score", "(result i64)")
        } else {
            ("filter", "(result i32)")
        };
        // The right result type but a parameter.
        let with_param = exports(&[
            companion,
            (
                hook.export_name(),
                &format!("(param i32) {}", right_sig(hook)),
            ),
        ]);
        // The wrong result type.
        let wrong_result = exports(&[companion, (hook.export_name(), wrong_sig(hook))]);
        for wasm in [with_param, wrong_result] {
            let err = load_err(&wasm);
            assert!(
                matches!(&err, LoadError::WrongSignature { export, .. } if export == hook.export_name()),
                "{hook}: {err:?}"
            );
        }
    }
}

#[test]
fn non_function_hook_export_is_a_wrong_signature() {
    let wasm = wat(
        r#"(module (memory (export "memory") 1) (global (export "filter") i32 (i32.const 0)))"#,
    );
    assert!(
        matches!(load_err(&wasm), LoadError::WrongSignature { export, .. } if export == "filter")
    );
}

#[test]
fn start_with_a_wrong_signature_is_rejected() {
    let wasm = exports(&[("filter", "(result i32)"), ("_start", "(result i32)")]);
    assert!(
        matches!(load_err(&wasm), LoadError::WrongSignature { export, .. } if export == "_start")
    );
}

#[test]
fn unknown_import_is_named() {
    let wasm = wat(
        r#"(module (import "env" "abort" (func)) (memory (export "memory") 1)
        (func (export "filter") (result i32) (i32.const 0)))"#,
    );
    let err = load_err(&wasm);
    assert!(
        matches!(&err, LoadError::UnknownImport { module, name } if module == "env" && name == "abort"),
        "{err:?}"
    );
    let wasm = wat(
        r#"(module (import "wasi_snapshot_preview1" "path_open" (func (param i32) (result i32)))
        (memory (export "memory") 1) (func (export "filter") (result i32) (i32.const 0)))"#,
    );
    assert!(
        matches!(load_err(&wasm), LoadError::UnknownImport { name, .. } if name == "path_open")
    );
}

#[test]
fn known_import_with_wrong_signature_is_rejected() {
    let wasm = wat(
        r#"(module (import "k8s.io/scheduler" "currentPod" (func (param i32) (result i32)))
        (memory (export "memory") 1) (func (export "filter") (result i32) (i32.const 0)))"#,
    );
    let err = load_err(&wasm);
    assert!(
        matches!(&err, LoadError::ImportSignature { name, expected, .. } if name == "currentPod" && *expected == "(i32, i32) -> i32"),
        "{err:?}"
    );
    // A memory import under a known function name is not a function.
    let wasm = wat(r#"(module (import "k8s.io/klog" "log" (memory 1))
        (memory (export "memory") 1) (func (export "filter") (result i32) (i32.const 0)))"#);
    assert!(matches!(load_err(&wasm), LoadError::ImportSignature { .. }));
}

#[test]
fn full_import_set_loads() {
    let wasm = guest(r#"(func (export "filter") (result i32) (i32.const 0))"#);
    assert!(Plugin::load(rt(), &wasm, config()).is_ok());
}

#[test]
fn no_hooks_is_rejected() {
    let wasm = wat(r#"(module (memory (export "memory") 1) (func (export "helper")))"#);
    assert!(matches!(load_err(&wasm), LoadError::NoHooks));
}

fn set_of(hooks: &[Hook]) -> Vec<u8> {
    let list: Vec<(&str, &str)> = hooks
        .iter()
        .map(|h| (h.export_name(), right_sig(*h)))
        .collect();
    exports(&list)
}

#[test]
fn ksw_registration_rule() {
    use Hook::*;
    let accepted: &[&[Hook]] = &[
        &[Filter],
        &[PreFilter],
        &[AddPod],
        &[AddPod, RemovePod],
        &[Score],
        &[Reserve],
        &[Unreserve],
        &[Permit],
        &[Bind],
        &[Filter, Score],
        &[Filter, Score, Bind],
        &[Filter, Reserve],
        &[Filter, Permit],
        &[Filter, Bind],
        &[Score, Reserve],
        &[Score, Permit],
        &[Score, Bind],
        &[Reserve, Bind],
        &[Permit, Bind],
        &[Filter, Score, Reserve],
        &[Filter, Score, Permit],
        &[Filter, Score, Bind, Reserve],
        &[Filter, Score, Bind, Permit],
        &[Score, Reserve, Bind],
        &[Score, Permit, Bind],
        &[Reserve, Permit, Bind],
        &[Filter, Score, Reserve, Permit, Bind],
        // Coupled hooks ride along with a main one.
        &[PreFilter, Filter, PostFilter, Enqueue],
        &[PreScore, Score, NormalizeScore],
        &[PreBind, Bind, PostBind],
        Hook::ALL.as_slice(),
    ];
    for hooks in accepted {
        let plugin = Plugin::load(rt(), &set_of(hooks), config())
            .unwrap_or_else(|e| panic!("{hooks:?} should load: {e}"));
        assert_eq!(plugin.hooks(), hooks.iter().copied().collect::<HookSet>());
    }
    let rejected: &[&[Hook]] = &[
        &[Filter, Reserve, Permit],
        &[Score, Reserve, Permit],
        &[Filter, Reserve, Bind],
        &[Filter, Score, Reserve, Permit],
        &[PreScore],
        &[PostFilter],
        &[NormalizeScore],
        &[PreBind],
        &[PostBind],
        &[Enqueue],
        &[PreFilter, Enqueue],
        &[PreFilter, AddPod],
    ];
    for hooks in rejected {
        let err = Plugin::load(rt(), &set_of(hooks), config()).unwrap_err();
        assert!(
            matches!(&err, LoadError::UnsupportedHookSet(set) if *set == hooks.iter().copied().collect::<HookSet>()),
            "{hooks:?}: {err:?}"
        );
    }
}

#[test]
fn memory_limit_above_runtime_max_is_invalid_config() {
    let wasm = guest(r#"(func (export "filter") (result i32) (i32.const 0))"#);
    let cfg = kguest_host::PluginConfig {
        memory_limit: rt().config().max_memory + 1,
        ..config()
    };
    assert!(matches!(
        Plugin::load(rt(), &wasm, cfg).unwrap_err(),
        LoadError::InvalidConfig(_)
    ));
}

#[test]
fn initial_memory_above_limit_fails_instantiation() {
    let wasm = wat(
        r#"(module (memory (export "memory") 32) (func (export "filter") (result i32) (i32.const 0)))"#,
    );
    let cfg = kguest_host::PluginConfig {
        memory_limit: 1 << 20,
        ..config()
    };
    let err = Plugin::load(rt(), &wasm, cfg).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::Instantiate(kguest_host::CallError::MemoryLimit { .. })
        ),
        "{err:?}"
    );
}
