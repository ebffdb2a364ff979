//! The runtimes KRM users run, around kguest's KRM functions:
//! tests/krm-go (one Go module) holds `krm-wazero`, KEP-4944's runtime
//! (wazero, wasi_snapshot_preview1) as a judge; two KRM functions written
//! in Go with kyaml's fn/framework, built with `GOOS=wasip1 GOARCH=wasm`;
//! and standalone kustomize, built from `sigs.k8s.io/kustomize/kustomize/v5`
//! (a `tool` of the module).
//!
//! - [`prepare`] (`cargo xtask test` calls it): builds them and points the
//!   tests at them (`KGUEST_KRM_WAZERO`, `KGUEST_KRM_GO_FNS`,
//!   `KGUEST_KUSTOMIZE`, `KGUEST_KRM_DIR`); the kguest-cli tests then print
//!   `krm under wazero: N/M runs identical` and the other counts.
//! - `cargo xtask krm-bench`: the Go functions beside kguest's on 1,000
//!   items, under both runners; rewrites its section of docs/benchmarks.md.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::{cargo, examples, golang, paths};

const MODULE: &str = "tests/krm-go";
/// The Go KRM functions: package, file name (the same names as kguest's).
const GO_FUNCTIONS: [(&str, &str); 2] = [
    ("./fns/set-namespace", "set-namespace"),
    ("./fns/require-requests", "require-requests"),
];

/// Where the Go functions go: `<target>/krm-go/`.
fn go_fn_dir() -> PathBuf {
    paths::target_dir().join("krm-go")
}

/// The built tools.
struct Tools {
    wazero: PathBuf,
    kustomize: PathBuf,
    go_fns: PathBuf,
}

