//! Bringing a vendor dir in line with its lock (or only checking it): each
//! file's state, the summary, and stray files removed.

use std::fs;
use std::io;
use std::path::Path;

use super::fetch::{Source, fetch_all};
use super::files::{io_error, list_files, sha256_file};
use super::lock::{Entry, Lock};
use super::pin::Pin;

/// How many problems `--check` spells out before summarising the rest.
const SHOWN_PROBLEMS: usize = 5;

#[derive(Debug, Default)]
pub(super) struct Summary {
    pub(super) verified: usize,
    pub(super) copied: usize,
    downloaded: usize,
    /// Vendored files that had the wrong content, with why.
    pub(super) replaced: Vec<String>,
    /// Files under proto/ or testdata/ that the lock does not list.
    pub(super) removed: Vec<String>,
}

impl Summary {
    pub(super) fn changed(&self) -> bool {
        self.copied + self.downloaded > 0 || !self.replaced.is_empty() || !self.removed.is_empty()
    }

    pub(super) fn line(&self, label: &str) -> String {
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

pub(super) fn print_summary(summary: &Summary, label: &str) {
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
pub(super) fn sync(
    vendor: &Path,
    pin: &Pin,
    lock: &Lock,
    source: &Source,
) -> Result<Summary, String> {
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
pub(super) fn check(vendor: &Path, pin: &Pin, lock: &Lock, label: &str) -> Result<usize, String> {
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

pub(super) fn describe_problems(problems: &[String], label: &str) -> String {
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

pub(super) fn mismatch(path: &str, expected: &str, actual: &str) -> String {
    format!("{path}: sha256 mismatch: expected {expected}, actual {actual}")
}

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
