//! Filter: WebAssembly workloads go only to nodes that can run them.
//!
//! A pod is a wasm workload when its annotations ask for a wasm-capable
//! OCI runtime: `module.wasm.image/variant` is `compat` or `compat-smart`
//! (crun/youki image variants), or `run.oci.handler` is `wasm` or
//! `wasm-smart` (crun's handler annotation). Such a pod fits only nodes that
//! carry the label `wasm.kguest.dev/runtime` (any value); other pods fit
//! everywhere. The label key is configurable: `{"nodeLabel": "my/key"}`.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::{Cycle, Filter, Plugin, Status, json};

/// The node label that marks a wasm-capable node, unless configured.
pub const DEFAULT_LABEL: &str = "wasm.kguest.dev/runtime";

pub struct WasmRuntime {
    label: &'static str,
}

impl Plugin for WasmRuntime {
    fn new() -> Self {
        let label = json::get(kguest::config(), "nodeLabel").and_then(json::as_str);
        WasmRuntime {
            label: label.filter(|l| !l.is_empty()).unwrap_or(DEFAULT_LABEL),
        }
    }
}

impl Filter for WasmRuntime {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let Some(meta) = cx.pod().and_then(|p| p.metadata()) else {
            return Status::success();
        };
        let annotations = meta.annotations();
        if !wants_wasm(|k| annotations.get(k)) {
            return Status::success();
        }
        let labelled = cx
            .node()
            .and_then(|n| n.metadata())
            .is_some_and(|m| m.labels().contains_key(self.label));
        if labelled {
            Status::success()
        } else {
            Status::unresolvable("node(s) have no WebAssembly runtime")
        }
    }
}

/// True when the annotations ask for a wasm runtime.
fn wants_wasm<'a>(annotation: impl Fn(&str) -> Option<&'a str>) -> bool {
    matches!(
        annotation("module.wasm.image/variant"),
        Some("compat" | "compat-smart")
    ) || matches!(annotation("run.oci.handler"), Some("wasm" | "wasm-smart"))
}

kguest::export!(WasmRuntime => [filter]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Code;
    use kguest::testing::TestHost;
    use kguest::testing::proto::{NodeBuilder, PodBuilder};

    fn host(config: Option<&str>) -> TestHost {
        let host = TestHost::new();
        if let Some(c) = config {
            host.set_config(c);
        }
        host.add_node(
            "plain",
            NodeBuilder::new("plain")
                .label("kubernetes.io/os", "linux")
                .build(),
        );
        host.add_node(
            "wasm",
            NodeBuilder::new("wasm")
                .label(DEFAULT_LABEL, "crun")
                .build(),
        );
        host.add_node(
            "custom",
            NodeBuilder::new("custom")
                .label("example.com/wasm", "")
                .build(),
        );
        host
    }

    fn fits(host: &TestHost, pod: PodBuilder, node: &str) -> bool {
        host.set_pod(pod.build());
        let mut p = WasmRuntime::new();
        host.new_cycle(&mut p);
        let out = host.filter_node(&mut p, node);
        if !out.is_success() {
            assert_eq!(out.code(), Ok(Code::UnschedulableAndUnresolvable));
            assert_eq!(out.reason(), "node(s) have no WebAssembly runtime");
        }
        out.is_success()
    }

    #[test]
    fn wasm_variants_need_the_label() {
        let h = host(None);
        for (k, v) in [
            ("module.wasm.image/variant", "compat"),
            ("module.wasm.image/variant", "compat-smart"),
            ("run.oci.handler", "wasm"),
            ("run.oci.handler", "wasm-smart"),
        ] {
            let pod = || PodBuilder::new("p").annotation(k, v);
            assert!(fits(&h, pod(), "wasm"), "{k}={v}");
            assert!(!fits(&h, pod(), "plain"), "{k}={v}");
            assert!(!fits(&h, pod(), "missing-node"), "{k}={v}");
        }
    }

    #[test]
    fn other_pods_fit_everywhere_without_reading_the_node() {
        let h = host(None);
        assert!(fits(&h, PodBuilder::new("p"), "plain"));
        assert!(fits(
            &h,
            PodBuilder::new("p").annotation("run.oci.handler", "runc"),
            "plain"
        ));
        assert!(fits(
            &h,
            PodBuilder::new("p").annotation("module.wasm.image/variant", "other"),
            "plain"
        ));
        assert_eq!(h.calls("node"), 0);
        h.set_pod(Vec::new());
        assert!(h.filter_node(&mut WasmRuntime::new(), "plain").is_success());
    }

    #[test]
    fn label_key_is_configurable() {
        let h = host(Some(r#"{"nodeLabel": "example.com/wasm"}"#));
        let pod = || PodBuilder::new("p").annotation("run.oci.handler", "wasm");
        assert!(fits(&h, pod(), "custom"));
        assert!(!fits(&h, pod(), "wasm"));
        let h = host(Some(r#"{"nodeLabel": ""}"#));
        assert!(fits(&h, pod(), "wasm"));
    }
}
