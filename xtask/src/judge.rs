//! `cargo xtask judge`: kguest against Kubernetes' own Go marshallers.
//!
//! Builds the Go judge (`tests/go-judge`) and the `kguest` command, then runs
//! the differential test `go_judge` of kguest-conformance, which prints
//! `go judge: N/M objects identical (S seeds x T types)` and a line per
//! check. `cargo xtask test` runs it with the default seeds ([`in_test`]);
//! `cargo xtask judge --seeds N` runs more.

use std::time::Instant;

use crate::{cargo, golang, vendor};

const USAGE: &str = "usage: cargo xtask judge [--seeds N] [--seed-start N] [--kinds REGEX] (REGEX on fixture names, e.g. core.v1.Pod)";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut env = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let var = match arg.as_str() {
            "--seeds" => "KGUEST_JUDGE_SEEDS",
            "--seed-start" => "KGUEST_JUDGE_SEED_START",
            "--kinds" => "KGUEST_JUDGE_KINDS",
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`; {USAGE}")),
        };
        let value = args
            .next()
            .ok_or_else(|| format!("{arg} needs a value; {USAGE}"))?;
        if var != "KGUEST_JUDGE_KINDS" && value.parse::<u64>().is_err() {
            return Err(format!("{arg} `{value}` is not a number"));
        }
        env.push((var, value.clone()));
    }
    vendor::ensure_vendored()?;
    let started = Instant::now();
    run_judge(&env)?;
    eprintln!("judge: done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Builds both programs, exports where they are (and `env`) to the child
/// cargo, and runs the test.
fn run_judge(env: &[(&str, String)]) -> Result<(), String> {
    prepare(env)?;
    cargo::cargo(&[
        "test",
        "--quiet",
        "-p",
        "kguest-conformance",
        "--test",
        "it",
        "--",
        "--nocapture",
        "go_judge",
    ])
}

/// Builds the judge and the `kguest` command and points the test at them
/// (and sets `env`); `cargo xtask test` then runs the test with the rest of
/// the conformance suite, at its default seeds.
pub fn prepare(env: &[(&str, String)]) -> Result<(), String> {
    let judge = golang::build("tests/go-judge", ".", "go-judge")?;
    cargo::cargo(&["build", "--quiet", "-p", "kguest-cli"])?;
    let cli = crate::paths::target_dir()
        .join("debug")
        .join(format!("kguest{}", std::env::consts::EXE_SUFFIX));
    // SAFETY of the env changes: xtask is single-threaded here.
    unsafe {
        std::env::set_var("KGUEST_GO_JUDGE", &judge);
        std::env::set_var("KGUEST_CLI", &cli);
        for (var, value) in env {
            std::env::set_var(var, value);
        }
    }
    Ok(())
}
