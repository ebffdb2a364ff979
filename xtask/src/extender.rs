//! `cargo xtask extender-load`: a bounded load test of `kguest-extender`
//! (release build, its own process on loopback): filter and prioritize
//! requests carrying N Nodes as JSON (`nodeCacheCapable: false`) from
//! parallel clients; prints latency percentiles, errors, and where a
//! request's time goes (the server's own phase histograms). Numbers go to
//! docs/benchmarks.md; nothing here asserts a time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{examples, paths};

struct Options {
    nodes: usize,
    requests: usize,
    clients: usize,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        nodes: 500,
        requests: 200,
        clients: 4,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match a.as_str() {
            "--nodes" => o.nodes = value("--nodes")?,
            "--requests" => o.requests = value("--requests")?,
            "--clients" => o.clients = value("--clients")?.max(1),
            other => {
                return Err(format!(
                    "usage: cargo xtask extender-load [--nodes N] [--requests N] [--clients N] (unknown `{other}`)"
                ));
            }
        }
    }
    Ok(o)
}

/// A Node shaped like a kubelet's: labels, capacity, conditions, images.
fn node(i: usize) -> Value {
    let name = format!("node-{i}");
    let conditions: Vec<Value> = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
        .iter()
        .map(|t| {
            json!({"type": t, "status": if *t == "Ready" {"True"} else {"False"},
                   "lastHeartbeatTime": "2026-12-03T04:00:00Z",
                   "lastTransitionTime": "2026-11-01T00:00:00Z",
                   "reason": format!("Kubelet{t}"), "message": format!("kubelet reports {t}")})
        })
        .collect();
    let images: Vec<Value> = (0..10)
        .map(|k| {
            json!({"names": [format!("registry.example.com/team/app-{k}@sha256:{:064x}", k * 7919 + i),
                             format!("registry.example.com/team/app-{k}:v1.{k}")],
                   "sizeBytes": 10_000_000 + k * 1_000_003})
        })
        .collect();
    let mut n = json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("00000000-0000-0000-0000-{i:012}"),
                     "resourceVersion": format!("{}", 1000 + i),
                     "creationTimestamp": "2026-11-01T00:00:00Z",
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                "kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": format!("zone-{}", i % 3),
                                "node.kubernetes.io/instance-type": "m5.xlarge"},
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": format!("10.{}.{}.0/24", i / 256, i % 256)},
        "status": {
            "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {"cpu": "3800m", "memory": "15Gi", "pods": "110", "ephemeral-storage": "90Gi"},
            "conditions": conditions,
            "addresses": [{"type": "InternalIP", "address": format!("10.0.{}.{}", i / 256, i % 256)},
                          {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.8.0",
                         "osImage": "Ubuntu 24.04", "containerRuntimeVersion": "containerd://2.0.0",
                         "kubeletVersion": "v1.36.3", "kubeProxyVersion": "", "operatingSystem": "linux",
                         "architecture": "amd64"},
            "images": images,
        },
    });
    if i.is_multiple_of(10) {
        n["spec"]["taints"] = json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
    }
    n
}

fn post(addr: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    s.write_all(body).map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    let at = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no header end")?;
    let status = String::from_utf8_lossy(&raw[..at])
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    Ok((status, raw[at + 4..].to_vec()))
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_secs_f64() * 1000.0
}

