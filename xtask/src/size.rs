//! `cargo xtask size [--check] [--bless] [--allow-growth]`: wasm sizes of the
//! kguest guests and the baselines.
//!
//! Every guest is built with the `guest` profile; when `wasm-opt` is on the
//! PATH each is also run through `wasm-opt -Oz`. The table (bytes, bytes after
//! wasm-opt, ratio to kguest's `nodename`, ratio to the hand-written floor)
//! is printed and written into `docs/benchmarks.md` between the size markers.
//!
//! * `--check` fails when a kguest guest is over its budget in
//!   `size-budgets.toml`, has no budget, links `core::fmt` or panic machinery
//!   (found in the `name` section of an unstripped build), or when any guest
//!   has a finding of `kguest check` (an ABI violation, or a warning: WASI
//!   imports, exports beyond `memory`, its hooks and rustc's
//!   `__data_end`/`__heap_base`). The checks are the `kguest-check` crate,
//!   the same code as `kguest check --strict`.
//! * `--bless` lowers budgets to the current size plus a small margin; it
//!   never raises one unless `--allow-growth` is given.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kguest_check::Module;

use crate::{guests, paths};

/// What a guest is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Shipped kguest code: budgeted and checked for fmt/panic machinery.
    Kguest,
    /// A comparison point under `tests/baselines`: sizes reported only.
    Baseline,
    /// A KRM function (wasm32-wasip1): budgeted and checked like `Kguest`;
    /// imports only WASI preview1, exports `memory` and `_start`.
    Krm,
    /// One of kube-scheduler-wasm-extension's TinyGo guests
    /// ([`paths::TINYGO_GUESTS`]), when its material is present: sizes
    /// reported only.
    TinyGo,
}

/// Every guest `size` builds, in table order.
pub const GUESTS: &[(&str, Kind)] = &[
    ("nodename", Kind::Kguest),
    ("nodenumber", Kind::Kguest),
    ("wasm-runtime", Kind::Kguest),
    ("taints", Kind::Kguest),
    ("fit", Kind::Kguest),
    ("imagelocality", Kind::Kguest),
    ("nodename-view", Kind::Kguest),
    ("podspec-read", Kind::Kguest),
    ("annotation-memory", Kind::Kguest),
    ("krm-set-namespace", Kind::Krm),
    ("krm-require-requests", Kind::Krm),
    ("krm-wasm-smart", Kind::Krm),
    ("baseline-prost", Kind::Baseline),
    ("baseline-json", Kind::Baseline),
    ("baseline-scan", Kind::Baseline),
    ("baseline-empty", Kind::Baseline),
    ("baseline-copy", Kind::Baseline),
];

/// The reference plugin for the "× nodename" column.
const REFERENCE: &str = "nodename";
/// The floor: the smallest guest doing the same job (hand-written scan).
const FLOOR: &str = "baseline-scan";

const BUDGETS_FILE: &str = "size-budgets.toml";
const BEGIN: &str = "<!-- size:begin -->";
const END: &str = "<!-- size:end -->";

#[derive(Default)]
struct Options {
    check: bool,
    bless: bool,
    allow_growth: bool,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut opts = Options::default();
    for arg in args {
        match arg.as_str() {
            "--check" => opts.check = true,
            "--bless" => opts.bless = true,
            "--allow-growth" => opts.allow_growth = true,
            other => {
                return Err(format!(
                    "usage: cargo xtask size [--check] [--bless] [--allow-growth] (unknown argument `{other}`)"
                ));
            }
        }
    }
    if opts.allow_growth && !opts.bless {
        return Err("--allow-growth only makes sense with --bless".into());
    }

