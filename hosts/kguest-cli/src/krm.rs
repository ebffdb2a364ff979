//! `kguest krm FN.wasm [--config FILE] [--legacy CONFIG]`: runs a KRM
//! function built for WASI preview1 on the ResourceList from standard
//! input (see `kguest_krm_host`).

use std::time::Duration;

use kguest_krm_host::{Limits, Mode, execute};

use crate::{Failure, read_input, write_stdout};

pub const USAGE: &str = "\
usage: kguest krm FUNCTION.wasm [--config FILE | --legacy CONFIG] [--timeout SECS] [--memory MIB] [--timing]

Runs a KRM function built for WASI preview1 (wasm32-wasip1) as KEP-4944 runs
it: `_start`, argv [\"krm\"], the ResourceList (YAML or JSON) on standard input,
no environment, files or sockets. The function's ResourceList is written to
standard output once it parses (JSON output becomes YAML); its standard error
passes through. Exits 1 when the function fails or reports an error result.

options:
  --config FILE     replace the ResourceList's functionConfig with FILE's object
  --legacy CONFIG   kustomize's legacy exec plugin protocol: standard input is a
                    stream of resources, CONFIG the plugin's config file; what
                    `kubectl kustomize --enable-alpha-plugins` runs
  --timeout SECS    deadline for the run (default 10)
  --memory MIB      linear memory limit (default 512)
  --timing          print the run's phases to standard error
";

pub fn run(args: &[String]) -> Result<(), Failure> {
    let mut wasm_path = None;
    let mut config = None;
    let mut legacy = None;
    let mut timing = false;
    let mut limits = Limits::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::Usage(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--config" => config = Some(value("--config")?),
            "--legacy" => legacy = Some(value("--legacy")?),
            "--timeout" => {
                let v = value("--timeout")?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| {
                        Failure::Usage(format!("--timeout: `{v}` is not a number of seconds"))
                    })?;
                limits.timeout = Duration::from_secs_f64(secs);
            }
            "--memory" => {
                let v = value("--memory")?;
                let mib: usize = v
                    .parse()
                    .ok()
                    .filter(|m| (1..=4096).contains(m))
                    .ok_or_else(|| {
                        Failure::Usage(format!("--memory: `{v}` is not a number of MiB (1-4096)"))
                    })?;
                limits.memory = mib << 20;
            }
            "--timing" => timing = true,
            s if s.starts_with('-') => {
                return Err(Failure::Usage(format!("krm: unknown option `{s}`")));
            }
            s if wasm_path.is_none() => wasm_path = Some(s.to_string()),
            s => return Err(Failure::Usage(format!("krm: unexpected argument `{s}`"))),
        }
    }
    let wasm_path = wasm_path.ok_or_else(|| Failure::Usage("krm: missing FUNCTION.wasm".into()))?;
    if config.is_some() && legacy.is_some() {
        return Err(Failure::Usage(
            "krm: --config and --legacy exclude each other".into(),
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
