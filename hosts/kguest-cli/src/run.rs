//! `kguest run`: one scheduling cycle of a plugin over a Pod and some Nodes,
//! in the order kube-scheduler calls the hooks ([`Plugin::schedule`]), or of
//! the wasm plugins of a `KubeSchedulerConfiguration` profile together
//! ([`Profile::schedule`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use kguest_host::{
    Code, Cycle, CycleOutcome, CycleReport, Event, Hook, LogRecord, Outcome, Plugin, PluginConfig,
    Profile, ProfileReport, Runtime, RuntimeConfig, SchedulerHandle, Score, Snapshot, Status,
};
use serde_json::{Value, json};

use crate::{Failure, read_input};
use kguest_json::FieldValidation;
use kguest_k8s_io::load::Loader;

/// Run one scheduling cycle of a kube-scheduler-wasm-extension plugin (or profile)
///
///   kguest run PLUGIN.wasm --pod FILE --nodes FILE [options]
///   kguest run --config SCHED-CONFIG.yaml --pod FILE --nodes FILE [options]
///   kguest run --plugin NAME=PLUGIN.wasm[,weight=N][,config=FILE]... --pod FILE --nodes FILE
///
/// PLUGIN.wasm is a path, or a guest URL as kube-scheduler-wasm-extension's
/// guestURL names one: file://PATH, http://HOST/PATH or https://HOST/PATH.
///
/// Runs one scheduling cycle of a kube-scheduler-wasm-extension plugin, calling
/// its hooks as kube-scheduler does: PreFilter (its node names restrict the
/// candidate nodes), Filter on each candidate, PostFilter if none fits, then
/// PreScore, Score and NormalizeScore on the feasible nodes. Prints one row per
/// node: the Filter status and reason, and the score (or Score's failure).
/// A hook the plugin does not export shows as `not run`.
///
/// With a KubeSchedulerConfiguration as --config (and no PLUGIN.wasm), runs the
/// wasm plugins of one of its profiles together, as kube-scheduler runs a
/// profile: a plugin counts when it is enabled under plugins.multiPoint and its
/// pluginConfig args have a guestURL (read as KSW reads it: file://PATH relative
/// to the current directory, http:// or https://); its guestConfig, logSeverity,
/// args and weight come from the configuration. Every PreFilter, then Filter over the
/// nodes (a node passes only if every Filter passes; kube-scheduler stops at the
/// first rejection), PostFilter if none passed, PreScore/Score/NormalizeScore
/// on the nodes that passed (not when only one did), weights, the highest total
/// (a tie goes to the first node in --nodes order; kube-scheduler picks one of
/// the tied nodes at random), then Reserve, Permit, PreBind, Bind and PostBind
/// on that node. Prints one row per node and plugin, then the chosen node and
/// why. kube-scheduler's own plugins in the profile are not run. --plugin
/// (repeated) gives such a profile on the command line, in that order.
///
/// FILE holds YAML or JSON: one object, several YAML documents, or a List
/// (`kubectl get pod,node -o yaml` output). The node list and the image states
/// the plugin sees are computed over all the nodes given, as the scheduler does.
///
/// Guest klog lines and recorded events go to standard error.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The plugin: a path or a guest URL (none with a
    /// KubeSchedulerConfiguration as --config, or with --plugin)
    #[arg(value_name = "PLUGIN.wasm", value_hint = clap::ValueHint::FilePath, verbatim_doc_comment)]
    wasm: Option<String>,
    /// The Pod to schedule.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pod: String,
    /// The Nodes.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    nodes: String,
    /// Guest configuration (served by get_config; by convention JSON), or a
    /// KubeSchedulerConfiguration (see above)
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, verbatim_doc_comment)]
    config: Option<String>,
    /// With a KubeSchedulerConfiguration: the profile whose schedulerName is
    /// NAME (default: the first profile)
    #[arg(long, value_name = "NAME", verbatim_doc_comment)]
    profile: Option<String>,
    /// NAME=PLUGIN.wasm[,weight=N][,config=FILE]: one plugin of a profile
    /// (repeatable; weight 0 or absent means 1)
    #[arg(long = "plugin", value_name = "SPEC", verbatim_doc_comment)]
    plugins: Vec<String>,
    /// A guest argument (repeatable): the guest's argv is PLUGIN.wasm followed
    /// by the values, as KSW's PluginConfig.Args
    #[arg(
        long = "arg",
        value_name = "VALUE",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    args: Vec<String>,
    /// One JSON object per node instead of a table.
    #[arg(long)]
    json: bool,
    /// Also time the filter hook (else score): per call in a fresh cycle and
    /// per call on the next node of the same cycle
    #[arg(long, verbatim_doc_comment)]
    timing: bool,
}

