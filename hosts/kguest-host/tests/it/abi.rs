//! Well-behaved guests: inputs reach the guest, results come back packed
//! the way KSW packs them.

use std::sync::Arc;
use std::time::Duration;

use kguest_host::{
    ActionType, CallError, ClusterEvent, Code, Cycle, EventResource, Hook, NominatingMode, Plugin,
    PluginConfig, Snapshot,
};

use crate::util::{Recorder, bytes, config, cycle, guest, load, real_node, rt};

/// `$eq(a, b, n)`: 1 if the n bytes at a and b are equal.
const MEMEQ: &str = r#"
  (func $eq (param $a i32) (param $b i32) (param $n i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (if (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b)))
          (then (return (i32.const 0))))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (i32.const 1))
"#;

#[test]
fn filter_compares_current_pod_and_node_name() {
    let wasm = guest(&format!(
        r#"{MEMEQ}
        (data (i32.const 16) "pod-1")
        (data (i32.const 32) "node-a")
        (func (export "filter") (result i32)
          (local $n i32)
          (local.set $n (call $currentPod (i32.const 1024) (i32.const 256)))
          (if (i32.ne (local.get $n) (i32.const 5)) (then (return (i32.const 2))))
          (if (i32.eqz (call $eq (i32.const 1024) (i32.const 16) (i32.const 5)))
            (then (return (i32.const 2))))
          (local.set $n (call $currentNodeName (i32.const 2048) (i32.const 256)))
          (if (i32.ne (local.get $n) (i32.const 6)) (then (return (i32.const 2))))
          (if (i32.eqz (call $eq (i32.const 2048) (i32.const 32) (i32.const 6)))
            (then (return (i32.const 2))))
          (i32.const 0))"#
    ));
    let plugin = load(&wasm);
    let c = cycle(b"pod-1");
    assert_eq!(plugin.filter(&c, "node-a").unwrap().code, Code::SUCCESS);
    assert_eq!(
        plugin.filter(&c, "node-b").unwrap().code,
        Code::UNSCHEDULABLE
    );
    assert_eq!(
        plugin.filter(&c, "node-ab").unwrap().code,
        Code::UNSCHEDULABLE
    );
    let c2 = cycle(b"pod-2");
    assert_eq!(
        plugin.filter(&c2, "node-a").unwrap().code,
        Code::UNSCHEDULABLE
    );
}

#[test]
fn status_reason_is_captured_and_reset_per_call() {
    // Sets a reason only when the node name is 3 bytes long.
    let wasm = guest(
        r#"(data (i32.const 16) "no fit")
        (func (export "filter") (result i32)
          (if (i32.eq (call $currentNodeName (i32.const 1024) (i32.const 256)) (i32.const 3))
            (then (call $reason (i32.const 16) (i32.const 6)) (return (i32.const 2))))
          (i32.const 0))"#,
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
    let s = plugin.filter(&c, "bad").unwrap();
    assert_eq!(s.code, Code::UNSCHEDULABLE);
    assert_eq!(s.reason.as_deref(), Some("no fit"));
    let s = plugin.filter(&c, "good").unwrap();
    assert_eq!(s.code, Code::SUCCESS);
    assert_eq!(s.reason, None);
}

#[test]
fn getter_too_small_buffer_returns_length_and_writes_nothing() {
    // score = first returned length; code 0 only if the small call wrote
    // nothing, the retry returned the same length and wrote the pod, and an
    // unset value (targetPod) returned 0.
    let wasm = guest(
        r#"(data (i32.const 100) "\aa\aa\aa\aa\aa\aa\aa\aa")
        (func (export "score") (result i64)
          (local $n i32) (local $code i32)
          (local.set $n (call $currentPod (i32.const 100) (i32.const 4)))
          (if (i32.ne (i32.load8_u (i32.const 100)) (i32.const 0xaa)) (then (local.set $code (i32.const 11))))
          (if (i32.ne (i32.load8_u (i32.const 103)) (i32.const 0xaa)) (then (local.set $code (i32.const 12))))
          (if (i32.ne (call $currentPod (i32.const 100) (local.get $n)) (local.get $n))
            (then (local.set $code (i32.const 13))))
          (if (i32.ne (i32.load8_u (i32.const 100)) (i32.const 0x50)) (then (local.set $code (i32.const 14))))
          (if (i32.ne (call $targetPod (i32.const 100) (i32.const 0)) (i32.const 0)) (then (local.set $code (i32.const 15))))
          (i64.or (i64.shl (i64.extend_i32_u (local.get $n)) (i64.const 32))
                  (i64.extend_i32_u (local.get $code))))"#,
    );
    let plugin = load(&wasm);
    let (score, status) = plugin.score(&cycle(b"PODBYTES"), "node-a").unwrap();
    assert_eq!(status.code, Code::SUCCESS);
    assert_eq!(score, 8);
}

#[test]
fn score_packing_is_score_high_code_low() {
    let wasm = guest(
        r#"(func (export "score") (result i64)
          (if (result i64) (i32.eq (call $currentNodeName (i32.const 0) (i32.const 64)) (i32.const 6))
            (then (i64.const 0xFFFFFFF9_00000003))
            (else (i64.const 0x00000064_00000000))))"#,
    );
    let plugin = load(&wasm);
    let c = cycle(b"p");
    let (score, status) = plugin.score(&c, "node-a").unwrap();
    assert_eq!(
        (score, status.code),
        (-7, Code::UNSCHEDULABLE_AND_UNRESOLVABLE)
    );
    let (score, status) = plugin.score(&c, "n").unwrap();
    assert_eq!((score, status.code), (100, Code::SUCCESS));
}

