//! `cargo xtask bench [--quick]`: latency, encoding and decoding benchmarks.
//!
//! Builds every guest (size profile), then:
//! * full run: `cargo xtask size` (the size table), then criterion
//!   (`cargo bench -p kguest-bench`), reads each case's median back from
//!   criterion's `benchmark.json`/`estimates.json`, prints one summary line
//!   per comparison and rewrites the tables in `docs/benchmarks.md`;
//! * `--quick`: the in-process timing loop of `kguest-bench`'s binary
//!   (median of short batches, well under a minute after the build); prints
//!   the summary lines only and leaves the document alone;
//! * `--report-only`: rewrites the document from the last criterion run;
//! * `--krm`: only the KRM function benchmark (`kguest krm` wall time on
//!   100 and 1,000 items, function sizes), written to its section.
//!
//! Every mode but `--report-only` ends with the KRM benchmark (see [`krm`]).
//!
//! Benchmarks are never asserted: goals are reported, not enforced.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::size::{self, write_doc_section};
use crate::{guests, paths, vendor};

/// (label, package, pod form) as in `kguest_bench::PLUGINS`.
const PLUGINS: &[(&str, &str)] = &[
    ("kguest nodename", "nodename"),
    ("kguest nodename-view (raw ABI, no SDK)", "nodename-view"),
    ("kguest nodenumber (score)", "nodenumber"),
    ("kguest wasm-runtime", "wasm-runtime"),
    ("kguest taints", "taints"),
    ("kguest fit", "fit"),
    ("kguest imagelocality (score)", "imagelocality"),
    ("(a) k8s-pb + prost", "baseline-prost"),
    ("(b) k8s-openapi + serde_json (JSON Pod)", "baseline-json"),
    ("(c) hand-written scan", "baseline-scan"),
    ("(d) empty: call floor", "baseline-empty"),
    ("(e) pull Pod + Node: copy floor", "baseline-copy"),
    (
        "upstream TinyGo filter test guest (arg `filter`: nodeName match)",
        "tinygo-filter",
    ),
    ("upstream TinyGo nodenumber (score)", "tinygo-nodenumber"),
];

/// Cases that are kube-scheduler-wasm-extension's TinyGo builds (not built
/// here: read from its pinned material).
fn is_tinygo(package: &str) -> bool {
    package.starts_with("tinygo-")
}
const OBJECTS: &[(&str, &str)] = &[
    ("upstream-pod", "upstream Pod fixture (`core.v1.Pod`)"),
    ("pod", "realistic Pod (`tests/data/pod.yaml`)"),
    ("node", "realistic Node (`tests/data/node.yaml`)"),
];
const ENCODERS: &[(&str, &str)] = &[
    ("kguest-json", "kguest JSON front-end"),
    ("kguest-openapi", "kguest `Encode` (k8s-openapi)"),
    ("prost", "prost (k8s-pb value)"),
    ("serde_json", "`serde_json::to_vec` (k8s-openapi)"),
];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut report_only = false;
    let mut krm_only = false;
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            "--krm" => krm_only = true,
            // Rewrite the document from the last criterion run (no size run).
            "--report-only" => report_only = true,
            other => {
                return Err(format!(
                    "usage: cargo xtask bench [--quick | --krm] (unknown argument `{other}`)"
                ));
            }
        }
    }
    if report_only {
        let mut results = Results::new();
        collect_estimates(&paths::target_dir().join("criterion-kguest"), &mut results)?;
        if results.is_empty() {
            return Err("no criterion results; run `cargo xtask bench` first".into());
        }
        write_docs(&results, false)?;
        println!("wrote docs/benchmarks.md from the last criterion run");
        return Ok(());
    }
    if krm_only {
        let lines = krm::bench(7, true)?;
        println!();
        for line in &lines {
            println!("{line}");
        }
        println!("wrote docs/benchmarks.md (KRM section)");
        return Ok(());
    }
    if !quick {
        // The size table of the same run (also builds every guest).
        size::run(&[])?;
    } else {
        for (_, package) in PLUGINS.iter().filter(|(_, p)| !is_tinygo(p)) {
            guests::build(package)?;
        }
    }
    // Upstream's TinyGo guests, verified against proto-vendor/ksw.lock; the
    // bench finds them through KGUEST_KSW_DIR.
    let ksw = match vendor::ensure_ksw_vendored() {
        Ok(dir) => Some(dir),
        Err(err) => {
            eprintln!("bench: {err}; skipping the TinyGo guests");
            None
        }
    };
    let results = if quick {
        run_quick(ksw.as_deref())?
    } else {
        run_criterion(ksw.as_deref())?
    };
    let summary = summary(&results);
    println!();
    for line in &summary {
        println!("{line}");
    }
    for line in krm::bench(if quick { 3 } else { 7 }, !quick)? {
        println!("{line}");
    }
    if !quick {
        write_docs(&results, true)?;
        println!("wrote docs/benchmarks.md");
    }
    Ok(())
}

