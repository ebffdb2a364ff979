//! `scheduler/plugin/host_test.go`: host functions called the way a guest
//! calls them. Upstream invokes each Go host function on a fake module's
//! memory; the port runs a small guest that makes the same call.

use std::sync::Arc;

use super::{FakeHandle, small_cycle_for_host};
use crate::util::{config, guest, rt};

const F: &str = "host_test.go";

cases!(
    F,
    k8s_klog_log_fn = ported("Test_k8sKlogLogFn", "", klog_log),
    k8s_klog_logs_fn = ported("Test_k8sKlogLogsFn", "", klog_logs),
    k8s_handle_event_recorder_event_fn = ported("Test_k8sHandleEventRecorderEventFn", "", eventf),
    k8s_handle_get_waiting_pod_fn = ported("Test_k8sHandleGetWaitingPodFn", "", get_waiting_pod),
    k8s_handle_reject_waiting_pod_fn =
        ported("Test_k8sHandleRejectWaitingPodFn", "", reject_waiting_pod),
);

/// Runs a filter that puts `data` at 1024 and runs `call` (which may use
/// `$len`, the data's length), recording into a fresh [`FakeHandle`].
fn run(data: &[u8], call: &str) -> Arc<FakeHandle> {
    let escaped: String = data.iter().map(|b| format!("\\{b:02x}")).collect();
    let wasm = guest(&format!(
        r#"(data (i32.const 1024) "{escaped}")
        (func (export "filter") (result i32)
          (local $len i32)
          (local.set $len (i32.const {len}))
          {call}
          (i32.const 0))"#,
        len = data.len()
    ));
    let handle = Arc::new(FakeHandle::default());
    let cfg = kguest_host::PluginConfig {
        handle: handle.clone(),
        ..config()
    };
    let plugin = kguest_host::Plugin::load(rt(), &wasm, cfg).unwrap();
    plugin.filter(&small_cycle_for_host(), "n").unwrap();
    handle
}

fn klog_log() {
    // severity info, msg, msg_len
    let handle = run(
        b"hello",
        "(call $log (i32.const 0) (i32.const 1024) (local.get $len))",
    );
    assert_eq!(
        *handle.logs.lock().unwrap(),
        [(0, "hello".to_string(), vec![])]
    );
}

fn klog_logs() {
    // "hello" at 1024, the kvs at 1056.
    let mut data = b"hello".to_vec();
    data.resize(32, 0);
    data.extend_from_slice("err\x00unhandled\u{0000}".as_bytes());
    let kvs_len = data.len() - 32;
    let call = format!(
        "(call $logs (i32.const 0) (i32.const 1024) (i32.const 5) (i32.const 1056) (i32.const {kvs_len}))"
    );
    let handle = run(&data, &call);
    let logs = handle.logs.lock().unwrap();
    assert_eq!(
        *logs,
        [(
            0,
            "hello".to_string(),
            vec![("err".to_string(), "unhandled".to_string())]
        )]
    );
}

fn eventf() {
    // json.Marshal(EventMessage{Eventtype: "event", Reason: "reason", ...}).
    let empty =
        r#"{"Kind":"","APIVersion":"","Name":"","Namespace":"","UID":"","ResourceVersion":""}"#;
    let json = format!(
        r#"{{"RegardingReference":{empty},"RelatedReference":{empty},"Eventtype":"event","Reason":"reason","Action":"action","Note":"note"}}"#
    );
    let handle = run(
        json.as_bytes(),
        "(call $eventf (i32.const 1024) (local.get $len))",
    );
    assert_eq!(
        *handle.event_msg.lock().unwrap(),
        "event reason action note"
    );
}

fn get_waiting_pod() {
    let handle = run(
        b"handle-test",
        "(call $waiting (i32.const 1024) (local.get $len) (i32.const 0) (i32.const 0))",
    );
    assert_eq!(
        handle.get_waiting_pod_value.lock().unwrap().as_deref(),
        Some("handle-test")
    );
}

fn reject_waiting_pod() {
    let uid = "c6feae3a-7082-42a5-a5ec-6ae2e1603727";
    let handle = run(
        uid.as_bytes(),
        "(call $reject (i32.const 1024) (local.get $len) (i32.const 0) (i32.const 0))",
    );
    assert_eq!(
        handle.reject_waiting_pod_value.lock().unwrap().as_deref(),
        Some(uid)
    );
}
