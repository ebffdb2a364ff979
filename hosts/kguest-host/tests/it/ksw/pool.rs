//! `scheduler/plugin/pool_test.go`: which instance serves which call.
//! Upstream drives its generic pool with counter "guests"; the port drives
//! kguest-host's pool with a guest that picks a random id in `_start` and
//! reports it from every hook (as the status code, or as the resource of
//! its one cluster event), so each call shows which instance ran it.

use std::sync::Arc;

use kguest_host::{Cycle, Plugin, Snapshot};

use crate::util::{bytes, config, guest, rt};

const F: &str = "pool_test.go";

cases!(
    F,
    guest_pool_do_with_guest = ported("Test_guestPool_doWithGuest", "", do_with_guest),
    guest_pool_do_with_scheduling_guest = ported(
        "Test_guestPool_doWithSchedulingGuest",
        "",
        do_with_scheduling_guest
    ),
    guest_pool_get_for_binding = ported("Test_guestPool_getForBinding", "", get_for_binding),
    guest_pool_free_from_binding = ported("Test_guestPool_freeFromBinding", "", free_from_binding),
);

fn identity_plugin() -> Plugin {
    let wasm = guest(
        r#"(global $id (mut i32) (i32.const 0))
        (func (export "_start")
          (drop (call $random (i32.const 0) (i32.const 4)))
          (global.set $id (i32.or (i32.and (i32.load (i32.const 0)) (i32.const 0x7fffffff)) (i32.const 16))))
        (func (export "enqueue")
          (i32.store (i32.const 16) (global.get $id))
          (i32.store (i32.const 20) (i32.const 1))
          (call $cluster_events (i32.const 16) (i32.const 8)))
        (func (export "prefilter") (result i32) (global.get $id))
        (func (export "filter") (result i32) (global.get $id))
        (func (export "score") (result i64) (i64.const 0))
        (func (export "reserve") (result i32) (global.get $id))
        (func (export "unreserve"))
        (func (export "permit") (result i64)
          (i64.shl (i64.extend_i32_u (global.get $id)) (i64.const 32)))
        (func (export "prebind") (result i32) (global.get $id))
        (func (export "bind") (result i32) (global.get $id))
        (func (export "postbind"))"#,
    );
    Plugin::load(rt(), &wasm, config()).unwrap()
}

fn pod_cycle(uid: &[u8]) -> Cycle {
    Cycle::new(bytes(uid), Arc::new(Snapshot::new())).unwrap()
}

/// The instance behind `enqueue` (outside any scheduling cycle).
fn init_guest(plugin: &Plugin) -> i32 {
    plugin.events_to_register().unwrap()[0].resource.0 as i32
}

fn scheduling_guest(plugin: &Plugin, c: &Cycle) -> i32 {
    plugin.prefilter(c).unwrap().status.code.0
}

fn do_with_guest() {
    let plugin = identity_plugin();
    let g1 = init_guest(&plugin);
    // Assign for scheduling: the same (only) instance.
    let pod = pod_cycle(b"uid");
    assert_eq!(scheduling_guest(&plugin, &pod), g1);
    // Re-take it for init.
    assert_eq!(init_guest(&plugin), g1);
    // Assign to binding: init while binding is going on needs a new instance.
    assert_eq!(scheduling_guest(&plugin, &pod), g1);
    plugin.permit(&pod, "node").unwrap();
    let g2 = init_guest(&plugin);
    assert_ne!(g1, g2);
    assert_eq!(plugin.instances_created(), 2);
}

fn do_with_scheduling_guest() {
    let plugin = identity_plugin();
    let g1 = scheduling_guest(&plugin, &pod_cycle(b"uid"));
    // Scheduling is sequential: a different pod reuses the instance.
    let g2 = scheduling_guest(&plugin, &pod_cycle(b"different-uid"));
    assert_eq!(g1, g2);
    assert_eq!(plugin.instances_created(), 1);
}

fn get_for_binding() {
    let plugin = identity_plugin();
    let (pod, other) = (pod_cycle(b"uid"), pod_cycle(b"different-uid"));
    let g1 = scheduling_guest(&plugin, &pod);
    // Reassign for binding; the next scheduling cycle gets another instance.
    assert_eq!(plugin.permit(&pod, "node").unwrap().status.code.0, g1);
    let g2 = scheduling_guest(&plugin, &other);
    assert_ne!(g1, g2);
    assert_eq!(plugin.permit(&other, "node").unwrap().status.code.0, g2);
    // Two instances in their binding cycles, each serving its own pod.
    assert_eq!(plugin.binding_instances(), 2);
    assert_eq!(plugin.prebind(&pod, "node").unwrap().code.0, g1);
    assert_eq!(plugin.prebind(&other, "node").unwrap().code.0, g2);
    // Take it again.
    assert_eq!(plugin.bind(&other, "node").unwrap().code.0, g2);
    assert_eq!(plugin.binding_instances(), 2);
}

fn free_from_binding() {
    let plugin = identity_plugin();
    let pod = pod_cycle(b"uid");
    let g1 = scheduling_guest(&plugin, &pod);
    plugin.permit(&pod, "node").unwrap();
    // Free it from binding: back in the idle pool, ready for the next pod.
    plugin.unreserve(&pod, "node").unwrap();
    assert_eq!(plugin.binding_instances(), 0);
    assert_eq!(plugin.idle_instances(), 1);
    assert_eq!(scheduling_guest(&plugin, &pod_cycle(b"next")), g1);
}
