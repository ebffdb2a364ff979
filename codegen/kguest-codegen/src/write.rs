//! The one place that touches the disk: write changed files, delete stale ones.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::GENERATED_MARKER;

/// What [`write_files`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    pub written: Vec<PathBuf>,
    pub removed: Vec<PathBuf>,
    pub unchanged: usize,
}

/// Writes `files` below `dir`, touching only files whose contents changed,
/// and removes generated files (those starting with [`GENERATED_MARKER`])
/// that are no longer produced. Hand-written files are never touched.
pub fn write_files(
    dir: impl AsRef<Path>,
    files: &BTreeMap<PathBuf, String>,
) -> io::Result<WriteReport> {
    let dir = dir.as_ref();
    let mut report = WriteReport::default();
    for (path, contents) in files {
        let full = dir.join(path);
        if fs::read_to_string(&full).ok().as_deref() == Some(contents.as_str()) {
            report.unchanged += 1;
            continue;
        }
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&full, contents)?;
        report.written.push(path.clone());
    }
    for path in generated_files(dir)? {
        if !files.contains_key(&path) {
            fs::remove_file(dir.join(&path))?;
            remove_emptied_parents(dir, &path)?;
            report.removed.push(path);
        }
    }
    Ok(report)
}

/// The paths (relative to `dir`) whose contents differ from `files`, are
/// missing, or are generated files that would be removed.
pub fn stale_files(
    dir: impl AsRef<Path>,
    files: &BTreeMap<PathBuf, String>,
) -> io::Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    let mut stale = Vec::new();
    for (path, contents) in files {
        if fs::read_to_string(dir.join(path)).ok().as_deref() != Some(contents.as_str()) {
            stale.push(path.clone());
        }
    }
    for path in generated_files(dir)? {
        if !files.contains_key(&path) {
            stale.push(path);
        }
    }
    stale.sort();
    Ok(stale)
}

fn generated_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let entries = match fs::read_dir(dir.join(&rel)) {
            Ok(entries) => entries,
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(err),
        };
        for entry in entries {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && fs::read_to_string(entry.path()).is_ok_and(|s| s.starts_with(GENERATED_MARKER))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Removes the folders between `dir` and the removed file `path` that the
/// removal left empty; folders that were empty before are not ours to touch.
fn remove_emptied_parents(dir: &Path, path: &Path) -> io::Result<()> {
    let mut parent = path.parent();
    while let Some(rel) = parent.filter(|p| !p.as_os_str().is_empty()) {
        let full = dir.join(rel);
        if fs::read_dir(&full)?.next().is_some() {
            break;
        }
        fs::remove_dir(&full)?;
        parent = rel.parent();
    }
    Ok(())
}
