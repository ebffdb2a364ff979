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
//!   imports something the host does not provide or exports more than
//!   `memory`, its hooks and rustc's `__data_end`/`__heap_base`.
//! * `--bless` lowers budgets to the current size plus a small margin; it
//!   never raises one unless `--allow-growth` is given.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{guests, paths};

/// What a guest is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Shipped kguest code: budgeted and checked for fmt/panic machinery.
    Kguest,
    /// A comparison point under `tests/baselines`: sizes reported only.
    Baseline,
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

/// Host import modules a guest may use.
const HOST_MODULES: &[&str] = &["k8s.io/api", "k8s.io/scheduler", "k8s.io/klog"];
/// Hook exports (the KSW hook names).
const HOOKS: &[&str] = &[
    "prefilter",
    "filter",
    "postfilter",
    "prescore",
    "score",
    "normalizescore",
    "reserve",
    "unreserve",
    "permit",
    "prebind",
    "bind",
    "postbind",
    "enqueue",
    "addpod",
    "removepod",
];
/// Data symbols rustc exports from every wasm cdylib.
const RUSTC_GLOBALS: &[&str] = &["__data_end", "__heap_base"];
/// Function-name fragments that mean `core::fmt` or panic machinery was
/// linked (demangled and legacy-mangled spellings).
const FORBIDDEN: &[&str] = &[
    "core::fmt",
    "4core3fmt",
    "panicking",
    "panic_fmt",
    "panic_bounds_check",
    "rust_begin_unwind",
    "slice_index_fail",
    "slice_end_index_len_fail",
    "slice_start_index_len_fail",
    "unwrap_failed",
    "expect_failed",
];

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
        let path = guests::build(package)?;
        let bytes = read(&path)?;
        let module = Module::parse(&bytes).map_err(|err| format!("{package}: {err}"))?;
        problems.extend(module.interface_problems(package));
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
            .filter(|r| r.kind == Kind::Kguest)
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
            .filter(|r| r.kind == Kind::Kguest)
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
            (Kind::Kguest, Some(b)) if row.bytes > *b => format!("{} **over**", group(*b)),
            (Kind::Kguest, Some(b)) => group(*b),
            (Kind::Kguest, None) => "none".into(),
            (Kind::Baseline, _) => "–".into(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            row.package,
            match row.kind {
                Kind::Kguest => "kguest",
                Kind::Baseline => "baseline",
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
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

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
        if kind != Kind::Kguest {
            continue;
        }
        let path = guests::build_unstripped(package, &dir)?;
        let module = Module::parse(&read(&path)?).map_err(|err| format!("{package}: {err}"))?;
        if module.function_names.is_empty() {
            problems.push(format!("{package}: unstripped build has no `name` section"));
            continue;
        }
        let hits = forbidden_functions(&module.function_names);
        if !hits.is_empty() {
            let shown: Vec<&str> = hits.iter().take(5).map(String::as_str).collect();
            problems.push(format!(
                "{package} links core::fmt or panic machinery ({} function(s), e.g. {})",
                hits.len(),
                shown.join(", ")
            ));
        }
    }
    Ok(problems)
}

/// Function names that belong to `core::fmt` or the panic machinery.
pub fn forbidden_functions(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|name| FORBIDDEN.iter().any(|f| name.contains(f)))
        .cloned()
        .collect()
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

// ---------------------------------------------------------------- wasm reader

/// What `size` needs from a module: imports, exports, function names.
#[derive(Debug, Default)]
pub struct Module {
    /// `(module, name)` of every import.
    pub imports: Vec<(String, String)>,
    /// `(name, kind)` of every export; kind 0 func, 1 table, 2 memory, 3 global.
    pub exports: Vec<(String, u8)>,
    /// Function names from the `name` custom section (empty when stripped).
    pub function_names: Vec<String>,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.buf.get(self.pos).ok_or("unexpected end of module")?;
        self.pos += 1;
        Ok(b)
    }
    fn leb(&mut self) -> Result<u32, String> {
        let mut value = 0u32;
        for shift in (0..35).step_by(7) {
            let b = self.byte()?;
            value |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err("LEB128 too long".into())
    }
    fn bytes(&mut self, len: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(len).ok_or("length overflow")?;
        let out = self
            .buf
            .get(self.pos..end)
            .ok_or("section past end of module")?;
        self.pos = end;
        Ok(out)
    }
    fn name(&mut self) -> Result<String, String> {
        let len = self.leb()? as usize;
        Ok(String::from_utf8_lossy(self.bytes(len)?).into_owned())
    }
    fn done(&self) -> bool {
        self.pos >= self.buf.len()
    }
}

impl Module {
    /// Reads the sections `size` needs; skips everything else.
    pub fn parse(wasm: &[u8]) -> Result<Module, String> {
        if wasm.get(..8) != Some(b"\0asm\x01\0\0\0") {
            return Err("not a wasm module (bad magic or version)".into());
        }
        let mut module = Module::default();
        let mut r = Reader { buf: wasm, pos: 8 };
        while !r.done() {
            let id = r.byte()?;
            let len = r.leb()? as usize;
            let mut s = Reader {
                buf: r.bytes(len)?,
                pos: 0,
            };
            match id {
                0 if s.name()? == "name" => {
                    module.function_names = parse_name_section(&mut s)?;
                }
                2 => {
                    for _ in 0..s.leb()? {
                        let m = s.name()?;
                        let n = s.name()?;
                        match s.byte()? {
                            0 => {
                                s.leb()?;
                            }
                            1 => {
                                s.byte()?;
                                limits(&mut s)?;
                            }
                            2 => limits(&mut s)?,
                            3 => {
                                s.byte()?;
                                s.byte()?;
                            }
                            k => return Err(format!("unknown import kind {k}")),
                        }
                        module.imports.push((m, n));
                    }
                }
                7 => {
                    for _ in 0..s.leb()? {
                        let n = s.name()?;
                        let kind = s.byte()?;
                        s.leb()?;
                        module.exports.push((n, kind));
                    }
                }
                _ => {}
            }
        }
        Ok(module)
    }

