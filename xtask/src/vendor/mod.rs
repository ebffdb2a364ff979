//! `cargo xtask vendor`: fetch the pinned upstream files.
//!
//! Two pins, each a lock of sha256 entries under `proto-vendor/`:
//!
//! * `kubernetes.lock`: the Kubernetes protos and wire fixtures, vendored
//!   into `proto-vendor/{proto,testdata}` (source: `$KGUEST_K8S_DIR`);
//! * `ksw.lock`: kube-scheduler-wasm-extension's guests and host test suite
//!   at one commit, vendored into `proto-vendor/ksw/` (source:
//!   `$KGUEST_KSW_DIR`).
//!
//! The files are not committed: this task copies them from a local copy
//! (`--from DIR` or the pin's environment variable) or downloads them with
//! `curl`, verifies each one before it is put in place, and removes anything
//! the lock does not list.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;

use sha2::{Digest, Sha256};

use crate::paths;

/// Parallel copies/downloads.
const WORKERS: usize = 8;
/// How many problems `--check` spells out before summarising the rest.
const SHOWN_PROBLEMS: usize = 5;

const USAGE: &str = concat!(
    "  cargo xtask vendor [--check]              both pins, from $KGUEST_K8S_DIR / $KGUEST_KSW_DIR or upstream\n",
    "  cargo xtask vendor [kubernetes|ksw] [--from DIR] [--check]\n",
    "  cargo xtask vendor [kubernetes] --update-lock --from DIR [--kubernetes X.Y.Z]\n",
    "  cargo xtask vendor ksw --update-lock --from DIR [--commit HASH]\n",
    "(`--from` and `--update-lock` without a pin name mean `kubernetes`)",
);

// ---------------------------------------------------------------------------
// The pins

/// A lock's `key value` lines, in order.
type Keys = Vec<(String, String)>;

/// One pinned set of upstream files: its lock, where it is vendored, where
/// its files come from.
#[derive(Debug)]
pub struct Pin {
    /// The name on the command line.
    name: &'static str,
    /// The lock's file name in `proto-vendor/`.
    lock_name: &'static str,
    /// Where the files go, below `proto-vendor/` (empty: `proto-vendor/` itself).
    subdir: &'static str,
    /// How the vendor dir is named in messages.
    label: &'static str,
    /// Environment variable naming a local source laid out like the lock.
    env: &'static str,
    /// The `key value` lines every lock has, in this order.
    keys: &'static [&'static str],
    /// The `--update-lock` flag that sets the keys (`--kubernetes`, `--commit`).
    key_flag: &'static str,
    /// Top-level folders holding the files; `None` when the pin owns its
    /// whole vendor dir.
    trees: Option<&'static [&'static str]>,
    /// Written at the top of a fresh lock.
    header: &'static str,
    /// Keys from the `key_flag` value.
    keys_from: fn(&str) -> Result<Keys, String>,
    /// Which files of a source dir `--update-lock` pins.
    wanted: fn(&str) -> bool,
    /// The download URL of a lock path.
    url: fn(&Lock, &str) -> Result<String, String>,
}

/// The Kubernetes protos and fixtures.
pub static KUBERNETES: Pin = Pin {
    name: "kubernetes",
    lock_name: "kubernetes.lock",
    subdir: "",
    label: "proto-vendor/",
    env: "KGUEST_K8S_DIR",
    keys: &["kubernetes", "tag"],
    key_flag: "--kubernetes",
    trees: Some(&["proto", "testdata"]),
    header: "\
# Kubernetes sources pinned for kguest; `cargo xtask vendor` fetches them into
# proto-vendor/ and checks every file against this list. Only this manifest is
# committed, never the files.
#
#   proto/<import path>   generated.proto files of kubernetes/api and
#                         kubernetes/apimachinery at `tag`
#   testdata/<file>       testdata/HEAD/<file> of kubernetes/api at `tag`
#
# Format: `kubernetes <version>`, `tag <git tag>`, then `<sha256>  <path>` lines
# sorted by path. After a Kubernetes bump, regenerate it with
#   cargo xtask vendor --update-lock --from DIR --kubernetes X.Y.Z",
    keys_from: kubernetes_keys,
    wanted: |path| !path.starts_with("proto/") || path.ends_with(".proto"),
    url: kubernetes_url,
};

/// kube-scheduler-wasm-extension's guests and host test suite.
pub static KSW: Pin = Pin {
    name: "ksw",
    lock_name: "ksw.lock",
    subdir: "ksw",
    label: "proto-vendor/ksw/",
    env: "KGUEST_KSW_DIR",
    keys: &["repository", "commit"],
    key_flag: "--commit",
    trees: None,
    header: "\
# kube-scheduler-wasm-extension test material pinned for kguest: its TinyGo and
# WAT guests, the YAML objects and Go sources of its host test suite, which
# kguest-host's tests run. `cargo xtask vendor` fetches them into
# proto-vendor/ksw/ (from $KGUEST_KSW_DIR or GitHub at `commit`) and checks
# every file against this list. Only this manifest is
# committed, never the files.
#
# Format: `repository <owner/name>`, `commit <git hash>`, then
# `<sha256>  <path>` lines (paths in the repository) sorted by path. Bump with
#   cargo xtask vendor ksw --update-lock --from DIR --commit HASH",
    keys_from: ksw_keys,
    wanted: |_| true,
    url: ksw_url,
};

impl Pin {
    fn lock_file(&self) -> PathBuf {
        paths::vendor_dir().join(self.lock_name)
    }

    fn vendor_dir(&self) -> PathBuf {
        match self.subdir {
            "" => paths::vendor_dir(),
            sub => paths::vendor_dir().join(sub),
        }
    }

    /// The folders of the vendor dir this pin owns (`""` = all of it).
    fn roots(&self) -> &'static [&'static str] {
        self.trees.unwrap_or(&[""])
    }
}

/// The directory holding the vendored `.proto` files (the protoc include root).
#[allow(dead_code)] // for `regen` and the conformance tooling
pub fn proto_dir() -> PathBuf {
    paths::vendor_dir().join("proto")
}

