//! Misbehaving guests, one misbehaviour each. After every failure the plugin
//! must keep serving normal calls.

use std::time::Duration;

use kguest_host::{CallError, Code, Hook, LoadError, Plugin, PluginConfig};

use crate::util::{bytes, config, cycle, guest, load, rt};

/// A filter that misbehaves when the node name is "bad" and succeeds otherwise.
fn on_bad(misbehaviour: &str, extra: &str) -> Vec<u8> {
    guest(&format!(
        r#"(data (i32.const 16) "bad")
        {extra}
        (func (export "filter") (result i32)
          (if (i32.eq (call $currentNodeName (i32.const 32) (i32.const 64)) (i32.const 3))
            (then {misbehaviour}))
          (i32.const 0))"#
    ))
}

fn still_serves(plugin: &Plugin) {
    assert_eq!(
        plugin.filter(&cycle(b"p"), "good").unwrap().code,
        Code::SUCCESS
    );
}

#[test]
fn infinite_loop_hits_the_deadline() {
    let plugin = load(&on_bad("(loop $l (br $l))", ""));
    let err = plugin.filter(&cycle(b"p"), "bad").unwrap_err();
    assert_eq!(
        err,
        CallError::Deadline {
            hook: Some(Hook::Filter),
            timeout: config().call_timeout
        }
    );
    still_serves(&plugin);
}

#[test]
fn a_cycle_deadline_cuts_calls_shorter_than_the_call_timeout() {
    let plugin = Plugin::load(
        rt(),
        &on_bad("(loop $l (br $l))", ""),
        PluginConfig {
            call_timeout: Duration::from_secs(30),
            ..config()
        },
    )
    .unwrap();
    let template = cycle(b"p");
    let bounded = kguest_host::Cycle::with_deadline(
        bytes(b"p"),
        template.snapshot().clone(),
        std::time::Instant::now() + Duration::from_millis(100),
    )
    .unwrap();
    // The deadline that applied is the cycle's (what was left of its
    // 100 ms when the call began), not the plugin's 30 s.
    match plugin.filter(&bounded, "bad").unwrap_err() {
        CallError::Deadline {
            hook: Some(Hook::Filter),
            timeout,
        } => assert!(timeout <= Duration::from_millis(100), "{timeout:?}"),
        other => panic!("{other:?}"),
    }
    assert!(bounded.expired());
    // Past the deadline every call of the cycle stops at once.
    assert!(matches!(
        plugin.filter(&bounded, "bad"),
        Err(CallError::Deadline { .. })
    ));
    still_serves(&plugin);
}

#[test]
fn unbounded_recursion_overflows_the_stack() {
    let plugin = load(&on_bad(
        "(call $recurse (i32.const 0)) drop",
        "(func $recurse (param i32) (result i32) (call $recurse (i32.add (local.get 0) (i32.const 1))))",
    ));
    let err = plugin.filter(&cycle(b"p"), "bad").unwrap_err();
    assert_eq!(
        err,
        CallError::StackOverflow {
            hook: Some(Hook::Filter)
        }
    );
    still_serves(&plugin);
}

#[test]
fn memory_grow_bomb_hits_the_memory_limit() {
    let wasm = on_bad(
        "(loop $l (br_if $l (i32.ge_s (memory.grow (i32.const 1)) (i32.const 0))))",
        "",
    );
    let plugin = Plugin::load(
        rt(),
        &wasm,
        PluginConfig {
            memory_limit: 1 << 20,
            ..config()
        },
    )
    .unwrap();
    let err = plugin.filter(&cycle(b"p"), "bad").unwrap_err();
    assert_eq!(
        err,
        CallError::MemoryLimit {
            hook: Some(Hook::Filter),
            requested: (1 << 20) + 65536,
            limit: 1 << 20
        }
    );
    still_serves(&plugin);
}