/// Calls timed per scenario by `--timing` (after a warm-up).
const FRESH_CYCLE_CALLS: usize = 2_000;
const NEXT_NODE_CALLS: usize = 20_000;
const WARM_UP_CALLS: usize = 200;

struct Options<'a> {
    /// `None` with a KubeSchedulerConfiguration as `--config`.
    wasm: Option<&'a str>,
    profile: Option<&'a str>,
    /// `--plugin` specs: a profile on the command line.
    plugins: Vec<&'a str>,
    pod: &'a str,
    nodes: &'a str,
    config: Option<&'a str>,
    args: Vec<String>,
    as_json: bool,
    timing: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let opts = options(&args)?;
    let config = match opts.config {
        Some(path) => Some(read_input(Some(path))?),
        None => None,
    };
    let scheduler_config = config
        .as_ref()
        .and_then(|(name, bytes)| as_scheduler_config(name, bytes).transpose())
        .transpose()?;
    let (pod_bytes, cycle) = load_cycle(&opts)?;
    let runtime = Runtime::new(RuntimeConfig::default())
        .map_err(|err| Failure::Input(format!("starting wasmtime: {err}")))?;
    let handle = Arc::new(CliHandle::default());
    if !opts.plugins.is_empty() {
        if opts.wasm.is_some() || scheduler_config.is_some() || !opts.args.is_empty() {
            return Err(Failure::Usage(
                "--plugin goes without PLUGIN.wasm, a KubeSchedulerConfiguration or --arg".into(),
            ));
        }
        return run_plugins(&opts, &runtime, handle, &cycle);
    }
    match (opts.wasm, scheduler_config) {
        (None, Some(sched)) => run_profile(&opts, &sched, &runtime, handle, &cycle),
        (Some(wasm), sched) => {
            if sched.is_some() {
                return Err(Failure::Usage(
                    "--config is a KubeSchedulerConfiguration, which names its plugins: \
                     give no PLUGIN.wasm"
                        .into(),
                ));
            }
            let guest_config = config.map(|(_, bytes)| bytes).unwrap_or_default();
            run_plugin(
                &opts,
                wasm,
                guest_config,
                &runtime,
                handle,
                &pod_bytes,
                &cycle,
            )
        }
        (None, None) => Err(Failure::Usage(
            "missing PLUGIN.wasm (or --config with a KubeSchedulerConfiguration)".into(),
        )),
    }
}

/// The Pod and Nodes of `--pod` and `--nodes`, as one cycle.
fn load_cycle(opts: &Options<'_>) -> Result<(Arc<[u8]>, Cycle), Failure> {
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
    Ok((pod_bytes, cycle))
}