/// The directory holding the vendored upstream fixtures.
#[allow(dead_code)] // for `regen` and the conformance tooling
pub fn testdata_dir() -> PathBuf {
    paths::vendor_dir().join("testdata")
}

/// `cargo xtask vendor [...]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse_args(args)?;
    if opts.help {
        println!("usage:\n{USAGE}");
        return Ok(());
    }
    let pins: Vec<&Pin> = match &opts.pin {
        Some(pin) => vec![pin],
        None => vec![&KUBERNETES, &KSW],
    };
    for pin in pins {
        if opts.update_lock {
            update_lock(pin, &opts)?;
            continue;
        }
        let lock = read_lock(&pin.lock_file(), pin)?;
        let vendor = pin.vendor_dir();
        if opts.check {
            let count = check(&vendor, pin, &lock, pin.label)?;
            println!(
                "vendor: {count} files verified in {} (check only)",
                pin.label
            );
            continue;
        }
        let source = choose_source(pin, opts.from.clone(), &lock)?;
        let summary = sync(&vendor, pin, &lock, &source)?;
        print_summary(&summary, pin.label);
    }
    Ok(())
}

/// Makes sure the Kubernetes files match their lock (like a plain `vendor`,
/// honouring `$KGUEST_K8S_DIR`) and returns the vendor dir. Quiet when
/// nothing had to change.
pub fn ensure_vendored() -> Result<PathBuf, String> {
    ensure(&KUBERNETES)
}

/// The same for kube-scheduler-wasm-extension's material
/// (`$KGUEST_KSW_DIR`), which kguest-host's tests read.
pub fn ensure_ksw_vendored() -> Result<PathBuf, String> {
    ensure(&KSW)
}

fn ensure(pin: &Pin) -> Result<PathBuf, String> {
    let lock = read_lock(&pin.lock_file(), pin)?;
    let vendor = pin.vendor_dir();
    let summary = sync(&vendor, pin, &lock, &choose_source(pin, None, &lock)?)?;
    if summary.changed() {
        print_summary(&summary, pin.label);
    }
    Ok(vendor)
}

// ---------------------------------------------------------------------------
// Command line

#[derive(Debug, Default, PartialEq, Eq)]
struct Options {
    /// `None`: both pins (or `kubernetes` with `--from`/`--update-lock`).
    pin: Option<&'static Pin>,
    from: Option<PathBuf>,
    check: bool,
    update_lock: bool,
    /// `--kubernetes X.Y.Z` or `--commit HASH`, with the flag used.
    key_value: Option<(String, String)>,
    help: bool,
}

impl PartialEq for Pin {
    fn eq(&self, other: &Pin) -> bool {
        self.name == other.name
    }
}

impl Eq for Pin {}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut iter = args.iter().peekable();
    if let Some(first) = iter.peek() {
        let named = [&KUBERNETES, &KSW].into_iter().find(|p| p.name == **first);
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

fn usage(problem: &str) -> String {
    format!("usage: {problem}\n{USAGE}")
}

/// `--from`, else the pin's environment variable, else upstream.
fn choose_source(pin: &Pin, from: Option<PathBuf>, lock: &Lock) -> Result<Source, String> {
    let env_dir = std::env::var_os(pin.env).filter(|v| !v.is_empty());
    match from.or_else(|| env_dir.map(PathBuf::from)) {
        Some(dir) => Ok(Source::Dir(dir)),
        None => download_source(pin, lock),
    }
}

/// Every file's download URL, resolved up front so a lock that cannot be
/// downloaded fails once, before anything is fetched.
fn download_source(pin: &Pin, lock: &Lock) -> Result<Source, String> {
    let urls = lock
        .entries
        .iter()
        .map(|e| Ok((e.path.clone(), (pin.url)(lock, &e.path)?)))
        .collect::<Result<HashMap<_, _>, String>>()
        .map_err(|err| format!("{err} (or set {} to a local copy)", pin.env))?;
    Ok(Source::Download(urls))
}

// ---------------------------------------------------------------------------
// The lock manifest

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    /// Leading `#` lines, kept verbatim across `--update-lock`.
    header: Vec<String>,
    /// The pin's `key value` lines, in the pin's order.
    keys: Keys,
    /// Sorted by path, no duplicates.
    entries: Vec<Entry>,
}

