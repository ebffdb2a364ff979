//! `kguest-extender serve` as its own process on loopback: both verbs, both
//! node modes, replicas, mTLS, limits, failing guests, bad input, shutdown.

mod support;

use serde_json::{Value, json};
use support::*;

fn plugin_spec(name: &str, file: &str) -> String {
    format!("{name}={}", plugin(file))
}

/// `kguest-extender predict` for `pod` over `nodes`.
fn predict(profile: &[&str], pod: &Value, nodes: &[Value], dir: &std::path::Path) -> Value {
    let pod_file = dir.join("pod.json");
    let mut with_kind = pod.clone();
    with_kind["apiVersion"] = json!("v1");
    with_kind["kind"] = json!("Pod");
    std::fs::write(&pod_file, with_kind.to_string()).unwrap();
    let nodes_file = dir.join("nodes.json");
    std::fs::write(
        &nodes_file,
        json!({"apiVersion": "v1", "kind": "List", "items": nodes}).to_string(),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kguest-extender"))
        .arg("predict")
        .args(profile)
        .arg("--pod")
        .arg(&pod_file)
        .arg("--nodes")
        .arg(&nodes_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn item_names(result: &Value) -> Vec<String> {
    result["Nodes"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn cluster() -> Vec<Value> {
    vec![
        node("a-1", None),
        node("b-2", Some("gpu")),
        node("c-3", None),
        node("d-4", None),
    ]
}

#[test]
fn filter_with_nodes_runs_every_filter_and_answers_the_passing_items() {
    let dir = scratch("filter");
    let taints = plugin_spec("Taints", "taints");
    let number = plugin_spec("NodeNumber", "nodenumber");
    let profile = ["--plugin", &taints, "--plugin", &number];
    let ext = Extender::start(&[&profile[..], &["--insecure-http", "--no-node-cache"]].concat());
    let pod = pod("web-3");
    let (status, result) = post(&ext.addr, "/filter", &args_with_nodes(&pod, &cluster()));
    assert_eq!(status, 200, "{result}");
    assert_eq!(item_names(&result), ["a-1", "c-3", "d-4"]);
    assert_eq!(result["FailedNodes"], json!({}));
    let reason = result["FailedAndUnresolvableNodes"]["b-2"]
        .as_str()
        .unwrap();
    assert!(reason.contains("taint"), "{reason}");
    assert_eq!(result["Error"], "");
    assert!(result.get("NodeNames").is_none(), "{result}");

    let predicted = predict(&profile, &pod, &cluster(), &dir);
    assert_eq!(predicted["filter"]["passed"], json!(["a-1", "c-3", "d-4"]));
    assert_eq!(
        predicted["filter"]["failedAndUnresolvableNodes"],
        result["FailedAndUnresolvableNodes"]
    );
}

#[test]
fn prioritize_recomputes_cycle_state_and_answers_zero_to_ten() {
    let dir = scratch("prioritize");
    let number = plugin_spec("NodeNumber", "nodenumber");
    let profile = ["--plugin", &number];
    let ext = Extender::start(&[&profile[..], &["--insecure-http", "--no-node-cache"]].concat());
    let pod = pod("web-3");
    let nodes = [node("a-1", None), node("c-3", None), node("d-4", None)];
    let (status, result) = post(&ext.addr, "/prioritize", &args_with_nodes(&pod, &nodes));
    assert_eq!(status, 200, "{result}");
    // NodeNumber gives 10 of 100 to the node whose last digit is the pod's
    // (kept by its PreScore in the cycle state; without it every node
    // would score 10): 10/100 of the scale is priority 1.
    assert_eq!(
        result,
        json!([
            {"Host": "a-1", "Score": 0},
            {"Host": "c-3", "Score": 1},
            {"Host": "d-4", "Score": 0},
        ])
    );
    let predicted = predict(&profile, &pod, &nodes, &dir);
    assert_eq!(predicted["prioritize"], result);
    assert_eq!(predicted["chosen"], "c-3");
}

#[test]
fn two_replicas_answering_alternately_agree_with_one() {
    let taints = plugin_spec("Taints", "taints");
    let number = plugin_spec("NodeNumber", "nodenumber");
    let args = [
        "--plugin",
        &taints,
        "--plugin",
        &number,
        "--insecure-http",
        "--no-node-cache",
    ];
    let a = Extender::start(&args);
    let b = Extender::start(&args);
    for (i, name) in ["web-1", "web-2", "web-3", "web-4"].iter().enumerate() {
        let body = args_with_nodes(&pod(name), &cluster());
        let (first, second) = if i % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let (_, filtered) = post(&first.addr, "/filter", &body);
        let (_, alone) = post(&second.addr, "/filter", &body);
        assert_eq!(filtered, alone);
        let passed = json!({"Pod": pod(name), "Nodes": filtered["Nodes"]});
        let (_, other) = post(&second.addr, "/prioritize", &passed);
        let (_, same) = post(&first.addr, "/prioritize", &passed);
        assert_eq!(other, same, "pod {name}");
        let top: Vec<&str> = other
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["Score"] == 1)
            .map(|h| h["Host"].as_str().unwrap())
            .collect();
        let digit = &name[name.len() - 1..];
        let expected: Vec<&str> = ["a-1", "c-3", "d-4"]
            .into_iter()
            .filter(|n| n.ends_with(digit))
            .collect();
        assert_eq!(top, expected, "pod {name}: {other}");
    }
}

/// Polls filter by names until `check` holds (the watch is asynchronous).
fn eventually(addr: &str, names: &[&str], check: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (_, result) = post(addr, "/filter", &args_with_names(&pod("web-3"), names));
        if check(&result) {
            return result;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not seen in 30 s: {result}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn node_cache_is_ready_once_listed_and_follows_the_watch() {
    let dir = scratch("cache");
    let api = FakeApi::start(cluster(), true);
    let kubeconfig = api.kubeconfig(&dir);
    let taints = plugin_spec("Taints", "taints");
    let number = plugin_spec("NodeNumber", "nodenumber");
    let ext = Extender::start(&[
        "--plugin",
        &taints,
        "--plugin",
        &number,
        "--insecure-http",
        "--kubeconfig",
        &kubeconfig,
    ]);
    let (status, why) = get(&ext.addr, "/readyz");
    assert_eq!((status, why.trim()), (503, "node cache not synced"));
    let (_, early) = post(&ext.addr, "/filter", &args_with_names(&pod("p"), &["a-1"]));
    assert!(
        early["Error"].as_str().unwrap().contains("not synced"),
        "{early}"
    );
    api.release_list();
    ext.wait_ready();

    let (status, result) = post(
        &ext.addr,
        "/filter",
        &args_with_names(&pod("web-3"), &["a-1", "b-2", "c-3"]),
    );
    assert_eq!(status, 200);
    assert_eq!(result["NodeNames"], json!(["a-1", "c-3"]));
    assert!(result["FailedAndUnresolvableNodes"]["b-2"].is_string());
    assert!(result.get("Nodes").is_none(), "{result}");
    // Prioritize by names: NodeNumber over the cached Nodes.
    let (status, priorities) = post(
        &ext.addr,
        "/prioritize",
        &args_with_names(&pod("web-3"), &["a-1", "c-3"]),
    );
    assert_eq!(status, 200);
    assert_eq!(
        priorities,
        json!([{"Host": "a-1", "Score": 0}, {"Host": "c-3", "Score": 1}])
    );

    // Unknown names: one error naming them.
    let (status, unknown) = post(
        &ext.addr,
        "/filter",
        &args_with_names(&pod("web-3"), &["a-1", "zz-9"]),
    );
    assert_eq!(status, 200);
    let error = unknown["Error"].as_str().unwrap();
    assert!(
        error.contains("1 node name(s) not in the node cache: \"zz-9\""),
        "{error}"
    );
    let (status, text) = send(
        &ext.addr,
        "POST",
        "/prioritize",
        args_with_names(&pod("web-3"), &["zz-9"])
            .to_string()
            .as_bytes(),
    );
    assert_eq!(status, 400);
    assert!(text.contains("zz-9"), "{text}");

    // Added, changed (tainted) and deleted while running.
    let mut e5 = node("e-5", None);
    e5["metadata"]["resourceVersion"] = json!("11");
    api.event("ADDED", e5);
    eventually(&ext.addr, &["e-5"], |r| r["NodeNames"] == json!(["e-5"]));
    let mut c3 = node("c-3", Some("gpu"));
    c3["metadata"]["resourceVersion"] = json!("12");
    api.event("MODIFIED", c3);
    eventually(&ext.addr, &["c-3"], |r| {
        r["FailedAndUnresolvableNodes"]["c-3"].is_string()
    });
    api.event("DELETED", node("a-1", None));
    eventually(&ext.addr, &["a-1"], |r| {
        r["Error"]
            .as_str()
            .is_some_and(|e| e.contains("not in the node cache"))
    });
    let (_, metrics) = get(&ext.addr, "/metrics");
    assert!(
        metrics.contains("kguest_extender_node_cache_nodes 4"),
        "{metrics}"
    );
    assert!(metrics.contains("kguest_extender_node_cache_age_seconds"));
}

#[test]
fn mtls_lets_in_only_clients_of_the_configured_ca() {
    let dir = scratch("mtls");
    let server_ca = ca("server ca");
    let client_ca = ca("client ca");
    let other_ca = ca("someone else");
    let server = issue(&server_ca, &["localhost"], false);
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let cert = write("tls.crt", &server.cert_pem);
    let key = write("tls.key", &server.key_pem);
    let ca_file = write("client-ca.crt", &client_ca.pem);
    let number = plugin_spec("NodeNumber", "nodenumber");
    let ext = Extender::start(&[
        "--plugin",
        &number,
        "--no-node-cache",
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--client-ca",
        &ca_file,
    ]);
    let body = args_with_nodes(&pod("web-3"), &[node("c-3", None)]).to_string();
    let scheduler = issue(&client_ca, &["kube-scheduler"], true);
    let (status, text) = send_tls(
        &ext.addr,
        &server_ca.pem,
        Some(&scheduler),
        "POST",
        "/prioritize",
        body.as_bytes(),
    )
    .unwrap();
    assert_eq!(
        (status, text.as_str()),
        (200, r#"[{"Host":"c-3","Score":1}]"#)
    );

    let stranger = issue(&other_ca, &["kube-scheduler"], true);
    for client in [None, Some(&stranger)] {
        let refused = send_tls(
            &ext.addr,
            &server_ca.pem,
            client,
            "POST",
            "/prioritize",
            body.as_bytes(),
        );
        assert!(refused.is_err(), "{refused:?}");
    }
    // Plain HTTP on the TLS port gets no answer either.
    let mut plain = std::net::TcpStream::connect(&ext.addr).unwrap();
    std::io::Write::write_all(&mut plain, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    let _ = std::io::Read::read_to_end(&mut plain, &mut answer);
    assert!(!answer.starts_with(b"HTTP/"), "{answer:?}");
    let log = ext.log_text();
    assert!(log.contains("TLS handshake refused"), "{log}");
}

#[test]
fn bad_requests_get_one_clear_error_each() {
    let taints = plugin_spec("Taints", "taints");
    let ext = Extender::start(&[
        "--plugin",
        &taints,
        "--insecure-http",
        "--no-node-cache",
        "--max-body-bytes",
        "4000",
        "--field-validation",
        "strict",
    ]);
    let addr = &ext.addr;
    let big = args_with_nodes(
        &pod("p"),
        &(0..40)
            .map(|i| node(&format!("n-{i}"), None))
            .collect::<Vec<_>>(),
    );
    let (status, text) = send(addr, "POST", "/filter", big.to_string().as_bytes());
    assert_eq!((status, text.trim()), (413, "request body over 4000 bytes"));
    let (status, text) = send(addr, "POST", "/filter", b"{\"Pod\": ");
    assert_eq!(status, 400);
    assert!(text.starts_with("malformed request: EOF"), "{text}");
    let (status, text) = send(addr, "POST", "/prioritize", b"[1, 2]");
    assert_eq!(status, 400);
    assert!(
        text.starts_with("malformed request: invalid type"),
        "{text}"
    );

    let (status, r) = post(addr, "/filter", &json!({"Nodes": {"items": []}}));
    assert_eq!(
        (status, r["Error"].as_str()),
        (200, Some("invalid request: no Pod"))
    );
    let (status, r) = post(addr, "/filter", &json!({"Pod": pod("p")}));
    assert_eq!(
        (status, r["Error"].as_str()),
        (
            200,
            Some("invalid request: neither Nodes nor NodeNames is set")
        )
    );
    let (status, r) = post(addr, "/filter", &args_with_names(&pod("p"), &["a"]));
    assert_eq!(status, 200);
    assert!(
        r["Error"]
            .as_str()
            .unwrap()
            .contains("this extender runs without a node cache"),
        "{r}"
    );
    let mut odd = node("a-1", None);
    odd["spec"] = json!({"futureField": true});
    let (status, r) = post(addr, "/filter", &args_with_nodes(&pod("p"), &[odd]));
    assert_eq!(status, 200);
    let error = r["Error"].as_str().unwrap();
    assert!(
        error.starts_with("invalid request: Nodes.items[0]:") && error.contains("futureField"),
        "{error}"
    );
    let twice = [node("a-1", None), node("a-1", None)];
    let (_, r) = post(addr, "/filter", &args_with_nodes(&pod("p"), &twice));
    assert!(
        r["Error"].as_str().unwrap().contains("in the list twice"),
        "{r}"
    );
    assert_eq!(send(addr, "GET", "/filter", b"").0, 405);
    assert_eq!(send(addr, "GET", "/nothing", b"").0, 404);
    // The server is still up.
    assert_eq!(get(addr, "/healthz"), (200, "ok\n".to_string()));
}

#[test]
fn field_validation_warn_drops_unknown_fields_and_counts_them() {
    let taints = plugin_spec("Taints", "taints");
    let ext = Extender::start(&["--plugin", &taints, "--insecure-http", "--no-node-cache"]);
    let mut odd = node("a-1", None);
    odd["spec"] = json!({"futureField": true});
    let mut future_pod = pod("p");
    future_pod["spec"]["futurePodField"] = json!(1);
    let (status, r) = post(&ext.addr, "/filter", &args_with_nodes(&future_pod, &[odd]));
    assert_eq!(status, 200);
    assert_eq!(item_names(&r), ["a-1"]);
    let (_, metrics) = get(&ext.addr, "/metrics");
    assert!(
        metrics.contains("kguest_extender_unknown_fields_total 2"),
        "{metrics}"
    );
}

fn wat_plugin(dir: &std::path::Path, name: &str, filter_body: &str) -> String {
    let wasm = wat::parse_str(format!(
        r#"(module (memory (export "memory") 1)
             (func (export "filter") (result i32) {filter_body}))"#
    ))
    .unwrap();
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, wasm).unwrap();
    format!("{name}={}", path.display())
}

#[test]
fn a_failing_guest_fails_its_nodes_not_the_server() {
    let dir = scratch("traps");
    let cases = [
        (
            "Trap",
            "unreachable",
            "wasm trap: wasm `unreachable` instruction executed",
        ),
        ("Spin", "(loop br 0) i32.const 0", "deadline"),
        (
            "Hungry",
            "(drop (memory.grow (i32.const 600))) i32.const 0",
            "memory",
        ),
    ];
    for (name, body, expected) in cases {
        let spec = wat_plugin(&dir, name, body);
        let number = plugin_spec("NodeNumber", "nodenumber");
        let ext = Extender::start(&[
            "--plugin",
            &spec,
            "--plugin",
            &number,
            "--insecure-http",
            "--no-node-cache",
            "--call-timeout",
            "100ms",
            "--guest-memory-limit",
            "16777216",
        ]);
        let nodes = [node("a-1", None), node("c-3", None)];
        let (status, r) = post(
            &ext.addr,
            "/filter",
            &args_with_nodes(&pod("web-3"), &nodes),
        );
        assert_eq!(status, 200, "{name}: {r}");
        assert_eq!(r["Nodes"]["items"], json!([]), "{name}: {r}");
        for n in ["a-1", "c-3"] {
            let reason = r["FailedAndUnresolvableNodes"][n].as_str().unwrap_or("");
            assert!(
                reason.starts_with(&format!("kguest plugin {name}: filter failed:"))
                    && reason.to_lowercase().contains(expected),
                "{name} on {n}: {reason}"
            );
        }
        // Prioritize runs the other plugin as usual.
        let (status, p) = post(
            &ext.addr,
            "/prioritize",
            &args_with_nodes(&pod("web-3"), &nodes),
        );
        assert_eq!(
            (status, p[1]["Score"].as_i64()),
            (200, Some(1)),
            "{name}: {p}"
        );
        assert_eq!(get(&ext.addr, "/healthz").0, 200);
        let (_, metrics) = get(&ext.addr, "/metrics");
        assert!(
            metrics.contains(&format!(
                "kguest_extender_guest_failures_total{{plugin=\"{name}\"}} 2"
            )),
            "{name}: {metrics}"
        );
    }
}

#[test]
fn sigterm_drains_and_exits_cleanly() {
    let number = plugin_spec("NodeNumber", "nodenumber");
    let ext = Extender::start(&["--plugin", &number, "--insecure-http", "--no-node-cache"]);
    assert_eq!(get(&ext.addr, "/readyz").0, 200);
    let log = ext.log.clone();
    let status = ext.terminate();
    assert!(status.success(), "{status:?}");
    let log = log.lock().unwrap().join("\n");
    assert!(log.contains("shutting down: draining connections"), "{log}");
    assert!(log.contains("all connections closed"), "{log}");
}

#[test]
fn startup_errors_are_one_line() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kguest-extender"))
        .args([
            "serve",
            "--plugin",
            "X=/nonexistent.wasm",
            "--insecure-http",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("kguest-extender: --plugin X=/nonexistent.wasm: /nonexistent.wasm:"),
        "{err}"
    );
    let number = plugin_spec("NodeNumber", "nodenumber");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kguest-extender"))
        .args(["serve", "--plugin", &number])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "kguest-extender: give --tls-cert, --tls-key and --client-ca (mTLS), or --insecure-http"
    );
}

#[test]
fn a_request_past_its_deadline_gets_503() {
    let dir = scratch("deadline");
    let spec = wat_plugin(&dir, "Slow", "(loop br 0) i32.const 0");
    let ext = Extender::start(&[
        "--plugin",
        &spec,
        "--insecure-http",
        "--no-node-cache",
        "--call-timeout",
        "3s",
        "--request-timeout",
        "200ms",
    ]);
    let body = args_with_nodes(&pod("p"), &[node("a-1", None)]).to_string();
    let (status, text) = send(&ext.addr, "POST", "/filter", body.as_bytes());
    assert_eq!(
        (status, text.trim()),
        (503, "request deadline exceeded (200ms)")
    );
    assert_eq!(get(&ext.addr, "/healthz").0, 200);
}
