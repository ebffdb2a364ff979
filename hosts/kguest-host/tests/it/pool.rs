//! Concurrency: many threads sharing one plugin see the same results as one.

use std::sync::Arc;
use std::thread;

use kguest_host::{Code, Plugin, PluginConfig, Status};

use crate::util::{config, cycle, guest, rt};

/// Score = sum of the pod bytes + length of the node name; filter rejects
/// node names of odd length with a reason.
fn guest_wasm() -> Vec<u8> {
    guest(
        r#"(data (i32.const 16) "odd")
        (func $sum (param $p i32) (param $n i32) (result i32)
          (local $s i32)
          (block $d (loop $l
            (br_if $d (i32.eqz (local.get $n)))
            (local.set $s (i32.add (local.get $s) (i32.load8_u (local.get $p))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br $l)))
          (local.get $s))
        (func (export "filter") (result i32)
          (if (i32.and (call $currentNodeName (i32.const 1024) (i32.const 256)) (i32.const 1))
            (then (call $reason (i32.const 16) (i32.const 3)) (return (i32.const 2))))
          (i32.const 0))
        (func (export "score") (result i64)
          (local $n i32)
          (local.set $n (call $currentPod (i32.const 4096) (i32.const 60000)))
          (i64.shl
            (i64.extend_i32_u (i32.add (call $sum (i32.const 4096) (local.get $n))
                                       (call $currentNodeName (i32.const 1024) (i32.const 256))))
            (i64.const 32)))"#,
    )
}

fn run(plugin: &Plugin, pod: &[u8], rounds: usize) -> Vec<(Status, i32)> {
    let c = cycle(pod);
    let mut out = Vec::new();
    for i in 0..rounds {
        let node = "n".repeat(1 + i % 7);
        let status = plugin.filter(&c, &node).unwrap();
        let (score, s) = plugin.score(&c, &node).unwrap();
        assert_eq!(s.code, Code::SUCCESS);
        out.push((status, score));
    }
    out
}

#[test]
fn many_threads_match_one_thread() {
    let plugin = Arc::new(
        Plugin::load(
            rt(),
            &guest_wasm(),
            PluginConfig {
                pool_size: 8,
                ..config()
            },
        )
        .unwrap(),
    );
    let expected = run(&plugin, b"pod-bytes", 200);
    assert_eq!(expected[0].0.reason.as_deref(), Some("odd"));
    assert_eq!(expected[1].0, Status::success());
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let plugin = plugin.clone();
            thread::spawn(move || run(&plugin, b"pod-bytes", 200))
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), expected);
    }
    assert!(plugin.idle_instances() <= 8);
}