/// Median nanoseconds per call, by case id.
type Results = BTreeMap<String, f64>;

/// Points the bench at the vetted KSW material, if any.
fn with_ksw(command: &mut Command, ksw: Option<&Path>) {
    match ksw {
        Some(dir) => command.env("KGUEST_KSW_DIR", dir),
        None => command.env_remove("KGUEST_KSW_DIR"),
    };
}

fn run_quick(ksw: Option<&Path>) -> Result<Results, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("$ cargo run --release -p kguest-bench");
    let mut command = Command::new(cargo);
    with_ksw(&mut command, ksw);
    let output = command
        .args(["run", "--quiet", "--release", "-p", "kguest-bench"])
        .current_dir(paths::root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|err| format!("running cargo: {err}"))?;
    if !output.status.success() {
        return Err(format!("kguest-bench failed ({})", output.status));
    }
    Ok(parse_tsv(&String::from_utf8_lossy(&output.stdout)))
}

/// `id<TAB>ns` lines.
pub fn parse_tsv(text: &str) -> Results {
    text.lines()
        .filter_map(|line| {
            let (id, ns) = line.split_once('\t')?;
            Some((id.to_string(), ns.trim().parse().ok()?))
        })
        .collect()
}

fn run_criterion(ksw: Option<&Path>) -> Result<Results, String> {
    let home = paths::target_dir().join("criterion-kguest");
    let _ = std::fs::remove_dir_all(&home);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!(
        "$ CRITERION_HOME={} cargo bench -p kguest-bench --bench kguest",
        home.display()
    );
    let mut command = Command::new(cargo);
    with_ksw(&mut command, ksw);
    let status = command
        .args([
            "bench",
            "-p",
            "kguest-bench",
            "--bench",
            "kguest",
            "--",
            "--noplot",
        ])
        .env("CRITERION_HOME", &home)
        .current_dir(paths::root())
        .status()
        .map_err(|err| format!("running cargo: {err}"))?;
    if !status.success() {
        return Err(format!("cargo bench failed ({status})"));
    }
    let mut results = Results::new();
    collect_estimates(&home, &mut results)?;
    Ok(results)
}

/// Walks criterion's output for `new/benchmark.json` (the id) and
/// `new/estimates.json` (the median, ns).
fn collect_estimates(dir: &Path, results: &mut Results) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_estimates(&path, results)?;
        } else if path.file_name().is_some_and(|n| n == "benchmark.json")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "new")
        {
            let read = |p: &Path| -> Result<serde_json::Value, String> {
                let text =
                    std::fs::read_to_string(p).map_err(|err| format!("{}: {err}", p.display()))?;
                serde_json::from_str(&text).map_err(|err| format!("{}: {err}", p.display()))
            };
            let bench = read(&path)?;
            let estimates = read(&path.with_file_name("estimates.json"))?;
            if let (Some(id), Some(ns)) = (
                bench["full_id"].as_str(),
                estimates["median"]["point_estimate"].as_f64(),
            ) {
                results.insert(id.to_string(), ns);
            }
        }
    }
    Ok(())
}

