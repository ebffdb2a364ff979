//! The command line: options, their checks and the usage text.

use std::path::PathBuf;

use super::pin::{KSW, KUBERNETES, KUBERNETES_PREVIOUS, Pin};

pub(super) const USAGE: &str = concat!(
    "  cargo xtask vendor [--check]              both pins, from $KGUEST_K8S_DIR / $KGUEST_KSW_DIR or upstream\n",
    "  cargo xtask vendor [kubernetes|kubernetes-previous|ksw] [--from DIR] [--check]\n",
    "  cargo xtask vendor [kubernetes] --update-lock --from DIR [--kubernetes X.Y.Z]\n",
    "  cargo xtask vendor ksw --update-lock --from DIR [--commit HASH]\n",
    "(`--from` and `--update-lock` without a pin name mean `kubernetes`)",
);

#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Options {
    /// `None`: both pins (or `kubernetes` with `--from`/`--update-lock`).
    pub(super) pin: Option<&'static Pin>,
    pub(super) from: Option<PathBuf>,
    pub(super) check: bool,
    pub(super) update_lock: bool,
    /// `--kubernetes X.Y.Z` or `--commit HASH`, with the flag used.
    pub(super) key_value: Option<(String, String)>,
    pub(super) help: bool,
}

pub(super) fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut iter = args.iter().peekable();
    if let Some(first) = iter.peek() {
        let named = [&KUBERNETES, &KUBERNETES_PREVIOUS, &KSW]
            .into_iter()
            .find(|p| p.name == **first);
        if let Some(pin) = named {
            opts.pin = Some(pin);
            iter.next();
        }
    }
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--check" => opts.check = true,
            "--update-lock" => opts.update_lock = true,
            "-h" | "--help" => opts.help = true,
            "--from" => opts.from = Some(PathBuf::from(flag_value(&mut iter, arg)?)),
            flag @ ("--kubernetes" | "--commit") => {
                opts.key_value = Some((flag.to_string(), flag_value(&mut iter, arg)?));
            }
            other => parse_inline_flag(&mut opts, other)?,
        }
    }
    if opts.pin.is_none() && (opts.from.is_some() || opts.update_lock || opts.key_value.is_some()) {
        opts.pin = Some(&KUBERNETES);
    }
    validate_options(&opts)?;
    Ok(opts)
}

/// Handles `--from=DIR`, `--kubernetes=X.Y.Z` and `--commit=HASH`; anything
/// else is an error.
fn parse_inline_flag(opts: &mut Options, arg: &str) -> Result<(), String> {
    match arg.split_once('=') {
        Some(("--from", dir)) if !dir.is_empty() => opts.from = Some(PathBuf::from(dir)),
        Some((flag @ ("--kubernetes" | "--commit"), v)) if !v.is_empty() => {
            opts.key_value = Some((flag.to_string(), v.to_string()));
        }
        Some((flag @ ("--from" | "--kubernetes" | "--commit"), _)) => {
            return Err(usage(&missing(flag)));
        }
        _ => return Err(usage(&format!("unknown argument `{arg}`"))),
    }
    Ok(())
}

fn flag_value<'a>(
    iter: &mut impl Iterator<Item = &'a String>,
    flag: &str,
) -> Result<String, String> {
    match iter.next() {
        Some(value) if !value.is_empty() && !value.starts_with("--") => Ok(value.clone()),
        _ => Err(usage(&missing(flag))),
    }
}

fn missing(flag: &str) -> String {
    format!("`{flag}` needs a value")
}

fn validate_options(opts: &Options) -> Result<(), String> {
    if opts.help {
        return Ok(());
    }
    if opts.update_lock && opts.check {
        return Err(usage("`--update-lock` and `--check` do not go together"));
    }
    if opts.update_lock && opts.from.is_none() {
        return Err(usage("`--update-lock` needs `--from DIR`"));
    }
    if opts.check && opts.from.is_some() {
        return Err(usage(
            "`--check` only verifies proto-vendor/; drop `--from`",
        ));
    }
    if let Some((flag, _)) = &opts.key_value {
        if !opts.update_lock {
            return Err(usage(&format!("`{flag}` only goes with `--update-lock`")));
        }
        let pin = opts.pin.unwrap_or(&KUBERNETES);
        if *flag != pin.key_flag {
            return Err(usage(&format!(
                "`{flag}` does not apply to the `{}` pin (it takes `{}`)",
                pin.name, pin.key_flag
            )));
        }
    }
    Ok(())
}

pub(super) fn usage(problem: &str) -> String {
    format!("usage: {problem}\n{USAGE}")
}