#[test]
fn unreachable_in_hook_traps_and_instance_is_replaced() {
    let plugin = Plugin::load(
        rt(),
        &on_bad("unreachable", ""),
        PluginConfig {
            pool_size: 1,
            ..config()
        },
    )
    .unwrap();
    assert_eq!(plugin.idle_instances(), 1);
    let err = plugin.filter(&cycle(b"p"), "bad").unwrap_err();
    assert!(
        matches!(&err, CallError::Trap { hook: Some(Hook::Filter), message, .. } if message.contains("unreachable")),
        "{err:?}"
    );
    assert_eq!(
        plugin.idle_instances(),
        0,
        "trapped instance must be dropped"
    );
    still_serves(&plugin);
    assert_eq!(plugin.idle_instances(), 1);
}

#[test]
fn state_does_not_survive_a_trap() {
    // A global counter bumped by each call: after a trap the fresh instance
    // starts from zero again.
    let wasm = guest(
        r#"(global $calls (mut i32) (i32.const 0))
        (func (export "score") (result i64)
          (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
          (if (i32.eq (call $currentNodeName (i32.const 0) (i32.const 64)) (i32.const 3)) (then unreachable))
          (i64.shl (i64.extend_i32_u (global.get $calls)) (i64.const 32)))"#,
    );
    let plugin = Plugin::load(
        rt(),
        &wasm,
        PluginConfig {
            pool_size: 1,
            ..config()
        },
    )
    .unwrap();
    let c = cycle(b"p");
    assert_eq!(plugin.score(&c, "good").unwrap().0, 1);
    assert_eq!(plugin.score(&c, "good").unwrap().0, 2);
    assert!(plugin.score(&c, "bad").is_err());
    assert_eq!(plugin.score(&c, "good").unwrap().0, 1);
}

#[test]
fn proc_exit_in_hook_is_an_exit_error() {
    let plugin = load(&on_bad("(call $exit (i32.const 3))", ""));
    assert_eq!(
        plugin.filter(&cycle(b"p"), "bad").unwrap_err(),
        CallError::Exit {
            hook: Some(Hook::Filter),
            code: 3
        }
    );
    still_serves(&plugin);
}

#[test]
fn unreachable_in_start_fails_load() {
    let wasm = guest(
        r#"(func (export "_start") unreachable)
        (func (export "filter") (result i32) (i32.const 0))"#,
    );
    let err = Plugin::load(rt(), &wasm, config()).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::Instantiate(CallError::Trap { hook: None, .. })
        ),
        "{err:?}"
    );
}

#[test]
fn infinite_start_hits_the_start_deadline() {
    let wasm = guest(
        r#"(func (export "_start") (loop $l (br $l)))
        (func (export "filter") (result i32) (i32.const 0))"#,
    );
    let cfg = PluginConfig {
        start_timeout: Duration::from_millis(50),
        ..config()
    };
    let err = Plugin::load(rt(), &wasm, cfg).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::Instantiate(CallError::Deadline { hook: None, .. })
        ),
        "{err:?}"
    );
}

#[test]
fn start_runs_once_per_instance_and_may_read_config() {
    // `_start` stores the config length; filter returns it.
    let wasm = guest(
        r#"(global $len (mut i32) (i32.const -1))
        (func (export "_start") (global.set $len (call $get_config (i32.const 0) (i32.const 64))))
        (func (export "filter") (result i32) (global.get $len))"#,
    );
    let plugin = Plugin::load(
        rt(),
        &wasm,
        PluginConfig {
            guest_config: bytes(b"{}"),
            ..config()
        },
    )
    .unwrap();
    assert_eq!(plugin.filter(&cycle(b"p"), "n").unwrap().code, Code(2));
}

#[test]
fn huge_reason_length_is_out_of_bounds() {
    let plugin = load(&on_bad(
        "(call $reason (i32.const 16) (i32.const 0x40000000))",
        "",
    ));
    let err = plugin.filter(&cycle(b"p"), "bad").unwrap_err();
    assert_eq!(
        err,
        CallError::OutOfBounds {
            import: "result.status_reason",
            ptr: 16,
            len: 1 << 30,
            memory_size: 2 * 65536
        }
    );
    still_serves(&plugin);
}

