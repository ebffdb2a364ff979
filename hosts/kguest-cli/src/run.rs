//! `kguest run`: one scheduling cycle of a plugin over a Pod and some Nodes,
//! in the order kube-scheduler calls the hooks ([`Plugin::schedule`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use kguest_host::{
    Code, Cycle, CycleReport, Event, Hook, LogRecord, Plugin, PluginConfig, Runtime, RuntimeConfig,
    SchedulerHandle, Score, Snapshot, Status,
};
use serde_json::{Value, json};

use crate::{Failure, read_input};
use kguest_k8s::load::Loader;
use kguest_wire::json::FieldValidation;

/// `kguest run --help`.
pub const USAGE: &str = "\
usage: kguest run PLUGIN.wasm --pod FILE --nodes FILE [options]

PLUGIN.wasm is a path, or a guest URL as kube-scheduler-wasm-extension's
guestURL names one: file://PATH or http://HOST/PATH (https is not supported).

Runs one scheduling cycle of a kube-scheduler-wasm-extension plugin, calling
its hooks as kube-scheduler does: PreFilter (its node names restrict the
candidate nodes), Filter on each candidate, PostFilter if none fits, then
PreScore, Score and NormalizeScore on the feasible nodes. Prints one row per
node: the Filter status and reason, and the score (or Score's failure).

FILE holds YAML or JSON: one object, several YAML documents, or a List
(`kubectl get pod,node -o yaml` output). The node list and the image states
the plugin sees are computed over all the nodes given, as the scheduler does.

options:
  --pod FILE        the Pod to schedule
  --nodes FILE      the Nodes
  --config FILE     guest configuration (served by get_config; by convention JSON)
  --arg VALUE       a guest argument (repeatable): the guest's argv is
                    PLUGIN.wasm followed by the values, as KSW's PluginConfig.Args
  --json            one JSON object per node instead of a table
  --timing          also time the filter hook (else score): per call in a fresh
                    cycle and per call on the next node of the same cycle
  -h, --help        this text

Guest klog lines and recorded events go to standard error.
";

/// Calls timed per scenario by `--timing` (after a warm-up).
const FRESH_CYCLE_CALLS: usize = 2_000;
const NEXT_NODE_CALLS: usize = 20_000;
const WARM_UP_CALLS: usize = 200;

struct Options<'a> {
    wasm: &'a str,
    pod: &'a str,
    nodes: &'a str,
    config: Option<&'a str>,
    args: Vec<String>,
    as_json: bool,
    timing: bool,
}