/// `1234.5` ns → `1.23 µs`; three significant digits.
pub fn us(ns: f64) -> String {
    let us = ns / 1000.0;
    if us < 1.0 {
        format!("{us:.3} µs")
    } else if us < 10.0 {
        format!("{us:.2} µs")
    } else if us < 100.0 {
        format!("{us:.1} µs")
    } else {
        format!("{us:.0} µs")
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "–".into(),
    }
}

fn get(results: &Results, id: &str) -> Option<f64> {
    results.get(id).copied()
}

fn show(v: Option<f64>) -> String {
    v.map_or("–".into(), us)
}

/// One line per comparison, the ratio last.
pub fn summary(r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for scenario in ["cycle", "node"] {
        let what = if scenario == "cycle" {
            "new cycle"
        } else {
            "next node"
        };
        let id = |p: &str| format!("filter/{p}/{scenario}");
        // The host's own cost per call: the empty guest through kguest-host
        // against the same export called bare on wasmtime (goal <= 2x).
        let (empty, raw) = (
            get(r, &id("baseline-empty")),
            get(r, "filter/raw-wasmtime/call"),
        );
        out.push(format!(
            "empty call ({what}): kguest-host {}, raw wasmtime {}, ratio {}",
            show(empty),
            show(raw),
            ratio(empty, raw)
        ));
        if scenario == "node" {
            // The node loop of `Plugin::schedule` and `Profile`: one
            // instance held for the cycle (`Plugin::cycle_calls`).
            let bound = get(r, "filter/baseline-empty/bound");
            out.push(format!(
                "empty call (next node, cycle_calls): kguest-host {}, raw wasmtime {}, ratio {}",
                show(bound),
                show(raw),
                ratio(bound, raw)
            ));
        }
        let k = get(r, &id("nodename"));
        let floor = get(r, &id("baseline-copy"));
        let prost = get(r, &id("baseline-prost"));
        let json = get(r, &id("baseline-json"));
        out.push(format!(
            "nodename filter ({what}): kguest {}, copy floor {}, ratio {}",
            show(k),
            show(floor),
            ratio(k, floor)
        ));
        out.push(format!(
            "nodename filter ({what}): kguest {}, prost {}, ratio {}",
            show(k),
            show(prost),
            ratio(prost, k)
        ));
        out.push(format!(
            "nodename filter ({what}): kguest {}, json {}, ratio {}",
            show(k),
            show(json),
            ratio(json, k)
        ));
        // Upstream's TinyGo guests for the same job (goal for nodename:
        // >= 100x per new cycle).
        let tinygo = get(r, &id("tinygo-filter"));
        out.push(format!(
            "nodename filter ({what}): kguest {}, tinygo {}, ratio {}",
            show(k),
            show(tinygo),
            ratio(tinygo, k)
        ));
        let (k, tinygo) = (get(r, &id("nodenumber")), get(r, &id("tinygo-nodenumber")));
        out.push(format!(
            "nodenumber score ({what}): kguest {}, tinygo {}, ratio {}",
            show(k),
            show(tinygo),
            ratio(tinygo, k)
        ));
    }
    // Plugins that read many fields, against the copy floor (goals in
    // docs/benchmarks.md: fit <= 3x next node and <= 8x new cycle, taints
    // <= 3x, imagelocality <= 6x next node).
    for (plugin, hook) in [
        ("fit", "filter"),
        ("taints", "filter"),
        ("imagelocality", "score"),
    ] {
        for (scenario, what) in [("cycle", "new cycle"), ("node", "next node")] {
            let k = get(r, &format!("filter/{plugin}/{scenario}"));
            let floor = get(r, &format!("filter/baseline-copy/{scenario}"));
            out.push(format!(
                "{plugin} {hook} ({what}): kguest {}, copy floor {}, ratio {}",
                show(k),
                show(floor),
                ratio(k, floor)
            ));
        }
    }
    for (object, _) in OBJECTS {
        let k = get(r, &format!("encode/{object}/kguest-openapi"));
        let p = get(r, &format!("encode/{object}/prost"));
        out.push(format!(
            "{object} encode: kguest Encode {}, prost {}, ratio {}",
            show(k),
            show(p),
            ratio(p, k)
        ));
    }
    for object in ["pod", "upstream-pod", "node"] {
        let k = get(r, &format!("json/{object}/to-protobuf/kguest"));
        let s = get(r, &format!("json/{object}/to-protobuf/serde-openapi"));
        let f = get(r, &format!("json/{object}/to-protobuf/parse-floor"));
        out.push(format!(
            "{object} json->protobuf: kguest {}, serde_json+k8s-openapi+Encode {}, ratio {}; \
             parse-only floor {}, kguest at {}x the floor",
            show(k),
            show(s),
            ratio(s, k),
            show(f),
            ratio(k, f)
        ));
    }
    let k = get(r, "json/pod/to-json/kguest");
    let s = get(r, "json/pod/to-json/serde_json");
    let f = get(r, "json/pod/to-json/write-floor");
    out.push(format!(
        "pod protobuf->json: kguest {}, k8s-openapi serde_json::to_vec {}, ratio {}; \
         output floor {}, kguest at {}x the floor",
        show(k),
        show(s),
        ratio(s, k),
        show(f),
        ratio(k, f)
    ));
    for object in ["pod", "upstream-pod"] {
        for (what, label) in [("nodename", "spec.nodeName"), ("all", "every field")] {
            let v = get(r, &format!("decode/{object}/{what}/views"));
            let p = get(r, &format!("decode/{object}/{what}/prost"));
            out.push(format!(
                "{object} decode {label}: views {}, prost {}, ratio {}",
                show(v),
                show(p),
                ratio(p, v)
            ));
        }
    }
    out
}