/// One case: the import under test, the hook that calls it, and the WAT
/// instructions (leaving nothing on the stack) for the in-range-end-past-memory
/// and 32-bit-overflow variants.
struct Case {
    import: &'static str,
    hook: Hook,
    past_end: String,
    overflow: String,
}

/// `P` = a pointer near the end of the 2-page memory; `W` wraps 32 bits.
const P: &str = "(i32.const 131070)";
const W: &str = "(i32.const -16)";
const BIG: &str = "(i32.const -1)";

fn getter(import: &'static str, fname: &str, hook: Hook) -> Case {
    Case {
        import,
        hook,
        past_end: format!("(drop (call ${fname} {P} (i32.const 4096)))"),
        overflow: format!("(drop (call ${fname} {W} {BIG}))"),
    }
}

fn setter(import: &'static str, fname: &str) -> Case {
    Case {
        import,
        hook: Hook::Filter,
        past_end: format!("(call ${fname} {P} (i32.const 3))"),
        overflow: format!("(call ${fname} {W} (i32.const 32))"),
    }
}

fn cases() -> Vec<Case> {
    let name = "(i32.const 16) (i32.const 6)"; // "node-a" at 16
    let mut v = vec![
        getter("nodeList", "nodeList", Hook::Filter),
        getter("get_config", "get_config", Hook::Filter),
        getter("currentPod", "currentPod", Hook::Filter),
        getter("targetPod", "targetPod", Hook::AddPod),
        getter("currentNodeName", "currentNodeName", Hook::Filter),
        getter("filteredNodeList", "filteredNodeList", Hook::PreScore),
        getter("nodeToStatusMap", "nodeToStatusMap", Hook::PostFilter),
        getter("nodeScoreList", "nodeScoreList", Hook::NormalizeScore),
        setter("result.status_reason", "reason"),
        setter("result.cluster_events", "cluster_events"),
        setter("result.node_names", "node_names"),
        setter("result.nominated_node_name", "nominated"),
        setter("result.normalized_score_list", "normalized"),
        setter("handle.eventrecorder.eventf", "eventf"),
        setter("random_get", "random"),
    ];
    // random_get returns errno; drop it.
    let last = v.last_mut().unwrap();
    last.past_end = format!("(drop (call $random {P} (i32.const 3)))");
    last.overflow = format!("(drop (call $random {W} (i32.const 32)))");
    for (import, f) in [("node", "node"), ("nodeImageStates", "nodeImageStates")] {
        // Bad name pointer, then a bad output buffer for a real node.
        v.push(Case {
            import,
            hook: Hook::Filter,
            past_end: format!("(drop (call ${f} {P} (i32.const 6) (i32.const 0) (i32.const 0)))"),
            overflow: format!("(drop (call ${f} {W} (i32.const 32) (i32.const 0) (i32.const 0)))"),
        });
        v.push(Case {
            import,
            hook: Hook::Filter,
            past_end: format!("(drop (call ${f} {name} {P} (i32.const 4096)))"),
            overflow: format!("(drop (call ${f} {name} {W} {BIG}))"),
        });
    }
    for (import, f) in [
        ("handle.reject_waiting_pod", "reject"),
        ("handle.get_waiting_pod", "waiting"),
    ] {
        v.push(Case {
            import,
            hook: Hook::Filter,
            past_end: format!("(call ${f} {P} (i32.const 5) (i32.const 0) (i32.const 8))"),
            overflow: format!("(call ${f} {W} (i32.const 32) (i32.const 0) (i32.const 8))"),
        });
        v.push(Case {
            import,
            hook: Hook::Filter,
            past_end: format!("(call ${f} (i32.const 0) (i32.const 5) {P} (i32.const 8))"),
            overflow: format!(
                "(call ${f} (i32.const 0) (i32.const 5) (i32.const -4) (i32.const 8))"
            ),
        });
    }
    v.push(Case {
        import: "log",
        hook: Hook::Filter,
        past_end: format!("(call $log (i32.const 2) {P} (i32.const 3))"),
        overflow: format!("(call $log (i32.const 2) {W} (i32.const 32))"),
    });
    for (msg, kvs) in [(P, "(i32.const 0)"), ("(i32.const 0)", P)] {
        v.push(Case {
            import: "logs",
            hook: Hook::Filter,
            past_end: format!("(call $logs (i32.const 2) {msg} (i32.const 3) {kvs} (i32.const 3))"),
            overflow: format!(
                "(call $logs (i32.const 2) {W} (i32.const 32) (i32.const 0) (i32.const 1))"
            ),
        });
    }
    v.push(Case {
        import: "fd_write",
        hook: Hook::Filter,
        // iovec table past the end
        past_end: format!("(drop (call $fd_write (i32.const 1) {P} (i32.const 1) (i32.const 0)))"),
        // iovec pointing at a wrapping range
        overflow:
            "(i32.store (i32.const 0) (i32.const -16)) (i32.store (i32.const 4) (i32.const 32))
             (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))"
                .to_string(),
    });
    v.push(Case {
        import: "clock_time_get",
        hook: Hook::Filter,
        past_end: format!("(drop (call $clock (i32.const 0) (i64.const 0) {P}))"),
        overflow: "(drop (call $clock (i32.const 0) (i64.const 0) (i32.const -4)))".into(),
    });
    v.push(Case {
        import: "args_sizes_get",
        hook: Hook::Filter,
        past_end: format!("(drop (call $args_sizes {P} (i32.const 0)))"),
        overflow: "(drop (call $args_sizes (i32.const 0) (i32.const -2)))".into(),
    });
    v
}