#[test]
fn permit_packing_is_code_high_timeout_low() {
    let wasm = guest(
        r#"(func (export "permit") (result i64)
          (if (result i64) (i32.eq (call $currentNodeName (i32.const 0) (i32.const 64)) (i32.const 6))
            (then (i64.const 0x00000004_000005DC))
            (else (i64.const 0x00000001_FFFFFFFF))))"#,
    );
    let plugin = load(&wasm);
    let c = cycle(b"p");
    let p = plugin.permit(&c, "node-a").unwrap();
    assert_eq!(p.status.code, Code::WAIT);
    assert_eq!(p.timeout, Duration::from_millis(1500));
    let p = plugin.permit(&c, "n").unwrap();
    assert_eq!(p.status.code, Code::ERROR);
    assert_eq!(p.timeout, Duration::from_millis(u64::from(u32::MAX)));
}

#[test]
fn postfilter_packing_and_nominated_node() {
    let wasm = guest(
        r#"(data (i32.const 16) "node-b")
        (func (export "filter") (result i32) (i32.const 0))
        (func (export "postfilter") (result i64)
          (call $nominated (i32.const 16) (i32.const 6))
          (i64.const 0x00000001_00000002))"#,
    );
    let plugin = load(&wasm);
    let r = plugin.postfilter::<&str>(&cycle(b"p"), &[]).unwrap();
    assert_eq!(r.status.code, Code::UNSCHEDULABLE);
    assert_eq!(r.mode, NominatingMode::OVERRIDE);
    assert_eq!(r.nominated_node_name.as_deref(), Some("node-b"));
}

#[test]
fn prefilter_node_names_are_nul_separated() {
    let wasm = guest(
        r#"(data (i32.const 16) "a\00bb\00\00c\00")
        (func (export "prefilter") (result i32)
          (call $node_names (i32.const 16) (i32.const 8))
          (i32.const 0))"#,
    );
    let plugin = load(&wasm);
    assert_eq!(
        plugin.hooks().iter().collect::<Vec<_>>(),
        vec![Hook::PreFilter]
    );
    let r = plugin.prefilter(&cycle(b"p")).unwrap();
    assert_eq!(r.status.code, Code::SUCCESS);
    assert_eq!(
        r.node_names,
        Some(vec!["a".into(), "bb".into(), "c".into()])
    );
}