    let wasm_opt = wasm_opt_available();
    if !wasm_opt {
        eprintln!("note: wasm-opt not found; the wasm-opt column is left empty");
    }
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for &(package, kind) in GUESTS {
        let path = match kind {
            Kind::Krm => guests::build_for(package, guests::WASI_TARGET)?,
            _ => guests::build(package)?,
        };
        let bytes = read(&path)?;
        let module = Module::parse(&bytes).map_err(|err| format!("{package}: {err}"))?;
        let findings = match kind {
            Kind::Krm => module.krm_findings(),
            _ => module.abi_findings(),
        };
        problems.extend(
            findings
                .into_iter()
                .map(|f| format!("{package}: {}: {}", f.severity, f.message)),
        );
        let optimized = if wasm_opt {
            Some(run_wasm_opt(&path)?)
        } else {
            None
        };
        rows.push(Row {
            package,
            kind,
            bytes: bytes.len() as u64,
            optimized,
        });
    }
    for &(name, file, _) in paths::TINYGO_GUESTS {
        let Some(path) = paths::ksw_file(file) else {
            eprintln!(
                "note: {file} not found (set KGUEST_KSW_DIR or run `cargo xtask vendor ksw`); no {name} row"
            );
            continue;
        };
        let optimized = if wasm_opt {
            Some(run_wasm_opt(&path)?)
        } else {
            None
        };
        rows.push(Row {
            package: name,
            kind: Kind::TinyGo,
            bytes: read(&path)?.len() as u64,
            optimized,
        });
    }

    let budgets_path = paths::root().join(BUDGETS_FILE);
    let budgets = parse_budgets(&std::fs::read_to_string(&budgets_path).unwrap_or_default())?;
    let table = render_table(&rows, &budgets);
    print!("{table}");
    write_doc_section(&paths::root().join("docs/benchmarks.md"), BEGIN, END, &{
        let mut s = String::from("Command: `cargo xtask size`");
        if wasm_opt {
            s.push_str(" (wasm-opt `-Oz` column: ");
            s.push_str(&wasm_opt_version());
            s.push(')');
        }
        s.push_str("\n\n");
        s.push_str(&table);
        s
    })?;

    if opts.bless {
        let sizes: Vec<(&str, u64)> = rows
            .iter()
            .filter(|r| r.is_budgeted())
            .map(|r| (r.package, r.bytes))
            .collect();
        let (blessed, refused) = bless(&budgets, &sizes, opts.allow_growth);
        std::fs::write(&budgets_path, render_budgets(&blessed))
            .map_err(|err| format!("{}: {err}", budgets_path.display()))?;
        for line in refused {
            eprintln!("note: {line} (kept; pass --allow-growth to raise it)");
        }
        println!("wrote {}", budgets_path.display());
    }

    if opts.check {
        let sizes: Vec<(&str, u64)> = rows
            .iter()
            .filter(|r| r.is_budgeted())
            .map(|r| (r.package, r.bytes))
            .collect();
        problems.extend(over_budget(&budgets, &sizes));
        problems.extend(fmt_and_panic_problems()?);
        if problems.is_empty() {
            println!("size check: every kguest guest is within budget and free of fmt/panic code");
        } else {
            for problem in &problems {
                eprintln!("size check: {problem}");
            }
            return Err(format!("size check failed ({} problem(s))", problems.len()));
        }
    } else {
        for problem in &problems {
            eprintln!("warning: {problem}");
        }
    }
    Ok(())
}

struct Row {
    package: &'static str,
    kind: Kind,
    bytes: u64,
    optimized: Option<u64>,
}

impl Row {
    /// Our own guests have budgets; comparison points do not.
    fn is_budgeted(&self) -> bool {
        matches!(self.kind, Kind::Kguest | Kind::Krm)
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|err| format!("{}: {err}", path.display()))
}

