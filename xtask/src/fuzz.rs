//! `cargo xtask fuzz [--seconds N] [TARGET]`: runs the cargo-fuzz targets in
//! `fuzz/` one after the other, each for N seconds (default 60), on a corpus
//! seeded from the vendored upstream fixtures, and reports crashes.
//!
//! Installs nothing: it needs the nightly toolchain and `cargo-fuzz`
//! (`rustup toolchain install nightly`, `cargo install cargo-fuzz`).
//!
//! The corpus lives in `fuzz/corpus/<target>/` and crashes in
//! `fuzz/artifacts/<target>/`, both git-ignored. Seeds are (re)written on
//! every run from `proto-vendor/testdata` (never copied into the repository):
//! the raw messages of the `.pb` fixtures (envelope stripped), the Pod
//! fixture's JSON, and a list of quantity, time and duration strings.
//!
//! One fuzzer at a time, one job, one worker, at `nice 10`: the machines this
//! runs on are small and shared.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::{golang, paths};

/// Every target in `fuzz/fuzz_targets/`, in the order they run.
const TARGETS: &[&str] = &[
    "views",
    "differential",
    "json_encode",
    "quantity",
    "go_oracle",
];

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [TARGET]\n\
                     targets: views, differential, json_encode, quantity, go_oracle (default: all, in turn)";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut seconds: u64 = 60;
    let mut only: Option<&str> = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--seconds" => {
                let value = iter.next().ok_or("--seconds needs a value")?;
                seconds = value
                    .parse()
                    .map_err(|_| format!("--seconds: `{value}` is not a whole number"))?;
                if seconds == 0 {
                    return Err("--seconds must be at least 1".into());
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other if other.starts_with('-') => {
                return Err(format!("unknown option `{other}`\n{USAGE}"));
            }
            target => {
                if only.is_some() {
                    return Err(format!("only one target at a time\n{USAGE}"));
                }
                if !TARGETS.contains(&target) {
                    return Err(format!("unknown fuzz target `{target}`\n{USAGE}"));
                }
                only = Some(target);
            }
        }
    }
    check_cargo_fuzz()?;

    let fuzz_dir = paths::root().join("fuzz");
    let vendor = match std::env::var_os("KGUEST_VENDOR_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => paths::vendor_dir(),
    };
    let testdata = vendor.join("testdata");
    if !testdata.is_dir() {
        return Err(format!(
            "{} is missing: run `cargo xtask vendor` first (or set KGUEST_VENDOR_DIR)",
            testdata.display()
        ));
    }

    let targets: Vec<&str> = match only {
        Some(t) => vec![t],
        None => TARGETS.to_vec(),
    };
    // `go_oracle` asks Kubernetes' Go marshallers: build the judge first
    // (it needs Go, like `cargo xtask test`).
    let go_judge = if targets.contains(&"go_oracle") {
        golang::require()?;
        Some(golang::build("tests/go-judge", ".", "go-judge")?)
    } else {
        None
    };
    let mut crashed = Vec::new();
    for target in targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        let artifacts = fuzz_dir.join("artifacts").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        std::fs::create_dir_all(&artifacts).map_err(|e| format!("{}: {e}", artifacts.display()))?;
        let seeds = seed(target, &testdata, &corpus, go_judge.as_deref())?;
        let before = findings(&artifacts);
        println!(
            "==> fuzz {target}: {seconds}s, {seeds} seed(s) in {}",
            corpus.display()
        );

        // With -jobs, libFuzzer runs the fuzzer in a child process that logs
        // to ./fuzz-0.log: run from the artifacts directory so the log lands
        // there (git-ignored), then show its summary.
        let log = artifacts.join("fuzz-0.log");
        let _ = std::fs::remove_file(&log);
        let start = Instant::now();
        let status = Command::new("nice")
            .args(["-n", "10", "cargo", "+nightly", "fuzz", "run", "--fuzz-dir"])
            .arg(&fuzz_dir)
            .arg(target)
            .arg(&corpus)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .args([
                "-jobs=1",
                "-workers=1",
                "-timeout=30",
                "-print_final_stats=1",
            ])
            .current_dir(&artifacts)
            .env("KGUEST_VENDOR_DIR", &vendor)
            .envs(go_judge.iter().map(|judge| ("KGUEST_GO_JUDGE", judge)))
            .status()
            .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
        let elapsed = start.elapsed();
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        summarize(&log_text);

        let new: Vec<PathBuf> = findings(&artifacts)
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if new.is_empty() && status.success() {
            println!("==> {target}: no crash in {:.0?}", elapsed);
            continue;
        }
        println!("==> {target}: FAILED after {:.0?} ({status})", elapsed);
        for path in &new {
            println!("    crash input: {}", path.display());
            println!(
                "    reproduce:   cargo +nightly fuzz run --fuzz-dir fuzz {target} {}",
                path.display()
            );
        }
        if new.is_empty() {
            println!("    see {}", log.display());
        }
        crashed.push(target);
    }
    if crashed.is_empty() {
        Ok(())
    } else {
        Err(format!("fuzz target(s) failed: {}", crashed.join(", ")))
    }
}

