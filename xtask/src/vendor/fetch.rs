//! Fetching files: where they come from (a local dir or upstream via `curl`),
//! a few in parallel, each verified before it is renamed into place.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;

use super::files::{io_error, sha256_file};
use super::lock::{Entry, Lock};
use super::pin::Pin;
use super::sync::mismatch;

/// Parallel copies/downloads.
const WORKERS: usize = 8;

/// Where missing files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Source {
    /// A directory laid out like the lock.
    Dir(PathBuf),
    /// Upstream, via `curl`: lock path -> URL.
    Download(HashMap<String, String>),
}

/// `--from`, else the pin's environment variable, else upstream.
pub(super) fn choose_source(
    pin: &Pin,
    from: Option<PathBuf>,
    lock: &Lock,
) -> Result<Source, String> {
    let env_dir = std::env::var_os(pin.env).filter(|v| !v.is_empty());
    match from.or_else(|| env_dir.map(PathBuf::from)) {
        Some(dir) => Ok(Source::Dir(dir)),
        None => download_source(pin, lock),
    }
}

/// Every file's download URL, resolved up front so a lock that cannot be
/// downloaded fails once, before anything is fetched.
pub(super) fn download_source(pin: &Pin, lock: &Lock) -> Result<Source, String> {
    let urls = lock
        .entries
        .iter()
        .map(|e| Ok((e.path.clone(), (pin.url)(lock, &e.path)?)))
        .collect::<Result<HashMap<_, _>, String>>()
        .map_err(|err| format!("{err} (or set {} to a local copy)", pin.env))?;
    Ok(Source::Download(urls))
}

/// Installs `entries` into `vendor` from `source`, a few at a time. Stops
/// handing out work after the first failure and reports the first error.
pub(super) fn fetch_all(vendor: &Path, entries: &[&Entry], source: &Source) -> Result<(), String> {
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

pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = temp_path(path);
    let result = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(path, &e));
    }
    Ok(())
}