fn filter_table(r: &Results) -> String {
    let mut out = String::from(
        "| plugin | new cycle | × copy floor | next node, same cycle | × copy floor |\n|---|--:|--:|--:|--:|\n",
    );
    let floor = |s: &str| get(r, &format!("filter/baseline-copy/{s}"));
    for (label, package) in PLUGINS {
        let c = get(r, &format!("filter/{package}/cycle"));
        let n = get(r, &format!("filter/{package}/node"));
        out.push_str(&format!(
            "| {label} | {} | {} | {} | {} |\n",
            show(c),
            ratio(c, floor("cycle")),
            show(n),
            ratio(n, floor("node"))
        ));
    }
    out.push('\n');
    for scenario in ["cycle", "node"] {
        let k = get(r, &format!("filter/nodename/{scenario}"));
        let p = get(r, &format!("filter/baseline-prost/{scenario}"));
        let j = get(r, &format!("filter/baseline-json/{scenario}"));
        let t = get(r, &format!("filter/tinygo-filter/{scenario}"));
        out.push_str(&format!(
            "- {}: TinyGo filter guest ÷ kguest nodename = **{}**, prost ÷ kguest nodename = **{}**, json ÷ kguest nodename = **{}**, kguest nodename ÷ copy floor = **{}**\n",
            if scenario == "cycle" { "New cycle" } else { "Next node" },
            ratio(t, k),
            ratio(p, k),
            ratio(j, k),
            ratio(k, get(r, &format!("filter/baseline-copy/{scenario}")))
        ));
    }
    out
}