/// Fails with install instructions unless `cargo +nightly fuzz` runs.
fn check_cargo_fuzz() -> Result<(), String> {
    let ok = Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .is_ok_and(|out| out.status.success());
    if ok {
        return Ok(());
    }
    Err(
        "`cargo +nightly fuzz` is not available. Install it with:\n    \
         rustup toolchain install nightly\n    \
         cargo install cargo-fuzz"
            .into(),
    )
}

/// Crash, timeout, OOM and leak inputs libFuzzer left in `dir`.
fn findings(dir: &Path) -> BTreeSet<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                ["crash-", "timeout-", "oom-", "leak-", "slow-unit-"]
                    .iter()
                    .any(|prefix| n.starts_with(prefix))
            })
        })
        .collect()
}

/// The lines of libFuzzer's log worth seeing: the last status line, the
/// final stats, and any failure.
fn summarize(log: &str) {
    let last_status = log
        .lines()
        .rfind(|l| l.starts_with('#') && l.contains("cov:"));
    if let Some(line) = last_status {
        println!("    {line}");
    }
    for line in log.lines() {
        if line.starts_with("stat::")
            || line.contains("ERROR: libFuzzer")
            || line.contains("panicked at")
            || line.starts_with("SUMMARY:")
        {
            println!("    {line}");
        }
    }
}

