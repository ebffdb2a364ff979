//! One plugin's cycle.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use kguest_host::{Code, Cycle, CycleReport, Hook, Plugin, PluginConfig, Runtime};

use super::Options;
use super::input::{CliHandle, read_wasm};
use super::plugin_output::{cycle_notes, json_lines, table};
use super::table::{load_error_line, one_line};
use super::timing::timing;
use crate::Failure;

pub(super) fn run_plugin(
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
    let plugin = Plugin::load(runtime, &wasm_bytes, plugin_config)
        .map_err(|e| Failure::Input(format!("{wasm}: {}", load_error_line(&e))))?;
    let report = plugin.schedule(cycle).map_err(|e| guest_failed(&e))?;
    let not_run = filter_not_run(&plugin, &report);

    let mut out = if opts.as_json {
        json_lines(&report, &not_run)
    } else {
        table(&report, &not_run)
    };
    // The scheduler names a plugin in its configuration; here, the file's
    // name stands for it (`nodenumber.wasm` -> "nodenumber").
    let name = std::path::Path::new(wasm)
        .file_stem()
        .map_or_else(|| wasm.into(), |s| s.to_string_lossy());
    let notes = cycle_notes(&report, &name);
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
    crate::write_stdout(out.as_bytes())?;
    super::gate::plugin(opts.fail_on, &report)
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