fn render_table(rows: &[Row], budgets: &BTreeMap<String, u64>) -> String {
    let find = |name: &str| rows.iter().find(|r| r.package == name);
    let reference = find(REFERENCE);
    let floor = find(FLOOR);
    let ratio = |a: u64, b: Option<u64>| match b {
        Some(b) if b > 0 => format!("{:.2}", a as f64 / b as f64),
        _ => "–".into(),
    };
    let mut out = String::from(
        "| plugin | kind | bytes | bytes after wasm-opt -Oz | × nodename | × floor (scan) | budget |\n\
         |---|---|--:|--:|--:|--:|--:|\n",
    );
    for row in rows {
        let opt = row.optimized.map_or("–".into(), group);
        let budget = match (row.kind, budgets.get(row.package)) {
            (Kind::Baseline | Kind::TinyGo, _) => "–".into(),
            (_, Some(b)) if row.bytes > *b => format!("{} **over**", group(*b)),
            (_, Some(b)) => group(*b),
            (_, None) => "none".into(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            row.package,
            match row.kind {
                Kind::Kguest => "kguest",
                Kind::Baseline => "baseline",
                Kind::Krm => "krm (wasip1)",
                Kind::TinyGo => "upstream TinyGo",
            },
            group(row.bytes),
            opt,
            ratio(row.bytes, reference.map(|r| r.bytes)),
            ratio(row.bytes, floor.map(|r| r.bytes)),
            budget,
        ));
    }
    out
}

/// `12345` → `12,345`.
pub use kguest_check::group_digits as group;

/// Replaces the text between `begin` and `end` in `doc` (markers kept).
pub fn replace_section(doc: &str, begin: &str, end: &str, body: &str) -> Result<String, String> {
    let start = doc
        .find(begin)
        .ok_or_else(|| format!("marker `{begin}` not found"))?
        + begin.len();
    let stop = doc[start..]
        .find(end)
        .ok_or_else(|| format!("marker `{end}` not found"))?
        + start;
    Ok(format!(
        "{}\n{}\n{}",
        &doc[..start],
        body.trim_end(),
        &doc[stop..]
    ))
}

/// Rewrites one marked section of a document in place.
pub fn write_doc_section(path: &Path, begin: &str, end: &str, body: &str) -> Result<(), String> {
    let doc = std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?;
    let doc = replace_section(&doc, begin, end, body)
        .map_err(|err| format!("{}: {err}", path.display()))?;
    std::fs::write(path, doc).map_err(|err| format!("{}: {err}", path.display()))
}

// ---------------------------------------------------------------- budgets

/// Parses `size-budgets.toml`: `name = bytes` lines in a `[budgets]` table
/// (comments, blank lines and `_` digit separators allowed).
pub fn parse_budgets(text: &str) -> Result<BTreeMap<String, u64>, String> {
    let mut budgets = BTreeMap::new();
    let mut in_table = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |what: &str| format!("{BUDGETS_FILE}:{}: {what}: `{line}`", i + 1);
        if let Some(table) = line.strip_prefix('[') {
            in_table = table.strip_suffix(']').map(str::trim) == Some("budgets");
            if !in_table {
                return Err(err("unknown table (expected [budgets])"));
            }
            continue;
        }
        if !in_table {
            return Err(err("entry outside [budgets]"));
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| err("expected `name = bytes`"))?;
        let key = key.trim().trim_matches('"');
        let value: u64 = value
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| err("budget is not a whole number of bytes"))?;
        if key.is_empty() {
            return Err(err("empty name"));
        }
        if budgets.insert(key.to_string(), value).is_some() {
            return Err(err("duplicate name"));
        }
    }
    Ok(budgets)
}

/// The file `--bless` writes, guests in [`GUESTS`] order first.
pub fn render_budgets(budgets: &BTreeMap<String, u64>) -> String {
    let mut out = String::from(
        "# Largest size in bytes (guest profile, no wasm-opt) of each kguest guest.\n\
         # Checked by `cargo xtask size --check`; lowered by `cargo xtask size --bless`,\n\
         # which raises a budget only with `--allow-growth`.\n\n[budgets]\n",
    );
    let mut names: Vec<&str> = GUESTS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| budgets.contains_key(*n))
        .collect();
    names.extend(
        budgets
            .keys()
            .map(String::as_str)
            .filter(|k| !GUESTS.iter().any(|(n, _)| n == k)),
    );
    for name in names {
        let key = if name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            name.to_string()
        } else {
            format!("\"{name}\"")
        };
        out.push_str(&format!("{key} = {}\n", budgets[name]));
    }
    out
}