/// Writes the seeds of `target` into `corpus`; returns how many.
fn seed(
    target: &str,
    testdata: &Path,
    corpus: &Path,
    go_judge: Option<&Path>,
) -> Result<usize, String> {
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    match target {
        "views" | "differential" => {
            for (name, pb) in fixtures(testdata, "pb")? {
                let Some(raw) = unwrap_envelope(&pb) else {
                    continue;
                };
                if target == "views" {
                    seeds.push((name, raw));
                } else {
                    // The first byte picks the type: even Pod, odd Node.
                    let selector = match name.as_str() {
                        "core.v1.Pod" => 0u8,
                        "core.v1.Node" => 1,
                        _ => continue,
                    };
                    let mut bytes = vec![selector];
                    bytes.extend(raw);
                    seeds.push((name, bytes));
                }
            }
        }
        "json_encode" => {
            for (name, json) in fixtures(testdata, "json")? {
                if name == "core.v1.Pod" {
                    // Mode byte 0: the rest is JSON text.
                    let mut bytes = vec![0u8];
                    bytes.extend(json);
                    seeds.push((name, bytes));
                }
            }
            // Other mode bytes: generator input.
            let generator_inputs: [&[u8]; 3] = [
                b"\x01",
                b"\x01\xff\xff\xff\xff\xff\xff\xff\xff",
                b"\x02abcdefghijklmnopqrstuvwxyz0123456789",
            ];
            for (i, input) in generator_inputs.iter().enumerate() {
                seeds.push((format!("generator-{i}"), input.to_vec()));
            }
        }
        "go_oracle" => {
            // Mode byte 0x40: the rest is JSON text (the JSON fixture of
            // every kind in client-go's scheme, as the judge lists them);
            // others: the kind to generate.
            let judge = go_judge.ok_or("go_oracle needs the Go judge")?;
            let listed = Command::new(judge)
                .args(["kinds", "--fixtures"])
                .arg(testdata)
                .output()
                .map_err(|e| format!("{}: {e}", judge.display()))?;
            if !listed.status.success() {
                return Err(format!(
                    "`go-judge kinds` failed: {}",
                    String::from_utf8_lossy(&listed.stderr).trim()
                ));
            }
            let known: BTreeSet<String> = String::from_utf8_lossy(&listed.stdout)
                .lines()
                .map(str::to_string)
                .collect();
            for (name, json) in fixtures(testdata, "json")? {
                if !known.contains(&name) {
                    continue;
                }
                let mut bytes = vec![0x40u8];
                bytes.extend(json);
                seeds.push((name, bytes));
            }
            for kind in 0..12u8 {
                let mut bytes = vec![kind];
                bytes.extend(b"abcdefghijklmnopqrstuvwxyz0123456789".repeat(4));
                seeds.push((format!("generator-{kind}"), bytes));
            }
        }
        "quantity" => {
            const STRINGS: &[&str] = &[
                "0",
                "1",
                "100m",
                "0.5",
                "1.5Gi",
                "1Ki",
                "8Ei",
                "1e3",
                "1E-3",
                "+1",
                "-1",
                ".5",
                "5.",
                "1000m",
                "9.3e18",
                "1n",
                "1e-10",
                "12345678901234567890123456789",
                "k",
                ".",
                "-",
                "1.5e+2",
                "0e0",
                "123456789Ei",
                "999999999999999999P",
                "2008-01-01T01:01:01Z",
                "2008-01-01t02:01:01.5+01:00",
                "2008-01-01T01:01:01.000002Z",
                "0001-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z",
                "1h2m3.5s",
                "-1.5h",
                "300ms",
                "1µs",
                "2562047h47m16.854775807s",
                "0",
            ];
            for (i, s) in STRINGS.iter().enumerate() {
                seeds.push((format!("string-{i}"), s.as_bytes().to_vec()));
            }
        }
        other => return Err(format!("no seeds for target `{other}`")),
    }
    for (name, bytes) in &seeds {
        let path = corpus.join(format!("seed-{name}"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(seeds.len())
}

/// `(fixture name, contents)` of every `testdata/*.<ext>`, sorted.
fn fixtures(testdata: &Path, ext: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(testdata).map_err(|e| format!("{}: {e}", testdata.display()))?;
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == ext) {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            out.push((name, bytes));
        }
    }
    out.sort();
    Ok(out)
}

/// The `raw` field (2) of the `runtime.Unknown` after the `k8s\0` magic: a
/// tiny protobuf reader, so that xtask needs no kguest crate.
fn unwrap_envelope(pb: &[u8]) -> Option<Vec<u8>> {
    fn varint(rest: &mut &[u8]) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, tail) = rest.split_first()?;
            *rest = tail;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    let mut rest = pb.strip_prefix(b"k8s\0")?;
    let mut raw = None;
    while !rest.is_empty() {
        let key = varint(&mut rest)?;
        match key & 7 {
            0 => {
                varint(&mut rest)?;
            }
            1 => rest = rest.get(8..)?,
            5 => rest = rest.get(4..)?,
            2 => {
                let len = usize::try_from(varint(&mut rest)?).ok()?;
                let body = rest.get(..len)?;
                rest = &rest[len..];
                if key >> 3 == 2 {
                    raw = Some(body.to_vec());
                }
            }
            _ => return None,
        }
    }
    raw
}