impl Lock {
    /// The value of `key` (every key of the pin is present).
    fn key(&self, key: &str) -> &str {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    sha256: String,
    /// Relative to the vendor dir.
    path: String,
}

fn read_lock(path: &Path, pin: &Pin) -> Result<Lock, String> {
    let text = fs::read_to_string(path).map_err(|e| io_error(path, &e))?;
    parse_lock(&text, pin).map_err(|e| format!("{}: {e}", path.display()))
}

fn parse_lock(text: &str, pin: &Pin) -> Result<Lock, String> {
    let mut header = Vec::new();
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at_top = keys.is_empty() && entries.is_empty();
        if line.starts_with('#') {
            if at_top {
                header.push(line.to_string());
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let parsed = parse_lock_line(line, pin, &mut keys);
        match parsed {
            Ok(Some(entry)) => entries.push(entry),
            Ok(None) => {}
            Err(e) => return Err(format!("line {}: {e}", index + 1)),
        }
    }
    let mut ordered = Vec::new();
    for key in pin.keys {
        let Some(pair) = keys.iter().find(|(k, _)| k == key) else {
            return Err(format!("no `{key} <value>` line"));
        };
        ordered.push(pair.clone());
    }
    sort_entries(&mut entries)?;
    Ok(Lock {
        header,
        keys: ordered,
        entries,
    })
}

/// One non-comment line: a key (stored, returns `None`) or a file entry.
fn parse_lock_line(
    line: &str,
    pin: &Pin,
    keys: &mut Vec<(String, String)>,
) -> Result<Option<Entry>, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [first, second] = fields[..] else {
        return Err(format!("expected two fields, got `{line}`"));
    };
    if pin.keys.contains(&first) {
        if keys.iter().any(|(k, _)| k == first) {
            return Err(format!("`{first}` given twice"));
        }
        keys.push((first.to_string(), second.to_string()));
        return Ok(None);
    }
    if !is_sha256(first) {
        return Err(format!("unknown key or bad sha256 `{first}`"));
    }
    validate_path(second, pin)?;
    Ok(Some(Entry {
        sha256: first.to_string(),
        path: second.to_string(),
    }))
}

fn sort_entries(entries: &mut [Entry]) -> Result<(), String> {
    if entries.is_empty() {
        return Err("lists no files".to_string());
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    match entries.windows(2).find(|w| w[0].path == w[1].path) {
        Some(pair) => Err(format!("`{}` listed twice", pair[0].path)),
        None => Ok(()),
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A lock path must be a plain relative path, inside one of the pin's
/// trees when it has them.
fn validate_path(path: &str, pin: &Pin) -> Result<(), String> {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = |p: &&str| !p.is_empty() && *p != "." && *p != ".." && !p.contains('\\');
    let placed = match pin.trees {
        Some(trees) => parts.len() >= 2 && trees.contains(&parts[0]),
        None => true,
    };
    if !placed || !parts.iter().all(plain) {
        let want = match pin.trees {
            Some(trees) => format!("want {}/..., ", trees.join("/... or ")),
            None => "want a relative path, ".to_string(),
        };
        return Err(format!("bad path `{path}` ({want}no `..`)"));
    }
    Ok(())
}

fn render_lock(lock: &Lock) -> String {
    let mut out = String::new();
    for line in &lock.header {
        out.push_str(line);
        out.push('\n');
    }
    if !lock.header.is_empty() {
        out.push('\n');
    }
    for (key, value) in &lock.keys {
        out.push_str(&format!("{key} {value}\n"));
    }
    out.push('\n');
    for entry in &lock.entries {
        out.push_str(&format!("{}  {}\n", entry.sha256, entry.path));
    }
    out
}

// ---------------------------------------------------------------------------
// --update-lock

fn update_lock(pin: &Pin, opts: &Options) -> Result<(), String> {
    let from = opts
        .from
        .as_deref()
        .ok_or_else(|| usage("missing `--from DIR`"))?;
    let lock_path = pin.lock_file();
    let old = if lock_path.exists() {
        Some(read_lock(&lock_path, pin)?)
    } else {
        None
    };
    let value = opts.key_value.as_ref().map(|(_, v)| v.as_str());
    let lock = build_lock(from, pin, value, old.as_ref())?;
    write_atomic(&lock_path, render_lock(&lock).as_bytes())?;
    let keys: Vec<String> = lock.keys.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!(
        "vendor: wrote proto-vendor/{}: {} files ({})",
        pin.lock_name,
        lock.entries.len(),
        keys.join(", ")
    );
    Ok(())
}

/// A fresh lock for the files in `dir`. The keys come from `value` (the
/// pin's `--kubernetes`/`--commit`) if given, else from the old lock; the
/// header is kept from the old lock.
fn build_lock(
    dir: &Path,
    pin: &Pin,
    value: Option<&str>,
    old: Option<&Lock>,
) -> Result<Lock, String> {
    let keys = match (value, old) {
        (Some(value), _) => (pin.keys_from)(value)?,
        (None, Some(old)) => old.keys.clone(),
        (None, None) => {
            return Err(usage(&format!(
                "no existing lock to take the keys from; pass `{}`",
                pin.key_flag
            )));
        }
    };
    let header = match old {
        Some(old) if !old.header.is_empty() => old.header.clone(),
        _ => pin.header.lines().map(str::to_string).collect(),
    };
    let mut entries = Vec::new();
    for path in scan_source(dir, pin)? {
        validate_path(&path, pin)?;
        let file = dir.join(&path);
        let sha256 = sha256_file(&file).map_err(|e| io_error(&file, &e))?;
        entries.push(Entry { sha256, path });
    }
    sort_entries(&mut entries).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(Lock {
        header,
        keys,
        entries,
    })
}

/// `1.36.3` (or `v1.36.3`) → `kubernetes 1.36.3`, `tag v0.36.3`: the staging
/// repos are tagged `v0.<minor>.<patch>` for Kubernetes `1.<minor>.<patch>`.
fn kubernetes_keys(version: &str) -> Result<Keys, String> {
    let version = version.strip_prefix('v').unwrap_or(version);
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, format!("-{pre}")),
        None => (version, String::new()),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match numbers[..] {
        ["1", minor, patch] if [minor, patch].iter().all(numeric) => Ok(vec![
            ("kubernetes".to_string(), version.to_string()),
            ("tag".to_string(), format!("v0.{minor}.{patch}{pre}")),
        ]),
        _ => Err(usage(&format!(
            "`--kubernetes {version}`: expected a release like 1.36.3"
        ))),
    }
}

/// The upstream repository of kube-scheduler-wasm-extension.
const KSW_REPOSITORY: &str = "kubernetes-sigs/kube-scheduler-wasm-extension";

/// `HASH` → `repository ...`, `commit HASH` (7 to 40 lowercase hex digits).
fn ksw_keys(commit: &str) -> Result<Keys, String> {
    let hex = commit
        .bytes()
        .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !(7..=40).contains(&commit.len()) || !hex {
        return Err(usage(&format!(
            "`--commit {commit}`: expected a git commit hash (7 to 40 lowercase hex digits)"
        )));
    }
    Ok(vec![
        ("repository".to_string(), KSW_REPOSITORY.to_string()),
        ("commit".to_string(), commit.to_string()),
    ])
}

/// Lock paths of a source dir: the pin's trees (or everything), hidden
/// files skipped, filtered by the pin.
fn scan_source(dir: &Path, pin: &Pin) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    for tree in pin.roots() {
        let root = dir.join(tree);
        if !root.is_dir() {
            return Err(format!("{}: no such directory", root.display()));
        }
        let files = list_files(dir, tree)?;
        let wanted = files.into_iter().filter(|path| {
            let hidden = path.split('/').any(|part| part.starts_with('.'));
            !hidden && (pin.wanted)(path)
        });
        found.extend(wanted);
    }
    Ok(found)
}

// ---------------------------------------------------------------------------
// Sync and check

/// Where missing files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// A directory laid out like the lock.
    Dir(PathBuf),
    /// Upstream, via `curl`: lock path -> URL.
    Download(HashMap<String, String>),
}

#[derive(Debug, Default)]
struct Summary {
    verified: usize,
    copied: usize,
    downloaded: usize,
    /// Vendored files that had the wrong content, with why.
    replaced: Vec<String>,
    /// Files under proto/ or testdata/ that the lock does not list.
    removed: Vec<String>,
}

impl Summary {
    fn changed(&self) -> bool {
        self.copied + self.downloaded > 0 || !self.replaced.is_empty() || !self.removed.is_empty()
    }

