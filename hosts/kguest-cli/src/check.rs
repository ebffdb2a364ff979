//! `kguest check`: a built plugin against kube-scheduler-wasm-extension's
//! ABI, whatever built it (the checks are the `kguest-check` crate, which
//! kguest's own size gate runs too).

use kguest_check::{Finding, Module, Severity, group_digits, hook_list};

use crate::{Failure, read_input};

/// Check a built plugin against the ABI: imports, exports, hooks, size, panic/fmt code
///
/// Checks a built kube-scheduler-wasm-extension plugin, whatever built it:
///   - its imports and exports against the ABI (names and signatures; the
///     `memory` export; KSW at commit 9b2791f),
///   - its hook set against the scheduler's rules,
///   - its size, by section,
///   - the panic and core::fmt functions it contains, by name (from the `name`
///     section: build with `strip = "debuginfo"` to keep it), and the functions
///     outside the standard library that pull them in.
///
/// A module with `_start` and no hooks is taken for a KRM function (`kguest krm`)
/// and checked against that interface: WASI preview1 imports only, `_start` and
/// `memory` exported.
///
/// Exits 1 when the scheduler would refuse or misuse a plugin (a violation).
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Also fail on warnings (WASI imports, exports the scheduler ignores,
    /// hooks it never calls), on panic/fmt code and on a module without a
    /// name section: the rules kguest's own examples pass
    #[arg(long, verbatim_doc_comment)]
    strict: bool,
    /// Also fail when a plugin is larger than N bytes (`_` may group digits).
    #[arg(long, value_name = "N", value_parser = parse_bytes)]
    max_bytes: Option<usize>,
    /// The modules to check.
    #[arg(value_name = "PLUGIN.wasm", required = true, value_hint = clap::ValueHint::FilePath)]
    files: Vec<String>,
}

