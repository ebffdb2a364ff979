//! `kguest run`: one scheduling cycle of a plugin over a Pod and some Nodes,
//! in the order kube-scheduler calls the hooks ([`Plugin::schedule`]), or of
//! the wasm plugins of a `KubeSchedulerConfiguration` profile together
//! ([`Profile::schedule`]).

mod gate;
mod input;
mod plugin;
mod plugin_output;
mod profile;
mod profile_output;
mod table;
#[cfg(test)]
mod tests;
mod timing;

use std::sync::Arc;

use kguest_host::{Runtime, RuntimeConfig};
use serde_json::Value;

use crate::{Failure, read_input};
use input::{CliHandle, as_scheduler_config, load_cycle};
use plugin::run_plugin;
use profile::{run_plugins, run_profile};

/// Run one scheduling cycle of a kube-scheduler-wasm-extension plugin (or profile)
///
///   kguest run PLUGIN.wasm --pod FILE --nodes FILE [--guest-config FILE] [options]
///   kguest run --scheduler-config SCHED-CONFIG.yaml --pod FILE --nodes FILE [options]
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
/// With --scheduler-config (a KubeSchedulerConfiguration, no PLUGIN.wasm), runs the
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
/// Nodes are visited in the order given (--sort-nodes: by name), which decides
/// ties and the order of the rows.
///
/// --config FILE, the old spelling, still works (a warning says which of the
/// two it was read as); it will go in a later release.
///
/// Guest klog lines and recorded events go to standard error.
///
/// For CI, --fail-on makes the outcome the exit status: 3 when it is one to
/// fail on (after printing the decision as usual), 1 for bad input, 2 for a
/// bad command line, 0 otherwise.
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
    /// PLUGIN.wasm's configuration (KSW's guestConfig, served by get_config;
    /// by convention JSON)
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, verbatim_doc_comment)]
    guest_config: Option<String>,
    /// A KubeSchedulerConfiguration whose wasm plugins run together (see above)
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, verbatim_doc_comment)]
    scheduler_config: Option<String>,
    /// Deprecated: --guest-config or --scheduler-config, chosen by the file's
    /// kind
    #[arg(long, value_name = "FILE", hide = true)]
    config: Option<String>,
    /// With --scheduler-config: the profile whose schedulerName is NAME
    /// (default: the first profile)
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
    /// Visit the nodes in name order instead of the order given
    #[arg(long)]
    sort_nodes: bool,
    /// Exit 3 when a hook returns Error or the cycle fails (`error`), or
    /// also when the pod would not be bound (`unbound`: no node passes
    /// Filter, a rejection at Reserve/Permit/PreBind/Bind, a waiting Permit)
    #[arg(long, value_name = "WHEN", verbatim_doc_comment)]
    fail_on: Option<gate::FailOn>,
    /// Also time the filter hook (else score): per call in a fresh cycle and
    /// per call on the next node of the same cycle
    #[arg(long, verbatim_doc_comment)]
    timing: bool,
}

pub(super) struct Options<'a> {
    /// `None` with `--scheduler-config`.
    wasm: Option<&'a str>,
    profile: Option<&'a str>,
    /// `--plugin` specs: a profile on the command line.
    plugins: Vec<&'a str>,
    pod: &'a str,
    nodes: &'a str,
    /// The file the KubeSchedulerConfiguration came from, for messages.
    scheduler_config: Option<&'a str>,
    sort_nodes: bool,
    args: Vec<String>,
    as_json: bool,
    timing: bool,
    fail_on: Option<gate::FailOn>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let opts = options(&args)?;
    let (guest_config, scheduler_config) = configs(&args)?;
    let (pod_bytes, cycle) = load_cycle(&opts)?;
    let runtime = Runtime::new(RuntimeConfig::default())
        .map_err(|err| Failure::Input(format!("starting wasmtime: {err}")))?;
    let handle = Arc::new(CliHandle::default());
    if !opts.plugins.is_empty() {
        if opts.wasm.is_some()
            || scheduler_config.is_some()
            || guest_config.is_some()
            || !opts.args.is_empty()
        {
            return Err(Failure::Usage(
                "--plugin goes without PLUGIN.wasm, --scheduler-config, --guest-config \
                 (its config=FILE) or --arg"
                    .into(),
            ));
        }
        return run_plugins(&opts, &runtime, handle, &cycle);
    }
    match (opts.wasm, scheduler_config) {
        (None, Some(sched)) => {
            if guest_config.is_some() || !opts.args.is_empty() {
                return Err(Failure::Usage(
                    "--scheduler-config gives each plugin its guestConfig and args: \
                     no --guest-config or --arg"
                        .into(),
                ));
            }
            run_profile(&opts, &sched, &runtime, handle, &cycle)
        }
        (Some(_), Some(_)) => Err(Failure::Usage(
            "--scheduler-config names its plugins: give no PLUGIN.wasm".into(),
        )),
        (Some(wasm), None) => run_plugin(
            &opts,
            wasm,
            guest_config.unwrap_or_default(),
            &runtime,
            handle,
            &pod_bytes,
            &cycle,
        ),
        (None, None) => Err(Failure::Usage(
            "missing PLUGIN.wasm (or --scheduler-config, or --plugin)".into(),
        )),
    }
}

/// The guest config and the KubeSchedulerConfiguration given, each by its
/// own flag; the old `--config` is read as whichever its file is, with a
/// warning.
fn configs(args: &Args) -> Result<(Option<Vec<u8>>, Option<Value>), Failure> {
    let mut guest = match &args.guest_config {
        Some(path) => {
            let (name, bytes) = read_input(Some(path))?;
            if as_scheduler_config(&name, &bytes)?.is_some() {
                return Err(Failure::Usage(format!(
                    "--guest-config {name} is a KubeSchedulerConfiguration: \
                     give it as --scheduler-config"
                )));
            }
            Some(bytes)
        }
        None => None,
    };
    let mut scheduler = match &args.scheduler_config {
        Some(path) => {
            let (name, bytes) = read_input(Some(path))?;
            match as_scheduler_config(&name, &bytes)? {
                Some(value) => Some(value),
                None => {
                    return Err(Failure::Input(format!(
                        "{name}: not a KubeSchedulerConfiguration (for a guest config, \
                         use --guest-config)"
                    )));
                }
            }
        }
        None => None,
    };
    if let Some(path) = &args.config {
        if guest.is_some() || scheduler.is_some() {
            return Err(Failure::Usage(
                "--config is the old spelling of --guest-config and --scheduler-config: \
                 give only the new flags"
                    .into(),
            ));
        }
        let (name, bytes) = read_input(Some(path))?;
        let (new_flag, read_as) = match as_scheduler_config(&name, &bytes)? {
            Some(value) => {
                scheduler = Some(value);
                ("--scheduler-config", "a KubeSchedulerConfiguration")
            }
            None => {
                guest = Some(bytes);
                ("--guest-config", "a guest config")
            }
        };
        eprintln!(
            "warning: --config is deprecated: {name} was read as {read_as}; \
             write {new_flag} {name}"
        );
    }
    Ok((guest, scheduler))
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
        scheduler_config: args.scheduler_config.as_deref().or(args.config.as_deref()),
        sort_nodes: args.sort_nodes,
        args: args.args.clone(),
        as_json: args.json,
        timing: args.timing,
        fail_on: args.fail_on,
    })
}
