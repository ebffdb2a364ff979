//! `--update-lock`: a fresh lock from the files of a source dir.

use std::path::Path;

use super::args::{Options, usage};
use super::fetch::write_atomic;
use super::files::{io_error, list_files, sha256_file};
use super::lock::{Entry, Lock, read_lock, render_lock, sort_entries, validate_path};
use super::pin::Pin;

pub(super) fn update_lock(pin: &Pin, opts: &Options) -> Result<(), String> {
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
pub(super) fn build_lock(
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