    /// Imports the host does not provide, and exports beyond `memory`, the
    /// hooks and rustc's data symbols.
    pub fn interface_problems(&self, package: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (m, n) in &self.imports {
            if !HOST_MODULES.contains(&m.as_str()) {
                out.push(format!(
                    "{package} imports `{m}`.`{n}`, which the host does not provide"
                ));
            }
        }
        if !self.exports.iter().any(|(n, k)| n == "memory" && *k == 2) {
            out.push(format!("{package} does not export `memory`"));
        }
        for (n, k) in &self.exports {
            let ok = match k {
                0 => HOOKS.contains(&n.as_str()),
                2 => n == "memory",
                3 => RUSTC_GLOBALS.contains(&n.as_str()),
                _ => false,
            };
            if !ok {
                out.push(format!("{package} exports unexpected `{n}` (kind {k})"));
            }
        }
        out
    }
}

fn limits(s: &mut Reader<'_>) -> Result<(), String> {
    let flags = s.byte()?;
    s.leb()?;
    if flags & 1 != 0 {
        s.leb()?;
    }
    Ok(())
}

/// The function-names subsection (id 1) of a `name` section.
fn parse_name_section(s: &mut Reader<'_>) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    while !s.done() {
        let id = s.byte()?;
        let len = s.leb()? as usize;
        let mut sub = Reader {
            buf: s.bytes(len)?,
            pos: 0,
        };
        if id == 1 {
            for _ in 0..sub.leb()? {
                sub.leb()?;
                names.push(sub.name()?);
            }
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leb(mut v: u32, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn name(s: &str, out: &mut Vec<u8>) {
        leb(s.len() as u32, out);
        out.extend_from_slice(s.as_bytes());
    }

    fn section(id: u8, body: &[u8], out: &mut Vec<u8>) {
        out.push(id);
        leb(body.len() as u32, out);
        out.extend_from_slice(body);
    }

    /// A module with one import, `memory` + `filter` exports and a name
    /// section naming `functions`.
    fn module(functions: &[&str]) -> Vec<u8> {
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        let mut imports = vec![1];
        name("k8s.io/scheduler", &mut imports);
        name("currentPod", &mut imports);
        imports.extend([0, 0]);
        section(2, &imports, &mut wasm);
        let mut exports = vec![2];
        name("memory", &mut exports);
        exports.extend([2, 0]);
        name("filter", &mut exports);
        exports.extend([0, 1]);
        section(7, &exports, &mut wasm);
        let mut sub = Vec::new();
        leb(functions.len() as u32, &mut sub);
        for (i, f) in functions.iter().enumerate() {
            leb(i as u32, &mut sub);
            name(f, &mut sub);
        }
        let mut custom = Vec::new();
        name("name", &mut custom);
        custom.push(0); // module-name subsection, skipped
        custom.push(2);
        name("m", &mut custom);
        custom.push(1);
        leb(sub.len() as u32, &mut custom);
        custom.extend(sub);
        section(0, &custom, &mut wasm);
        wasm
    }

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
    fn reads_imports_exports_and_names() {
        let m = Module::parse(&module(&["filter", "kguest::sys::pull"])).unwrap();
        assert_eq!(
            m.imports,
            [("k8s.io/scheduler".into(), "currentPod".into())]
        );
        assert_eq!(m.exports, [("memory".into(), 2), ("filter".into(), 0)]);
        assert_eq!(m.function_names, ["filter", "kguest::sys::pull"]);
        assert!(m.interface_problems("x").is_empty());
        assert!(Module::parse(b"\0asm\x02\0\0\0").is_err());
        let mut truncated = module(&["a"]);
        truncated.pop();
        assert!(Module::parse(&truncated).is_err());
    }

    #[test]
    fn finds_fmt_and_panic_functions() {
        let names: Vec<String> = [
            "filter",
            "core::fmt::write",
            "_ZN4core3fmt9Formatter3pad17h0123E",
            "core::panicking::panic_fmt",
            "rust_begin_unwind",
            "kguest_k8s::api::core::v1::PodSpec::node_name",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let hits = forbidden_functions(&names);
        assert_eq!(hits.len(), 4);
        assert!(
            !hits
                .iter()
                .any(|h| h == "filter" || h.contains("node_name"))
        );
    }

    #[test]
    fn interface_problems_name_the_import_and_export() {
        let mut m = Module::parse(&module(&[])).unwrap();
        m.imports
            .push(("wasi_snapshot_preview1".into(), "fd_write".into()));
        m.exports.push(("malloc".into(), 0));
        m.exports.push(("__heap_base".into(), 3));
        let p = m.interface_problems("g");
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("wasi_snapshot_preview1"));
        assert!(p[1].contains("malloc"));
    }

    #[test]
    fn replaces_marked_sections() {
        let doc = "a\n<!-- x -->\nold\n<!-- /x -->\nb\n";
        let out = replace_section(doc, "<!-- x -->", "<!-- /x -->", "new\n").unwrap();
        assert_eq!(out, "a\n<!-- x -->\nnew\n<!-- /x -->\nb\n");
        assert!(replace_section("a", "<!-- x -->", "<!-- /x -->", "n").is_err());
    }

    #[test]
    fn groups_digits() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(651_817), "651,817");
    }
}
