//! `kguest-perf`: scheduling throughput in the spirit of kube-scheduler's
//! scheduler_perf. Generates a deterministic cluster, schedules every pod
//! once (one full cycle over all nodes) through a plugin set, on all cores,
//! and reports pods per second for:
//!
//! * `kguest`: the example plugins as wasm guests in kguest-host;
//! * `native`: the same plugins compiled natively (examples' rlibs through
//!   the SDK's `TestHost`);
//! * `tinygo`: kube-scheduler-wasm-extension's TinyGo guests in place of
//!   ours where one exists (its filter test guest, arg `filter`, for
//!   nodename; its nodenumber example), ours for the rest.
//!
//! Plugin set: Filter nodename, taints, fit; Score imagelocality,
//! nodenumber (config `{"reverse": false}` for both implementations).
//! Run it through `cargo xtask perf`, which builds the guests first.

mod cluster;
mod native;
mod sched;
mod wasm;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use kguest_host::{Runtime, RuntimeConfig, Snapshot};

use crate::sched::Decision;

const USAGE: &str = "\
usage: kguest-perf --plugin-dir DIR [--ksw-dir DIR] [--nodes N] [--pods N] [--threads N] [--seed N]

  --plugin-dir DIR  the example plugins built for wasm32 (nodename.wasm, ...)
  --ksw-dir DIR     kube-scheduler-wasm-extension's material (adds the tinygo run)
  --nodes N         cluster size (default 500)
  --pods N          pods to schedule, one cycle each (default 1000)
  --threads N       scheduling threads (default: all cores)
  --seed N          cluster seed (default 1)
";

struct Options {
    plugin_dir: PathBuf,
    ksw_dir: Option<PathBuf>,
    nodes: usize,
    pods: usize,
    threads: usize,
    seed: u64,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        plugin_dir: PathBuf::new(),
        ksw_dir: None,
        nodes: 500,
        pods: 1000,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        seed: 1,
    };
    let mut plugin_dir = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        let number = |v: String| -> Result<u64, String> {
            v.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{arg}: `{v}` is not a positive number"))
        };
        match arg.as_str() {
            "--plugin-dir" => plugin_dir = Some(PathBuf::from(value()?)),
            "--ksw-dir" => o.ksw_dir = Some(PathBuf::from(value()?)),
            "--nodes" => o.nodes = number(value()?)? as usize,
            "--pods" => o.pods = number(value()?)? as usize,
            "--threads" => o.threads = number(value()?)? as usize,
            "--seed" => o.seed = number(value()?)?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    o.plugin_dir = plugin_dir.ok_or("missing --plugin-dir")?;
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(o) => o,
        Err(msg) if msg.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("error: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &std::path::Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|err| format!("{}: {err}", path.display()))
}

/// Resident set size of this process, current and peak, in bytes.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Measured {
    label: &'static str,
    decisions: Vec<Decision>,
    pods_per_second: f64,
}

