//! `kguest`: tools around Kubernetes protobuf for hosts and plugin authors.

#![forbid(unsafe_code)]

mod check;
mod decode;
mod encode;
mod krm;
mod new;
mod run;

use std::process::ExitCode;

const USAGE: &str = "\
usage: kguest <command> [options]

commands:
  decode [--type TYPE] [-o json|yaml] [FILE|-]
                                  Kubernetes protobuf -> JSON or YAML (views -> JSON),
                                  as kubectl get -o json|yaml prints it
  encode [--raw] [--type TYPE] [--validate strict|warn|ignore] [-o OUT] [FILE|-]
                                  Kubernetes JSON or YAML -> protobuf, byte for byte
                                  what the API server writes
  run PLUGIN.wasm --pod POD --nodes NODES [--config FILE] [--arg VALUE]... [--json] [--timing]
                                  one scheduling cycle of a kube-scheduler-wasm-extension
                                  plugin, hooks in kube-scheduler's order (`kguest run --help`)
  check [--strict] [--max-bytes N] PLUGIN.wasm...
                                  a built plugin against the ABI: imports, exports, hook
                                  set, size, panic/fmt code and what pulls it in
  new PATH [--hooks filter,score,...] [--kguest-path DIR]
                                  a new plugin crate: hooks, tests, sample objects, README
  new --krm PATH [--kguest-path DIR]
                                  a new KRM function crate: function, tests, sample list,
                                  kustomization, README
  krm FUNCTION.wasm [--config FILE | --legacy CONFIG] [--timeout SECS] [--memory MIB] [--timing]
                                  run a KRM function (wasm32-wasip1) on the ResourceList on
                                  standard input; --legacy: kustomize's exec plugin protocol

`kguest <command> --help` describes one command.

options:
  -h, --help      this text
  -V, --version   print the version
";

const DECODE_USAGE: &str = "\
usage: kguest decode [--type TYPE] [-o json|yaml] [FILE|-]

Kubernetes protobuf -> JSON (or YAML), through the views, as `kubectl get -o
json` prints objects: members sorted, Go's zero values left out where Go's
json tags say omitempty. The input is what the API server sends (`k8s\\0` +
runtime.Unknown; the type is read from it; a List decodes with its items), a
length-framed stream written by `kguest encode` (read back as a List) or,
with --type, one raw message. TYPE looks like core.v1.Pod,
apps.v1.Deployment, rbac.authorization.k8s.io.v1.Role, meta.v1.Status or a
full protobuf name (k8s.io.api.core.v1.Pod). Reads standard input without
FILE or with `-`.
";

const ENCODE_USAGE: &str = "\
usage: kguest encode [--raw] [--type TYPE] [--validate strict|warn|ignore] [-o OUT] [FILE|-]

Kubernetes JSON or YAML -> protobuf, byte for byte what the API server
writes. The input is one object, a multi-document YAML stream or a List. One
object is written as `k8s\\0` + runtime.Unknown (--raw: the bare message);
several are written as a stream, each prefixed by its 4-byte big-endian
length, which decode reads back as a List. YAML is read one document at a
time, so a long stream needs memory for one object only. --type names the
message when the input has no apiVersion/kind. --validate says what to do with
fields the 1.36 API does not have (an object from a newer release), as
kubectl's flag does: strict (the default) fails naming the first, warn drops
each and prints a warning on stderr, ignore drops them silently. Writes to
standard output unless -o OUT.
";

/// The usage text of `command`, for `kguest <command> --help`.
fn command_usage(command: &str) -> Option<&'static str> {
    Some(match command {
        "decode" => DECODE_USAGE,
        "encode" => ENCODE_USAGE,
        "run" => run::USAGE,
        "check" => check::USAGE,
        "new" => new::USAGE,
        "krm" => krm::USAGE,
        _ => return None,
    })
}

/// What went wrong, and which exit code it earns.
pub enum Failure {
    /// Bad command line: exit code 2.
    Usage(String),
    /// Bad input or I/O: exit code 1.
    Input(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = match args.split_first() {
        Some((command, rest)) => (command.as_str(), rest),
        None => ("", &[][..]),
    };
    let wants_help = rest.iter().any(|a| a == "-h" || a == "--help");
    let result = match command {
        "" => Err(Failure::Usage("missing command".into())),
        "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        "help" => match rest.first() {
            None => {
                print!("{USAGE}");
                Ok(())
            }
            Some(topic) => match command_usage(topic) {
                Some(usage) => {
                    print!("{usage}");
                    Ok(())
                }
                None => Err(Failure::Usage(format!("unknown command `{topic}`"))),
            },
        },
        "-V" | "--version" => {
            println!("kguest {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        command if wants_help && command_usage(command).is_some() => {
            print!("{}", command_usage(command).unwrap_or_default());
            Ok(())
        }
        "decode" => decode::run(rest),
        "encode" => encode::run(rest),
        "run" => run::run(rest),
        "check" => check::run(rest),
        "new" => new::run(rest),
        "krm" => krm::run(rest),
        other => Err(Failure::Usage(format!("unknown command `{other}`"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            let help = match command_usage(command) {
                Some(_) => format!("kguest {command} --help"),
                None => "kguest --help".into(),
            };
            eprintln!("error: {msg} (see `{help}`)");
            ExitCode::from(2)
        }
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}

/// Reads FILE, or standard input for `-` or no file.
pub fn read_input(path: Option<&str>) -> Result<(String, Vec<u8>), Failure> {
    use std::io::Read;
    match path {
        None | Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|err| Failure::Input(format!("reading standard input: {err}")))?;
            Ok(("<stdin>".into(), bytes))
        }
        Some(path) => std::fs::read(path)
            .map(|bytes| (path.to_string(), bytes))
            .map_err(|err| Failure::Input(format!("{path}: {err}"))),
    }
}

/// Writes to standard output; a closed pipe (`kguest decode x | head`) is
/// not an error.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(Failure::Input(format!("writing standard output: {err}"))),
    }
}
