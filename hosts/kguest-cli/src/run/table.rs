//! Pieces both runs print with: status names, the column layout, one-line errors.

use kguest_host::{Code, Status};

/// What the tables show for a hook that did not run.
pub(super) const NOT_RUN: &str = "not run";

/// Columns padded to their widest cell; the columns in `right` aligned
/// right.
pub(super) fn render(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    std::iter::once(&header)
        .chain(rows)
        .map(|cells| {
            let mut out = String::new();
            for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
                let w = *w;
                if right.contains(&i) {
                    out.push_str(&format!("{cell:>w$}  "));
                } else {
                    out.push_str(&format!("{cell:<w$}  "));
                }
            }
            out.trim_end().to_string() + "\n"
        })
        .collect()
}

/// kube-scheduler's name for a status code (`Code(42)` for unknown ones).
pub fn status_name(code: Code) -> String {
    code.name()
        .map_or_else(|| format!("Code({})", code.0), str::to_string)
}

pub(super) fn status_text(status: &Status) -> String {
    match status.reason.as_deref() {
        Some(reason) if !reason.is_empty() => format!("{}: {reason}", status_name(status.code)),
        _ => status_name(status.code),
    }
}

/// Error text from wasmtime can span lines; the CLI reports one.
pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A load error on one line. When the guest said why it stopped while
/// loading (a `kguest::Load` refusal, a TinyGo panic in `main`), its first
/// line is the host's text up to that reason: the trap and the wasm
/// backtrace after it only say that the guest stopped.
pub(super) fn load_error_line(err: &kguest_host::LoadError) -> String {
    let text = err.to_string();
    match err {
        kguest_host::LoadError::Instantiate(call) if call.guest_output().is_some() => {
            one_line(text.lines().next().unwrap_or_default())
        }
        _ => one_line(&text),
    }
}
