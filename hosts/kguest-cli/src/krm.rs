//! `kguest krm FN.wasm [--config FILE | --legacy CONFIG]`: runs a KRM
//! function built for WASI preview1 on the ResourceList from standard
//! input (see `kguest_krm_host`).

use std::time::Duration;

use kguest_krm_host::{Limits, Mode, execute};

use crate::{Failure, read_input, write_stdout};

/// Run a KRM function (wasm32-wasip1) on the ResourceList on standard input
///
/// Runs a KRM function built for WASI preview1 (wasm32-wasip1) as KEP-4944 runs
/// it: `_start`, argv ["krm"], the ResourceList (YAML or JSON) on standard input,
/// no environment, files or sockets. The function's ResourceList is written to
/// standard output once it parses (JSON output becomes YAML); its standard error
/// passes through. Exits 1 when the function fails or reports an error result.
/// --legacy: kustomize's exec plugin protocol instead.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The function.
    #[arg(value_name = "FUNCTION.wasm", value_hint = clap::ValueHint::FilePath)]
    wasm: String,
    /// Replace the ResourceList's functionConfig with FILE's object.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    config: Option<String>,
    /// Kustomize's legacy exec plugin protocol: standard input is a stream of
    /// resources, CONFIG the plugin's config file; what
    /// `kubectl kustomize --enable-alpha-plugins` runs
    #[arg(long, value_name = "CONFIG", value_hint = clap::ValueHint::FilePath, verbatim_doc_comment)]
    legacy: Option<String>,
    /// Deadline for the run, in seconds [default: 10].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// Linear memory limit, in MiB (1-4096) [default: 512].
    #[arg(long, value_name = "MIB", value_parser = parse_mib)]
    memory: Option<usize>,
    /// Print the run's phases to standard error.
    #[arg(long)]
    timing: bool,
}

/// `--timeout`: a positive number of seconds.
fn parse_seconds(v: &str) -> Result<Duration, String> {
    v.parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("`{v}` is not a number of seconds"))
}

/// `--memory`: MiB, as bytes.
fn parse_mib(v: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|m| (1..=4096).contains(m))
        .map(|mib: usize| mib << 20)
        .ok_or_else(|| format!("`{v}` is not a number of MiB (1-4096)"))
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        wasm: wasm_path,
        config,
        legacy,
        timeout,
        memory,
        timing,
    } = args;
    let mut limits = Limits::default();
    if let Some(timeout) = timeout {
        limits.timeout = timeout;
    }
    if let Some(memory) = memory {
        limits.memory = memory;
    }
    if config.is_some() && legacy.is_some() {
        return Err(Failure::Usage(
            "--config and --legacy exclude each other".into(),
        ));
    }
    // Standard input first: a producer writing to us never sees a closed pipe.
    let (_, input) = read_input(None)?;
    let wasm =
        std::fs::read(&wasm_path).map_err(|e| Failure::Input(format!("{wasm_path}: {e}")))?;
    let mode = match (config, legacy) {
        (_, Some(path)) => Mode::Legacy {
            config: read_input(Some(&path))?.1,
        },
        (Some(path), None) => Mode::Function {
            config: Some(read_input(Some(&path))?.1),
        },
        (None, None) => Mode::Function { config: None },
    };
    let response = execute(&wasm, &input, &mode, &limits, Box::new(std::io::stderr()))
        .map_err(|e| Failure::Input(e.to_string()))?;
    for note in &response.notes {
        eprintln!("kguest krm: {note}");
    }
    if timing {
        eprintln!(
            "kguest krm: compile {:.1} ms, run {:.1} ms, checks {:.1} ms",
            response.compile.as_secs_f64() * 1e3,
            response.run.as_secs_f64() * 1e3,
            response.checks.as_secs_f64() * 1e3
        );
    }
    write_stdout(&response.stdout)?;
    match response.failure {
        Some(why) => Err(Failure::Input(why)),
        None => Ok(()),
    }
}