/// `bytes` as a KubeSchedulerConfiguration, if it is one (YAML or JSON
/// with `kind: KubeSchedulerConfiguration`); `None` for a guest config.
fn as_scheduler_config(name: &str, bytes: &[u8]) -> Result<Option<Value>, Failure> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(None);
    };
    let value: Option<Value> = serde_json::from_str(text)
        .ok()
        .or_else(|| serde_norway::from_str::<Value>(text).ok());
    match value {
        Some(v) if v.get("kind").and_then(Value::as_str) == Some("KubeSchedulerConfiguration") => {
            Ok(Some(v))
        }
        Some(v)
            if v.get("apiVersion")
                .and_then(Value::as_str)
                .is_some_and(|a| a.starts_with("kubescheduler.config.k8s.io/")) =>
        {
            Err(Failure::Input(format!(
                "{name}: a kubescheduler.config.k8s.io object that is not a KubeSchedulerConfiguration"
            )))
        }
        _ => Ok(None),
    }
}

fn run_plugin(
    opts: &Options<'_>,
    wasm: &str,
    guest_config: Vec<u8>,
    runtime: &Runtime,
    handle: Arc<CliHandle>,
    pod_bytes: &Arc<[u8]>,
    cycle: &Cycle,
) -> Result<(), Failure> {
    let wasm_bytes = read_wasm(wasm)?;
    let guest_args = if opts.args.is_empty() {
        Vec::new()
    } else {
        std::iter::once(wasm.to_string())
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
        Failure::Input(format!("{wasm}: {}", one_line(&err.to_string())))
    };
    let plugin = Plugin::load(runtime, &wasm_bytes, plugin_config).map_err(|e| guest_failed(&e))?;
    let report = plugin.schedule(cycle).map_err(|e| guest_failed(&e))?;
    let not_run = filter_not_run(&plugin, &report);

    let mut out = if opts.as_json {
        json_lines(&report, &not_run)
    } else {
        table(&report, &not_run)
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
        let line = timing(&plugin, pod_bytes, cycle, &report).map_err(|e| guest_failed(&e))?;
        out.push_str(&line);
        out.push('\n');
    }
    crate::write_stdout(out.as_bytes())
}

/// A plugin's bytes: a guest URL as KSW's `guestURL` names one, or a path.
fn read_wasm(wasm: &str) -> Result<Vec<u8>, Failure> {
    let bytes = if wasm.contains("://") {
        kguest_host::guest_url::fetch(wasm)
            .map_err(|err| Failure::Input(format!("{wasm}: {err}")))?
    } else {
        read_input(Some(wasm))?.1
    };
    if !bytes.starts_with(b"\0asm") {
        return Err(Failure::Input(format!(
            "{wasm}: not a WebAssembly module (no `\\0asm` header)"
        )));
    }
    Ok(bytes)
}

/// Per node, whether Filter was not called though the node shows success:
/// the guest exports no `filter`, or its PreFilter returned Skip.
fn filter_not_run(plugin: &Plugin, report: &CycleReport) -> Vec<bool> {
    let skipped =
        !plugin.hooks().contains(Hook::Filter) || report.prefilter.status.code == Code::SKIP;
    report
        .nodes
        .iter()
        .map(|d| skipped && d.filter.is_success())
        .collect()
}

/// The command line, borrowed.
fn options(args: &Args) -> Result<Options<'_>, Failure> {
    if args.args.iter().any(|a| a.contains('\0')) {
        return Err(Failure::Usage("--arg values cannot contain NUL".into()));
    }
    Ok(Options {
        wasm: args.wasm.as_deref(),
        profile: args.profile.as_deref(),
        plugins: args.plugins.iter().map(String::as_str).collect(),
        pod: &args.pod,
        nodes: &args.nodes,
        config: args.config.as_deref(),
        args: args.args.clone(),
        as_json: args.json,
        timing: args.timing,
    })
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

