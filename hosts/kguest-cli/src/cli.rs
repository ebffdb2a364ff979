//! The command line: clap's parser over each command's `Args`, usage
//! errors on one line, `kguest completions`.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::{Failure, check, decode, encode, krm, new, run, write_stdout};

/// Tools around Kubernetes protobuf for hosts and plugin authors
///
/// Kubernetes protobuf to JSON and back; run, check and create
/// kube-scheduler-wasm-extension plugins; run and create KRM functions.
/// `kguest <command> --help` describes one command.
#[derive(Parser)]
#[command(
    name = "kguest",
    version,
    arg_required_else_help = false,
    verbatim_doc_comment
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    Decode(decode::Args),
    Encode(encode::Args),
    Run(run::Args),
    Check(check::Args),
    New(new::Args),
    Krm(krm::Args),
    Completions(Completions),
}

impl Command {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Decode(_) => "decode",
            Command::Encode(_) => "encode",
            Command::Run(_) => "run",
            Command::Check(_) => "check",
            Command::New(_) => "new",
            Command::Krm(_) => "krm",
            Command::Completions(_) => "completions",
        }
    }
}

/// Print a shell completion script (bash, zsh or fish)
///
/// Install it where the shell looks for completions, e.g.
///   kguest completions bash > ~/.local/share/bash-completion/completions/kguest
///   kguest completions zsh > ~/.zfunc/_kguest   (with ~/.zfunc in fpath)
///   kguest completions fish > ~/.config/fish/completions/kguest.fish
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Completions {
    /// The shell: bash, zsh or fish.
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

#[derive(Clone, Copy, ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// The whole command line. `-h` prints the same help as `--help`: the
/// command's full description and every option's.
pub fn command() -> clap::Command {
    let help = Arg::new("help")
        .short('h')
        .long("help")
        .action(ArgAction::HelpLong)
        .help("Print help");
    Cli::command()
        .disable_help_flag(true)
        .arg(help.clone())
        .args_override_self(true)
        .mut_subcommands(|sub| {
            sub.disable_help_flag(true)
                .arg(help.clone())
                .args_override_self(true)
        })
}

/// The command `args` (program name first) asks for; `Err` holds the exit
/// code once help, the version or a usage error has been printed.
pub fn parse(args: &[OsString]) -> Result<Command, ExitCode> {
    command()
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map(|cli| cli.command)
        .map_err(|err| report(&err, args))
}

/// Prints what clap's `err` says: help and the version on standard output
/// (exit 0), a usage error on one line of standard error (exit 2).
fn report(err: &clap::Error, args: &[OsString]) -> ExitCode {
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        // A closed standard output (`kguest --help | head -1`) is no error.
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let sub = args
        .get(1)
        .and_then(|a| a.to_str())
        .filter(|a| command().find_subcommand(a).is_some());
    let Some(sub) = sub else {
        eprintln!("error: {} (see `kguest --help`)", one_line(err));
        return ExitCode::from(2);
    };
    // Help wins over whatever else is on the line (`kguest check --bogus
    // --help`).
    let rest = args[2..].iter().take_while(|a| *a != "--");
    if rest.into_iter().any(|a| a == "-h" || a == "--help") {
        let help = [args[0].clone(), sub.into(), "--help".into()];
        if let Err(help) = command().try_get_matches_from(help) {
            let _ = help.print();
        }
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "error: {sub}: {} (see `kguest {sub} --help`)",
        one_line(err)
    );
    ExitCode::from(2)
}

/// clap's error in one line, in the words kguest's commands use.
fn one_line(err: &clap::Error) -> String {
    let context = |kind| err.get(kind).map(ToString::to_string).unwrap_or_default();
    let arg = context(ContextKind::InvalidArg);
    match err.kind() {
        ErrorKind::MissingSubcommand => "missing command".into(),
        ErrorKind::InvalidSubcommand => {
            format!(
                "unknown command `{}`",
                context(ContextKind::InvalidSubcommand)
            )
        }
        ErrorKind::UnknownArgument if arg.starts_with('-') => format!("unknown option `{arg}`"),
        ErrorKind::UnknownArgument => format!("unexpected argument `{arg}`"),
        ErrorKind::MissingRequiredArgument => {
            let missing: Vec<String> = match err.get(ContextKind::InvalidArg) {
                Some(ContextValue::Strings(list)) => list.iter().map(|a| plain(a)).collect(),
                _ => vec![plain(&arg)],
            };
            format!("missing {}", missing.join(", "))
        }
        ErrorKind::InvalidValue => {
            let flag = flag_name(&arg);
            let value = context(ContextKind::InvalidValue);
            let valid = match err.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(list)) if !list.is_empty() => Some(or_list(list)),
                _ => None,
            };
            match (value.is_empty(), valid) {
                (true, Some(valid)) => format!("{flag} needs {valid}"),
                (true, None) => format!("{flag} needs a value"),
                (false, Some(valid)) => format!("{flag} takes {valid}, not `{value}`"),
                (false, None) => format!("{flag}: invalid value `{value}`"),
            }
        }
        ErrorKind::ValueValidation => {
            let why = std::error::Error::source(err).map_or_else(
                || format!("invalid value `{}`", context(ContextKind::InvalidValue)),
                ToString::to_string,
            );
            format!("{}: {why}", flag_name(&arg))
        }
        ErrorKind::ArgumentConflict => format!(
            "{} and {} exclude each other",
            flag_name(&arg),
            flag_name(&context(ContextKind::PriorArg))
        ),
        _ => {
            let text = err.to_string();
            let first = text.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        }
    }
}

/// `--pod <FILE>` → `--pod FILE`, `<PATH>` → `PATH`.
fn plain(arg: &str) -> String {
    arg.replace(['<', '>'], "")
}

/// `--type <TYPE>` → `--type`; a positional `<FILE>` → `FILE`.
fn flag_name(arg: &str) -> String {
    match arg.split_once(' ') {
        Some((flag, _)) if flag.starts_with('-') => flag.to_string(),
        _ => plain(arg),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `kguest completions SHELL`.
pub fn completions(args: Completions) -> Result<(), Failure> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "kguest", &mut script);
    write_stdout(&script)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn lists_read_as_prose() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(or_list(&s(&["json"])), "json");
        assert_eq!(or_list(&s(&["json", "yaml"])), "json or yaml");
        assert_eq!(
            or_list(&s(&["strict", "warn", "ignore"])),
            "strict, warn or ignore"
        );
        assert_eq!(flag_name("--type <TYPE>"), "--type");
        assert_eq!(flag_name("<SHELL>"), "SHELL");
        assert_eq!(plain("--pod <FILE>"), "--pod FILE");
    }
}
