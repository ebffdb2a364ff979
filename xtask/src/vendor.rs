//! `cargo xtask vendor`: fetch the pinned Kubernetes protos and fixtures.
//!
//! `proto-vendor/kubernetes.lock` pins every file by sha256. The files are
//! not committed: this task copies them from a local copy (`--from DIR` or
//! `$KGUEST_K8S_DIR`) or downloads them with `curl`, verifies each one before
//! it is put in place, and removes anything the lock does not list.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;

use sha2::{Digest, Sha256};

use crate::paths;

/// Environment variable naming a local source laid out like the vendored tree.
const SOURCE_ENV: &str = "KGUEST_K8S_DIR";
/// Raw-file host for the `kubernetes/api` and `kubernetes/apimachinery` repos.
const UPSTREAM: &str = "https://raw.githubusercontent.com/kubernetes";
/// The two vendored subtrees, relative to the vendor dir (and to a source dir).
const TREES: [&str; 2] = ["proto", "testdata"];
/// Parallel copies/downloads.
const WORKERS: usize = 8;
/// How many problems `--check` spells out before summarising the rest.
const SHOWN_PROBLEMS: usize = 5;
/// How the vendor dir is named in messages.
const VENDOR_LABEL: &str = "proto-vendor/";

const USAGE: &str = concat!(
    "  cargo xtask vendor [--from DIR] [--check]\n",
    "  cargo xtask vendor --update-lock --from DIR [--kubernetes X.Y.Z]",
);

const DEFAULT_HEADER: &str = "\
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
#   cargo xtask vendor --update-lock --from DIR --kubernetes X.Y.Z";

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

/// kube-scheduler-wasm-extension's test material: `KGUEST_KSW_DIR`, else
/// the vendored copy, if present.
pub fn ksw_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("KGUEST_KSW_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::vendor_dir().join("ksw"));
    dir.is_dir().then_some(dir)
}

/// `cargo xtask vendor [...]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse_args(args)?;
    if opts.help {
        println!("usage:\n{USAGE}");
        return Ok(());
    }
    if opts.update_lock {
        return update_lock(&opts);
    }
    let lock = read_lock(&paths::lock_file())?;
    let vendor = paths::vendor_dir();
    if opts.check {
        let count = check(&vendor, &lock, VENDOR_LABEL)?;
        println!("vendor: {count} files verified in {VENDOR_LABEL} (check only)");
        return Ok(());
    }
    let summary = sync(&vendor, &lock, &choose_source(opts.from, &lock))?;
    print_summary(&summary);
    Ok(())
}

/// Makes sure the vendored tree matches the lock (like a plain `vendor`,
/// honouring `$KGUEST_K8S_DIR`) and returns the vendor dir. Quiet when
/// nothing had to change.
pub fn ensure_vendored() -> Result<PathBuf, String> {
    let lock = read_lock(&paths::lock_file())?;
    let vendor = paths::vendor_dir();
    let summary = sync(&vendor, &lock, &choose_source(None, &lock))?;
    if summary.changed() {
        print_summary(&summary);
    }
    Ok(vendor)
}

// ---------------------------------------------------------------------------
// Command line

#[derive(Debug, Default, PartialEq, Eq)]
struct Options {
    from: Option<PathBuf>,
    check: bool,
    update_lock: bool,
    kubernetes: Option<String>,
    help: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--check" => opts.check = true,
            "--update-lock" => opts.update_lock = true,
            "-h" | "--help" => opts.help = true,
            "--from" => opts.from = Some(PathBuf::from(flag_value(&mut iter, arg)?)),
            "--kubernetes" => opts.kubernetes = Some(flag_value(&mut iter, arg)?),
            other => parse_inline_flag(&mut opts, other)?,
        }
    }
    validate_options(&opts)?;
    Ok(opts)
}