    fn line(&self, label: &str) -> String {
        let mut extra = String::new();
        if !self.replaced.is_empty() {
            extra.push_str(&format!(", {} replaced", self.replaced.len()));
        }
        if !self.removed.is_empty() {
            extra.push_str(&format!(", {} stray removed", self.removed.len()));
        }
        format!(
            "vendor: {} files verified ({} copied, {} downloaded{extra}) in {label}",
            self.verified, self.copied, self.downloaded
        )
    }
}

fn print_summary(summary: &Summary, label: &str) {
    for why in &summary.replaced {
        println!("vendor: replaced {why}");
    }
    for path in &summary.removed {
        println!("vendor: removed stray {label}{path}");
    }
    println!("{}", summary.line(label));
}

/// State of one vendored file against its lock entry.
#[derive(Debug, PartialEq, Eq)]
enum State {
    Good,
    Missing,
    Mismatch(String),
}

fn file_state(vendor: &Path, entry: &Entry) -> Result<State, String> {
    let path = vendor.join(&entry.path);
    match sha256_file(&path) {
        Ok(actual) if actual == entry.sha256 => Ok(State::Good),
        Ok(actual) => Ok(State::Mismatch(actual)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(State::Missing),
        Err(e) => Err(io_error(&path, &e)),
    }
}

/// Brings `vendor` in line with `lock`: fetches what is missing or wrong,
/// removes what is not listed. Every file is verified before it is used.
fn sync(vendor: &Path, pin: &Pin, lock: &Lock, source: &Source) -> Result<Summary, String> {
    let mut summary = Summary::default();
    let mut needed = Vec::new();
    for entry in &lock.entries {
        match file_state(vendor, entry)? {
            State::Good => {}
            State::Missing => needed.push(entry),
            State::Mismatch(actual) => {
                let path = vendor.join(&entry.path);
                fs::remove_file(&path).map_err(|e| io_error(&path, &e))?;
                summary
                    .replaced
                    .push(mismatch(&entry.path, &entry.sha256, &actual));
                needed.push(entry);
            }
        }
    }
    fetch_all(vendor, &needed, source)?;
    match source {
        Source::Dir(_) => summary.copied = needed.len(),
        Source::Download(_) => summary.downloaded = needed.len(),
    }
    summary.removed = remove_strays(vendor, pin, lock)?;
    summary.verified = lock.entries.len();
    Ok(summary)
}

/// Verifies `vendor` against `lock` without changing anything; returns the
/// number of files verified.
fn check(vendor: &Path, pin: &Pin, lock: &Lock, label: &str) -> Result<usize, String> {
    let mut problems = Vec::new();
    for entry in &lock.entries {
        match file_state(vendor, entry)? {
            State::Good => {}
            State::Missing => problems.push(format!("{}: missing", entry.path)),
            State::Mismatch(actual) => problems.push(mismatch(&entry.path, &entry.sha256, &actual)),
        }
    }
    for path in find_strays(vendor, pin, lock)? {
        problems.push(format!("{path}: not in the lock"));
    }
    if problems.is_empty() {
        return Ok(lock.entries.len());
    }
    Err(describe_problems(&problems, label))
}

fn describe_problems(problems: &[String], label: &str) -> String {
    let mut out = format!(
        "vendor --check: {} problem(s) in {label} (run `cargo xtask vendor`)",
        problems.len()
    );
    for problem in problems.iter().take(SHOWN_PROBLEMS) {
        out.push_str(&format!("\n  {problem}"));
    }
    if problems.len() > SHOWN_PROBLEMS {
        out.push_str(&format!(
            "\n  ... and {} more",
            problems.len() - SHOWN_PROBLEMS
        ));
    }
    out
}

fn mismatch(path: &str, expected: &str, actual: &str) -> String {
    format!("{path}: sha256 mismatch: expected {expected}, actual {actual}")
}

// ---------------------------------------------------------------------------
// Fetching

/// Installs `entries` into `vendor` from `source`, a few at a time. Stops
/// handing out work after the first failure and reports the first error.
fn fetch_all(vendor: &Path, entries: &[&Entry], source: &Source) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let errors = Mutex::new(Vec::new());
    thread::scope(|scope| {
        for _ in 0..entries.len().min(WORKERS) {
            scope.spawn(|| fetch_worker(vendor, entries, source, &next, &failed, &errors));
        }
    });
    let mut errors = errors.into_inner().unwrap_or_else(PoisonError::into_inner);
    errors.sort();
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.swap_remove(0)),
        n => Err(format!("{} (and {} more failures)", errors[0], n - 1)),
    }
}

fn fetch_worker(
    vendor: &Path,
    entries: &[&Entry],
    source: &Source,
    next: &AtomicUsize,
    failed: &AtomicBool,
    errors: &Mutex<Vec<String>>,
) {
    while !failed.load(Ordering::Relaxed) {
        let Some(entry) = entries.get(next.fetch_add(1, Ordering::Relaxed)) else {
            return;
        };
        if let Err(e) = install(vendor, entry, source) {
            failed.store(true, Ordering::Relaxed);
            errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(e);
        }
    }
}

