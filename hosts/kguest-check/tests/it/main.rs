//! The checks on small WAT modules, one property each: what a plugin
//! imports and exports, the hook set, and where panic/fmt code comes from.

use kguest_check::{Finding, Kind, Module, Reach, Severity, group_digits, hook_list};

fn module(wat: &str) -> Module {
    let wasm = wat::parse_str(wat).expect("valid WAT");
    Module::parse(&wasm).expect("parses")
}

/// A plugin like the SDK's: two host imports, memory, prefilter + filter.
const GOOD: &str = r#"(module
  (import "k8s.io/scheduler" "currentPod" (func $pod (param i32 i32) (result i32)))
  (import "k8s.io/scheduler" "result.status_reason" (func $reason (param i32 i32)))
  (memory (export "memory") 1)
  (global (export "__heap_base") i32 (i32.const 1024))
  (func $prefilter (export "prefilter") (result i32) (i32.const 0))
  (func $filter (export "filter") (result i32) (call $pod (i32.const 0) (i32.const 0))))"#;

fn messages(findings: &[Finding], severity: Severity) -> Vec<&str> {
    findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| f.message.as_str())
        .collect()
}

#[test]
fn reads_imports_exports_names_and_sizes() {
    let wasm = wat::parse_str(GOOD).expect("valid WAT");
    let m = Module::parse(&wasm).expect("parses");
    assert_eq!(m.size, wasm.len());
    assert_eq!(m.imports.len(), 2);
    assert_eq!(m.imports[0].module, "k8s.io/scheduler");
    assert_eq!(m.imports[0].name, "currentPod");
    let Kind::Func(sig) = &m.imports[0].kind else {
        panic!("function import expected")
    };
    assert_eq!(sig.to_string(), "(i32, i32) -> i32");
    let Kind::Func(sig) = &m.imports[1].kind else {
        panic!("function import expected")
    };
    assert_eq!(sig.to_string(), "(i32, i32) -> ()");
    let exports: Vec<(&str, &Kind)> = m
        .exports
        .iter()
        .map(|e| (e.name.as_str(), &e.kind))
        .collect();
    assert_eq!(exports[0], ("memory", &Kind::Memory));
    assert_eq!(exports[1], ("__heap_base", &Kind::Global));
    assert_eq!(hook_list(m.hooks()), "prefilter|filter");
    assert_eq!(m.function_count, 4);
    assert!(m.has_name_section);
    assert_eq!(m.function_name(3), "filter");
    assert_eq!(m.function_name(99), "func[99]");
    let sections: Vec<&str> = m.sections.iter().map(|(n, _)| n.as_str()).collect();
    assert!(sections.contains(&"code") && sections.contains(&"custom \"name\""));
    let total: usize = m.sections.iter().map(|(_, b)| b).sum();
    assert!(total < wasm.len());
}

#[test]
fn a_plugin_like_the_sdks_has_no_findings() {
    let m = module(GOOD);
    assert_eq!(m.abi_findings(), []);
    assert!(m.forbidden_functions().is_empty());
    assert!(m.panic_reach().is_empty());
}

#[test]
fn imports_the_host_lacks_or_with_other_signatures_are_violations() {
    let m = module(
        r#"(module
      (import "k8s.io/scheduler" "currentPodd" (func (param i32 i32) (result i32)))
      (import "k8s.io/scheduler" "currentPod" (func (param i32) (result i32)))
      (import "k8s.io/api" "node" (func (param i32 i32 i32 i32) (result i64)))
      (import "env" "memory" (memory 1))
      (import "k8s.io/klog" "severity" (global i32))
      (memory (export "memory") 1)
      (func (export "filter") (result i32) (i32.const 0)))"#,
    );
    let findings = m.abi_findings();
    assert_eq!(
        messages(&findings, Severity::Violation),
        [
            "imports `k8s.io/scheduler`.`currentPodd`, which the host does not provide",
            "imports `k8s.io/scheduler`.`currentPod` as (i32) -> i32; the host's is (i32, i32) -> i32",
            "imports `k8s.io/api`.`node` as (i32, i32, i32, i32) -> i64; the host's is (i32, i32, i32, i32) -> i32",
            "imports `env`.`memory`, which the host does not provide",
            "imports `k8s.io/klog`.`severity` as a global; the host's is a function",
        ]
    );
    assert!(messages(&findings, Severity::Warning).is_empty());
}

