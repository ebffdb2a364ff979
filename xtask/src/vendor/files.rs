//! File helpers: listing a tree, sha256 of a file, I/O errors with the path.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

/// All files below `base/tree`, as sorted `/`-separated paths starting with
/// `tree` (relative to `base` when `tree` is empty). Symlinks are listed as
/// files, not followed.
pub(super) fn list_files(base: &Path, tree: &str) -> Result<Vec<String>, String> {
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

pub(super) fn sha256_file(path: &Path) -> io::Result<String> {
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

pub(super) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

pub(super) fn io_error(path: &Path, err: &io::Error) -> String {
    format!("{}: {err}", path.display())
}