/// A guest whose `hook` runs `code` when the node name is 3 bytes ("bad").
fn oob_guest(hook: Hook, code: &str) -> Vec<u8> {
    let filter = if hook == Hook::Filter {
        ""
    } else {
        r#"(func (export "filter") (result i32) (i32.const 0))"#
    };
    guest(&format!(
        r#"(data (i32.const 16) "node-a") {filter}
        (func (export "{name}") (result i32)
          (if (i32.eq (call $currentNodeName (i32.const 32) (i32.const 64)) (i32.const 3))
            (then {code}))
          (i32.const 0))"#,
        name = hook.export_name()
    ))
}

fn call(plugin: &Plugin, hook: Hook, node: &str) -> Result<(), CallError> {
    let c = cycle(b"POD");
    match hook {
        Hook::Filter => plugin.filter(&c, node).map(drop),
        Hook::AddPod => plugin.add_pod(&c, node, bytes(b"TARGET")).map(drop),
        other => panic!("no node-name trigger for {other}"),
    }
}

#[test]
fn every_pointer_taking_import_rejects_bad_ranges() {
    let mut checked = 0;
    for case in cases() {
        for (variant, code) in [("past_end", &case.past_end), ("overflow", &case.overflow)] {
            // Hooks without a node name always misbehave: their trigger
            // checks `currentNodeName == 3 bytes`, so use a guard-free guest.
            let wasm = if matches!(
                case.hook,
                Hook::PreScore | Hook::PostFilter | Hook::NormalizeScore
            ) {
                oob_guest_unconditional(case.hook, code)
            } else {
                oob_guest(case.hook, code)
            };
            let plugin = Plugin::load(
                rt(),
                &wasm,
                PluginConfig {
                    guest_config: bytes(b"{\"cfg\":1}"),
                    handle: std::sync::Arc::new(crate::util::Recorder::default()),
                    ..config()
                },
            )
            .unwrap_or_else(|e| panic!("{} {variant}: {e}", case.import));
            let c = cycle(b"POD");
            let err = match case.hook {
                Hook::PreScore => plugin.prescore(&c, &["x"]).map(drop),
                Hook::PostFilter => plugin.postfilter(&c, &[("x", Code(1))]).map(drop),
                Hook::NormalizeScore => plugin.normalize_score(&c, &[("x", 1)]).map(drop),
                hook => call(&plugin, hook, "bad"),
            }
            .expect_err(&format!("{} {variant} must fail", case.import));
            assert!(
                matches!(&err, CallError::OutOfBounds { import, .. } if *import == case.import),
                "{} {variant}: {err:?}",
                case.import
            );
            if !matches!(
                case.hook,
                Hook::PreScore | Hook::PostFilter | Hook::NormalizeScore
            ) {
                call(&plugin, case.hook, "good")
                    .unwrap_or_else(|e| panic!("{} {variant} afterwards: {e}", case.import));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 2 * cases().len());
}

fn oob_guest_unconditional(hook: Hook, code: &str) -> Vec<u8> {
    let (ty, value) = match hook {
        Hook::PostFilter => ("(result i64)", "(i64.const 0)"),
        _ => ("(result i32)", "(i32.const 0)"),
    };
    guest(&format!(
        r#"(data (i32.const 16) "node-a")
        (func (export "filter") (result i32) (i32.const 0))
        (func (export "score") (result i64) (i64.const 0))
        (func (export "{name}") {ty} {code} {value})"#,
        name = hook.export_name()
    ))
}

#[test]
fn exhausted_instance_pool_is_an_instantiate_error() {
    let small = kguest_host::Runtime::new(kguest_host::RuntimeConfig {
        max_instances: 2,
        ..kguest_host::RuntimeConfig::default()
    })
    .unwrap();
    let wasm = guest(r#"(func (export "filter") (result i32) (i32.const 0))"#);
    // Each loaded plugin keeps one idle instance.
    let a = Plugin::load(&small, &wasm, config()).unwrap();
    let b = Plugin::load(&small, &wasm, config()).unwrap();
    let err = Plugin::load(&small, &wasm, config()).unwrap_err();
    assert!(
        matches!(&err, LoadError::Instantiate(CallError::Instantiate(_))),
        "{err:?}"
    );
    drop(b);
    assert!(Plugin::load(&small, &wasm, config()).is_ok());
    still_serves(&a);
}

/// Guests that fail to load (a panic or `proc_exit` in `_start`, a hook set
/// KSW rejects) or trap in a hook fail alone: a plugin already loaded on the
/// same runtime keeps serving, and new plugins still load.
#[test]
fn a_bad_guest_fails_alone() {
    let good = || load(&on_bad("unreachable", ""));
    let serving = good();
    let panics_in_start = guest(
        r#"(data (i32.const 0) "\08\00\00\00\06\00\00\00panic!")
        (func (export "_start")
          (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 64)))
          unreachable)
        (func (export "filter") (result i32) (i32.const 0))"#,
    );
    let exits_in_start = guest(
        r#"(func (export "_start") (call $exit (i32.const 0)))
        (func (export "filter") (result i32) (i32.const 0))"#,
    );
    let lone_prescore = guest(r#"(func (export "prescore") (result i32) (i32.const 0))"#);
    let errors: Vec<LoadError> = [panics_in_start, exits_in_start, lone_prescore]
        .iter()
        .map(|wasm| {
            let err = Plugin::load(rt(), wasm, config()).unwrap_err();
            still_serves(&serving);
            still_serves(&good());
            err
        })
        .collect();
    // The guest's own output leads, as in KSW's error.
    assert!(
        errors[0]
            .to_string()
            .starts_with("wasm: instantiate error: panic!\n"),
        "{}",
        errors[0]
    );
    assert!(
        matches!(
            errors[1],
            LoadError::Instantiate(CallError::Exit {
                hook: None,
                code: 0
            })
        ),
        "{:?}",
        errors[1]
    );
    assert!(
        errors[1].to_string().contains("-buildmode=wasi-legacy"),
        "{}",
        errors[1]
    );
    assert!(
        matches!(errors[2], LoadError::UnsupportedHookSet(_)),
        "{:?}",
        errors[2]
    );
    // A trap in another plugin's hook does not disturb this one.
    let trapping = good();
    assert!(trapping.filter(&cycle(b"p"), "bad").is_err());
    still_serves(&serving);
}