#[test]
fn exports_must_include_memory_and_hooks_with_their_signatures() {
    let m = module(
        r#"(module
      (func (export "filter") (result i64) (i64.const 0))
      (func (export "score") (result i32) (i32.const 0))
      (func (export "_start") (param i32))
      (global (export "permit") i64 (i64.const 0)))"#,
    );
    assert_eq!(
        messages(&m.abi_findings(), Severity::Violation),
        [
            "does not export `memory`, which the scheduler requires",
            "exports `filter` as () -> i64; the scheduler calls it as () -> i32",
            "exports `score` as () -> i32; the scheduler calls it as () -> i64",
            "exports `_start` as (i32) -> (); the scheduler calls it as () -> ()",
            "exports `permit` as a global; the scheduler calls it as a function () -> i64",
        ]
    );
}

fn hooks_module(hooks: &[(&str, &str)]) -> Module {
    let funcs: String = hooks
        .iter()
        .map(|(name, result)| {
            let body = match *result {
                "" => String::new(),
                ty => format!("(result {ty}) ({ty}.const 0)"),
            };
            format!("(func (export \"{name}\") {body})\n")
        })
        .collect();
    module(&format!("(module (memory (export \"memory\") 1)\n{funcs})"))
}

#[test]
fn the_hook_set_follows_the_schedulers_rules() {
    let refused = |hooks: &[(&str, &str)]| {
        messages(&hooks_module(hooks).abi_findings(), Severity::Violation)
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    const MUST: &str = "`wasm: filter, score, reserve, permit or bind must be exported`";
    assert_eq!(
        refused(&[]),
        [
            "hook set (none): the scheduler refuses it with `wasm: guest does not export any plugin functions` (the module exports no hook function)"
        ]
    );
    assert_eq!(
        refused(&[("prefilter", "i32"), ("prescore", "i32")]),
        [format!(
            "hook set prefilter|prescore: the scheduler refuses it with {MUST} (no filter, score, reserve, permit or bind, and not exactly `prefilter` or exactly `addpod`/`removepod`)"
        )]
    );
    assert_eq!(
        refused(&[("reserve", "i32"), ("unreserve", ""), ("permit", "i64")]),
        [format!(
            "hook set reserve|unreserve|permit: the scheduler refuses it with {MUST} (kube-scheduler-wasm-extension does not register this combination of filter/score/reserve/permit/bind)"
        )]
    );
    assert!(refused(&[("prefilter", "i32")]).is_empty());
    assert!(refused(&[("score", "i64"), ("reserve", "i32"), ("unreserve", "")]).is_empty());
}

/// KSW loads one half of the Reserve interface (both exports set the same
/// interface bit), so `kguest check` warns instead of refusing.
#[test]
fn reserve_without_unreserve_is_a_warning() {
    for (hooks, word) in [
        (
            &[("filter", "i32"), ("reserve", "i32")][..],
            "`reserve` without `unreserve`",
        ),
        (&[("unreserve", "")][..], "`unreserve` without `reserve`"),
    ] {
        let findings = hooks_module(hooks).abi_findings();
        assert!(
            messages(&findings, Severity::Violation).is_empty(),
            "{findings:?}"
        );
        let warnings = messages(&findings, Severity::Warning);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains(word), "{warnings:?}");
        assert!(
            warnings[0].contains("kguest's host calls nothing"),
            "{warnings:?}"
        );
    }
    let paired = hooks_module(&[("reserve", "i32"), ("unreserve", "")]).abi_findings();
    assert!(paired.is_empty(), "{paired:?}");
}