fn encode_table(r: &Results, sizes: &BTreeMap<String, String>) -> String {
    let mut out = String::from("| object | protobuf bytes (JSON) |");
    for (_, label) in ENCODERS {
        out.push_str(&format!(" {label} |"));
    }
    out.push_str(" prost ÷ kguest `Encode` |\n|---|--:|");
    for _ in 0..=ENCODERS.len() {
        out.push_str("--:|");
    }
    out.push('\n');
    for (object, label) in OBJECTS {
        out.push_str(&format!(
            "| {label} | {} |",
            sizes.get(*object).map_or("–", String::as_str)
        ));
        for (encoder, _) in ENCODERS {
            out.push_str(&format!(
                " {} |",
                show(get(r, &format!("encode/{object}/{encoder}")))
            ));
        }
        out.push_str(&format!(
            " {} |\n",
            ratio(
                get(r, &format!("encode/{object}/prost")),
                get(r, &format!("encode/{object}/kguest-openapi"))
            )
        ));
    }
    out.push_str(&format!(
        "\nCached path (`NodeCache::node_bytes` hit: the Node's bytes reused across nodes and cycles, \
         no encoding): **{}** per lookup.\n",
        show(get(r, "encode/node/cached"))
    ));
    out
}

fn json_table(r: &Results) -> String {
    let mut out = String::from(
        "| object | kguest JSON text → protobuf | `serde_json::from_slice` + `Encode` | ratio (goal ≥ 2) | parse-only floor (`IgnoredAny`) | kguest ÷ floor (goal ≤ 2) |\n\
         |---|--:|--:|--:|--:|--:|\n",
    );
    for (object, label) in OBJECTS {
        let k = get(r, &format!("json/{object}/to-protobuf/kguest"));
        let s = get(r, &format!("json/{object}/to-protobuf/serde-openapi"));
        let f = get(r, &format!("json/{object}/to-protobuf/parse-floor"));
        out.push_str(&format!(
            "| {label} | {} | {} | {} | {} | {} |\n",
            show(k),
            show(s),
            ratio(s, k),
            show(f),
            ratio(k, f)
        ));
    }
    let k = get(r, "json/pod/to-json/kguest");
    let s = get(r, "json/pod/to-json/serde_json");
    let f = get(r, "json/pod/to-json/write-floor");
    out.push_str(&format!(
        "\n| object | kguest protobuf → JSON text | `serde_json::to_vec` (k8s-openapi value) | ratio (goal ≥ 1) | output floor (copy the bytes) | kguest ÷ floor |\n\
         |---|--:|--:|--:|--:|--:|\n| realistic Pod (`tests/data/pod.yaml`) | {} | {} | {} | {} | {} |\n",
        show(k),
        show(s),
        ratio(s, k),
        show(f),
        ratio(k, f)
    ));
    out
}

fn decode_table(r: &Results) -> String {
    let mut out = String::from(
        "| object | read | views | prost (k8s-pb) | hand-written scan | prost ÷ views |\n\
         |---|---|--:|--:|--:|--:|\n",
    );
    for (object, label) in [
        ("pod", "realistic Pod"),
        ("upstream-pod", "upstream Pod fixture"),
    ] {
        for (what, views, wlabel) in [
            ("nodename", "views", "`spec.nodeName`"),
            (
                "all",
                "views",
                "every field (views: `Reflect` walk, one pass per message; prost: full decode)",
            ),
            (
                "all",
                "accessors",
                "every field (views: every accessor, `reflect_accessors`; prost: full decode)",
            ),
        ] {
            let v = get(r, &format!("decode/{object}/{what}/{views}"));
            let p = get(r, &format!("decode/{object}/{what}/prost"));
            let scan = get(r, &format!("decode/{object}/{what}/scan"));
            out.push_str(&format!(
                "| {label} | {wlabel} | {} | {} | {} | {} |\n",
                show(v),
                show(p),
                show(scan),
                ratio(p, v)
            ));
        }
    }
    out
}

