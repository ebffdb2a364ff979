//! `cargo xtask extender-e2e [--full]`: the real kube-scheduler of each
//! Kubernetes release in `RELEASES` as the judge of `kguest-extender`
//! (`tests/extender-e2e`): an embedded etcd and an in-process kube-apiserver
//! (RBAC on) on 127.0.0.1, deploy/extender's RBAC applied, the extender as
//! its own process with that service account's token and mTLS, the
//! scheduler configured from deploy/extender's extender block.
//!
//! Prints, per release, `extender e2e <release>: N/M pods bound where
//! kguest predicts` (every pod bound where `kguest-extender predict` says,
//! over Nodes added, changed and deleted while both run, with Nodes cached
//! and sent in full) and the fault lines (`ignorable: false`: nothing bound
//! while the extender is down, all bound where predicted after its restart;
//! `ignorable: true`: all bound while it is down). The short form runs in
//! `cargo xtask test`; `--full` adds, per release, the throughput run in
//! KSW's scheduler_perf shape (500 nodes, 500 initial pods, 1,000 measured;
//! three rounds interleaved, medians): the default profile, + the native Go
//! NodeNumber, + kguest-extender (release build), and on 1.33.4 + KSW's
//! wasm plugin with upstream's TinyGo and kguest's nodenumber; on 1.37.2 the
//! scheduler's opportunistic-batching counters per variant.

use std::path::Path;

use crate::{cargo, examples, golang, paths, vendor};

/// A release: its Go module (requiring the shared `harness` module), the
/// binary built from it, and the arguments before `check`/`perf` (1.33.4's
/// module is tests/ksw-e2e, whose binary serves KSW's route too).
struct Release {
    module: &'static str,
    binary: &'static str,
    command: &'static [&'static str],
    /// Its perf also times KSW's wasm plugin (`--ksw proto-vendor/ksw`).
    ksw: bool,
}

const RELEASES: &[Release] = &[
    Release {
        module: "tests/ksw-e2e",
        binary: "ksw-e2e",
        command: &["extender"],
        ksw: true,
    },
    Release {
        module: "tests/extender-e2e/k8s-1.37",
        binary: "extender-e2e-1.37",
        command: &[],
        ksw: false,
    },
];

/// The Go modules of this harness (beside tests/ksw-e2e), for `go-lint`.
pub const MODULES: &[&str] = &["tests/extender-e2e/harness", "tests/extender-e2e/k8s-1.37"];

/// What `cargo xtask test` runs.
pub fn in_test() -> Result<(), String> {
    run_all(false)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let full = match args {
        [] => false,
        [flag] if flag == "--full" => true,
        _ => return Err("usage: cargo xtask extender-e2e [--full]".into()),
    };
    run_all(full)
}

fn run_all(full: bool) -> Result<(), String> {
    let started = std::time::Instant::now();
    // tests/ksw-e2e (1.33.4's module) replaces KSW's module with
    // proto-vendor/ksw/scheduler.
    let ksw = vendor::ensure_ksw_vendored()?;
    cargo::cargo(&["build", "--quiet", "-p", "kguest-extender"])?;
    let extender = paths::target_dir().join("debug").join("kguest-extender");
    let plugins = examples::plugin_dir();
    if !plugins.join("nodenumber.wasm").is_file() || !plugins.join("taints.wasm").is_file() {
        examples::build_all()?;
    }
    let deploy = paths::root().join("deploy").join("extender");
    // The throughput run times the release build, as users run it.
    let release_extender = if full {
        cargo::cargo(&["build", "--quiet", "--release", "-p", "kguest-extender"])?;
        Some(paths::target_dir().join("release").join("kguest-extender"))
    } else {
        None
    };
    for release in RELEASES {
        let harness = golang::build(release.module, ".", release.binary)?;
        let files = |bin: &Path| {
            [
                "--extender".to_string(),
                bin.to_string_lossy().into_owned(),
                "--plugins".to_string(),
                plugins.to_string_lossy().into_owned(),
                "--deploy".to_string(),
                deploy.to_string_lossy().into_owned(),
            ]
        };
        let command = release.command.iter().map(|a| a.to_string());
        let mut check: Vec<String> = command.clone().collect();
        check.push("check".to_string());
        check.extend(files(&extender));
        golang::run_harness(&harness, &check)?;
        if let Some(bin) = &release_extender {
            // KSW's scheduler_perf shape, three rounds interleaved (medians).
            let mut perf: Vec<String> = command.collect();
            perf.push("perf".to_string());
            perf.extend(files(bin));
            perf.extend(crate::e2e::FULL_SHAPE.iter().map(|a| a.to_string()));
            if release.ksw {
                perf.extend(["--ksw".to_string(), ksw.to_string_lossy().into_owned()]);
            }
            golang::run_harness(&harness, &perf)?;
        }
    }
    eprintln!(
        "extender-e2e: done in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
