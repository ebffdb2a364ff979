//! `cargo xtask demo`: the main job on embedded sample data.
//!
//! Encodes a small sample Pod as the API server would send it, decodes it
//! with `kguest decode` (views → Kubernetes JSON), and builds the nodeName
//! guest for wasm32 to show its size.

use std::process::Command;

use crate::{guests, paths};

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask demo (unknown argument `{arg}`)"
        ));
    }
    let dir = paths::target_dir().join("demo");
    std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let pod_file = dir.join("pod.pb");
    let pod = sample_pod();
    std::fs::write(&pod_file, &pod).map_err(|err| format!("{}: {err}", pod_file.display()))?;
    println!(
        "== sample Pod: {} bytes of Kubernetes protobuf in {}",
        pod.len(),
        pod_file.display()
    );

    println!("== kguest decode {}", pod_file.display());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["run", "--quiet", "-p", "kguest-cli", "--", "decode"])
        .arg(&pod_file)
        .current_dir(paths::root())
        .status()
        .map_err(|err| format!("running kguest: {err}"))?;
    if !status.success() {
        return Err(format!("kguest decode failed ({status})"));
    }

    println!("== guests (wasm32-unknown-unknown, guest profile)");
    for (package, budget) in guests::BUDGETS {
        let path = guests::build(package)?;
        let size = std::fs::metadata(&path)
            .map_err(|err| format!("{}: {err}", path.display()))?
            .len();
        println!(
            "{package}: {size} bytes (budget {budget}) at {}",
            path.display()
        );
    }
    Ok(())
}

/// A tiny protobuf writer: enough to lay out the sample by field number.
#[derive(Default)]
struct Msg(Vec<u8>);

impl Msg {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn bytes(mut self, number: u32, value: &[u8]) -> Self {
        self.varint(u64::from(number) << 3 | 2);
        self.varint(value.len() as u64);
        self.0.extend_from_slice(value);
        self
    }

    fn str(self, number: u32, value: &str) -> Self {
        self.bytes(number, value.as_bytes())
    }

    fn msg(self, number: u32, value: Msg) -> Self {
        self.bytes(number, &value.0)
    }

    fn entry(self, number: u32, key: &str, value: Msg) -> Self {
        self.msg(number, Msg::default().str(1, key).msg(2, value))
    }

    fn str_entry(self, number: u32, key: &str, value: &str) -> Self {
        self.msg(number, Msg::default().str(1, key).str(2, value))
    }
}

/// The sample: a Pod already bound to `node-a`, wrapped in the `k8s\0` envelope.
fn sample_pod() -> Vec<u8> {
    let quantity = |q: &str| Msg::default().str(1, q);
    let metadata = Msg::default()
        .str(1, "web-7d4b9c")
        .str(3, "default")
        .str_entry(11, "app", "web")
        .str_entry(11, "tier", "frontend");
    let resources = Msg::default()
        .entry(1, "memory", quantity("256Mi"))
        .entry(2, "cpu", quantity("250m"))
        .entry(2, "memory", quantity("128Mi"));
    let container = Msg::default()
        .str(1, "web")
        .str(2, "nginx:1.27")
        .msg(8, resources);
    let spec = Msg::default().msg(2, container).str(10, "node-a");
    let status = Msg::default().str(1, "Pending");
    let pod = Msg::default().msg(1, metadata).msg(2, spec).msg(3, status);
    let type_meta = Msg::default().str(1, "v1").str(2, "Pod");
    let unknown = Msg::default()
        .msg(1, type_meta)
        .bytes(2, &pod.0)
        .str(3, "")
        .str(4, "");
    let mut out = b"k8s\0".to_vec();
    out.extend_from_slice(&unknown.0);
    out
}