#[test]
fn prefilter_without_node_names_means_all_nodes() {
    let wasm = guest(r#"(func (export "prefilter") (result i32) (i32.const 0))"#);
    let r = load(&wasm).prefilter(&cycle(b"p")).unwrap();
    assert_eq!(r.node_names, None);
}

#[test]
fn enqueue_reports_cluster_events() {
    let wasm = guest(
        r#"(data (i32.const 16) "\01\00\00\00\08\00\00\00\00\00\00\00\01\00\00\00")
        (func (export "filter") (result i32) (i32.const 0))
        (func (export "enqueue") (call $cluster_events (i32.const 16) (i32.const 16)))"#,
    );
    let events = load(&wasm).events_to_register().unwrap();
    assert_eq!(
        events,
        vec![
            ClusterEvent {
                resource: EventResource::NODE,
                action: ActionType::UPDATE_NODE_LABEL
            },
            ClusterEvent {
                resource: EventResource::POD,
                action: ActionType::ADD
            },
        ]
    );
}

#[test]
fn enqueue_defaults_when_absent_or_empty() {
    let none = guest(r#"(func (export "filter") (result i32) (i32.const 0))"#);
    assert_eq!(
        load(&none).events_to_register().unwrap(),
        ClusterEvent::defaults()
    );
    let empty = guest(
        r#"(func (export "filter") (result i32) (i32.const 0))
        (func (export "enqueue") (call $cluster_events (i32.const 0) (i32.const 0)))"#,
    );
    assert_eq!(
        load(&empty).events_to_register().unwrap(),
        ClusterEvent::defaults()
    );
}

#[test]
fn cluster_events_with_partial_record_is_an_abi_error() {
    let wasm = guest(
        r#"(func (export "filter") (result i32) (i32.const 0))
        (func (export "enqueue") (call $cluster_events (i32.const 0) (i32.const 7)))"#,
    );
    let err = load(&wasm).events_to_register().unwrap_err();
    assert!(
        matches!(
            err,
            CallError::Abi {
                import: "result.cluster_events",
                ..
            }
        ),
        "{err:?}"
    );
}

/// Each hook echoes one input back through `result.status_reason`.
fn echo_guest() -> Vec<u8> {
    let echo = |getter: &str| format!("(call $reason (i32.const 4096) {getter})");
    let name = "(call $currentNodeName (i32.const 0) (i32.const 256))";
    guest(&format!(
        r#"
        (func (export "filter") (result i32)
          {node} (i32.const 0))
        (func (export "postfilter") (result i64)
          {n2s} (i64.const 0))
        (func (export "prescore") (result i32)
          {filtered} (i32.const 0))
        (func (export "score") (result i64) (i64.const 0))
        (func (export "normalizescore") (result i32)
          (call $normalized (i32.const 4096) (call $nodeScoreList (i32.const 4096) (i32.const 60000)))
          (i32.const 0))
        (func (export "reserve") (result i32)
          {list} (i32.const 0))
        (func (export "permit") (result i64)
          {cfg} (i64.const 0))
        (func (export "prebind") (result i32)
          {images} (i32.const 0))
        (func (export "bind") (result i32)
          {pod} (i32.const 0))
        (func (export "addpod") (result i32)
          {target} (i32.const 0))
        (func (export "removepod") (result i32)
          {nodename} (i32.const 0))
        "#,
        node = echo(&format!(
            "(call $node (i32.const 0) {name} (i32.const 4096) (i32.const 60000))"
        )),
        n2s = echo("(call $nodeToStatusMap (i32.const 4096) (i32.const 60000))"),
        filtered = echo("(call $filteredNodeList (i32.const 4096) (i32.const 60000))"),
        list = echo("(call $nodeList (i32.const 4096) (i32.const 60000))"),
        cfg = echo("(call $get_config (i32.const 4096) (i32.const 60000))"),
        images = echo(&format!(
            "(call $nodeImageStates (i32.const 0) {name} (i32.const 4096) (i32.const 60000))"
        )),
        pod = echo("(call $currentPod (i32.const 4096) (i32.const 60000))"),
        target = echo("(call $targetPod (i32.const 4096) (i32.const 60000))"),
        nodename = echo("(call $currentNodeName (i32.const 4096) (i32.const 60000))"),
    ))
}

fn reason(s: kguest_host::Status) -> String {
    s.reason.unwrap_or_default()
}

#[test]
fn every_getter_serves_its_input() {
    let plugin = Plugin::load(
        rt(),
        &echo_guest(),
        PluginConfig {
            guest_config: bytes(br#"{"weight":3}"#),
            ..config()
        },
    )
    .unwrap();
    // Two real nodes sharing the image "img" (also named "img:1" on node-a).
    let node_a = real_node("node-a", &[(&["img", "img:1"], 100), (&["solo"], 5)]);
    let node_b = real_node("node-b", &[(&["img"], 999)]);
    let node_c = real_node("node-c", &[]);
    let snapshot = Snapshot::from_nodes([node_a.clone(), node_b.clone(), node_c]).unwrap();
    let c = Cycle::new(bytes(b"POD"), Arc::new(snapshot)).unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert_eq!(reason(plugin.filter(&c, "node-a").unwrap()), text(&node_a));
    // Unknown node: the getter returns 0 and the reason is empty.
    assert_eq!(reason(plugin.filter(&c, "node-x").unwrap()), "");
    let pf = plugin
        .postfilter(&c, &[("node-b", Code(3)), ("node-a", Code(2))])
        .unwrap();
    assert_eq!(reason(pf.status), r#"{"node-a":2,"node-b":3}"#);
    let s = plugin.prescore(&c, &["node-b", "node-a"]).unwrap();
    assert_eq!(reason(s), r#"["node-b","node-a"]"#);
    // The guest sends back the list it was given.
    let n = plugin
        .normalize_score(&c, &[("node-a", 7), ("node-b", -1)])
        .unwrap();
    assert_eq!(
        n.scores,
        Some(vec![("node-a".to_string(), 7), ("node-b".to_string(), -1)])
    );
    // NodeList: items (field 2) framing of each node's bytes.
    let list = reason(plugin.reserve(&c, "node-a").unwrap());
    assert!(list.starts_with('\u{12}'), "{list:?}");
    assert!(list.contains(&text(&node_b)), "{list:?}");
    assert_eq!(
        reason(plugin.permit(&c, "node-a").unwrap().status),
        r#"{"weight":3}"#
    );
    // Image states: size from the first node listing a name, the number of
    // nodes listing it; names sorted, as Go marshals a map.
    assert_eq!(
        reason(plugin.prebind(&c, "node-a").unwrap()),
        r#"{"img":{"Size":100,"NumNodes":2,"Nodes":null},"img:1":{"Size":100,"NumNodes":1,"Nodes":null},"solo":{"Size":5,"NumNodes":1,"Nodes":null}}"#
    );
    assert_eq!(
        reason(plugin.prebind(&c, "node-b").unwrap()),
        r#"{"img":{"Size":100,"NumNodes":2,"Nodes":null}}"#
    );
    // A node without images gets an empty map, as in the scheduler.
    assert_eq!(reason(plugin.prebind(&c, "node-c").unwrap()), "{}");
    assert_eq!(reason(plugin.bind(&c, "node-a").unwrap()), "POD");
    assert_eq!(
        reason(plugin.add_pod(&c, "node-a", bytes(b"TARGET")).unwrap()),
        "TARGET"
    );
    assert_eq!(
        reason(plugin.remove_pod(&c, "node-b", bytes(b"T")).unwrap()),
        "node-b"
    );
}

#[test]
fn large_pod_fits_default_memory_limit() {
    // Grows memory to fit the pod, reads it, checks its last byte.
    let wasm = guest(
        r#"(func (export "filter") (result i32)
          (local $n i32) (local $base i32)
          (local.set $n (call $currentPod (i32.const 0) (i32.const 0)))
          (local.set $base (i32.mul (memory.size) (i32.const 65536)))
          (if (i32.lt_s (memory.grow (i32.add (i32.div_u (local.get $n) (i32.const 65536)) (i32.const 1))) (i32.const 0))
            (then (return (i32.const 1))))
          (if (i32.ne (call $currentPod (local.get $base) (local.get $n)) (local.get $n))
            (then (return (i32.const 1))))
          (if (i32.ne (i32.load8_u (i32.sub (i32.add (local.get $base) (local.get $n)) (i32.const 1))) (i32.const 0x7a))
            (then (return (i32.const 1))))
          (i32.const 0))"#,
    );
    let plugin = Plugin::load(rt(), &wasm, PluginConfig::default()).unwrap();
    let mut pod = vec![0x11u8; 1536 * 1024];
    *pod.last_mut().unwrap() = 0x7a;
    let c = Cycle::new(Arc::from(pod), Arc::new(Snapshot::new())).unwrap();
    assert_eq!(plugin.filter(&c, "n").unwrap().code, Code::SUCCESS);
}

#[test]
fn unknown_status_code_passes_through_or_is_rejected_when_strict() {
    let wasm = guest(r#"(func (export "filter") (result i32) (i32.const 42))"#);
    let lenient = load(&wasm);
    let s = lenient.filter(&cycle(b"p"), "n").unwrap();
    assert_eq!(s.code, Code(42));
    assert!(!s.code.is_known());
    let strict = Plugin::load(
        rt(),
        &wasm,
        PluginConfig {
            strict_status: true,
            ..config()
        },
    )
    .unwrap();
    assert_eq!(
        strict.filter(&cycle(b"p"), "n").unwrap_err(),
        CallError::UnknownStatus(42)
    );
    // The instance was fine; the plugin keeps serving.
    assert_eq!(
        strict.filter(&cycle(b"p"), "n").unwrap_err(),
        CallError::UnknownStatus(42)
    );
}

#[test]
fn klog_logs_are_filtered_by_severity() {
    let wasm = guest(
        r#"(data (i32.const 16) "hello")
        (data (i32.const 32) "k1\00v1\00k2\00v2\00")
        (func (export "filter") (result i32)
          (call $log (i32.const 0) (i32.const 16) (i32.const 5))
          (call $log (i32.const 2) (i32.const 16) (i32.const 5))
          (call $logs (i32.const 1) (i32.const 16) (i32.const 5) (i32.const 32) (i32.const 12))
          (call $severity))"#,
    );
    let rec = Arc::new(Recorder::default());
    let plugin = Plugin::load(
        rt(),
        &wasm,
        PluginConfig {
            log_severity: 1,
            handle: rec.clone(),
            ..config()
        },
    )
    .unwrap();
    assert_eq!(plugin.filter(&cycle(b"p"), "n").unwrap().code, Code(1));
    let logs = rec.logs.lock().unwrap().clone();
    assert_eq!(
        logs,
        vec![
            (2, "hello".to_string(), vec![]),
            (
                1,
                "hello".to_string(),
                vec![("k1".into(), "v1".into()), ("k2".into(), "v2".into())]
            ),
        ]
    );
}

#[test]
fn events_and_waiting_pods_reach_the_handle() {
    let wasm = guest(
        r#"(data (i32.const 16) "{\"Reason\":\"x\"}")
        (data (i32.const 48) "known")
        (data (i32.const 64) "other")
        (func (export "filter") (result i32)
          (call $eventf (i32.const 16) (i32.const 14))
          (call $reject (i32.const 48) (i32.const 5) (i32.const 256) (i32.const 8))
          (call $reject (i32.const 64) (i32.const 5) (i32.const 264) (i32.const 8))
          (i64.store (i32.const 272) (i64.const -1))
          (call $waiting (i32.const 64) (i32.const 5) (i32.const 272) (i32.const 8))
          (call $waiting (i32.const 48) (i32.const 5) (i32.const 1024) (i32.const 64))
          (call $reason (i32.const 1024) (i32.const 11))
          ;; status = rejected(known)=1 + 2*rejected(other)=0 + 4*(waiting none wrote 0)
          (i32.add (i32.wrap_i64 (i64.load (i32.const 256)))
            (i32.add (i32.mul (i32.wrap_i64 (i64.load (i32.const 264))) (i32.const 2))
                     (i32.mul (i64.eqz (i64.load (i32.const 272))) (i32.const 4)))))"#,
    );
    let rec = Arc::new(Recorder::default());
    let plugin = Plugin::load(
        rt(),
        &wasm,
        PluginConfig {
            handle: rec.clone(),
            ..config()
        },
    )
    .unwrap();
    let s = plugin.filter(&cycle(b"p"), "n").unwrap();
    assert_eq!(s.code, Code(5));
    assert_eq!(s.reason.as_deref(), Some("WAITING-POD"));
    assert_eq!(
        rec.events.lock().unwrap().as_slice(),
        &[br#"{"Reason":"x"}"#.to_vec()]
    );
    assert_eq!(rec.rejected.lock().unwrap().as_slice(), &["known", "other"]);
}

#[test]
fn wasi_subset_works_and_stdout_is_attached_to_traps() {
    let wasm = guest(
        r#"(data (i32.const 16) "boom")
        (func (export "filter") (result i32)
          (if (i32.ne (call $clock (i32.const 1) (i64.const 0) (i32.const 64)) (i32.const 0)) (then (return (i32.const 1))))
          (if (i64.eqz (i64.load (i32.const 64))) (then (return (i32.const 1))))
          (if (i32.ne (call $random (i32.const 80) (i32.const 13)) (i32.const 0)) (then (return (i32.const 1))))
          (if (i32.ne (call $args_sizes (i32.const 96) (i32.const 100)) (i32.const 0)) (then (return (i32.const 1))))
          (if (i32.ne (call $clock (i32.const 9) (i64.const 0) (i32.const 64)) (i32.const 28)) (then (return (i32.const 1))))
          (if (i32.eq (call $currentNodeName (i32.const 200) (i32.const 64)) (i32.const 4))
            (then
              (i32.store (i32.const 0) (i32.const 16))
              (i32.store (i32.const 4) (i32.const 4))
              (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
              unreachable))
          (i32.const 0))"#,
    );
    let plugin = load(&wasm);
    let err = plugin.filter(&cycle(b"p"), "fine").unwrap_err();
    assert!(
        matches!(&err, CallError::Trap { output, message, .. }
            if output == "boom" && message.contains("unreachable")),
        "{err:?}"
    );
    assert_eq!(err.guest_output(), Some("boom"));
    // Displayed as KSW displays it: the guest's output, then the trap.
    assert!(
        err.to_string().starts_with("wasm: filter error: boom\n"),
        "{err}"
    );
    assert_eq!(err.as_status().code, Code::ERROR);
    assert_eq!(err.as_status().reason, Some(err.to_string()));
    assert_eq!(
        plugin.filter(&cycle(b"p"), "ok").unwrap().code,
        Code::SUCCESS
    );
}

#[test]
fn missing_hook_is_not_exported_error() {
    let wasm = guest(r#"(func (export "filter") (result i32) (i32.const 0))"#);
    let plugin = load(&wasm);
    assert_eq!(
        plugin.score(&cycle(b"p"), "n").unwrap_err(),
        CallError::NotExported(Hook::Score)
    );
}

#[test]
fn new_cycle_replays_prefilter_on_instances_that_missed_it() {
    // prefilter caches the pod length in a global; filter succeeds only if
    // the cache matches the current pod (a stale cache would fail).
    let wasm = guest(
        r#"(global $cached (mut i32) (i32.const -1))
        (global $prefilters (mut i32) (i32.const 0))
        (func (export "prefilter") (result i32)
          (global.set $prefilters (i32.add (global.get $prefilters) (i32.const 1)))
          (global.set $cached (call $currentPod (i32.const 0) (i32.const 0)))
          (i32.const 0))
        (func (export "filter") (result i32)
          (if (result i32) (i32.eq (global.get $cached) (call $currentPod (i32.const 0) (i32.const 0)))
            (then (i32.const 0)) (else (i32.const 2))))
        (func (export "score") (result i64) (i64.extend_i32_u (global.get $prefilters)))"#,
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
    let a = cycle(b"short");
    plugin.prefilter(&a).unwrap();
    assert_eq!(plugin.filter(&a, "n").unwrap().code, Code::SUCCESS);
    // Cycle `a` ends; `b` starts without a prefilter of its own, on the
    // instance `a` used.
    drop(a);
    let b = cycle(b"much longer pod");
    assert_eq!(plugin.filter(&b, "n").unwrap().code, Code::SUCCESS);
    // Exactly one replay happened; the same cycle does not replay again.
    assert_eq!(plugin.score(&b, "n").unwrap().1.code, Code(2));
    assert_eq!(plugin.score(&b, "n").unwrap().1.code, Code(2));
    assert_eq!(plugin.instances_created(), 1);
}

#[test]
fn a_live_cycle_keeps_its_instance_and_its_guest_state() {
    // prescore stores the pod length; score returns it. Two cycles
    // interleave (as two scheduler threads would): each score must see its
    // own cycle's prescore, so the second cycle gets its own instance.
    let wasm = guest(
        r#"(global $stored (mut i32) (i32.const -1))
        (func (export "prefilter") (result i32) (i32.const 0))
        (func (export "prescore") (result i32)
          (global.set $stored (call $currentPod (i32.const 0) (i32.const 0)))
          (i32.const 0))
        (func (export "score") (result i64)
          (i64.shl (i64.extend_i32_u (global.get $stored)) (i64.const 32)))"#,
    );
    let plugin = load(&wasm);
    let a = cycle(b"aaa");
    let b = cycle(b"bbbbbbb");
    plugin.prefilter(&a).unwrap();
    plugin.prescore(&a, &["n"]).unwrap();
    plugin.prescore(&b, &["n"]).unwrap();
    assert_eq!(plugin.score(&a, "n").unwrap().0, 3);
    assert_eq!(plugin.score(&b, "n").unwrap().0, 7);
    assert_eq!(plugin.instances_created(), 2);
    // Once `a` ends, the next cycle reuses its instance.
    drop(a);
    let c = cycle(b"c");
    plugin.prescore(&c, &["n"]).unwrap();
    assert_eq!(plugin.score(&c, "n").unwrap().0, 1);
    assert_eq!(plugin.score(&b, "n").unwrap().0, 7);
    assert_eq!(plugin.instances_created(), 2);
}

#[test]
fn guest_args_are_served_as_argv_through_wasi() {
    // filter: argc must be 3; returns the reason = argv[1] + argv[2] bytes
    // as laid out by args_get (NUL-terminated, back to back).
    let wasm = guest(
        r#"(func (export "filter") (result i32)
          (local $argc i32) (local $size i32)
          (drop (call $args_sizes (i32.const 0) (i32.const 4)))
          (local.set $argc (i32.load (i32.const 0)))
          (local.set $size (i32.load (i32.const 4)))
          (drop (call $args_get (i32.const 16) (i32.const 256)))
          ;; the reason: from argv[1] to the end of the strings
          (call $reason (i32.load (i32.const 20))
            (i32.sub (i32.add (i32.const 256) (local.get $size)) (i32.load (i32.const 20))))
          (local.get $argc))
        (func (export "score") (result i64)
          ;; the pointer table runs past the end of memory
          (drop (call $args_get (i32.const 131070) (i32.const 0)))
          (i64.const 0))"#,
    );
    let cfg = PluginConfig {
        args: vec!["test".into(), "filter".into(), "".into()],
        ..config()
    };
    let plugin = Plugin::load(rt(), &wasm, cfg).unwrap();
    let s = plugin.filter(&cycle(b"p"), "n").unwrap();
    assert_eq!(s.code, Code(3));
    assert_eq!(s.reason.as_deref(), Some("filter\0\0"));
    let err = plugin.score(&cycle(b"p"), "n").unwrap_err();
    assert!(
        matches!(
            err,
            CallError::OutOfBounds {
                import: "args_get",
                ..
            }
        ),
        "{err:?}"
    );
    // No args: argc 0, as in the scheduler.
    let s = load(&wasm).filter(&cycle(b"p"), "n").unwrap();
    assert_eq!(s.code, Code(0));
    // An arg with a NUL cannot be passed.
    let bad = PluginConfig {
        args: vec!["a\0b".into()],
        ..config()
    };
    let err = Plugin::load(rt(), &wasm, bad).unwrap_err();
    assert!(
        matches!(err, kguest_host::LoadError::InvalidConfig(_)),
        "{err:?}"
    );
}

#[test]
fn globals_are_set_on_every_instance_after_start() {
    let wasm = guest(
        r#"(global $g (export "status_code_global") (mut i32) (i32.const 0))
        (global $fixed (export "fixed") i32 (i32.const 0))
        (func (export "_start") (global.set $g (i32.const 99)))
        (func (export "filter") (result i32) (global.get $g))"#,
    );
    let cfg = |globals: Vec<(String, i32)>| PluginConfig {
        globals,
        pool_size: 1,
        ..config()
    };
    let plugin = Plugin::load(rt(), &wasm, cfg(vec![("status_code_global".into(), -7)])).unwrap();
    let c = cycle(b"p");
    assert_eq!(plugin.filter(&c, "n").unwrap().code, Code(-7));
    // A second instance (the first is busy in a concurrent call) gets it too.
    std::thread::scope(|s| {
        let a = s.spawn(|| plugin.filter(&c, "n").unwrap().code);
        let b = s.spawn(|| plugin.filter(&c, "n").unwrap().code);
        assert_eq!((a.join().unwrap(), b.join().unwrap()), (Code(-7), Code(-7)));
    });
    for name in ["missing", "fixed", "memory"] {
        let err = Plugin::load(rt(), &wasm, cfg(vec![(name.into(), 1)])).unwrap_err();
        assert!(
            matches!(&err, kguest_host::LoadError::InvalidConfig(m) if m.contains(name)),
            "{err:?}"
        );
    }
}