/// Builds the harness, the Go functions and kustomize, printing how long
/// each took.
fn build() -> Result<Tools, String> {
    golang::require()?;
    let wazero = golang::build(MODULE, "./cmd/krm-wazero", "krm-wazero")?;
    let kustomize = golang::build(MODULE, "sigs.k8s.io/kustomize/kustomize/v5", "kustomize")?;
    let dir = go_fn_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (pkg, name) in GO_FUNCTIONS {
        let out = dir.join(format!("{name}.wasm"));
        let started = Instant::now();
        let status = Command::new("go")
            .args(["build", "-o"])
            .arg(&out)
            .arg(pkg)
            .env("GOOS", "wasip1")
            .env("GOARCH", "wasm")
            .current_dir(paths::root().join(MODULE))
            .status()
            .map_err(|e| format!("running go: {e}"))?;
        if !status.success() {
            return Err(format!(
                "`GOOS=wasip1 GOARCH=wasm go build {pkg}` in {MODULE} failed ({status})"
            ));
        }
        eprintln!(
            "built {} (GOOS=wasip1) in {:.1} s",
            out.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Tools {
        wazero,
        kustomize,
        go_fns: dir,
    })
}

/// Points the tests at the tools.
fn export(tools: &Tools) {
    // SAFETY of the env changes: xtask is single-threaded here.
    unsafe {
        std::env::set_var("KGUEST_KRM_WAZERO", &tools.wazero);
        std::env::set_var("KGUEST_KUSTOMIZE", &tools.kustomize);
        std::env::set_var("KGUEST_KRM_GO_FNS", &tools.go_fns);
        std::env::set_var("KGUEST_KRM_DIR", examples::krm_dir());
    }
}

/// Builds the Go tools and kguest's KRM functions and points the tests at
/// them (the variables stay set for the rest of `cargo xtask test`).
pub fn prepare() -> Result<(), String> {
    let started = Instant::now();
    let tools = build()?;
    examples::build_krm()?;
    export(&tools);
    eprintln!(
        "krm tools built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

const BENCH_USAGE: &str = "usage: cargo xtask krm-bench [--runs N] (N runs per cell, default 5)";

/// `cargo xtask krm-bench`.
pub fn bench(args: &[String]) -> Result<(), String> {
    let mut runs = 5usize;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" => {
                runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or(BENCH_USAGE)?;
            }
            _ => return Err(BENCH_USAGE.into()),
        }
    }
    let tools = build()?;
    let krm = examples::build_krm()?;
    cargo::cargo(&["build", "--quiet", "--release", "-p", "kguest-cli"])?;
    let cli = paths::target_dir().join("release/kguest");
    let input = thousand_items();
    let list = paths::target_dir().join("krm-go/bench-1000.yaml");
    std::fs::write(&list, &input).map_err(|e| format!("{}: {e}", list.display()))?;
    let mut rows = Vec::new();
    for name in ["set-namespace", "require-requests"] {
        let ours = krm
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p.clone())
            .ok_or(format!("{name}.wasm was not built"))?;
        let go = tools.go_fns.join(format!("{name}.wasm"));
        for (sdk, wasm) in [
            ("kguest-krm (Rust)", &ours),
            ("kyaml fn/framework (Go)", &go),
        ] {
            let k = kguest_runs(&cli, wasm, &list, runs)?;
            let w = wazero_runs(&tools.wazero, wasm, &list, runs)?;
            let bytes = std::fs::metadata(wasm)
                .map_err(|e| format!("{}: {e}", wasm.display()))?
                .len();
            rows.push(format!(
                "| {name} | {sdk} | {} | {:.0} ms | {:.1} ms | {} | {:.0} ms | {:.1} ms | {} | {} |",
                thousands(bytes),
                k.compile_ms + k.run_ms,
                k.run_ms,
                mib(k.rss),
                w.compile_ms + w.run_ms,
                w.run_ms,
                mib(w.peak_linear),
                mib(w.rss),
            ));
        }
    }
    let section = format!(
        "Command: `cargo xtask krm-bench --runs {runs}` (median of {runs} runs per cell; input: \
         1,000 Deployments with comments, {} B, made by `xtask/src/krmgo.rs`). `kguest krm` is the \
         release build (wasmtime, compiling on every call); wazero is `tests/krm-go/cmd/krm-wazero` \
         (KEP-4944's runtime: wazero {}'s compiler, wasi_snapshot_preview1); both with a 300 s \
         deadline. Compile included = \
         compile + one run; excluded = the run alone (for `kguest krm`, instantiation, `_start` \
         and its list checks; for wazero, instantiation and `_start`). Peak memory: the process's \
         maximum resident set (`/usr/bin/time`), and the function's largest linear memory (wazero's \
         allocator sees it).\n\n\
         | function | written with | wasm bytes | `kguest krm`, compile included | excluded | `kguest krm` peak RSS | wazero, compile included | excluded | linear memory | wazero peak RSS |\n\
         |---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n{}\n",
        thousands(input.len() as u64),
        wazero_version(),
        rows.join("\n")
    );
    println!("{section}");
    write_section(&section)
}