fn command_output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .current_dir(paths::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// `N CPU(s) (`nproc`), <model>, commit <hash>, <date>`: where and when a
/// measurement ran.
pub fn machine_line() -> String {
    format!(
        "{} CPU(s) (`nproc`), {}, commit {}, {}",
        command_output("nproc", &[]),
        cpu_model(),
        command_output("git", &["rev-parse", "--short", "HEAD"]),
        command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
    )
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn machine() -> String {
    let cpu = cpu_model();
    let dirty = if command_output("git", &["status", "--porcelain"]).is_empty() {
        ""
    } else {
        " (with uncommitted changes)"
    };
    format!(
        "- machine: {} CPU(s) (`nproc`), {cpu}\n- date: {}\n- commit: {}{dirty}\n- toolchain: {}\n- command: `cargo xtask bench` \
         (criterion 0.8, median of 50 samples after 0.5 s warm-up, 2 s measurement per case)",
        command_output("nproc", &[]),
        command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        command_output("git", &["rev-parse", "--short", "HEAD"]),
        command_output("rustc", &["--version"]),
    )
}

/// Protobuf and JSON sizes of the benchmark objects, from
/// `kguest-bench --sizes`.
fn object_sizes() -> BTreeMap<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "kguest-bench",
            "--",
            "--sizes",
        ])
        .current_dir(paths::root())
        .output();
    let Ok(output) = output else {
        return BTreeMap::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut parts = line.split('\t');
            let (object, pb, json) = (parts.next()?, parts.next()?, parts.next()?);
            let (pb, json): (u64, u64) = (pb.parse().ok()?, json.parse().ok()?);
            Some((
                object.to_string(),
                format!("{} ({} B as JSON)", size::group(pb), size::group(json)),
            ))
        })
        .collect()
}