pub fn run(args: &[String]) -> Result<(), Failure> {
    let Some(opts) = parse(args)? else {
        return crate::write_stdout(USAGE.as_bytes());
    };
    // A guest URL as KSW's `guestURL` names one, or a path.
    let wasm_bytes = if opts.wasm.contains("://") {
        kguest_host::guest_url::fetch(opts.wasm)
            .map_err(|err| Failure::Input(format!("{}: {err}", opts.wasm)))?
    } else {
        read_input(Some(opts.wasm))?.1
    };
    if !wasm_bytes.starts_with(b"\0asm") {
        return Err(Failure::Input(format!(
            "{}: not a WebAssembly module (no `\\0asm` header)",
            opts.wasm
        )));
    }
    let guest_config = match opts.config {
        Some(path) => read_input(Some(path))?.1,
        None => Vec::new(),
    };
    let [pod_bytes] =
        <[Vec<u8>; 1]>::try_from(load_objects(opts.pod, "Pod")?).map_err(|found| {
            Failure::Input(format!(
                "{}: expected one Pod, found {}",
                opts.pod,
                found.len()
            ))
        })?;
    let node_bytes = load_objects(opts.nodes, "Node")?;
    let given = node_bytes.len();
    let snapshot = Snapshot::from_nodes(node_bytes)
        .map_err(|err| Failure::Input(format!("{}: {err}", opts.nodes)))?;
    if snapshot.len() != given {
        return Err(Failure::Input(format!(
            "{}: {} node(s) repeat another node's name (names are unique in a cluster)",
            opts.nodes,
            given - snapshot.len()
        )));
    }
    let pod_bytes: Arc<[u8]> = pod_bytes.into();
    let cycle = Cycle::new(pod_bytes.clone(), Arc::new(snapshot))
        .map_err(|err| Failure::Input(format!("{}: {err}", opts.pod)))?;

    let runtime = Runtime::new(RuntimeConfig::default())
        .map_err(|err| Failure::Input(format!("starting wasmtime: {err}")))?;
    let handle = Arc::new(CliHandle::default());
    let guest_args = if opts.args.is_empty() {
        Vec::new()
    } else {
        std::iter::once(opts.wasm.to_string())
            .chain(opts.args.iter().cloned())
            .collect()
    };
    let plugin_config = PluginConfig {
        guest_config: guest_config.into(),
        args: guest_args,
        handle: handle.clone(),
        ..PluginConfig::default()
    };
    let guest_failed = |err: &dyn std::fmt::Display| {
        Failure::Input(format!("{}: {}", opts.wasm, one_line(&err.to_string())))
    };
    let plugin =
        Plugin::load(&runtime, &wasm_bytes, plugin_config).map_err(|e| guest_failed(&e))?;
    let report = plugin.schedule(&cycle).map_err(|e| guest_failed(&e))?;

    let mut out = if opts.as_json {
        json_lines(&report)
    } else {
        table(&report)
    };
    let notes = cycle_notes(&report);
    if opts.as_json {
        for note in &notes {
            eprintln!("{note}");
        }
    } else {
        for note in &notes {
            out.push_str(note);
            out.push('\n');
        }
    }
    if opts.timing {
        handle.quiet.store(true, Ordering::Relaxed);
        let line = timing(&plugin, &pod_bytes, &cycle, &report).map_err(|e| guest_failed(&e))?;
        out.push_str(&line);
        out.push('\n');
    }
    crate::write_stdout(out.as_bytes())
}

/// `None` for `--help`.
fn parse(args: &[String]) -> Result<Option<Options<'_>>, Failure> {
    let mut wasm = None;
    let mut pod = None;
    let mut nodes = None;
    let mut config = None;
    let mut guest_args = Vec::new();
    let mut as_json = false;
    let mut timing = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = |flag: &str, what: &str| {
            iter.next()
                .map(String::as_str)
                .ok_or_else(|| Failure::Usage(format!("run: {flag} needs {what}")))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--pod" => pod = Some(value("--pod", "a file")?),
            "--nodes" => nodes = Some(value("--nodes", "a file")?),
            "--config" => config = Some(value("--config", "a file")?),
            "--arg" => guest_args.push(value("--arg", "a value")?.to_string()),
            "--json" => as_json = true,
            "--timing" => timing = true,
            flag if flag.starts_with('-') => {
                return Err(Failure::Usage(format!("run: unknown option `{flag}`")));
            }
            path => {
                if wasm.replace(path).is_some() {
                    return Err(Failure::Usage("run takes one plugin file".into()));
                }
            }
        }
    }
    if guest_args.iter().any(|a| a.contains('\0')) {
        return Err(Failure::Usage(
            "run: --arg values cannot contain NUL".into(),
        ));
    }
    Ok(Some(Options {
        wasm: wasm.ok_or_else(|| Failure::Usage("run: missing PLUGIN.wasm".into()))?,
        pod: pod.ok_or_else(|| Failure::Usage("run: missing --pod FILE".into()))?,
        nodes: nodes.ok_or_else(|| Failure::Usage("run: missing --nodes FILE".into()))?,
        config,
        args: guest_args,
        as_json,
        timing,
    }))
}

