//! `cargo xtask demo`: the main job on the sample objects in `tests/data`.
//!
//! Builds the example plugins for wasm32 and the `kguest` CLI (release),
//! then, for each plugin, runs one scheduling cycle of the sample Pod over
//! the sample Nodes through the wasmtime host, printing the decisions, the
//! plugin's size and its per-call latency. Then it shows the Pod the
//! plugins read, decoded from its protobuf encoding by the views, and ends
//! with the sizes of the examples next to the same jobs done other ways:
//! the prost baseline (built here) and upstream's TinyGo `nodenumber`
//! (from `$KGUEST_KSW_DIR` or `proto-vendor/ksw`, when present).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::size::group;
use crate::{examples, guests, paths};

/// (plugin, pod file) pairs, in the order the demo shows them.
const RUNS: &[(&str, &str)] = &[
    ("nodename", "pod.yaml"),
    ("taints", "pod.yaml"),
    ("fit", "pod.yaml"),
    ("wasm-runtime", "wasm-pod.yaml"),
    ("imagelocality", "pod.yaml"),
    ("nodenumber", "pod.yaml"),
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask demo (unknown argument `{arg}`)"
        ));
    }
    let plugins = examples::build_all()?;
    crate::cargo::cargo(&["build", "--quiet", "--release", "-p", "kguest-cli"])?;
    let kguest = paths::target_dir().join("release/kguest");
    let data = paths::root().join("tests/data");
    let nodes = data.join("nodes.yaml");

    for (name, pod) in RUNS {
        let Some((_, wasm)) = plugins.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let size = std::fs::metadata(wasm)
            .map_err(|err| format!("{}: {err}", wasm.display()))?
            .len();
        println!("\n== {name} ({size} bytes of wasm) on {pod} over nodes.yaml");
        let status = Command::new(&kguest)
            .arg("run")
            .arg(wasm)
            .arg("--pod")
            .arg(data.join(pod))
            .arg("--nodes")
            .arg(&nodes)
            .arg("--timing")
            .status()
            .map_err(|err| format!("running {}: {err}", kguest.display()))?;
        if !status.success() {
            return Err(format!("kguest run {name} failed ({status})"));
        }
    }

    println!("\n== the sample Pod as the plugins receive it: protobuf, decoded by the views");
    let encoded = Command::new(&kguest)
        .args(["encode"])
        .arg(data.join("pod.yaml"))
        .output()
        .map_err(|err| format!("running kguest encode: {err}"))?;
    if !encoded.status.success() {
        return Err(String::from_utf8_lossy(&encoded.stderr).into_owned());
    }
    println!(
        "{} bytes of Kubernetes protobuf; `kguest decode` gives back:",
        encoded.stdout.len()
    );
    let mut decode = Command::new(&kguest)
        .arg("decode")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|err| format!("running kguest decode: {err}"))?;
    if let Some(mut stdin) = decode.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(&encoded.stdout)
            .map_err(|err| err.to_string())?;
    }
    let out = decode.wait_with_output().map_err(|err| err.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines().take(24) {
        println!("{line}");
    }
    println!("  ... ({} lines)", text.lines().count());

    print!("{}", size_table(&plugins)?);
    Ok(())
}

/// Where upstream's TinyGo `nodenumber` build is, if anywhere.
fn tinygo_nodenumber() -> Option<PathBuf> {
    paths::ksw_file("examples/nodenumber/main.wasm")
}

/// The closing table: every example's size, then the comparison points.
fn size_table(plugins: &[(&str, PathBuf)]) -> Result<String, String> {
    let len = |path: &Path| {
        std::fs::metadata(path)
            .map(|m| m.len())
            .map_err(|err| format!("{}: {err}", path.display()))
    };
    let mut rows: Vec<(String, u64, String)> = Vec::new();
    for (name, path) in plugins {
        rows.push((name.to_string(), len(path)?, "kguest example".into()));
    }
    let size_of =
        |rows: &[(String, u64, String)], name: &str| rows.iter().find(|r| r.0 == name).map(|r| r.1);
    let times = |bytes: u64, of: Option<u64>| match of {
        Some(of) if of > 0 => format!("{:.0}x", bytes as f64 / of as f64),
        _ => "–".into(),
    };
    let prost = guests::build("baseline-prost")?;
    let prost_bytes = len(&prost)?;
    let what = format!(
        "nodename's Filter with k8s-pb + prost (std, allocator, full decode): {} nodename",
        times(prost_bytes, size_of(&rows, "nodename"))
    );
    rows.push(("baseline-prost".into(), prost_bytes, what));
    match tinygo_nodenumber() {
        Some(path) => {
            let bytes = len(&path)?;
            let what = format!(
                "upstream's nodenumber, TinyGo (the Go SDK): {} kguest's nodenumber",
                times(bytes, size_of(&rows, "nodenumber"))
            );
            rows.push(("TinyGo nodenumber".into(), bytes, what));
        }
        None => rows.push((
            "TinyGo nodenumber".into(),
            0,
            "not found: set KGUEST_KSW_DIR to a kube-scheduler-wasm-extension checkout".into(),
        )),
    }
    let name_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let mut out =
        String::from("\n== plugin sizes (guest profile; docs/benchmarks.md has the full table)\n");
    for (name, bytes, what) in &rows {
        let bytes = if *bytes == 0 {
            "–".into()
        } else {
            group(*bytes)
        };
        out.push_str(&format!("{name:<name_width$}  {bytes:>9} B  {what}\n"));
    }
    Ok(out)
}