/// A `kguest::Load` plugin: `_start` builds it and writes a refusal to
/// stderr with `fd_write`, which is then no warning; without `_start` it
/// is one.
#[test]
fn a_load_plugins_fd_write_is_no_warning() {
    let load = |start: &str| {
        module(&format!(
            r#"(module
          (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
          (memory (export "memory") 1)
          (func (export "filter") (result i32) (i32.const 0))
          {start})"#
        ))
        .abi_findings()
    };
    let with_start = load(r#"(func (export "_start"))"#);
    assert!(with_start.is_empty(), "{with_start:?}");
    let without = load("");
    assert_eq!(
        messages(&without, Severity::Warning),
        ["imports WASI (fd_write); the scheduler provides it, kguest plugins do without"]
    );
}

#[test]
fn hooks_without_their_main_hook_and_extras_are_warnings() {
    let m = module(
        r#"(module
      (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))
      (memory (export "memory") 1)
      (func (export "filter") (result i32) (i32.const 0))
      (func (export "prescore") (result i32) (i32.const 0))
      (func (export "postbind"))
      (func (export "malloc") (param i32) (result i32) (i32.const 0))
      (func (export "_start")))"#,
    );
    let findings = m.abi_findings();
    assert!(
        messages(&findings, Severity::Violation).is_empty(),
        "{findings:?}"
    );
    assert_eq!(
        messages(&findings, Severity::Warning),
        [
            "imports WASI (proc_exit); the scheduler provides it, kguest plugins do without",
            "exports `malloc`, which the scheduler ignores",
            "exports `prescore` without `score`: the scheduler never calls it",
            "exports `postbind` without `bind`: the scheduler never calls it",
        ]
    );
}

/// The shape of a TinyGo plugin: every hook, WASI, allocator exports.
#[test]
fn a_tinygo_shaped_plugin_loads_with_warnings_only() {
    let hooks = [
        ("enqueue", ""),
        ("prefilter", "i32"),
        ("filter", "i32"),
        ("postfilter", "i64"),
        ("prescore", "i32"),
        ("score", "i64"),
        ("normalizescore", "i32"),
        ("reserve", "i32"),
        ("unreserve", ""),
        ("permit", "i64"),
        ("prebind", "i32"),
        ("bind", "i32"),
        ("postbind", ""),
        ("addpod", "i32"),
        ("removepod", "i32"),
        ("free", ""),
    ];
    let findings = hooks_module(&hooks).abi_findings();
    assert_eq!(
        findings,
        [Finding {
            severity: Severity::Warning,
            message: "exports `free`, which the scheduler ignores".into()
        }]
    );
}

/// A user function that slices a string (library code that reaches the
/// fmt-based panic), one that indexes (a direct panic call) and one that
/// does neither.
const PANICKY: &str = r#"(module
  (memory (export "memory") 1)
  (func $core::fmt::write (param i32) (result i32) (i32.const 0))
  (func $core::panicking::panic_fmt (param i32)
    (drop (call $core::fmt::write (local.get 0))) unreachable)
  (func $core::panicking::panic_bounds_check (call $core::panicking::panic_fmt (i32.const 0)))
  (func $core::str::slice_error_fail (call $core::panicking::panic_fmt (i32.const 1)))
  (func $core::str::<impl_str>::split_once (param i32) (result i32)
    (if (local.get 0) (then (call $core::str::slice_error_fail)))
    (i32.const 0))
  (func $core::cmp::min (param i32 i32) (result i32) (local.get 0))
  (func $my_plugin::parse (param i32) (result i32)
    (call $core::str::<impl_str>::split_once (local.get 0)))
  (func $my_plugin::index (param i32) (result i32)
    (if (local.get 0) (then (call $core::panicking::panic_bounds_check)))
    (return_call $core::cmp::min (i32.const 1) (i32.const 2)))
  (func $my_plugin::clean (result i32) (call $core::cmp::min (i32.const 1) (i32.const 2)))
  (func $filter (export "filter") (result i32)
    (drop (call $my_plugin::parse (i32.const 0)))
    (drop (call $my_plugin::index (i32.const 0)))
    (call $my_plugin::clean)))"#;

#[test]
fn panic_and_fmt_functions_are_named_with_the_code_that_pulls_them_in() {
    let m = module(PANICKY);
    assert_eq!(
        m.forbidden_functions(),
        [
            "core::fmt::write",
            "core::panicking::panic_fmt",
            "core::panicking::panic_bounds_check",
            "core::str::slice_error_fail",
        ]
    );
    let reach = |function: &str, via: &str| Reach {
        function: function.into(),
        via: via.into(),
    };
    assert_eq!(
        m.panic_reach(),
        [
            reach("my_plugin::index", "core::panicking::panic_bounds_check"),
            reach("my_plugin::parse", "core::str::<impl_str>::split_once"),
        ]
    );
}