/// Error text from wasmtime can span lines; the CLI reports one.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// FILE's objects of `kind`, encoded to protobuf. The one place that turns
/// YAML/JSON files into objects.
fn load_objects(path: &str, kind: &str) -> Result<Vec<Vec<u8>>, Failure> {
    let (name, bytes) = read_input(Some(path))?;
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::Input(format!("{name}: not UTF-8 text")))?;
    let mut wanted = Vec::new();
    // Objects of other kinds are skipped, so one `kubectl get pod,node -o
    // yaml` List can be both --pod and --nodes; they are named if nothing
    // of `kind` is found.
    let mut others: Vec<String> = Vec::new();
    // A cluster one release ahead must not stop a run: unknown fields are
    // dropped, each named on stderr.
    for object in Loader::new(&name, &text).field_validation(FieldValidation::Warn) {
        let object = object.map_err(|err| Failure::Input(err.to_string()))?;
        for warning in &object.warnings {
            eprintln!("warning: {}: {warning}", object.origin);
        }
        if object.kind == kind {
            wanted.push(object.raw);
        } else if !others.contains(&object.kind) {
            others.push(object.kind);
        }
    }
    if wanted.is_empty() {
        let found = if others.is_empty() {
            "no objects".to_string()
        } else {
            format!("only {}", others.join(", "))
        };
        return Err(Failure::Input(format!(
            "{name}: no {kind} in the input ({found})"
        )));
    }
    Ok(wanted)
}

/// Prints guest klog lines and events on stderr (unless quiet).
#[derive(Default)]
struct CliHandle {
    quiet: AtomicBool,
}

impl SchedulerHandle for CliHandle {
    fn log(&self, record: &LogRecord<'_>) {
        if !self.quiet.load(Ordering::Relaxed) {
            eprintln!("[guest {}] {}", record.severity_name(), record.to_line());
        }
    }

    fn event(&self, event_json: &[u8]) {
        if self.quiet.load(Ordering::Relaxed) {
            return;
        }
        match Event::from_json(event_json) {
            Ok(event) => eprintln!("[guest event] {event}"),
            Err(_) => eprintln!(
                "[guest event] (not KSW's EventMessage) {}",
                String::from_utf8_lossy(event_json)
            ),
        }
    }
}

/// kube-scheduler's name for a status code (`Code(42)` for unknown ones).
pub fn status_name(code: Code) -> String {
    code.name()
        .map_or_else(|| format!("Code({})", code.0), str::to_string)
}

fn status_text(status: &Status) -> String {
    match status.reason.as_deref() {
        Some(reason) if !reason.is_empty() => format!("{}: {reason}", status_name(status.code)),
        _ => status_name(status.code),
    }
}

/// Lines about the cycle as a whole: what PreFilter, PostFilter, PreScore
/// and NormalizeScore decided, when it matters.
fn cycle_notes(report: &CycleReport) -> Vec<String> {
    let mut notes = Vec::new();
    let prefilter = &report.prefilter;
    if !prefilter.status.is_success() {
        notes.push(format!("PreFilter: {}", status_text(&prefilter.status)));
    }
    if let Some(names) = &prefilter.node_names {
        notes.push(format!("PreFilter: only nodes [{}]", names.join(", ")));
    }
    if let Some(post) = &report.postfilter {
        let nominated = post.nominated_node_name.as_deref().unwrap_or("");
        notes.push(format!(
            "PostFilter: {}, nominated node `{nominated}` (mode {})",
            status_text(&post.status),
            post.mode.0
        ));
    }
    if let Some(status) = report.prescore.as_ref().filter(|s| !s.is_success()) {
        notes.push(format!("PreScore: {} (Score not run)", status_text(status)));
    }
    if let Some(normalize) = report.normalize.as_ref().filter(|n| !n.status.is_success()) {
        notes.push(format!(
            "NormalizeScore: {}",
            status_text(&normalize.status)
        ));
    }
    notes
}