/// The budget `--bless` proposes for a guest of `size` bytes.
pub fn blessed_budget(size: u64) -> u64 {
    size + (size / 50).max(64)
}

/// New budgets for `sizes`: lowered to size + margin; raised (or refused,
/// reported in the second result) unless `allow_growth`.
pub fn bless(
    budgets: &BTreeMap<String, u64>,
    sizes: &[(&str, u64)],
    allow_growth: bool,
) -> (BTreeMap<String, u64>, Vec<String>) {
    let mut out = budgets.clone();
    let mut refused = Vec::new();
    for &(name, size) in sizes {
        let proposed = blessed_budget(size);
        match budgets.get(name) {
            None => {
                out.insert(name.to_string(), proposed);
            }
            Some(&old) if proposed <= old || allow_growth => {
                out.insert(name.to_string(), proposed);
            }
            Some(&old) => refused.push(format!(
                "{name}: {size} B would need a budget of {proposed} B, above {old} B"
            )),
        }
    }
    (out, refused)
}

/// One message per guest over (or without) a budget.
pub fn over_budget(budgets: &BTreeMap<String, u64>, sizes: &[(&str, u64)]) -> Vec<String> {
    let mut out = Vec::new();
    for &(name, size) in sizes {
        match budgets.get(name) {
            None => out.push(format!(
                "{name} is {size} B and has no budget in {BUDGETS_FILE}"
            )),
            Some(&budget) if size > budget => out.push(format!(
                "{name} is {size} B, over its budget of {budget} B (by {} B)",
                size - budget
            )),
            Some(_) => {}
        }
    }
    out
}

// ---------------------------------------------------------------- fmt/panic

/// Builds every kguest guest unstripped (own target subdirectory, so the
/// stripped artifacts are untouched) and scans its `name` section.
fn fmt_and_panic_problems() -> Result<Vec<String>, String> {
    let dir = paths::target_dir().join("size-unstripped");
    let mut problems = Vec::new();
    for &(package, kind) in GUESTS {
        let path = match kind {
            Kind::Baseline | Kind::TinyGo => continue,
            Kind::Kguest => guests::build_unstripped(package, &dir)?,
            Kind::Krm => guests::build_unstripped_for(package, &dir, guests::WASI_TARGET)?,
        };
        let module = Module::parse(&read(&path)?).map_err(|err| format!("{package}: {err}"))?;
        if !module.has_name_section {
            problems.push(format!("{package}: unstripped build has no `name` section"));
            continue;
        }
        let hits = module.forbidden_functions();
        if !hits.is_empty() {
            let shown: Vec<&str> = hits.iter().take(5).copied().collect();
            let callers: Vec<String> = module
                .panic_reach()
                .iter()
                .take(5)
                .map(|r| format!("{} (calls {})", r.function, r.via))
                .collect();
            problems.push(format!(
                "{package} links core::fmt or panic machinery ({} function(s), e.g. {}; pulled in by {})",
                hits.len(),
                shown.join(", "),
                callers.join(", ")
            ));
        }
    }
    Ok(problems)
}

// ---------------------------------------------------------------- wasm-opt