/// One cell's measurements (medians).
#[derive(Default)]
struct Cell {
    compile_ms: f64,
    run_ms: f64,
    rss: u64,
    peak_linear: u64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Runs `program args < input` under `/usr/bin/time -f %M`; returns its
/// stderr (the last line, the maximum RSS in KiB, removed) and the RSS.
fn timed(program: &Path, args: &[&str], input: &Path) -> Result<(String, u64), String> {
    let stdin = std::fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("running /usr/bin/time {}: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let (rest, last) = text
        .trim_end()
        .rsplit_once('\n')
        .unwrap_or(("", text.trim()));
    let rss = last
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("{}: no RSS in `{}`", program.display(), text.trim()))?;
    Ok((rest.to_string(), rss << 10))
}

/// The number after `key` in `text` (e.g. `compile 61.2 ms`).
fn number_after(text: &str, key: &str) -> Option<f64> {
    let at = text.find(key)? + key.len();
    text[at..].split_whitespace().next()?.parse().ok()
}

fn kguest_runs(cli: &Path, wasm: &Path, list: &Path, runs: usize) -> Result<Cell, String> {
    let wasm = wasm.to_string_lossy();
    let (mut compile, mut run, mut rss) = (Vec::new(), Vec::new(), 0);
    for _ in 0..runs {
        let (err, r) = timed(cli, &["krm", &wasm, "--timing", "--timeout", "300"], list)?;
        let line = err
            .lines()
            .find(|l| l.starts_with("kguest krm: compile "))
            .ok_or_else(|| format!("kguest krm {wasm}: {err}"))?;
        compile.push(number_after(line, "compile ").unwrap_or(0.0));
        run.push(
            number_after(line, "run ").unwrap_or(0.0)
                + number_after(line, "checks ").unwrap_or(0.0),
        );
        rss = rss.max(r);
    }
    Ok(Cell {
        compile_ms: median(compile),
        run_ms: median(run),
        rss,
        peak_linear: 0,
    })
}

fn wazero_runs(harness: &Path, wasm: &Path, list: &Path, runs: usize) -> Result<Cell, String> {
    let wasm = wasm.to_string_lossy();
    let (mut compile, mut run, mut rss, mut peak) = (Vec::new(), Vec::new(), 0, 0);
    for _ in 0..runs {
        let (err, r) = timed(harness, &["-repeat", "1", "-timeout", "300s", &wasm], list)?;
        let line = err
            .lines()
            .find(|l| l.starts_with("krm-wazero: compile "))
            .ok_or_else(|| format!("krm-wazero {wasm}: {err}"))?;
        compile.push(number_after(line, "compile ").unwrap_or(0.0));
        run.push(number_after(line, "run ").unwrap_or(0.0));
        peak = number_after(line, "peak memory ").map_or(peak, |p| p as u64);
        rss = rss.max(r);
    }
    Ok(Cell {
        compile_ms: median(compile),
        run_ms: median(run),
        rss,
        peak_linear: peak,
    })
}

/// 1,000 Deployments (a comment each; every container asks for cpu and
/// memory, so the validator reports nothing) and a namespace config.
fn thousand_items() -> String {
    let mut s = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in 0..1000 {
        s.push_str(&format!(
            "- apiVersion: apps/v1\n  kind: Deployment # number {i}\n  metadata:\n    name: web-{i}\n    \
             labels: {{app: web-{i}}}\n    annotations:\n      internal.config.kubernetes.io/path: 'apps/web-{i}.yaml'\n  \
             spec:\n    replicas: 2\n    template:\n      spec:\n        containers:\n        - name: web\n          \
             image: ghcr.io/acme/web:{i}\n          resources:\n            requests: {{cpu: 100m, memory: 64Mi}}\n            \
             limits: {{cpu: '1', memory: 128Mi}}\n"
        ));
    }
    s.push_str("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {namespace: prod}\n");
    s
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mib(bytes: u64) -> String {
    if bytes == 0 {
        "—".into()
    } else {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    }
}

/// wazero's version as tests/krm-go/go.mod requires it.
fn wazero_version() -> String {
    std::fs::read_to_string(paths::root().join(MODULE).join("go.mod"))
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.trim().strip_prefix("github.com/tetratelabs/wazero "))
                .map(|v| v.split_whitespace().next().unwrap_or("").to_string())
        })
        .unwrap_or_else(|| "?".into())
}

const BEGIN: &str = "<!-- krm-go:begin -->";
const END: &str = "<!-- krm-go:end -->";
const HEADING: &str =
    "## KRM functions in Go (wasip1) beside kguest's, under kguest krm and wazero";

/// Replaces the section between the markers in docs/benchmarks.md, or
/// appends it (with its heading) at the end.
fn write_section(section: &str) -> Result<(), String> {
    let path = paths::root().join("docs/benchmarks.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let body = format!("{BEGIN}\n{section}{END}");
    let new = match (text.find(BEGIN), text.find(END)) {
        (Some(b), Some(e)) if b < e => format!("{}{body}{}", &text[..b], &text[e + END.len()..]),
        _ => format!("{}\n\n{HEADING}\n\n{body}\n", text.trim_end()),
    };
    std::fs::write(&path, new).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