/// Rewrites the benchmark sections; the machine section (date, commit)
/// only when the numbers are from this run.
fn write_docs(r: &Results, this_run: bool) -> Result<(), String> {
    let doc = paths::root().join("docs/benchmarks.md");
    if this_run {
        write_doc_section(
            &doc,
            "<!-- machine:begin -->",
            "<!-- machine:end -->",
            &machine(),
        )?;
    }
    write_doc_section(
        &doc,
        "<!-- filter:begin -->",
        "<!-- filter:end -->",
        &filter_table(r),
    )?;
    write_doc_section(
        &doc,
        "<!-- encode:begin -->",
        "<!-- encode:end -->",
        &encode_table(r, &object_sizes()),
    )?;
    write_doc_section(
        &doc,
        "<!-- json:begin -->",
        "<!-- json:end -->",
        &json_table(r),
    )?;
    write_doc_section(
        &doc,
        "<!-- decode:begin -->",
        "<!-- decode:end -->",
        &decode_table(r),
    )?;
    let mut lines = String::from("```text\n");
    for line in summary(r) {
        lines.push_str(&line);
        lines.push('\n');
    }
    lines.push_str("```");
    write_doc_section(
        &doc,
        "<!-- summary:begin -->",
        "<!-- summary:end -->",
        &lines,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tsv_and_summarises() {
        let r = parse_tsv(
            "filter/nodename/cycle\t200.0\nfilter/baseline-prost/cycle\t14200\nfilter/baseline-copy/cycle\t180\nfilter/baseline-empty/cycle\t90\nfilter/raw-wasmtime/call\t30\njunk\n",
        );
        assert_eq!(r.len(), 5);
        let s = summary(&r);
        assert_eq!(
            s[0],
            "empty call (new cycle): kguest-host 0.090 µs, raw wasmtime 0.030 µs, ratio 3.00"
        );
        assert_eq!(
            s[1],
            "nodename filter (new cycle): kguest 0.200 µs, copy floor 0.180 µs, ratio 1.11"
        );
        assert_eq!(
            s[2],
            "nodename filter (new cycle): kguest 0.200 µs, prost 14.2 µs, ratio 71.00"
        );
        assert!(s[3].ends_with("ratio –"));
        let r = parse_tsv("filter/baseline-empty/bound\t45\nfilter/raw-wasmtime/call\t30\n");
        let bound = summary(&r).into_iter().find(|l| l.contains("cycle_calls"));
        assert_eq!(
            bound.as_deref(),
            Some(
                "empty call (next node, cycle_calls): kguest-host 0.045 µs, raw wasmtime 0.030 µs, ratio 1.50"
            )
        );
    }

    #[test]
    fn every_field_line_has_the_issue_shape() {
        let r = parse_tsv("decode/pod/all/views\t12500\ndecode/pod/all/prost\t14400\n");
        let line = summary(&r)
            .into_iter()
            .find(|l| l.starts_with("pod decode every field"));
        assert_eq!(
            line.as_deref(),
            Some("pod decode every field: views 12.5 µs, prost 14.4 µs, ratio 1.15")
        );
    }

    #[test]
    fn formats_microseconds() {
        assert_eq!(us(212.0), "0.212 µs");
        assert_eq!(us(1234.0), "1.23 µs");
        assert_eq!(us(14_200.0), "14.2 µs");
        assert_eq!(us(150_000.0), "150 µs");
    }
}

/// KRM functions through `kguest krm`: the whole command (process start,
/// reading the ResourceList, compiling the module, running it, writing the
/// result) timed from outside, as kustomize or kpt would run it.
pub mod krm {
    use std::process::{Command, Stdio};
    use std::time::Instant;

    use crate::size::{group, write_doc_section};
    use crate::{examples, paths};

    /// The functions, by their name in `target/krm`.
    const FUNCTIONS: &[&str] = &["set-namespace", "require-requests", "wasm-smart"];
    const ITEMS: &[usize] = &[100, 1000];
    /// Go 1.22 `GOOS=wasip1` hello world (golang/go#63904).
    const GO_HELLO: u64 = 2_112_611;
    /// A container KRM function run with a docker pull (kpt#2469), in ms.
    const CONTAINER_MS: f64 = 5000.0;

    /// A ResourceList of `n` Deployments (two containers each, comments,
    /// kpt's internal annotations) and a config every function reads.
    pub fn resource_list(n: usize) -> String {
        let mut s =
            String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
        for i in 0..n {
            s.push_str(&format!(
                "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web-{i} # app {i}\n    labels: {{app: web-{i}}}\n    annotations:\n      internal.config.kubernetes.io/path: apps/web-{i}.yaml\n      internal.config.kubernetes.io/index: '0'\n  spec:\n    replicas: 3\n    template:\n      metadata:\n        labels: {{app: web-{i}}}\n      spec:\n        containers:\n        - name: web\n          image: \"ghcr.io/acme/wasm/web:1.{i}\"\n          resources:\n            requests: {{cpu: 100m, memory: 128Mi}}\n            limits: {{cpu: 200m, memory: 256Mi}}\n        - name: envoy\n          image: envoyproxy/envoy:v1.30\n          resources:\n            requests: {{cpu: 50m, memory: 64Mi}}\n"
            ));
        }
        s.push_str("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    namespace: prod\n    images: '*/wasm/*'\n    runtimeClassName: wasm-smart\n");
        s
    }

    /// Median wall time (ms) of `runs` runs, and the median compile time
    /// `kguest krm --timing` reported.
    fn time(
        kguest: &std::path::Path,
        wasm: &std::path::Path,
        input: &std::path::Path,
        runs: usize,
    ) -> Result<(f64, f64), String> {
        let mut walls = Vec::new();
        let mut compiles = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            let out = Command::new(kguest)
                .arg("krm")
                .arg(wasm)
                .arg("--timing")
                .stdin(std::fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .map_err(|e| format!("running kguest: {e}"))?;
            walls.push(start.elapsed().as_secs_f64() * 1e3);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                return Err(format!("kguest krm {} failed: {stderr}", wasm.display()));
            }
            let compile = stderr
                .split("compile ")
                .nth(1)
                .and_then(|r| r.split(" ms").next())
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN);
            compiles.push(compile);
        }
        Ok((median(&mut walls), median(&mut compiles)))
    }

    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// Runs the benchmark; returns the summary lines (the ratio last) and,
    /// with `write`, rewrites the KRM section of docs/benchmarks.md.
    pub fn bench(runs: usize, write: bool) -> Result<Vec<String>, String> {
        examples::build_krm()?;
        crate::cargo::cargo(&["build", "--quiet", "--release", "-p", "kguest-cli"])?;
        let kguest = paths::target_dir().join("release/kguest");
        let dir = paths::target_dir().join("krm-bench");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut inputs = Vec::new();
        for &n in ITEMS {
            let path = dir.join(format!("items-{n}.yaml"));
            std::fs::write(&path, resource_list(n))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            inputs.push((n, path));
        }
        let mut lines = Vec::new();
        let mut table =
            String::from("| function | wasm bytes | Go wasip1 hello world ÷ function |");
        for &n in ITEMS {
            table.push_str(&format!(
                " {} items: `kguest krm` | of which compiling |",
                group(n as u64)
            ));
        }
        table.push_str(" container function (≈5 s) ÷ `kguest krm`, 1,000 items |\n|---|--:|--:|");
        for _ in ITEMS {
            table.push_str("--:|--:|");
        }
        table.push_str("--:|\n");
        for name in FUNCTIONS {
            let wasm = examples::krm_dir().join(format!("{name}.wasm"));
            let size = std::fs::metadata(&wasm)
                .map_err(|e| format!("{}: {e}", wasm.display()))?
                .len();
            lines.push(format!(
                "krm {name} size: kguest {} B, Go wasip1 hello world {} B, ratio {:.1}",
                group(size),
                group(GO_HELLO),
                GO_HELLO as f64 / size as f64
            ));
            table.push_str(&format!(
                "| {name} | {} | {:.1} |",
                group(size),
                GO_HELLO as f64 / size as f64
            ));
            let mut last = f64::NAN;
            for (n, input) in &inputs {
                let (wall, compile) = time(&kguest, &wasm, input, runs)?;
                lines.push(format!(
                    "krm {name} {n} items: kguest {wall:.0} ms (compile {compile:.0} ms), container function ≈{CONTAINER_MS:.0} ms, ratio {:.1}",
                    CONTAINER_MS / wall
                ));
                table.push_str(&format!(" {wall:.0} ms | {compile:.0} ms |"));
                last = wall;
            }
            table.push_str(&format!(" {:.1} |\n", CONTAINER_MS / last));
        }
        let reference = examples::krm_dir().join("std-echo.wasm");
        if let Ok(meta) = std::fs::metadata(&reference) {
            table.push_str(&format!(
                "\nFor scale: `tests/guests/krm-std-echo`, a Rust `std` program that only copies stdin to stdout, is {} B with the same profile.\n",
                group(meta.len())
            ));
        }
        if write {
            let body = format!(
                "Command: `cargo xtask bench --krm` (median of {runs} runs of the release `kguest krm` per cell, inputs from `xtask/src/bench.rs`: {} B for 100 items, {} B for 1,000)\n\n{table}",
                group(std::fs::metadata(&inputs[0].1).map_or(0, |m| m.len())),
                group(std::fs::metadata(&inputs[inputs.len() - 1].1).map_or(0, |m| m.len())),
            );
            write_doc_section(
                &paths::root().join("docs/benchmarks.md"),
                "<!-- krm:begin -->",
                "<!-- krm:end -->",
                &body,
            )?;
        }
        Ok(lines)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn inputs_are_resource_lists_of_n_items() {
            let text = super::resource_list(3);
            assert!(text.starts_with(
                "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "
            ));
            assert_eq!(text.matches("\n- apiVersion: apps/v1\n").count(), 3);
            assert!(text.contains("    name: web-2 # app 2\n"));
            assert!(text.ends_with("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    namespace: prod\n    images: '*/wasm/*'\n    runtimeClassName: wasm-smart\n"));
        }
    }
}