fn json_lines(report: &CycleReport, not_run: &[bool]) -> String {
    report
        .nodes
        .iter()
        .zip(not_run)
        .map(|(d, not_run)| {
            let (score, score_status, score_reason) = match &d.score {
                Score::NotRun => (Value::Null, Value::Null, Value::Null),
                Score::Value(v) => (json!(v), json!("Success"), json!("")),
                Score::Failed(status) => (
                    Value::Null,
                    json!(status_name(status.code)),
                    json!(status.reason.clone().unwrap_or_default()),
                ),
            };
            let filter = if *not_run {
                Value::Null
            } else {
                json!(status_name(d.filter.code))
            };
            json!({
                "node": d.node,
                "filter": filter,
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

fn table(report: &CycleReport, not_run: &[bool]) -> String {
    let rows: Vec<[String; 4]> = report
        .nodes
        .iter()
        .zip(not_run)
        .map(|(d, not_run)| {
            let score = match &d.score {
                Score::NotRun => "-".to_string(),
                Score::Value(v) => v.to_string(),
                Score::Failed(status) => status_text(status),
            };
            let filter = if *not_run {
                NOT_RUN.to_string()
            } else {
                status_name(d.filter.code)
            };
            [
                d.node.clone(),
                filter,
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

/// What the tables show for a hook that did not run.
const NOT_RUN: &str = "not run";

/// Columns padded to their widest cell; the columns in `right` aligned
/// right.
fn render(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    std::iter::once(&header)
        .chain(rows)
        .map(|cells| {
            let mut out = String::new();
            for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
                let w = *w;
                if right.contains(&i) {
                    out.push_str(&format!("{cell:>w$}  "));
                } else {
                    out.push_str(&format!("{cell:<w$}  "));
                }
            }
            out.trim_end().to_string() + "\n"
        })
        .collect()
}

/// `kguest run --config SCHED-CONFIG`: the wasm plugins of one profile.
fn run_profile(
    opts: &Options<'_>,
    config: &Value,
    runtime: &Runtime,
    handle: Arc<CliHandle>,
    cycle: &Cycle,
) -> Result<(), Failure> {
    let path = opts.config.unwrap_or_default();
    if !opts.args.is_empty() {
        return Err(Failure::Usage(
            "--arg does not go with a KubeSchedulerConfiguration (its pluginConfig has args)"
                .into(),
        ));
    }
    let profiles = kguest_host::scheduler_profiles(config)
        .map_err(|err| Failure::Input(format!("{path}: {err}")))?;
    let chosen = match opts.profile {
        Some(name) => profiles
            .iter()
            .find(|p| p.scheduler_name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = profiles.iter().map(|p| p.scheduler_name.as_str()).collect();
                Failure::Input(format!(
                    "{path}: no profile with schedulerName `{name}` (profiles: {})",
                    names.join(", ")
                ))
            })?,
        None => &profiles[0],
    };
    if chosen.plugins.is_empty() {
        return Err(Failure::Input(format!(
            "{path}: profile `{}` enables no wasm plugin under multiPoint (a plugin counts when its \
             pluginConfig args have a guestURL)",
            chosen.scheduler_name
        )));
    }
    let base = PluginConfig {
        handle: handle.clone(),
        ..PluginConfig::default()
    };
    let profile = Profile::from_config(runtime, chosen, &base).map_err(|(name, err)| {
        Failure::Input(format!(
            "{path}: plugin `{name}`: {}",
            one_line(&err.to_string())
        ))
    })?;
    let report = profile
        .schedule(cycle)
        .map_err(|err| Failure::Input(format!("{path}: {}", one_line(&err.to_string()))))?;
    print_profile(opts, &chosen.scheduler_name, &report, &chosen.other_plugins)
}

/// `--plugin NAME=PLUGIN.wasm[,weight=N][,config=FILE]`, repeated: a
/// profile given on the command line.
fn run_plugins(
    opts: &Options<'_>,
    runtime: &Runtime,
    handle: Arc<CliHandle>,
    cycle: &Cycle,
) -> Result<(), Failure> {
    let mut plugins = Vec::new();
    for spec in &opts.plugins {
        let bad = |why: &str| Failure::Usage(format!("--plugin {spec}: {why}"));
        let mut parts = spec.split(',');
        let (name, wasm) = parts
            .next()
            .and_then(|p| p.split_once('='))
            .filter(|(n, w)| !n.is_empty() && !w.is_empty())
            .ok_or_else(|| bad("expected NAME=PLUGIN.wasm[,weight=N][,config=FILE]"))?;
        let mut weight = 0;
        let mut guest_config = Vec::new();
        for part in parts {
            match part.split_once('=') {
                Some(("weight", n)) => {
                    weight = n.parse().map_err(|_| bad("weight must be an integer"))?;
                }
                Some(("config", file)) => guest_config = read_input(Some(file))?.1,
                _ => {
                    return Err(bad(&format!(
                        "unknown part `{part}` (weight=N or config=FILE)"
                    )));
                }
            }
        }
        let bytes = read_wasm(wasm)?;
        let config = PluginConfig {
            guest_config: guest_config.into(),
            handle: handle.clone(),
            ..PluginConfig::default()
        };
        let plugin = Plugin::load(runtime, &bytes, config).map_err(|e| {
            Failure::Input(format!(
                "plugin `{name}` ({wasm}): {}",
                one_line(&e.to_string())
            ))
        })?;
        plugins.push(kguest_host::ProfilePlugin {
            name: name.to_string(),
            plugin,
            weight,
        });
    }
    let profile = Profile::new(plugins).map_err(|e| Failure::Usage(e.to_string()))?;
    let report = profile
        .schedule(cycle)
        .map_err(|err| Failure::Input(one_line(&err.to_string())))?;
    print_profile(opts, "command line", &report, &[])
}

fn print_profile(
    opts: &Options<'_>,
    label: &str,
    report: &ProfileReport,
    other_plugins: &[String],
) -> Result<(), Failure> {
    let mut notes = vec![format!(
        "profile `{label}`: {}",
        report
            .plugins
            .iter()
            .map(|p| format!("{} (weight {})", p.name, p.weight))
            .collect::<Vec<_>>()
            .join(", ")
    )];
    if !other_plugins.is_empty() {
        notes.push(format!(
            "not run (kube-scheduler's own plugins): {}",
            other_plugins.join(", ")
        ));
    }
    notes.extend(profile_notes(report));
    let out = if opts.as_json {
        for note in &notes {
            eprintln!("{note}");
        }
        profile_json(report)
    } else {
        let mut out = profile_table(report);
        for note in &notes {
            out.push_str(note);
            out.push('\n');
        }
        out
    };
    crate::write_stdout(out.as_bytes())
}

fn profile_table(report: &ProfileReport) -> String {
    let mut rows = Vec::new();
    for node in &report.nodes {
        for (i, plugin) in report.plugins.iter().enumerate() {
            let (filter, reason) = match &node.filter[i] {
                Outcome::Ran(s) => (status_name(s.code), s.reason.clone().unwrap_or_default()),
                _ => (NOT_RUN.to_string(), String::new()),
            };
            let (score, weighted) = match node.score.get(i) {
                Some(Outcome::Ran(Ok(s))) if s.raw != s.normalized => (
                    format!("{} -> {}", s.raw, s.normalized),
                    s.weighted.to_string(),
                ),
                Some(Outcome::Ran(Ok(s))) => (s.normalized.to_string(), s.weighted.to_string()),
                Some(Outcome::Ran(Err(status))) => (status_text(status), String::new()),
                _ => ("-".to_string(), String::new()),
            };
            let total = match (i, node.total) {
                (0, Some(t)) => t.to_string(),
                _ => String::new(),
            };
            let name = if i == 0 {
                node.node.clone()
            } else {
                String::new()
            };
            rows.push(vec![
                name,
                plugin.name.clone(),
                filter,
                reason,
                score,
                weighted,
                total,
            ]);
        }
        // The node's own verdict when nothing of a plugin says it (a
        // PreFilter that left it out, or one that rejected the pod).
        if !node.status.is_success() && node.filter.iter().all(|f| f.ran().is_none()) {
            rows.push(vec![
                String::new(),
                "(node)".to_string(),
                status_name(node.status.code),
                node.status.reason.clone().unwrap_or_default(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    render(
        &[
            "NODE", "PLUGIN", "FILTER", "REASON", "SCORE", "WEIGHTED", "TOTAL",
        ],
        &rows,
        &[4, 5, 6],
    )
}

/// The cycle-wide hooks that ran or matter, the chosen node and why, and
/// how the cycle ended.
fn profile_notes(report: &ProfileReport) -> Vec<String> {
    let mut notes = Vec::new();
    type Text<'a> = Box<dyn Fn(&kguest_host::PluginCycle) -> Option<String> + 'a>;
    let status_of = |o: &Outcome<Status>| o.ran().map(status_text);
    let hooks: [(&str, Text<'_>); 10] = [
        (
            "PreFilter",
            Box::new(|p| {
                p.prefilter.ran().map(|r| match &r.node_names {
                    Some(names) => format!(
                        "{} (only nodes [{}])",
                        status_text(&r.status),
                        names.join(", ")
                    ),
                    None => status_text(&r.status),
                })
            }),
        ),
        (
            "PostFilter",
            Box::new(|p| {
                p.postfilter.ran().map(|r| {
                    format!(
                        "{}, nominated node `{}` (mode {})",
                        status_text(&r.status),
                        r.nominated_node_name.as_deref().unwrap_or(""),
                        r.mode.0
                    )
                })
            }),
        ),
        ("PreScore", Box::new(move |p| status_of(&p.prescore))),
        (
            "NormalizeScore",
            Box::new(|p| p.normalize.ran().map(|r| status_text(&r.status))),
        ),
        ("Reserve", Box::new(move |p| status_of(&p.reserve))),
        (
            "Permit",
            Box::new(|p| {
                p.permit.ran().map(|r| {
                    if r.status.code == Code::WAIT {
                        format!("{} ({} ms)", status_text(&r.status), r.timeout.as_millis())
                    } else {
                        status_text(&r.status)
                    }
                })
            }),
        ),
        ("PreBind", Box::new(move |p| status_of(&p.prebind))),
        ("Bind", Box::new(move |p| status_of(&p.bind))),
        (
            "PostBind",
            Box::new(|p| p.postbind.ran().map(|()| "ran".to_string())),
        ),
        (
            "Unreserve",
            Box::new(|p| p.unreserve.ran().map(|()| "ran".to_string())),
        ),
    ];
    for (hook, text) in &hooks {
        let ran: Vec<String> = report
            .plugins
            .iter()
            .filter_map(|p| text(p).map(|t| format!("{} {t}", p.name)))
            .collect();
        if !ran.is_empty() {
            notes.push(format!("{hook}: {}", ran.join("; ")));
        }
    }
    if let Some(chosen) = &report.chosen {
        let feasible = report
            .nodes
            .iter()
            .filter(|n| n.status.is_success())
            .count();
        let why = match report
            .nodes
            .iter()
            .find(|n| &n.node == chosen)
            .and_then(|n| n.total)
        {
            None if feasible == 1 => {
                "the only node that passed every Filter (not scored)".to_string()
            }
            None => "passed every Filter".to_string(),
            Some(total) if report.tied > 1 => format!(
                "highest total {total}, tied with {} other node(s): the first in node order \
                 (kube-scheduler picks one of them at random)",
                report.tied - 1
            ),
            Some(total) => {
                let next = report
                    .nodes
                    .iter()
                    .filter(|n| &n.node != chosen)
                    .filter_map(|n| n.total.map(|t| (t, n.node.as_str())))
                    // The first of equal totals, in node order.
                    .fold(None, |best: Option<(i64, &str)>, (t, n)| match best {
                        Some((b, _)) if b >= t => best,
                        _ => Some((t, n)),
                    });
                match next {
                    Some((t, n)) => format!("highest total {total} (next: {n} with {t})"),
                    None => format!("highest total {total}"),
                }
            }
        };
        notes.push(format!("chosen: {chosen}: {why}"));
    }
    notes.push(match &report.outcome {
        CycleOutcome::Bound { node, by: Some(by) } => format!("result: bound to {node} by {by}"),
        CycleOutcome::Bound { node, by: None } => format!(
            "result: bound to {node} (no wasm plugin binds: kube-scheduler's DefaultBinder would)"
        ),
        CycleOutcome::Unschedulable => "result: unschedulable: no node passed every Filter".into(),
        CycleOutcome::Waiting { node, plugin } => format!(
            "result: waiting on {node}: {plugin}'s Permit said Wait (kube-scheduler holds the pod)"
        ),
        CycleOutcome::Failed {
            plugin,
            hook,
            status,
        } => format!(
            "result: failed at {plugin}'s {hook}: {}",
            status_text(status)
        ),
    });
    notes
}

fn profile_json(report: &ProfileReport) -> String {
    let mut out = String::new();
    for node in &report.nodes {
        let plugins: Vec<Value> = report
            .plugins
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (filter, reason) = match &node.filter[i] {
                    Outcome::Ran(s) => (
                        json!(status_name(s.code)),
                        json!(s.reason.clone().unwrap_or_default()),
                    ),
                    _ => (Value::Null, json!("")),
                };
                let (score, normalized, weighted, score_status) = match node.score.get(i) {
                    Some(Outcome::Ran(Ok(s))) => (
                        json!(s.raw),
                        json!(s.normalized),
                        json!(s.weighted),
                        json!("Success"),
                    ),
                    Some(Outcome::Ran(Err(st))) => (
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        json!(status_name(st.code)),
                    ),
                    _ => (Value::Null, Value::Null, Value::Null, Value::Null),
                };
                json!({
                    "plugin": p.name,
                    "filter": filter,
                    "reason": reason,
                    "score": score,
                    "normalized": normalized,
                    "weighted": weighted,
                    "score_status": score_status,
                })
            })
            .collect();
        out.push_str(
            &json!({
                "node": node.node,
                "status": status_name(node.status.code),
                "reason": node.status.reason.clone().unwrap_or_default(),
                "total": node.total,
                "plugins": plugins,
            })
            .to_string(),
        );
        out.push('\n');
    }
    let outcome = match &report.outcome {
        CycleOutcome::Bound { node, by } => json!({"bound": node, "by": by}),
        CycleOutcome::Unschedulable => json!({"unschedulable": true}),
        CycleOutcome::Waiting { node, plugin } => json!({"waiting": node, "plugin": plugin}),
        CycleOutcome::Failed {
            plugin,
            hook,
            status,
        } => json!({
            "failed": plugin,
            "hook": hook.export_name(),
            "status": status_name(status.code),
            "reason": status.reason.clone().unwrap_or_default(),
        }),
    };
    out.push_str(
        &json!({"chosen": report.chosen, "tied": report.tied, "outcome": outcome}).to_string(),
    );
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use crate::cli::{Command, parse};

    fn run_args(line: &[&str]) -> super::Args {
        let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
        match parse(&args) {
            Ok(Command::Run(args)) => args,
            _ => panic!("{line:?} is not a run command line"),
        }
    }

    /// `--arg` repeats, and takes values that look like options (the
    /// guest's own flags); a repeated single-value option keeps the last.
    #[test]
    fn guest_args_repeat_and_may_look_like_options() {
        let args = run_args(&[
            "kguest", "run", "p.wasm", "--pod", "a", "--arg", "-v", "--nodes", "n", "--arg",
            "--json", "--pod", "b",
        ]);
        assert_eq!(args.args, ["-v", "--json"]);
        assert!(!args.json);
        assert_eq!(args.pod, "b");
        assert_eq!(args.wasm.as_deref(), Some("p.wasm"));
    }
}
