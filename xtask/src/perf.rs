//! `cargo xtask perf [--quick]`: scheduling throughput (500 nodes x 1,000
//! pods; `--quick`: 500 x 200) through kguest-host, natively, and with
//! kube-scheduler-wasm-extension's TinyGo guests, by `tests/kguest-perf`.
//!
//! Builds the example plugins, runs the simulation in release mode, prints
//! its report and, for a full run, writes it into the `perf` section of
//! `docs/benchmarks.md`. Throughput is never asserted; the native and wasm
//! builds must decide identically (the run fails otherwise).

use std::process::Command;

use crate::size::write_doc_section;
use crate::{examples, paths, vendor};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            other => {
                return Err(format!(
                    "usage: cargo xtask perf [--quick] (unknown argument `{other}`)"
                ));
            }
        }
    }
    examples::build_all()?;
    let mut perf_args = vec![
        "--plugin-dir".to_string(),
        examples::plugin_dir().display().to_string(),
    ];
    // Upstream's TinyGo guests, verified against proto-vendor/ksw.lock.
    match vendor::ensure_ksw_vendored() {
        Ok(dir) => perf_args.extend(["--ksw-dir".into(), dir.display().to_string()]),
        Err(err) => eprintln!("perf: {err}; skipping the TinyGo run"),
    }
    if quick {
        perf_args.extend(["--pods".into(), "200".into()]);
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let command = format!(
        "cargo run --release -p kguest-perf -- {}",
        perf_args.join(" ")
    );
    eprintln!("$ {command}");
    let output = Command::new(cargo)
        .args(["run", "--quiet", "--release", "-p", "kguest-perf", "--"])
        .args(&perf_args)
        .current_dir(paths::root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|err| format!("running cargo: {err}"))?;
    let report = String::from_utf8_lossy(&output.stdout);
    print!("{report}");
    if !output.status.success() {
        return Err(format!("kguest-perf failed ({})", output.status));
    }
    if !quick {
        let body = format!(
            "Command: `cargo xtask perf` ({})\n\n```text\n{}```\n",
            crate::bench::machine_line(),
            report
        );
        write_doc_section(
            &paths::root().join("docs/benchmarks.md"),
            "<!-- perf:begin -->",
            "<!-- perf:end -->",
            &body,
        )?;
        println!("wrote docs/benchmarks.md (perf section)");
    }
    Ok(())
}
