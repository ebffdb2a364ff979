//! A profile's cycle: the wasm plugins of a KubeSchedulerConfiguration's
//! profile, or of `--plugin` flags, together.

use std::sync::Arc;

use kguest_host::{Cycle, Plugin, PluginConfig, PluginSpec, Profile, ProfileReport, Runtime};
use serde_json::Value;

use super::Options;
use super::input::{CliHandle, read_wasm};
use super::profile_output::{profile_json, profile_notes, profile_table};
use super::table::{load_error_line, one_line};
use crate::{Failure, read_input};

/// `kguest run --scheduler-config FILE`: the wasm plugins of one profile.
pub(super) fn run_profile(
    opts: &Options<'_>,
    config: &Value,
    runtime: &Runtime,
    handle: Arc<CliHandle>,
    cycle: &Cycle,
) -> Result<(), Failure> {
    let path = opts.scheduler_config.unwrap_or_default();
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
    print_profile(opts, &chosen.scheduler_name, &report, &chosen.other_plugins)?;
    super::gate::profile(opts.fail_on, &report)
}

/// `--plugin NAME=PLUGIN.wasm[,weight=N][,config=FILE]`, repeated: a
/// profile given on the command line.
pub(super) fn run_plugins(
    opts: &Options<'_>,
    runtime: &Runtime,
    handle: Arc<CliHandle>,
    cycle: &Cycle,
) -> Result<(), Failure> {
    let mut plugins = Vec::new();
    for spec in &opts.plugins {
        let PluginSpec {
            name,
            wasm,
            weight,
            config,
        } = PluginSpec::parse(spec)
            .map_err(|why| Failure::Usage(format!("--plugin {spec}: {why}")))?;
        let guest_config = match config {
            Some(file) => read_input(Some(file))?.1,
            None => Vec::new(),
        };
        let bytes = read_wasm(wasm)?;
        let config = PluginConfig {
            guest_config: guest_config.into(),
            handle: handle.clone(),
            ..PluginConfig::default()
        };
        let plugin = Plugin::load(runtime, &bytes, config).map_err(|e| {
            Failure::Input(format!("plugin `{name}` ({wasm}): {}", load_error_line(&e)))
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
    print_profile(opts, "command line", &report, &[])?;
    super::gate::profile(opts.fail_on, &report)
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