/// Fetches one file into a temp file next to its destination, verifies it,
/// then renames it into place. A bad or partial file never stays behind.
fn install(vendor: &Path, entry: &Entry, source: &Source) -> Result<(), String> {
    let dest = vendor.join(&entry.path);
    if let Some(dir) = dest.parent() {
        fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
    }
    let tmp = temp_path(&dest);
    let result = fetch(source, entry, &tmp)
        .and_then(|origin| verify(&tmp, entry, &origin))
        .and_then(|()| fs::rename(&tmp, &dest).map_err(|e| io_error(&dest, &e)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Writes the file for `entry` to `tmp`; returns where it came from.
fn fetch(source: &Source, entry: &Entry, tmp: &Path) -> Result<String, String> {
    match source {
        Source::Dir(dir) => copy_from(dir, entry, tmp),
        Source::Download(urls) => download(urls, entry, tmp),
    }
}

fn copy_from(dir: &Path, entry: &Entry, tmp: &Path) -> Result<String, String> {
    let src = dir.join(&entry.path);
    if !src.is_file() {
        return Err(format!(
            "{}: missing in {} (expected sha256 {})",
            entry.path,
            dir.display(),
            entry.sha256
        ));
    }
    fs::copy(&src, tmp).map_err(|e| io_error(&src, &e))?;
    Ok(src.display().to_string())
}

fn download(urls: &HashMap<String, String>, entry: &Entry, tmp: &Path) -> Result<String, String> {
    let url = urls
        .get(&entry.path)
        .ok_or_else(|| format!("{}: no download URL", entry.path))?;
    let output = Command::new("curl")
        .args(["-fsSL", "--retry", "2", "-o"])
        .arg(tmp)
        .arg(url)
        .output()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => "`curl` not found: install curl, or pass `--from DIR` / \
                 set the pin's environment variable to a local copy"
                .to_string(),
            _ => format!("running curl for {url}: {e}"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let reason = stderr.lines().next().unwrap_or("").trim();
        return Err(format!(
            "{}: download failed ({}): {url}: {reason}",
            entry.path, output.status
        ));
    }
    Ok(url.clone())
}

/// Raw-file host for the `kubernetes/api` and `kubernetes/apimachinery` repos.
const KUBERNETES_UPSTREAM: &str = "https://raw.githubusercontent.com/kubernetes";

/// The raw upstream URL of a Kubernetes lock path at the lock's `tag`.
fn kubernetes_url(lock: &Lock, path: &str) -> Result<String, String> {
    let tag = lock.key("tag");
    if let Some(rest) = path.strip_prefix("proto/k8s.io/api/") {
        return Ok(format!("{KUBERNETES_UPSTREAM}/api/{tag}/{rest}"));
    }
    if let Some(rest) = path.strip_prefix("proto/k8s.io/apimachinery/") {
        return Ok(format!("{KUBERNETES_UPSTREAM}/apimachinery/{tag}/{rest}"));
    }
    if let Some(rest) = path.strip_prefix("testdata/") {
        return Ok(format!(
            "{KUBERNETES_UPSTREAM}/api/{tag}/testdata/HEAD/{rest}"
        ));
    }
    Err(format!("{path}: no upstream location known for this path"))
}

/// The raw URL of a kube-scheduler-wasm-extension file at the lock's
/// `commit`. A full 40-digit hash goes straight to
/// raw.githubusercontent.com; an abbreviated one goes through github.com's
/// `raw` route, which resolves it to its commit. Either way every file is
/// checked against its sha256 before it is used, so a hash that came to
/// name another commit fails loudly instead of vendoring other bytes.
fn ksw_url(lock: &Lock, path: &str) -> Result<String, String> {
    let commit = lock.key("commit");
    let repository = lock.key("repository");
    Ok(if commit.len() == 40 {
        format!("https://raw.githubusercontent.com/{repository}/{commit}/{path}")
    } else {
        format!("https://github.com/{repository}/raw/{commit}/{path}")
    })
}

fn verify(file: &Path, entry: &Entry, origin: &str) -> Result<(), String> {
    let actual = sha256_file(file).map_err(|e| io_error(file, &e))?;
    if actual == entry.sha256 {
        return Ok(());
    }
    Err(format!(
        "{} (from {origin})",
        mismatch(&entry.path, &entry.sha256, &actual)
    ))
}

/// `dir/.name.tmp-<pid>`: same directory, so the rename is atomic; hidden,
/// and removed as a stray if a run is interrupted.
fn temp_path(dest: &Path) -> PathBuf {
    let name = dest.file_name().unwrap_or_default().to_string_lossy();
    dest.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = temp_path(path);
    let result = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(path, &e));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Strays

/// Files under `vendor/proto` and `vendor/testdata` that the lock does not list.
fn find_strays(vendor: &Path, pin: &Pin, lock: &Lock) -> Result<Vec<String>, String> {
    let mut strays = Vec::new();
    for tree in pin.roots() {
        if vendor.join(tree).is_dir() {
            strays.extend(list_files(vendor, tree)?);
        }
    }
    strays.retain(|path| {
        lock.entries
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .is_err()
    });
    Ok(strays)
}

fn remove_strays(vendor: &Path, pin: &Pin, lock: &Lock) -> Result<Vec<String>, String> {
    let strays = find_strays(vendor, pin, lock)?;
    for stray in &strays {
        let path = vendor.join(stray);
        fs::remove_file(&path).map_err(|e| io_error(&path, &e))?;
    }
    if !strays.is_empty() {
        for tree in pin.roots() {
            prune_empty_dirs(&vendor.join(tree))?;
        }
    }
    Ok(strays)
}

/// Removes empty directories below `dir` (not `dir` itself).
fn prune_empty_dirs(dir: &Path) -> Result<(), String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry.map_err(|e| io_error(dir, &e))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let sub = entry.path();
            prune_empty_dirs(&sub)?;
            if fs::read_dir(&sub).is_ok_and(|mut d| d.next().is_none()) {
                fs::remove_dir(&sub).map_err(|e| io_error(&sub, &e))?;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Helpers

/// All files below `base/tree`, as sorted `/`-separated paths starting with
/// `tree` (relative to `base` when `tree` is empty). Symlinks are listed as
/// files, not followed.
fn list_files(base: &Path, tree: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    walk(&base.join(tree), tree, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), String> {
    for entry in fs::read_dir(dir).map_err(|e| io_error(dir, &e))? {
        let entry = entry.map_err(|e| io_error(dir, &e))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|name| format!("{}: non-UTF-8 file name {name:?}", dir.display()))?;
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let file_type = entry.file_type().map_err(|e| io_error(&entry.path(), &e))?;
        if file_type.is_dir() {
            walk(&entry.path(), &child, out)?;
        } else {
            out.push(child);
        }
    }
    Ok(())
}

fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

fn io_error(path: &Path, err: &io::Error) -> String {
    format!("{}: {err}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::atomic::AtomicU32;

    /// A unique directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            static COUNTER: AtomicU32 = AtomicU32::new(0);
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let dir = std::env::temp_dir().join(format!(
                "kguest-vendor-{tag}-{}-{n}-{nanos}",
                std::process::id()
            ));
            fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const FILES: [(&str, &str); 3] = [
        (
            "proto/k8s.io/api/core/v1/generated.proto",
            "syntax = \"proto2\";\n",
        ),
        ("testdata/core.v1.Pod.json", "{\"kind\":\"Pod\"}\n"),
        ("testdata/core.v1.Pod.pb", "k8s\0binary"),
    ];

    fn write(base: &Path, rel: &str, content: &str) {
        let path = base.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn sha(content: &str) -> String {
        hex(&Sha256::digest(content.as_bytes()))
    }

    /// A source dir holding `FILES`, and a lock pinning them.
    fn fixture() -> (TempDir, Lock) {
        let source = TempDir::new("src");
        let mut text = String::from("# test lock\nkubernetes 1.36.3\ntag v0.36.3\n");
        for (rel, content) in FILES {
            write(source.path(), rel, content);
            text.push_str(&format!("{}  {rel}\n", sha(content)));
        }
        (source, parse_lock(&text, &KUBERNETES).unwrap())
    }

    fn dir_source(dir: &TempDir) -> Source {
        Source::Dir(dir.path().to_path_buf())
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn hex_of_known_digest() {
        assert_eq!(
            sha("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn parses_sorts_and_renders_a_lock() {
        let a = sha("a");
        let b = sha("b");
        let text = format!(
            "# header one\n#\n# header two\n\nkubernetes 1.36.3\ntag v0.36.3\n\n\
             {b}  testdata/x.pb\n{a}  proto/k8s.io/api/core/v1/generated.proto\n"
        );
        let lock = parse_lock(&text, &KUBERNETES).unwrap();
        assert_eq!(lock.header, ["# header one", "#", "# header two"]);
        assert_eq!(lock.key("kubernetes"), "1.36.3");
        assert_eq!(lock.key("tag"), "v0.36.3");
        let paths: Vec<&str> = lock.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            ["proto/k8s.io/api/core/v1/generated.proto", "testdata/x.pb"]
        );
        assert_eq!(lock.entries[1].sha256, b);
        let rendered = render_lock(&lock);
        assert_eq!(parse_lock(&rendered, &KUBERNETES).unwrap(), lock);
        let again = parse_lock(&rendered, &KUBERNETES).unwrap();
        assert_eq!(render_lock(&again), rendered);
    }

    #[test]
    fn rejects_bad_locks() {
        let a = sha("a");
        let keys = "kubernetes 1.36.3\ntag v0.36.3\n";
        let cases = [
            (keys.to_string(), "lists no files"),
            (format!("tag v0.36.3\n{a}  testdata/x"), "kubernetes"),
            (format!("kubernetes 1.36.3\n{a}  testdata/x"), "tag"),
            (format!("{keys}{a}  testdata/x\n{a}  testdata/x"), "twice"),
            (format!("{keys}{a}  testdata/../x"), "bad path"),
            (format!("{keys}{a}  /etc/passwd"), "bad path"),
            (format!("{keys}{a}  other/x"), "bad path"),
            (format!("{keys}{}  testdata/x", &a[..60]), "bad sha256"),
            (
                format!("{keys}{}  testdata/x", a.to_uppercase()),
                "bad sha256",
            ),
            (format!("{keys}{a}  testdata/x extra"), "two fields"),
            (format!("{keys}tag v0.1.0\n{a}  testdata/x"), "twice"),
        ];
        for (text, want) in cases {
            let err = parse_lock(&text, &KUBERNETES).unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn copies_from_source_then_leaves_good_files_alone() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        let summary = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
        assert_eq!((summary.verified, summary.copied), (3, 3));
        assert!(summary.changed());
        for (rel, content) in FILES {
            assert_eq!(
                fs::read_to_string(vendor.path().join(rel)).unwrap(),
                content
            );
        }
        assert_eq!(check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap(), 3);

        // Present and correct: nothing is read from the (now empty) source.
        fs::remove_dir_all(source.path().join("testdata")).unwrap();
        let again = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
        assert_eq!((again.verified, again.copied), (3, 0));
        assert!(!again.changed());
        assert_eq!(
            again.line("proto-vendor/"),
            "vendor: 3 files verified (0 copied, 0 downloaded) in proto-vendor/"
        );
    }

    #[test]
    fn refuses_a_mismatched_source_file() {
        let (source, lock) = fixture();
        write(source.path(), "testdata/core.v1.Pod.pb", "tampered");
        let vendor = TempDir::new("vendor");
        let err = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap_err();
        assert!(err.contains("testdata/core.v1.Pod.pb"), "{err}");
        assert!(err.contains(&sha("k8s\0binary")), "{err}");
        assert!(err.contains(&sha("tampered")), "{err}");
        assert!(!err.contains('\n'), "{err}");
        let dir = vendor.path().join("testdata");
        assert!(!dir.join("core.v1.Pod.pb").exists());
        let leftovers = list_files(vendor.path(), "testdata").unwrap();
        assert!(
            leftovers.iter().all(|p| !p.contains(".tmp-")),
            "{leftovers:?}"
        );
    }

    #[test]
    fn refuses_a_missing_source_file() {
        let (source, lock) = fixture();
        fs::remove_file(source.path().join("testdata/core.v1.Pod.json")).unwrap();
        let vendor = TempDir::new("vendor");
        let err = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap_err();
        assert!(err.contains("testdata/core.v1.Pod.json: missing"), "{err}");
    }

    #[test]
    fn replaces_a_bad_vendored_file() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        write(vendor.path(), "testdata/core.v1.Pod.json", "stale");
        let summary = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
        assert_eq!(summary.copied, 3);
        assert_eq!(summary.replaced.len(), 1);
        assert!(summary.replaced[0].contains("testdata/core.v1.Pod.json"));
        assert!(summary.replaced[0].contains(&sha("stale")));
        assert_eq!(check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap(), 3);
    }

    #[test]
    fn removes_a_bad_vendored_file_even_when_the_source_is_bad_too() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        write(vendor.path(), "testdata/core.v1.Pod.json", "stale");
        write(source.path(), "testdata/core.v1.Pod.json", "also wrong");
        assert!(sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).is_err());
        assert!(!vendor.path().join("testdata/core.v1.Pod.json").exists());
    }

    #[test]
    fn check_reports_problems_and_changes_nothing() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
        fs::remove_file(vendor.path().join("testdata/core.v1.Pod.json")).unwrap();
        write(vendor.path(), "testdata/core.v1.Pod.pb", "corrupt");
        write(vendor.path(), "proto/extra.proto", "stray");

        let err = check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap_err();
        assert!(
            err.starts_with("vendor --check: 3 problem(s) in v/"),
            "{err}"
        );
        assert!(err.contains("testdata/core.v1.Pod.json: missing"), "{err}");
        assert!(
            err.contains("testdata/core.v1.Pod.pb: sha256 mismatch"),
            "{err}"
        );
        assert!(err.contains(&sha("corrupt")), "{err}");
        assert!(err.contains("proto/extra.proto: not in the lock"), "{err}");
        assert!(!vendor.path().join("testdata/core.v1.Pod.json").exists());
        assert!(vendor.path().join("proto/extra.proto").exists());
        let pb = vendor.path().join("testdata/core.v1.Pod.pb");
        assert_eq!(fs::read_to_string(pb).unwrap(), "corrupt");
    }

    #[test]
    fn check_summarises_long_problem_lists() {
        let problems: Vec<String> = (0..8).map(|i| format!("p{i}")).collect();
        let text = describe_problems(&problems, "v/");
        assert!(text.contains("  p4\n  ... and 3 more"), "{text}");
        assert!(!text.contains("p5"), "{text}");
    }

    #[test]
    fn removes_stray_files_and_empty_dirs() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        write(
            vendor.path(),
            "proto/k8s.io/api/old/v1/generated.proto",
            "old",
        );
        write(vendor.path(), "testdata/.core.v1.Pod.pb.tmp-1", "partial");
        write(vendor.path(), "README.md", "not a vendored tree");
        let summary = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
        assert_eq!(
            summary.removed,
            [
                "proto/k8s.io/api/old/v1/generated.proto",
                "testdata/.core.v1.Pod.pb.tmp-1"
            ]
        );
        assert!(!vendor.path().join("proto/k8s.io/api/old").exists());
        assert!(vendor.path().join("proto/k8s.io/api/core/v1").is_dir());
        assert!(vendor.path().join("README.md").exists());
        assert!(
            summary
                .line("v/")
                .ends_with("0 downloaded, 2 stray removed) in v/")
        );
        assert_eq!(check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap(), 3);
    }

    #[test]
    fn builds_a_lock_from_a_source_dir() {
        let (source, lock) = fixture();
        write(source.path(), "proto/k8s.io/api/core/v1/README.md", "skip");
        write(source.path(), "testdata/.DS_Store", "skip");
        let old = Lock {
            header: vec!["# kept".to_string()],
            ..lock.clone()
        };
        let built = build_lock(source.path(), &KUBERNETES, None, Some(&old)).unwrap();
        assert_eq!(built, old);

        let bumped = build_lock(source.path(), &KUBERNETES, Some("v1.37.0"), None).unwrap();
        assert_eq!(
            (bumped.key("kubernetes"), bumped.key("tag")),
            ("1.37.0", "v0.37.0")
        );
        assert_eq!(bumped.entries, lock.entries);
        assert_eq!(bumped.header[0], KUBERNETES.header.lines().next().unwrap());

        let err = build_lock(source.path(), &KUBERNETES, None, None).unwrap_err();
        assert!(err.starts_with("usage:"), "{err}");
        let missing = TempDir::new("empty");
        assert!(build_lock(missing.path(), &KUBERNETES, Some("1.36.3"), None).is_err());
    }

    #[test]
    fn maps_versions_to_tags() {
        let tag = |v: &str| kubernetes_keys(v).map(|keys| keys[1].1.clone());
        assert_eq!(tag("1.36.3").unwrap(), "v0.36.3");
        assert_eq!(tag("1.37.0-rc.1").unwrap(), "v0.37.0-rc.1");
        for bad in ["2.0.0", "1.36", "1.x.3", "", "1.36.3.4"] {
            assert!(tag(bad).unwrap_err().starts_with("usage:"), "{bad}");
        }
    }

    #[test]
    fn maps_lock_paths_to_upstream_urls() {
        let base = "https://raw.githubusercontent.com/kubernetes";
        let (_, lock) = fixture();
        let url = |p: &str| kubernetes_url(&lock, p).unwrap();
        assert_eq!(
            url("proto/k8s.io/api/core/v1/generated.proto"),
            format!("{base}/api/v0.36.3/core/v1/generated.proto")
        );
        assert_eq!(
            url("proto/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto"),
            format!("{base}/apimachinery/v0.36.3/pkg/apis/meta/v1/generated.proto")
        );
        assert_eq!(
            url("testdata/core.v1.Pod.pb"),
            format!("{base}/api/v0.36.3/testdata/HEAD/core.v1.Pod.pb")
        );
        assert!(kubernetes_url(&lock, "proto/other/x.proto").is_err());
    }

    #[test]
    fn parses_arguments() {
        let opts = parse_args(&args(&["--from", "/k8s", "--update-lock"])).unwrap();
        assert_eq!(opts.from.as_deref(), Some(Path::new("/k8s")));
        assert!(opts.update_lock);
        let opts = parse_args(&args(&["--from=/k8s"])).unwrap();
        assert_eq!(opts.from.as_deref(), Some(Path::new("/k8s")));
        assert!(parse_args(&args(&["--check"])).unwrap().check);
        assert_eq!(parse_args(&[]).unwrap(), Options::default());
        // `--from` without a pin name means `kubernetes`; a name picks a pin.
        assert_eq!(opts.pin, Some(&KUBERNETES));
        assert_eq!(parse_args(&[]).unwrap().pin, None);
        let opts = parse_args(&args(&["ksw", "--from", "/ksw"])).unwrap();
        assert_eq!(opts.pin, Some(&KSW));
        let opts = parse_args(&args(&[
            "ksw",
            "--update-lock",
            "--from=/k",
            "--commit=abc1234",
        ]));
        assert_eq!(
            opts.unwrap().key_value,
            Some(("--commit".to_string(), "abc1234".to_string()))
        );
        let bad: [&[&str]; 11] = [
            &["--bogus"],
            &["--from"],
            &["--from="],
            &["--from", "--check"],
            &["--update-lock"],
            &["--check", "--update-lock", "--from", "/k8s"],
            &["--kubernetes", "1.36.3"],
            &["extra"],
            &[
                "ksw",
                "--update-lock",
                "--from",
                "/k",
                "--kubernetes",
                "1.36.3",
            ],
            &[
                "kubernetes",
                "--update-lock",
                "--from",
                "/k",
                "--commit",
                "abc1234",
            ],
            &["ksw", "--commit", "abc1234"],
        ];
        for list in bad {
            let err = parse_args(&args(list)).unwrap_err();
            assert!(err.starts_with("usage:"), "{list:?}: {err}");
        }
    }

    #[test]
    fn source_prefers_from_over_download() {
        let (_source, lock) = fixture();
        let chosen = choose_source(&KUBERNETES, Some(PathBuf::from("/k8s")), &lock).unwrap();
        assert_eq!(chosen, Source::Dir(PathBuf::from("/k8s")));
    }

    /// A KSW source tree (files at the repository's own paths) and its lock.
    fn ksw_fixture(commit: &str) -> (TempDir, Lock) {
        let source = TempDir::new("ksw");
        let files = [
            ("LICENSE", "Apache"),
            ("scheduler/test/testdata/test/all_noop.wasm", "\0asm"),
            ("guest/testdata/filter/main.go", "package main"),
        ];
        let mut text = format!(
            "# ksw\nrepository kubernetes-sigs/kube-scheduler-wasm-extension\ncommit {commit}\n"
        );
        for (rel, content) in files {
            write(source.path(), rel, content);
            text.push_str(&format!("{}  {rel}\n", sha(content)));
        }
        (source, parse_lock(&text, &KSW).unwrap())
    }

    #[test]
    fn ksw_pin_owns_its_whole_dir() {
        let (source, lock) = ksw_fixture("9b2791f");
        assert_eq!(lock.key("commit"), "9b2791f");
        let vendor = TempDir::new("ksw-vendor");
        write(vendor.path(), "stale/old.go", "old");
        let summary = sync(vendor.path(), &KSW, &lock, &dir_source(&source)).unwrap();
        assert_eq!((summary.verified, summary.copied), (3, 3));
        assert_eq!(summary.removed, ["stale/old.go"]);
        assert!(!vendor.path().join("stale").exists());
        assert_eq!(check(vendor.path(), &KSW, &lock, "v/").unwrap(), 3);
        assert_eq!(
            fs::read_to_string(vendor.path().join("LICENSE")).unwrap(),
            "Apache"
        );

        let built = build_lock(source.path(), &KSW, Some("9b2791f"), None).unwrap();
        assert_eq!(built.entries, lock.entries);
        assert_eq!(
            built.keys,
            [
                (
                    "repository".to_string(),
                    "kubernetes-sigs/kube-scheduler-wasm-extension".to_string()
                ),
                ("commit".to_string(), "9b2791f".to_string())
            ]
        );
        for bad in ["9B2791F", "abc", "xyz1234", &"a".repeat(41)] {
            assert!(ksw_keys(bad).unwrap_err().starts_with("usage:"), "{bad}");
        }
    }

    #[test]
    fn ksw_download_urls_follow_the_pinned_commit() {
        // An abbreviated hash goes through github.com's `raw` route, which
        // resolves it; the files' sha256 still decide what is accepted.
        let (_source, short) = ksw_fixture("9b2791f");
        let Source::Download(urls) = download_source(&KSW, &short).unwrap() else {
            panic!("expected a download source");
        };
        assert_eq!(
            urls["guest/testdata/filter/main.go"],
            "https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension/raw/9b2791f/\
             guest/testdata/filter/main.go"
        );

        let full = "0123456789abcdef0123456789abcdef01234567";
        let (_source, lock) = ksw_fixture(full);
        let Source::Download(urls) = download_source(&KSW, &lock).unwrap() else {
            panic!("expected a download source");
        };
        assert_eq!(
            urls["guest/testdata/filter/main.go"],
            format!(
                "https://raw.githubusercontent.com/kubernetes-sigs/kube-scheduler-wasm-extension/\
                 {full}/guest/testdata/filter/main.go"
            )
        );
    }

    #[test]
    fn ksw_lock_rejects_kubernetes_keys_and_escaping_paths() {
        let a = sha("a");
        let keys = "repository r\ncommit 9b2791f\n";
        let cases = [
            (format!("kubernetes 1.36.3\ntag v0\n{a}  x"), "unknown key"),
            (format!("commit 9b2791f\n{a}  x"), "repository"),
            (format!("{keys}{a}  ../x"), "bad path"),
            (format!("{keys}{a}  /x"), "bad path"),
        ];
        for (text, want) in cases {
            let err = parse_lock(&text, &KSW).unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
        let lock = parse_lock(&format!("{keys}{a}  LICENSE"), &KSW).unwrap();
        assert_eq!(lock.entries[0].path, "LICENSE");
    }
}