fn run(o: &Options) -> Result<(), String> {
    let t = std::time::Instant::now();
    let cluster = cluster::generate(o.nodes, o.pods, o.seed);
    let node_bytes: usize = cluster.nodes.iter().map(|n| n.bytes.len()).sum();
    let pod_bytes: usize = cluster.pods.iter().map(Vec::len).sum();
    println!(
        "cluster: {} nodes ({} KB of protobuf), {} pods ({} KB), seed {}, generated in {:.1} s",
        o.nodes,
        node_bytes / 1024,
        o.pods,
        pod_bytes / 1024,
        o.seed,
        t.elapsed().as_secs_f64()
    );
    // The host computes the node list and image states as the scheduler's
    // cache does.
    let snapshot = Snapshot::from_nodes(cluster.nodes.iter().map(|n| n.bytes.clone()))
        .map_err(|e| format!("generated nodes: {e}"))?;
    let snapshot = Arc::new(snapshot);
    let pods: Vec<Arc<[u8]>> = cluster.pods.iter().map(|p| Arc::from(&p[..])).collect();
    let nodenumber_config = br#"{"reverse": false}"#.to_vec();

    let runtime = Runtime::new(RuntimeConfig::default()).map_err(|e| e.to_string())?;
    let ours = |name: &str| -> Result<wasm::Guest, String> {
        Ok(wasm::Guest {
            label: format!("kguest {name}"),
            wasm: read(&o.plugin_dir.join(format!("{name}.wasm")))?,
            config: if name == "nodenumber" {
                nodenumber_config.clone()
            } else {
                Vec::new()
            },
            args: Vec::new(),
        })
    };
    let mut results = Vec::new();

    // kguest in kguest-host.
    let loaded = Arc::new(wasm::Loaded::new(
        &runtime,
        vec![ours("nodename")?, ours("taints")?, ours("fit")?],
        vec![ours("imagelocality")?, ours("nodenumber")?],
        snapshot.clone(),
        pods.clone(),
        o.threads,
    )?);
    let (decisions, elapsed) = sched::run(|| Ok(loaded.set()), o.pods, o.nodes, o.threads)?;
    results.push(Measured {
        label: "kguest",
        decisions,
        pods_per_second: o.pods as f64 / elapsed.as_secs_f64(),
    });
    let memory = loaded.instance_memory();
    drop(loaded);

    // Natively.
    let native_nodes: Vec<(String, Vec<u8>)> = cluster
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.bytes.clone()))
        .collect();
    let native_pods = Arc::new(cluster.pods.clone());
    let (decisions, elapsed) = sched::run(
        || {
            Ok(native::NativeSet::new(
                &native_nodes,
                native_pods.clone(),
                &nodenumber_config,
            ))
        },
        o.pods,
        o.nodes,
        o.threads,
    )?;
    results.push(Measured {
        label: "native",
        decisions,
        pods_per_second: o.pods as f64 / elapsed.as_secs_f64(),
    });

    // Upstream's TinyGo guests where one exists.
    let mut tinygo_memory = Vec::new();
    if let Some(dir) = &o.ksw_dir {
        let filter = wasm::Guest {
            label: "tinygo filter (arg filter)".into(),
            wasm: read(&dir.join("guest/testdata/filter/main.wasm"))?,
            config: Vec::new(),
            // The guest's argv, as KSW's PluginConfig.Args: the guest reads
            // os.Args[1].
            args: vec!["main.wasm".into(), "filter".into()],
        };
        let nodenumber = wasm::Guest {
            label: "tinygo nodenumber".into(),
            wasm: read(&dir.join("examples/nodenumber/main.wasm"))?,
            config: nodenumber_config.clone(),
            args: Vec::new(),
        };
        let loaded = Arc::new(wasm::Loaded::new(
            &runtime,
            vec![filter, ours("taints")?, ours("fit")?],
            vec![ours("imagelocality")?, nodenumber],
            snapshot.clone(),
            pods.clone(),
            o.threads,
        )?);
        let (decisions, elapsed) = sched::run(|| Ok(loaded.set()), o.pods, o.nodes, o.threads)?;
        results.push(Measured {
            label: "tinygo",
            decisions,
            pods_per_second: o.pods as f64 / elapsed.as_secs_f64(),
        });
        tinygo_memory = loaded.instance_memory();
    }

    let (rss_now, rss_peak) = rss();
    report(o, &results, &memory, &tinygo_memory, rss_now, rss_peak)
}

fn report(
    o: &Options,
    results: &[Measured],
    memory: &[(String, usize, usize)],
    tinygo_memory: &[(String, usize, usize)],
    rss_now: u64,
    rss_peak: u64,
) -> Result<(), String> {
    let reference = &results[0];
    let scheduled = reference
        .decisions
        .iter()
        .filter(|d| d.node.is_some())
        .count();
    let feasible: u64 = reference
        .decisions
        .iter()
        .map(|d| u64::from(d.feasible))
        .sum();
    println!(
        "decisions: {scheduled}/{} pods scheduled, {:.1} feasible nodes per pod on average, {} threads",
        o.pods,
        feasible as f64 / o.pods.max(1) as f64,
        o.threads
    );
    let mut mismatch = None;
    for r in results {
        let differ = r
            .decisions
            .iter()
            .zip(&reference.decisions)
            .filter(|(a, b)| a != b)
            .count();
        println!(
            "{:>7}: {:>9.1} pods/s, decisions {}",
            r.label,
            r.pods_per_second,
            if differ == 0 {
                "identical to kguest's".to_string()
            } else {
                format!("differ from kguest's for {differ} pods")
            }
        );
        if differ > 0 && r.label == "native" {
            mismatch = Some(differ);
        }
    }
    for (what, list) in [("kguest", memory), ("tinygo", tinygo_memory)] {
        for (label, instances, bytes) in list {
            if *instances > 0 {
                println!(
                    "memory: {label}: {instances} pooled instances, {} KiB linear memory each",
                    bytes / instances / 1024
                );
            }
        }
        let _ = what;
    }
    println!(
        "memory: process RSS {} MiB now, {} MiB peak",
        rss_now >> 20,
        rss_peak >> 20
    );
    let line = |name: &str, other: &Measured| {
        println!(
            "throughput {} nodes x {} pods: kguest {:.0} pods/s, {name} {:.0} pods/s, ratio {:.2}",
            o.nodes,
            o.pods,
            reference.pods_per_second,
            other.pods_per_second,
            reference.pods_per_second / other.pods_per_second
        );
    };
    for r in &results[1..] {
        line(r.label, r);
    }
    match mismatch {
        Some(n) => Err(format!(
            "the native build decided differently from the wasm build for {n} pods"
        )),
        None => Ok(()),
    }
}
