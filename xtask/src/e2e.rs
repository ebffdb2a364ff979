//! `cargo xtask e2e [--full]`: the real kube-scheduler (k8s.io/kubernetes
//! v1.33.4, as kube-scheduler-wasm-extension pins it) with KSW's wasm plugin
//! registered as KSW's cmd/scheduler registers it, against an embedded etcd
//! and an in-process kube-apiserver on 127.0.0.1 (`tests/ksw-e2e`).
//!
//! * `check`: docs/deploy.md's KubeSchedulerConfiguration through the
//!   scheduler's own config loader and validation; then the scheduler runs
//!   it (guestURLs pointed at the examples; upstream's TinyGo nodenumber as
//!   a control profile) and every pod must be bound to a node `kguest run
//!   --scheduler-config` picks for the same profile and objects. Prints `ksw e2e: N/M
//!   pods bound through KSW's wasm plugin ... where kguest run picks`.
//! * `perf`: scheduler_perf-style throughput, one process, one variant after
//!   another (default profile; native NodeNumber; KSW with upstream's TinyGo
//!   nodenumber, without and with events; KSW with kguest's nodenumber; KSW
//!   with kguest's fit and nodenumber). The short case (50 nodes, no
//!   initial pods, 100 measured) runs in `cargo xtask test`, the full one
//!   (500 nodes, 500 + 1,000 pods, KSW's scheduler_perf shape; three rounds
//!   interleaved, medians) with `--full`.

use crate::{cargo, examples, golang, paths, vendor};

const MODULE: &str = "tests/ksw-e2e";

/// `perf`'s full run: KSW's scheduler_perf shape (500 nodes, 500 initial
/// pods, 1,000 measured), three rounds interleaved (medians).
pub const FULL_SHAPE: &[&str] = &[
    "--nodes",
    "500",
    "--init",
    "500",
    "--measured",
    "1000",
    "--rounds",
    "3",
];

/// What `cargo xtask test` runs: the correctness check and the short
/// throughput case, failing on any mismatch.
pub fn in_test() -> Result<(), String> {
    run_e2e(false)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let full = match args {
        [] => false,
        [flag] if flag == "--full" => true,
        _ => return Err("usage: cargo xtask e2e [--full]".into()),
    };
    run_e2e(full)
}

fn run_e2e(full: bool) -> Result<(), String> {
    let started = std::time::Instant::now();
    // The harness's go.mod replaces KSW's module with proto-vendor/ksw/scheduler;
    // the TinyGo guests come from the same folder.
    let ksw = vendor::ensure_ksw_vendored()?;
    let ksw = ksw.to_string_lossy();
    let harness = golang::build(MODULE, ".", "ksw-e2e")?;
    cargo::cargo(&["build", "--quiet", "-p", "kguest-cli"])?;
    let kguest = paths::target_dir().join("debug").join("kguest");
    let plugins = examples::plugin_dir();
    let used = ["nodenumber", "fit", "taints", "imagelocality"];
    if used
        .iter()
        .any(|name| !plugins.join(format!("{name}.wasm")).is_file())
    {
        examples::build_all()?;
    }
    let deploy = paths::root().join("docs").join("deploy.md");
    golang::run_harness(
        &harness,
        &[
            "check",
            "--kguest",
            &kguest.to_string_lossy(),
            "--plugins",
            &plugins.to_string_lossy(),
            "--deploy",
            &deploy.to_string_lossy(),
            "--ksw",
            &ksw,
        ],
    )?;
    let plugins = plugins.to_string_lossy();
    let shape: &[&str] = if full {
        FULL_SHAPE
    } else {
        &["--nodes", "50", "--init", "0", "--measured", "100"]
    };
    let mut perf = vec!["perf", "--plugins", &plugins, "--ksw", &ksw];
    perf.extend_from_slice(shape);
    golang::run_harness(&harness, &perf)?;
    eprintln!("e2e: done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
