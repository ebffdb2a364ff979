//! `cargo xtask demo`: the main job on the sample objects in `tests/data`.
//!
//! Builds the example plugins for wasm32 and the `kguest` CLI (release),
//! then, for each plugin, runs one scheduling cycle of the sample Pod over
//! the sample Nodes through the wasmtime host, printing the decisions, the
//! plugin's size and its per-call Filter latency. Last, it shows the Pod the
//! plugins read, decoded from its protobuf encoding by the views.

use std::process::Command;

use crate::{examples, paths};

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
    crate::test::cargo(&["build", "--quiet", "--release", "-p", "kguest-cli"])?;
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
    Ok(())
}
