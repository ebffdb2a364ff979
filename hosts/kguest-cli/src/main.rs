//! `kguest`: tools around Kubernetes protobuf for hosts and plugin authors.

mod decode;
mod encode;
mod objects;
mod run;

use std::process::ExitCode;

const USAGE: &str = "\
usage: kguest <command> [options]

commands:
  decode [--type TYPE] [-o json|yaml] [FILE|-]
                                  Kubernetes protobuf -> JSON or YAML (views -> JSON),
                                  as kubectl get -o json|yaml prints it
  encode [--raw] [--type TYPE] [-o OUT] [FILE|-]
                                  Kubernetes JSON or YAML -> protobuf, byte for byte
                                  what the API server writes
  run PLUGIN.wasm --pod POD --nodes NODES [--config FILE] [--json] [--timing]
                                  one scheduling cycle of a kube-scheduler-wasm-extension
                                  plugin: PreFilter, Filter per node, Score per feasible node

  decode input is what the API server sends (`k8s\\0` + runtime.Unknown; the type is
  read from it) or, with --type, one raw message. TYPE looks like core.v1.Pod,
  apps.v1.Deployment, rbac.authorization.k8s.io.v1.Role, meta.v1.Status or a
  full protobuf name (k8s.io.api.core.v1.Pod). A length-framed stream of such
  objects (what encode writes for several) decodes to a List.

  encode input is one object, a multi-document YAML stream or a List. One
  object is written as `k8s\0` + runtime.Unknown (--raw: the bare message);
  several are written as a stream, each prefixed by its 4-byte big-endian
  length, which decode reads back as a List. YAML is read one document at
  a time, so long streams need memory for one object only.

options:
  -h, --help      this text
  -V, --version   print the version
";

/// What went wrong, and which exit code it earns.
pub enum Failure {
    /// Bad command line: exit code 2.
    Usage(String),
    /// Bad input or I/O: exit code 1.
    Input(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None => Err(Failure::Usage("missing command".into())),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some("-V" | "--version") => {
            println!("kguest {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("decode") => decode::run(&args[1..]),
        Some("encode") => encode::run(&args[1..]),
        Some("run") => run::run(&args[1..]),
        Some(other) => Err(Failure::Usage(format!("unknown command `{other}`"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg} (see `kguest --help`)");
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
