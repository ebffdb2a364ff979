//! The example host end to end, with a small filter that rejects `node-b`
//! and scores every node by the length of its name.

use kguest_k8s::envelope;

fn plugin() -> Vec<u8> {
    wat::parse_str(
        r#"(module
          (import "k8s.io/scheduler" "currentNodeName" (func $name (param i32 i32) (result i32)))
          (memory (export "memory") 1)
          (func (export "filter") (result i32)
            (drop (call $name (i32.const 0) (i32.const 64)))
            ;; "node-b": reject with Unschedulable (2)
            (if (result i32) (i32.eq (i32.load8_u (i32.const 5)) (i32.const 98))
              (then (i32.const 2)) (else (i32.const 0))))
          (func (export "score") (result i64)
            (i64.shl (i64.extend_i32_u (call $name (i32.const 0) (i32.const 64))) (i64.const 32))))"#,
    )
    .unwrap()
}

fn json(kind: &str, name: &str) -> Vec<u8> {
    format!(r#"{{"apiVersion":"v1","kind":"{kind}","metadata":{{"name":"{name}"}}}}"#).into_bytes()
}

fn enveloped(kind: &str, name: &str) -> Vec<u8> {
    let raw = host_embed::object_bytes(&json(kind, name)).unwrap();
    envelope::wrap("v1", kind, &raw)
}

#[test]
fn schedules_json_and_enveloped_objects() {
    let nodes = [
        enveloped("Node", "node-a"),
        json("Node", "node-b"),
        json("Node", "node-ccc"),
    ];
    let out = host_embed::schedule(&plugin(), &enveloped("Pod", "p"), &nodes).unwrap();
    assert_eq!(
        out,
        "node-a Success 6\nnode-b Unschedulable -\nnode-ccc Success 8\n"
    );
}

#[test]
fn a_node_envelope_given_as_the_pod_is_an_error() {
    let nodes = [json("Node", "node-a")];
    let err = host_embed::schedule(&plugin(), &enveloped("Node", "x"), &nodes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected an enveloped v1 Pod, found v1/Node"
    );
}