#[test]
fn without_a_name_section_nothing_is_named() {
    let mut wasm = wat::parse_str(PANICKY).expect("valid WAT");
    // Cut the trailing custom `name` section.
    let m = Module::parse(&wasm).expect("parses");
    let name_bytes = m
        .sections
        .iter()
        .find(|(n, _)| n == "custom \"name\"")
        .map(|(_, b)| *b)
        .expect("name section");
    let header = 1 + leb_len(name_bytes);
    wasm.truncate(wasm.len() - name_bytes - header);
    let m = Module::parse(&wasm).expect("parses");
    assert!(!m.has_name_section);
    assert!(m.forbidden_functions().is_empty());
    assert!(m.panic_reach().is_empty());
    assert_eq!(m.function_name(2), "func[2]");
}

fn leb_len(mut n: usize) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

#[test]
fn bad_modules_get_one_line_errors() {
    let err = |bytes: &[u8]| Module::parse(bytes).expect_err("must fail").to_string();
    assert_eq!(
        err(b"hello"),
        "not a WebAssembly module (no `\\0asm` header)"
    );
    assert!(err(b"\0asm\x02\0\0\0").starts_with("malformed wasm at byte"));
    let mut good = wat::parse_str(GOOD).expect("valid WAT");
    good.truncate(good.len() - 3);
    let e = err(&good);
    assert!(e.starts_with("malformed wasm at byte"), "{e}");
    assert!(!e.contains('\n'));
    // A component (version 0xd, layer 1).
    assert_eq!(
        err(b"\0asm\x0d\0\x01\0"),
        "a WebAssembly component, not a core module (the scheduler loads core modules)"
    );
}

#[test]
fn digits_are_grouped() {
    assert_eq!(group_digits(0), "0");
    assert_eq!(group_digits(999), "999");
    assert_eq!(group_digits(1000), "1,000");
    assert_eq!(group_digits(651_817), "651,817");
}

/// TinyGo names: Go's `fmt` package and the runtime's panics count; Go's
/// standard library is walked through, the plugin's own packages are named.
#[test]
fn go_panic_and_fmt_code_is_found_too() {
    let m = module(
        r#"(module
      (memory (export "memory") 1)
      (func $runtime.nilPanic unreachable)
      (func $fmt.Sprintf (param i32) (result i32) (local.get 0))
      (func $runtime.alloc (param i32) (result i32) (local.get 0))
      (func $encoding/json.Marshal (param i32) (result i32) (call $fmt.Sprintf (local.get 0)))
      (func $main.parse (param i32) (result i32) (call $encoding/json.Marshal (local.get 0)))
      (func $example.com/plugin.check (param i32)
        (if (local.get 0) (then (call $runtime.nilPanic))))
      (func $main.clean (param i32) (result i32) (call $runtime.alloc (local.get 0)))
      (func (export "filter") (result i32)
        (call $example.com/plugin.check (i32.const 0))
        (drop (call $main.clean (i32.const 0)))
        (call $main.parse (i32.const 0))))"#,
    );
    assert_eq!(m.forbidden_functions(), ["runtime.nilPanic", "fmt.Sprintf"]);
    let reach: Vec<(String, String)> = m
        .panic_reach()
        .into_iter()
        .map(|r| (r.function, r.via))
        .collect();
    assert_eq!(
        reach,
        [
            (
                "example.com/plugin.check".to_string(),
                "runtime.nilPanic".to_string()
            ),
            (
                "main.parse".to_string(),
                "encoding/json.Marshal".to_string()
            ),
        ]
    );
}

#[test]
fn krm_functions_import_only_wasi_and_export_start() {
    let krm = module(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))"#,
    );
    assert_eq!(krm.krm_findings(), Vec::<Finding>::new());
    // A KRM function is not a scheduler plugin ...
    assert!(!messages(&krm.abi_findings(), Severity::Violation).is_empty());
    // ... and a scheduler plugin is not a KRM function.
    let plugin = module(GOOD).krm_findings();
    let violations = messages(&plugin, Severity::Violation);
    assert!(
        violations.iter().any(|m| m.contains("not WASI preview1")),
        "{violations:?}"
    );
    assert!(
        violations.iter().any(|m| m.contains("`_start`")),
        "{violations:?}"
    );
    let warnings = messages(&plugin, Severity::Warning);
    assert!(
        warnings.iter().any(|m| m.contains("`filter`")),
        "{warnings:?}"
    );
    // `_start` with the wrong signature.
    let bad = module(
        r#"(module (memory (export "memory") 1) (func (export "_start") (result i32) (i32.const 0)))"#,
    );
    assert!(
        messages(&bad.krm_findings(), Severity::Violation)
            .iter()
            .any(|m| m.contains("_start"))
    );
}