fn wasm_opt_available() -> bool {
    Command::new("wasm-opt")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn wasm_opt_version() -> String {
    Command::new("wasm-opt")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// `wasm-opt -Oz` with the features rustc's wasm32 target enables by default.
fn run_wasm_opt(input: &Path) -> Result<u64, String> {
    let out_dir = paths::target_dir().join("size-wasm-opt");
    std::fs::create_dir_all(&out_dir).map_err(|err| format!("{}: {err}", out_dir.display()))?;
    let output: PathBuf = out_dir.join(input.file_name().unwrap_or_default());
    let status = Command::new("wasm-opt")
        .args([
            "-Oz",
            "--enable-bulk-memory",
            "--enable-sign-ext",
            "--enable-mutable-globals",
            "--enable-nontrapping-float-to-int",
            "--enable-multivalue",
            "--enable-reference-types",
        ])
        .arg(input)
        .arg("-o")
        .arg(&output)
        .status()
        .map_err(|err| format!("running wasm-opt: {err}"))?;
    if !status.success() {
        return Err(format!("wasm-opt failed on {} ({status})", input.display()));
    }
    Ok(std::fs::metadata(&output)
        .map_err(|err| format!("{}: {err}", output.display()))?
        .len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_budgets() {
        let text = "# comment\n\n[budgets]\nnodename = 2_048 # target\n\"nodename-view\" = 1500\n";
        let b = parse_budgets(text).unwrap();
        assert_eq!(b.get("nodename"), Some(&2048));
        assert_eq!(b.get("nodename-view"), Some(&1500));
        assert_eq!(parse_budgets("").unwrap().len(), 0);
    }

    #[test]
    fn rejects_bad_budgets() {
        assert!(parse_budgets("nodename = 1\n").is_err());
        assert!(parse_budgets("[budgets]\nnodename = big\n").is_err());
        assert!(parse_budgets("[budgets]\nnodename = -1\n").is_err());
        assert!(parse_budgets("[budgets]\nnodename\n").is_err());
        assert!(parse_budgets("[budgets]\na = 1\na = 2\n").is_err());
        assert!(parse_budgets("[other]\na = 1\n").is_err());
    }

    #[test]
    fn rendered_budgets_round_trip() {
        let text = "[budgets]\nfit = 8192\nnodename = 2048\nzzz-extra = 5\n";
        let b = parse_budgets(text).unwrap();
        let rendered = render_budgets(&b);
        assert_eq!(parse_budgets(&rendered).unwrap(), b);
        // GUESTS order: nodename before fit; unknown names last.
        let nodename = rendered.find("nodename =").unwrap();
        assert!(nodename < rendered.find("fit =").unwrap());
        assert!(rendered.find("fit =").unwrap() < rendered.find("zzz-extra").unwrap());
    }

    #[test]
    fn bless_lowers_but_never_raises() {
        let budgets = parse_budgets("[budgets]\nnodename = 2048\nfit = 8192\n").unwrap();
        let sizes = [("nodename", 1500), ("fit", 17_000), ("taints", 6000)];
        let (out, refused) = bless(&budgets, &sizes, false);
        assert_eq!(out["nodename"], blessed_budget(1500));
        assert!(out["nodename"] < 2048);
        assert_eq!(out["fit"], 8192, "never raised without --allow-growth");
        assert_eq!(refused.len(), 1);
        assert!(refused[0].starts_with("fit"));
        assert_eq!(
            out["taints"],
            blessed_budget(6000),
            "a new guest gets a budget"
        );

        let (out, refused) = bless(&budgets, &sizes, true);
        assert_eq!(out["fit"], blessed_budget(17_000));
        assert!(refused.is_empty());
    }

    #[test]
    fn bless_margin_is_small_and_positive() {
        for size in [0, 100, 1434, 2048, 8192, 100_000] {
            let b = blessed_budget(size);
            assert!(b > size);
            assert!(b - size <= 64 + size / 50);
        }
    }

    #[test]
    fn check_names_plugin_size_and_budget() {
        let budgets = parse_budgets("[budgets]\nnodename = 2048\n").unwrap();
        let out = over_budget(&budgets, &[("nodename", 2274), ("fit", 1)]);
        assert_eq!(out.len(), 2);
        assert!(out[0].contains("nodename is 2274 B, over its budget of 2048 B"));
        assert!(out[1].contains("fit") && out[1].contains("no budget"));
        assert!(over_budget(&budgets, &[("nodename", 2048)]).is_empty());
    }

    #[test]
    fn replaces_marked_sections() {
        let doc = "a\n<!-- x -->\nold\n<!-- /x -->\nb\n";
        let out = replace_section(doc, "<!-- x -->", "<!-- /x -->", "new\n").unwrap();
        assert_eq!(out, "a\n<!-- x -->\nnew\n<!-- /x -->\nb\n");
        assert!(replace_section("a", "<!-- x -->", "<!-- /x -->", "n").is_err());
    }
}
