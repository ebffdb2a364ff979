//! The lock manifest: header, keys and sha256 entries; parsed, checked and
//! rendered.

use std::fs;
use std::path::Path;

use super::files::io_error;
use super::pin::{Keys, Pin};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    /// Leading `#` lines, kept verbatim across `--update-lock`.
    pub(super) header: Vec<String>,
    /// The pin's `key value` lines, in the pin's order.
    pub(super) keys: Keys,
    /// Sorted by path, no duplicates.
    pub(super) entries: Vec<Entry>,
}

impl Lock {
    /// The value of `key` (every key of the pin is present).
    pub(super) fn key(&self, key: &str) -> &str {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) sha256: String,
    /// Relative to the vendor dir.
    pub(super) path: String,
}

pub(super) fn read_lock(path: &Path, pin: &Pin) -> Result<Lock, String> {
    let text = fs::read_to_string(path).map_err(|e| io_error(path, &e))?;
    parse_lock(&text, pin).map_err(|e| format!("{}: {e}", path.display()))
}

pub(super) fn parse_lock(text: &str, pin: &Pin) -> Result<Lock, String> {
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

pub(super) fn sort_entries(entries: &mut [Entry]) -> Result<(), String> {
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
pub(super) fn validate_path(path: &str, pin: &Pin) -> Result<(), String> {
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

pub(super) fn render_lock(lock: &Lock) -> String {
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