/// Handles `--from=DIR` and `--kubernetes=X.Y.Z`; anything else is an error.
fn parse_inline_flag(opts: &mut Options, arg: &str) -> Result<(), String> {
    match arg.split_once('=') {
        Some(("--from", dir)) if !dir.is_empty() => opts.from = Some(PathBuf::from(dir)),
        Some(("--kubernetes", v)) if !v.is_empty() => opts.kubernetes = Some(v.to_string()),
        Some((flag @ ("--from" | "--kubernetes"), _)) => return Err(usage(&missing(flag))),
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
    if opts.kubernetes.is_some() && !opts.update_lock {
        return Err(usage("`--kubernetes` only goes with `--update-lock`"));
    }
    Ok(())
}

fn usage(problem: &str) -> String {
    format!("usage: {problem}\n{USAGE}")
}

/// `--from`, else `$KGUEST_K8S_DIR`, else upstream.
fn choose_source(from: Option<PathBuf>, lock: &Lock) -> Source {
    let env_dir = std::env::var_os(SOURCE_ENV).filter(|v| !v.is_empty());
    match from.or_else(|| env_dir.map(PathBuf::from)) {
        Some(dir) => Source::Dir(dir),
        None => Source::Download {
            tag: lock.tag.clone(),
        },
    }
}

// ---------------------------------------------------------------------------
// The lock manifest

#[derive(Debug, Clone, PartialEq, Eq)]
struct Lock {
    /// Leading `#` lines, kept verbatim across `--update-lock`.
    header: Vec<String>,
    /// Kubernetes release, e.g. `1.36.3`.
    kubernetes: String,
    /// Git tag of the staging repos, e.g. `v0.36.3`.
    tag: String,
    /// Sorted by path, no duplicates.
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    sha256: String,
    /// Relative to the vendor dir; starts with `proto/` or `testdata/`.
    path: String,
}

fn read_lock(path: &Path) -> Result<Lock, String> {
    let text = fs::read_to_string(path).map_err(|e| io_error(path, &e))?;
    parse_lock(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn parse_lock(text: &str) -> Result<Lock, String> {
    let mut header = Vec::new();
    let mut kubernetes = None;
    let mut tag = None;
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at_top = kubernetes.is_none() && tag.is_none() && entries.is_empty();
        if line.starts_with('#') {
            if at_top {
                header.push(line.to_string());
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let parsed = parse_lock_line(line, &mut kubernetes, &mut tag);
        match parsed {
            Ok(Some(entry)) => entries.push(entry),
            Ok(None) => {}
            Err(e) => return Err(format!("line {}: {e}", index + 1)),
        }
    }
    let kubernetes = kubernetes.ok_or("no `kubernetes <version>` line")?;
    let tag = tag.ok_or("no `tag <git tag>` line")?;
    sort_entries(&mut entries)?;
    Ok(Lock {
        header,
        kubernetes,
        tag,
        entries,
    })
}

/// One non-comment line: a key (stored, returns `None`) or a file entry.
fn parse_lock_line(
    line: &str,
    kubernetes: &mut Option<String>,
    tag: &mut Option<String>,
) -> Result<Option<Entry>, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [first, second] = fields[..] else {
        return Err(format!("expected two fields, got `{line}`"));
    };
    let slot = match first {
        "kubernetes" => kubernetes,
        "tag" => tag,
        sha if is_sha256(sha) => {
            validate_path(second)?;
            return Ok(Some(Entry {
                sha256: sha.to_string(),
                path: second.to_string(),
            }));
        }
        other => return Err(format!("unknown key or bad sha256 `{other}`")),
    };
    if slot.replace(second.to_string()).is_some() {
        return Err(format!("`{first}` given twice"));
    }
    Ok(None)
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

/// A lock path must be a plain relative path inside `proto/` or `testdata/`.
fn validate_path(path: &str) -> Result<(), String> {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = |p: &&str| !p.is_empty() && *p != "." && *p != ".." && !p.contains('\\');
    if parts.len() < 2 || !TREES.contains(&parts[0]) || !parts.iter().all(plain) {
        return Err(format!(
            "bad path `{path}` (want proto/... or testdata/..., no `..`)"
        ));
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
    out.push_str(&format!(
        "kubernetes {}\ntag {}\n\n",
        lock.kubernetes, lock.tag
    ));
    for entry in &lock.entries {
        out.push_str(&format!("{}  {}\n", entry.sha256, entry.path));
    }
    out
}

// ---------------------------------------------------------------------------
// --update-lock

fn update_lock(opts: &Options) -> Result<(), String> {
    let from = opts
        .from
        .as_deref()
        .ok_or_else(|| usage("missing `--from DIR`"))?;
    let lock_path = paths::lock_file();
    let old = if lock_path.exists() {
        Some(read_lock(&lock_path)?)
    } else {
        None
    };
    let lock = build_lock(from, opts.kubernetes.as_deref(), old.as_ref())?;
    write_atomic(&lock_path, render_lock(&lock).as_bytes())?;
    let protos = lock.entries.iter().filter(|e| e.path.starts_with("proto/"));
    println!(
        "vendor: wrote {VENDOR_LABEL}kubernetes.lock: {} files ({} proto, {} testdata) \
         for Kubernetes {} (tag {})",
        lock.entries.len(),
        protos.clone().count(),
        lock.entries.len() - protos.count(),
        lock.kubernetes,
        lock.tag
    );
    Ok(())
}

/// A fresh lock for the files in `dir`. The version comes from `kubernetes`
/// if given, else from the old lock; the header is kept from the old lock.
fn build_lock(dir: &Path, kubernetes: Option<&str>, old: Option<&Lock>) -> Result<Lock, String> {
    let (kubernetes, tag) = match (kubernetes, old) {
        (Some(version), _) => release_and_tag(version)?,
        (None, Some(old)) => (old.kubernetes.clone(), old.tag.clone()),
        (None, None) => {
            return Err(usage(
                "no existing lock to take the version from; pass `--kubernetes X.Y.Z`",
            ));
        }
    };
    let header = match old {
        Some(old) if !old.header.is_empty() => old.header.clone(),
        _ => DEFAULT_HEADER.lines().map(str::to_string).collect(),
    };
    let mut entries = Vec::new();
    for path in scan_source(dir)? {
        validate_path(&path)?;
        let file = dir.join(&path);
        let sha256 = sha256_file(&file).map_err(|e| io_error(&file, &e))?;
        entries.push(Entry { sha256, path });
    }
    sort_entries(&mut entries).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(Lock {
        header,
        kubernetes,
        tag,
        entries,
    })
}

/// `1.36.3` (or `v1.36.3`) → (`1.36.3`, `v0.36.3`): the staging repos are
/// tagged `v0.<minor>.<patch>` for Kubernetes `1.<minor>.<patch>`.
fn release_and_tag(version: &str) -> Result<(String, String), String> {
    let version = version.strip_prefix('v').unwrap_or(version);
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, format!("-{pre}")),
        None => (version, String::new()),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match numbers[..] {
        ["1", minor, patch] if [minor, patch].iter().all(numeric) => {
            Ok((version.to_string(), format!("v0.{minor}.{patch}{pre}")))
        }
        _ => Err(usage(&format!(
            "`--kubernetes {version}`: expected a release like 1.36.3"
        ))),
    }
}

/// Lock paths of a source dir: `proto/**/*.proto` and everything under
/// `testdata/` (hidden files skipped).
fn scan_source(dir: &Path) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    for tree in TREES {
        let root = dir.join(tree);
        if !root.is_dir() {
            return Err(format!("{}: no such directory", root.display()));
        }
        let files = list_files(dir, tree)?;
        let wanted = files.into_iter().filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            !name.starts_with('.') && (tree != "proto" || name.ends_with(".proto"))
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
    /// A directory with `proto/` and `testdata/`, laid out like the lock.
    Dir(PathBuf),
    /// Upstream at this tag, via `curl`.
    Download { tag: String },
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

fn print_summary(summary: &Summary) {
    for why in &summary.replaced {
        println!("vendor: replaced {why}");
    }
    for path in &summary.removed {
        println!("vendor: removed stray {VENDOR_LABEL}{path}");
    }
    println!("{}", summary.line(VENDOR_LABEL));
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
fn sync(vendor: &Path, lock: &Lock, source: &Source) -> Result<Summary, String> {
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
        Source::Download { .. } => summary.downloaded = needed.len(),
    }
    summary.removed = remove_strays(vendor, lock)?;
    summary.verified = lock.entries.len();
    Ok(summary)
}

/// Verifies `vendor` against `lock` without changing anything; returns the
/// number of files verified.
fn check(vendor: &Path, lock: &Lock, label: &str) -> Result<usize, String> {
    let mut problems = Vec::new();
    for entry in &lock.entries {
        match file_state(vendor, entry)? {
            State::Good => {}
            State::Missing => problems.push(format!("{}: missing", entry.path)),
            State::Mismatch(actual) => problems.push(mismatch(&entry.path, &entry.sha256, &actual)),
        }
    }
    for path in find_strays(vendor, lock)? {
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
        Source::Download { tag } => download(tag, entry, tmp),
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

fn download(tag: &str, entry: &Entry, tmp: &Path) -> Result<String, String> {
    let url = upstream_url(tag, &entry.path)?;
    let output = Command::new("curl")
        .args(["-fsSL", "--retry", "2", "-o"])
        .arg(tmp)
        .arg(&url)
        .output()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => format!(
                "`curl` not found: install curl, or pass `--from DIR` / set {SOURCE_ENV} \
                 to a local copy with proto/ and testdata/"
            ),
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
    Ok(url)
}

/// The raw upstream URL of a lock path at `tag`.
fn upstream_url(tag: &str, path: &str) -> Result<String, String> {
    if let Some(rest) = path.strip_prefix("proto/k8s.io/api/") {
        return Ok(format!("{UPSTREAM}/api/{tag}/{rest}"));
    }
    if let Some(rest) = path.strip_prefix("proto/k8s.io/apimachinery/") {
        return Ok(format!("{UPSTREAM}/apimachinery/{tag}/{rest}"));
    }
    if let Some(rest) = path.strip_prefix("testdata/") {
        return Ok(format!("{UPSTREAM}/api/{tag}/testdata/HEAD/{rest}"));
    }
    Err(format!("{path}: no upstream location known for this path"))
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
fn find_strays(vendor: &Path, lock: &Lock) -> Result<Vec<String>, String> {
    let mut strays = Vec::new();
    for tree in TREES {
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

fn remove_strays(vendor: &Path, lock: &Lock) -> Result<Vec<String>, String> {
    let strays = find_strays(vendor, lock)?;
    for stray in &strays {
        let path = vendor.join(stray);
        fs::remove_file(&path).map_err(|e| io_error(&path, &e))?;
    }
    if !strays.is_empty() {
        for tree in TREES {
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
/// `tree`. Symlinks are listed as files, not followed.
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
        let child = format!("{rel}/{name}");
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
        (source, parse_lock(&text).unwrap())
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
        let lock = parse_lock(&text).unwrap();
        assert_eq!(lock.header, ["# header one", "#", "# header two"]);
        assert_eq!(lock.kubernetes, "1.36.3");
        assert_eq!(lock.tag, "v0.36.3");
        let paths: Vec<&str> = lock.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            ["proto/k8s.io/api/core/v1/generated.proto", "testdata/x.pb"]
        );
        assert_eq!(lock.entries[1].sha256, b);
        let rendered = render_lock(&lock);
        assert_eq!(parse_lock(&rendered).unwrap(), lock);
        assert_eq!(render_lock(&parse_lock(&rendered).unwrap()), rendered);
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
            let err = parse_lock(&text).unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn copies_from_source_then_leaves_good_files_alone() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        let summary = sync(vendor.path(), &lock, &dir_source(&source)).unwrap();
        assert_eq!((summary.verified, summary.copied), (3, 3));
        assert!(summary.changed());
        for (rel, content) in FILES {
            assert_eq!(
                fs::read_to_string(vendor.path().join(rel)).unwrap(),
                content
            );
        }
        assert_eq!(check(vendor.path(), &lock, "v/").unwrap(), 3);

        // Present and correct: nothing is read from the (now empty) source.
        fs::remove_dir_all(source.path().join("testdata")).unwrap();
        let again = sync(vendor.path(), &lock, &dir_source(&source)).unwrap();
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
        let err = sync(vendor.path(), &lock, &dir_source(&source)).unwrap_err();
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
        let err = sync(vendor.path(), &lock, &dir_source(&source)).unwrap_err();
        assert!(err.contains("testdata/core.v1.Pod.json: missing"), "{err}");
    }

    #[test]
    fn replaces_a_bad_vendored_file() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        write(vendor.path(), "testdata/core.v1.Pod.json", "stale");
        let summary = sync(vendor.path(), &lock, &dir_source(&source)).unwrap();
        assert_eq!(summary.copied, 3);
        assert_eq!(summary.replaced.len(), 1);
        assert!(summary.replaced[0].contains("testdata/core.v1.Pod.json"));
        assert!(summary.replaced[0].contains(&sha("stale")));
        assert_eq!(check(vendor.path(), &lock, "v/").unwrap(), 3);
    }

    #[test]
    fn removes_a_bad_vendored_file_even_when_the_source_is_bad_too() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        write(vendor.path(), "testdata/core.v1.Pod.json", "stale");
        write(source.path(), "testdata/core.v1.Pod.json", "also wrong");
        assert!(sync(vendor.path(), &lock, &dir_source(&source)).is_err());
        assert!(!vendor.path().join("testdata/core.v1.Pod.json").exists());
    }

    #[test]
    fn check_reports_problems_and_changes_nothing() {
        let (source, lock) = fixture();
        let vendor = TempDir::new("vendor");
        sync(vendor.path(), &lock, &dir_source(&source)).unwrap();
        fs::remove_file(vendor.path().join("testdata/core.v1.Pod.json")).unwrap();
        write(vendor.path(), "testdata/core.v1.Pod.pb", "corrupt");
        write(vendor.path(), "proto/extra.proto", "stray");

        let err = check(vendor.path(), &lock, "v/").unwrap_err();
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
        let summary = sync(vendor.path(), &lock, &dir_source(&source)).unwrap();
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
        assert_eq!(check(vendor.path(), &lock, "v/").unwrap(), 3);
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
        let built = build_lock(source.path(), None, Some(&old)).unwrap();
        assert_eq!(built, old);

        let bumped = build_lock(source.path(), Some("v1.37.0"), None).unwrap();
        assert_eq!(
            (bumped.kubernetes.as_str(), bumped.tag.as_str()),
            ("1.37.0", "v0.37.0")
        );
        assert_eq!(bumped.entries, lock.entries);
        assert_eq!(bumped.header[0], DEFAULT_HEADER.lines().next().unwrap());

        let err = build_lock(source.path(), None, None).unwrap_err();
        assert!(err.starts_with("usage:"), "{err}");
        let missing = TempDir::new("empty");
        assert!(build_lock(missing.path(), Some("1.36.3"), None).is_err());
    }

    #[test]
    fn maps_versions_to_tags() {
        let tag = |v: &str| release_and_tag(v).map(|(_, t)| t);
        assert_eq!(tag("1.36.3").unwrap(), "v0.36.3");
        assert_eq!(tag("1.37.0-rc.1").unwrap(), "v0.37.0-rc.1");
        for bad in ["2.0.0", "1.36", "1.x.3", "", "1.36.3.4"] {
            assert!(tag(bad).unwrap_err().starts_with("usage:"), "{bad}");
        }
    }

    #[test]
    fn maps_lock_paths_to_upstream_urls() {
        let base = "https://raw.githubusercontent.com/kubernetes";
        let url = |p: &str| upstream_url("v0.36.3", p).unwrap();
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
        assert!(upstream_url("v0.36.3", "proto/other/x.proto").is_err());
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
        let bad: [&[&str]; 8] = [
            &["--bogus"],
            &["--from"],
            &["--from="],
            &["--from", "--check"],
            &["--update-lock"],
            &["--check", "--update-lock", "--from", "/k8s"],
            &["--kubernetes", "1.36.3"],
            &["extra"],
        ];
        for list in bad {
            let err = parse_args(&args(list)).unwrap_err();
            assert!(err.starts_with("usage:"), "{list:?}: {err}");
        }
    }

    #[test]
    fn source_prefers_from_over_download() {
        let (_source, lock) = fixture();
        let chosen = choose_source(Some(PathBuf::from("/k8s")), &lock);
        assert_eq!(chosen, Source::Dir(PathBuf::from("/k8s")));
    }
}