fn json_lines(report: &CycleReport) -> String {
    report
        .nodes
        .iter()
        .map(|d| {
            let (score, score_status, score_reason) = match &d.score {
                Score::NotRun => (Value::Null, Value::Null, Value::Null),
                Score::Value(v) => (json!(v), json!("Success"), json!("")),
                Score::Failed(status) => (
                    Value::Null,
                    json!(status_name(status.code)),
                    json!(status.reason.clone().unwrap_or_default()),
                ),
            };
            json!({
                "node": d.node,
                "filter": status_name(d.filter.code),
                "reason": d.filter.reason.clone().unwrap_or_default(),
                "score": score,
                "score_status": score_status,
                "score_reason": score_reason,
            })
            .to_string()
                + "\n"
        })
        .collect()
}

fn table(report: &CycleReport) -> String {
    let rows: Vec<[String; 4]> = report
        .nodes
        .iter()
        .map(|d| {
            let score = match &d.score {
                Score::NotRun => "-".to_string(),
                Score::Value(v) => v.to_string(),
                Score::Failed(status) => status_text(status),
            };
            [
                d.node.clone(),
                status_name(d.filter.code),
                d.filter.reason.clone().unwrap_or_default(),
                score,
            ]
        })
        .collect();
    let header = [
        "NODE".to_string(),
        "FILTER".into(),
        "REASON".into(),
        "SCORE".into(),
    ];
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 4]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == 3 {
                out.push_str(&format!("{cell:>w$}"));
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    std::iter::once(&header).chain(&rows).map(line).collect()
}

/// `--timing`: the mean wall time of one call of the filter hook (score if
/// the plugin has no filter), in a fresh cycle (the guest fetches the Pod
/// again; its prefilter runs first when it exports one) and on the next
/// node of the same cycle.
fn timing(
    plugin: &Plugin,
    pod: &Arc<[u8]>,
    cycle: &Cycle,
    report: &CycleReport,
) -> Result<String, Box<dyn std::error::Error>> {
    let hooks = plugin.hooks();
    let (hook, nodes): (Hook, Vec<&str>) = if hooks.contains(Hook::Filter) {
        let excluded = |d: &&kguest_host::NodeDecision| {
            d.filter.reason.as_deref() == Some(kguest_host::EXCLUDED_BY_PREFILTER)
        };
        let candidates = report.nodes.iter().filter(|d| !excluded(d));
        (Hook::Filter, candidates.map(|d| d.node.as_str()).collect())
    } else if hooks.contains(Hook::Score) {
        let feasible = report.nodes.iter().filter(|d| d.filter.is_success());
        (Hook::Score, feasible.map(|d| d.node.as_str()).collect())
    } else {
        return Ok("timing: the plugin exports neither filter nor score; nothing timed".into());
    };
    if nodes.is_empty() {
        return Ok(format!(
            "timing ({hook}): no node to call it on; nothing timed"
        ));
    }
    let call = |cycle: &Cycle, node: &str| -> Result<(), kguest_host::CallError> {
        match hook {
            Hook::Filter => plugin.filter(cycle, node).map(drop),
            _ => plugin.score(cycle, node).map(drop),
        }
    };
    for node in nodes.iter().cycle().take(WARM_UP_CALLS) {
        call(cycle, node)?;
    }
    let start = Instant::now();
    for node in nodes.iter().cycle().take(FRESH_CYCLE_CALLS) {
        let fresh = Cycle::new(pod.clone(), cycle.snapshot().clone())?;
        call(&fresh, node)?;
    }
    let fresh = start.elapsed().as_secs_f64() / FRESH_CYCLE_CALLS as f64;
    let start = Instant::now();
    for node in nodes.iter().cycle().take(NEXT_NODE_CALLS) {
        call(cycle, node)?;
    }
    let next = start.elapsed().as_secs_f64() / NEXT_NODE_CALLS as f64;
    Ok(format!(
        "timing ({hook}): {:.2} us per call in a fresh cycle, {:.2} us per call on the \
         next node (one reused instance)",
        fresh * 1e6,
        next * 1e6
    ))
}
