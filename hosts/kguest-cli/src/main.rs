//! `kguest`: tools around Kubernetes protobuf for hosts and plugin authors.

#![forbid(unsafe_code)]
// The commands' doc comments are clap's help texts, written for the terminal:
// `NAME=PLUGIN.wasm[,weight=N]` is usage syntax, not an intra-doc link.
#![allow(rustdoc::broken_intra_doc_links)]

mod check;
mod cli;
mod decode;
mod encode;
mod krm;
mod new;
mod run;

use std::process::ExitCode;

/// What went wrong, and which exit code it earns.
pub enum Failure {
    /// Bad command line: exit code 2.
    Usage(String),
    /// Bad input or I/O: exit code 1.
    Input(String),
    /// `kguest run --fail-on`: the cycle's outcome is one asked to fail
    /// on: exit code 3 (the decision is printed first).
    Outcome(String),
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = match cli::parse(&args) {
        Ok(command) => command,
        Err(exit) => return exit,
    };
    let name = command.name();
    let result = match command {
        cli::Command::Decode(args) => decode::run(args),
        cli::Command::Encode(args) => encode::run(args),
        cli::Command::Run(args) => run::run(args),
        cli::Command::Check(args) => check::run(args),
        cli::Command::New(args) => new::run(args),
        cli::Command::Krm(args) => krm::run(args),
        cli::Command::Completions(args) => cli::completions(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {name}: {msg} (see `kguest {name} --help`)");
            ExitCode::from(2)
        }
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
        Err(Failure::Outcome(msg)) => {
            eprintln!("{name}: {msg}");
            ExitCode::from(3)
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