/// `name{labels} value` from OpenMetrics text.
fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let o = options(args)?;
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "-p", "kguest-extender"])
        .current_dir(paths::root())
        .status()
        .map_err(|e| format!("cargo: {e}"))?;
    if !status.success() {
        return Err("building kguest-extender failed".into());
    }
    let binary = paths::target_dir().join("release/kguest-extender");
    let plugins = examples::plugin_dir();
    let (taints, number) = (plugins.join("taints.wasm"), plugins.join("nodenumber.wasm"));
    for p in [&taints, &number] {
        if !p.is_file() {
            return Err(format!(
                "{} is missing: run `cargo xtask examples` first",
                p.display()
            ));
        }
    }
    let mut child = Command::new(&binary)
        .arg("serve")
        .arg(format!("--plugin=Taints={}", taints.display()))
        .arg(format!("--plugin=NodeNumber={}", number.display()))
        .args([
            "--insecure-http",
            "--no-node-cache",
            "--listen",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let Some(Ok(line)) = lines.next() else {
            let _ = child.kill();
            return Err("kguest-extender exited before listening".into());
        };
        if let Ok(v) = serde_json::from_str::<Value>(&line)
            && let Some(a) = v["fields"]["address"].as_str()
        {
            break a.to_string();
        }
    };
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let result = measure(&o, &addr);
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn measure(o: &Options, addr: &str) -> Result<(), String> {
    let nodes: Vec<Value> = (0..o.nodes).map(node).collect();
    let pods: Vec<Value> = (0..10)
        .map(|k| json!({"metadata": {"name": format!("pod-{k}"), "namespace": "default", "uid": format!("u{k}")},
                         "spec": {"containers": [{"name": "c", "image": "busybox",
                                  "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}))
        .collect();
    let bodies: Vec<Vec<u8>> = pods
        .iter()
        .map(|p| {
            json!({"Pod": p, "Nodes": {"metadata": {}, "items": nodes}})
                .to_string()
                .into_bytes()
        })
        .collect();
    let size = bodies[0].len();
    for verb in ["filter", "prioritize"] {
        // Warm-up: instances and caches.
        for b in bodies.iter().take(4) {
            post(addr, &format!("/{verb}"), b)?;
        }
        let mut lines = Vec::new();
        for clients in [1, o.clients] {
            let per = o.requests / clients;
            let start = Instant::now();
            let handles: Vec<_> = (0..clients)
                .map(|c| {
                    let bodies = bodies.clone();
                    let addr = addr.to_string();
                    let verb = verb.to_string();
                    std::thread::spawn(move || {
                        let mut times = Vec::new();
                        let mut errors = 0;
                        for r in 0..per {
                            let t = Instant::now();
                            match post(&addr, &format!("/{verb}"), &bodies[(c + r) % bodies.len()])
                            {
                                Ok((200, body))
                                    if !String::from_utf8_lossy(&body)
                                        .contains("\"Error\":\"invalid") =>
                                {
                                    times.push(t.elapsed())
                                }
                                _ => errors += 1,
                            }
                        }
                        (times, errors)
                    })
                })
                .collect();
            let mut times = Vec::new();
            let mut errors = 0;
            for h in handles {
                let (t, e) = h.join().map_err(|_| "client thread panicked")?;
                times.extend(t);
                errors += e;
            }
            let wall = start.elapsed().as_secs_f64();
            times.sort();
            lines.push(format!(
                "{verb}, {clients} client(s): p50 {:.1} ms, p99 {:.1} ms, {:.0} requests/s, {errors} errors of {}",
                percentile(&times, 0.5),
                percentile(&times, 0.99),
                times.len() as f64 / wall,
                per * clients
            ));
        }
        for l in lines {
            println!(
                "extender load ({} nodes as JSON, {size} bytes): {l}",
                o.nodes
            );
        }
    }
    let text = String::from_utf8_lossy(&get_metrics(addr)?).into_owned();
    let phase = |p: &str| {
        let sum = metric(
            &text,
            &format!("kguest_extender_request_phase_seconds_sum{{phase=\"{p}\"}}"),
        );
        let count = metric(
            &text,
            &format!("kguest_extender_request_phase_seconds_count{{phase=\"{p}\"}}"),
        );
        if count > 0.0 {
            sum / count * 1000.0
        } else {
            0.0
        }
    };
    println!(
        "extender load: per answered request (both verbs, all runs): JSON -> protobuf + snapshot {:.1} ms, plugins + answer {:.1} ms",
        phase("decode"),
        phase("plugins")
    );
    Ok(())
}

fn get_metrics(addr: &str) -> Result<Vec<u8>, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    Ok(raw)
}