/// `--max-bytes`: a number of bytes, `_` allowed between digits.
fn parse_bytes(value: &str) -> Result<usize, String> {
    value
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{value}` is not a number of bytes"))
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        strict,
        max_bytes,
        files,
    } = args;
    let mut failed = Vec::new();
    let mut out = String::new();
    for path in &files {
        let path = path.as_str();
        let (_, bytes) = read_input(Some(path))?;
        let module =
            Module::parse(&bytes).map_err(|err| Failure::Input(format!("{path}: {err}")))?;
        let verdict = report(path, &module, strict, max_bytes, &mut out);
        if let Some(why) = verdict {
            failed.push(format!("{path}: {why}"));
        }
    }
    crate::write_stdout(out.as_bytes())?;
    match failed.len() {
        0 => Ok(()),
        1 => Err(Failure::Input(failed.remove(0))),
        n => Err(Failure::Input(format!(
            "{n} plugins failed the check ({})",
            failed.join("; ")
        ))),
    }
}

/// Appends the report on one module to `out`; returns why it fails, if it
/// does.
fn report(
    path: &str,
    module: &Module,
    strict: bool,
    max_bytes: Option<usize>,
    out: &mut String,
) -> Option<String> {
    let line = |out: &mut String, label: &str, text: &str| {
        out.push_str(&format!("  {label:<11}{text}\n"));
    };
    // A WASI command without hooks is a KRM function (`kguest krm`), and
    // is checked against that interface instead.
    let krm = module.hooks() == 0 && module.exports.iter().any(|e| e.name == "_start");
    let findings = if krm {
        module.krm_findings()
    } else {
        module.abi_findings()
    };
    out.push_str(&format!(
        "{path}: {} bytes ({})\n",
        group_digits(module.size as u64),
        sections(module)
    ));
    line(out, "imports:", &imports(module));
    if krm {
        line(
            out,
            "kind:",
            "KRM function (WASI preview1 command, see `kguest krm`)",
        );
    } else {
        line(out, "hooks:", &hook_list(module.hooks()));
    }

    let forbidden = module.forbidden_functions();
    if !module.has_name_section {
        line(
            out,
            "panic/fmt:",
            "unknown: no `name` section (build with `strip = \"debuginfo\"` to name functions: \
             `cargo wasm-names` in a `kguest new` crate)",
        );
    } else if forbidden.is_empty() {
        line(out, "panic/fmt:", "none");
    } else {
        let shown: Vec<&str> = forbidden.iter().take(4).copied().collect();
        let more = if forbidden.len() > shown.len() {
            ", ..."
        } else {
            ""
        };
        line(
            out,
            "panic/fmt:",
            &format!(
                "{} function(s): {}{more}",
                forbidden.len(),
                shown.join(", ")
            ),
        );
        let reach = module.panic_reach();
        for (i, r) in reach.iter().take(10).enumerate() {
            let label = if i == 0 { "pulled in:" } else { "" };
            line(out, label, &format!("{} (calls {})", r.function, r.via));
        }
        if reach.len() > 10 {
            line(out, "", &format!("... and {} more", reach.len() - 10));
        }
    }
    for Finding { severity, message } in &findings {
        line(out, &format!("{severity}:"), message);
    }

    let violations = findings
        .iter()
        .filter(|f| f.severity == Severity::Violation)
        .count();
    let warnings = findings.len() - violations;
    let mut why = Vec::new();
    if violations > 0 {
        why.push(format!("{violations} ABI violation(s)"));
    }
    if strict {
        if warnings > 0 {
            why.push(format!("{warnings} warning(s) (--strict)"));
        }
        if !forbidden.is_empty() {
            why.push(format!(
                "{} panic/fmt function(s) (--strict)",
                forbidden.len()
            ));
        }
        if !module.has_name_section {
            why.push("no name section to look for panic/fmt code in (--strict)".into());
        }
    }
    if let Some(max) = max_bytes.filter(|&max| module.size > max) {
        why.push(format!(
            "{} bytes, over --max-bytes {}",
            group_digits(module.size as u64),
            group_digits(max as u64)
        ));
    }
    if why.is_empty() {
        out.push_str(if krm {
            "  ok: a WASI preview1 KRM runtime (kguest krm, KEP-4944) can run it\n"
        } else {
            "  ok: kube-scheduler-wasm-extension can load it\n"
        });
        None
    } else {
        Some(why.join(", "))
    }
}

/// `code 1,234, data 56, names 789, debug info 5,000, other 100`.
fn sections(module: &Module) -> String {
    let mut parts: Vec<(String, usize)> = Vec::new();
    let mut add = |name: &str, bytes: usize| match parts.iter_mut().find(|(n, _)| n == name) {
        Some((_, total)) => *total += bytes,
        None => parts.push((name.to_string(), bytes)),
    };
    let mut other = 0;
    for (name, bytes) in &module.sections {
        match name.as_str() {
            "code" | "data" => add(name, *bytes),
            "custom \"name\"" => add("names", *bytes),
            n if n.starts_with("custom \".debug") => add("debug info", *bytes),
            n if n.starts_with("custom") => add(n, *bytes),
            _ => other += bytes,
        }
    }
    // Section headers and the 8-byte preamble.
    let counted: usize = module.sections.iter().map(|(_, b)| b).sum();
    other += module.size.saturating_sub(counted);
    parts.push(("other".into(), other));
    parts
        .iter()
        .map(|(name, bytes)| format!("{name} {}", group_digits(*bytes as u64)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `k8s.io/scheduler: currentPod, currentNodeName; k8s.io/klog: log`.
fn imports(module: &Module) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for import in &module.imports {
        match groups.iter_mut().find(|(m, _)| *m == import.module) {
            Some((_, names)) => names.push(&import.name),
            None => groups.push((&import.module, vec![&import.name])),
        }
    }
    if groups.is_empty() {
        return "none".into();
    }
    groups
        .iter()
        .map(|(m, names)| format!("{m}: {}", names.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}
