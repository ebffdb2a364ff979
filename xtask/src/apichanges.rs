//! The API-change report of the last bump: `docs/api-changes/<minor>.md`,
//! from the protos of the previous release (`kubernetes-previous.lock`) and
//! the current one, compared by `kguest_codegen::api_changes`. `regen`
//! writes it and `regen --check` keeps it true.
//!
//! A field that was renumbered or retyped, or a kind that was removed, fails
//! here when a guest view or an example uses it: a guest built on the older
//! release would read other bytes (or nothing) from the newer one's objects.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kguest_codegen::api_changes::{Change, ChangeKind, WATCHED, compare};
use kguest_codegen::naming;

use crate::vendor::{self, Release};
use crate::{paths, regen};

/// Where guest code lives: what a removed kind or a retyped field must not
/// be used by.
const GUEST_SOURCES: &[&str] = &["examples", "tests/guests", "guest-runtime"];

/// Writes (or with `check`, compares) the report of the pinned releases.
/// Nothing to do while no previous release is pinned.
pub fn run(check: bool) -> Result<(), String> {
    let Some(previous) = vendor::previous_release()? else {
        println!("api-changes: no previous release pinned (proto-vendor/kubernetes-previous.lock)");
        return Ok(());
    };
    let current = vendor::kubernetes_release()?;
    let previous_dir =
        vendor::ensure_previous_vendored()?.ok_or("kubernetes-previous.lock disappeared")?;
    let old = regen::kubernetes_config(&previous_dir.join("proto"))?
        .compile()
        .map_err(|err| format!("compiling the {} protos: {err}", previous.version))?;
    let new = regen::kubernetes_config(&paths::vendor_dir().join("proto"))?
        .compile()
        .map_err(|err| format!("compiling the {} protos: {err}", current.version))?;
    let changes = compare(&old, &new);
    check_guest_users(&changes)?;
    let text = render(&previous, &current, &changes);
    let rel = report_path(&current);
    let path = paths::root().join(&rel);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == text {
        if check {
            println!("api-changes: {} up to date", rel.display());
        }
        return Ok(());
    }
    if check {
        return Err(format!(
            "{} is stale; run `cargo xtask regen`",
            rel.display()
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    }
    std::fs::write(&path, text).map_err(|err| format!("{}: {err}", path.display()))?;
    println!(
        "api-changes: wrote {} ({} changes)",
        rel.display(),
        changes.len()
    );
    Ok(())
}

/// `docs/api-changes/1.37.md`.
fn report_path(current: &Release) -> PathBuf {
    PathBuf::from(format!("docs/api-changes/{}.md", current.major_minor()))
}

/// `k8s.io.api.core.v1` → `core/v1`; apimachinery packages keep their name.
fn group_version(package: &str) -> String {
    match package.strip_prefix("k8s.io.api.") {
        Some(rest) => rest.replacen('.', "/", 1),
        None => package.to_string(),
    }
}

fn describe(change: &Change) -> String {
    let message = &change.message;
    match &change.kind {
        ChangeKind::MessageAdded { kind: true } => format!("kind added: `{message}`"),
        ChangeKind::MessageAdded { kind: false } => format!("message added: `{message}`"),
        ChangeKind::MessageRemoved { kind: true } => format!("kind removed: `{message}`"),
        ChangeKind::MessageRemoved { kind: false } => format!("message removed: `{message}`"),
        ChangeKind::FieldAdded(f) => {
            format!(
                "field added: `{message}.{}` ({}, `{}`)",
                f.name, f.number, f.ty
            )
        }
        ChangeKind::FieldRemoved(f) => {
            format!(
                "field removed: `{message}.{}` ({}, `{}`)",
                f.name, f.number, f.ty
            )
        }
        ChangeKind::FieldRenumbered { name, from, to } => {
            format!("**field renumbered**: `{message}.{name}` {from} → {to}")
        }
        ChangeKind::FieldRetyped {
            name,
            number,
            from,
            to,
        } => format!("**field retyped**: `{message}.{name}` ({number}) `{from}` → `{to}`"),
    }
}

fn line(change: &Change, with_package: bool) -> String {
    let mut out = String::from("- ");
    if with_package {
        write!(out, "{}: ", group_version(&change.package)).unwrap();
    }
    out.push_str(&describe(change));
    if !change.touches.is_empty() {
        write!(out, " [{}]", change.touches.join(", ")).unwrap();
    }
    out
}

fn render(previous: &Release, current: &Release, changes: &[Change]) -> String {
    let count = |f: &dyn Fn(&ChangeKind) -> bool| changes.iter().filter(|c| f(&c.kind)).count();
    let mut out = String::new();
    writeln!(
        out,
        "# Kubernetes API changes: {} → {}\n\n\
         Generated by `cargo xtask regen` from the `generated.proto` files of k8s.io/api and\n\
         k8s.io/apimachinery at {} and {} (`proto-vendor/kubernetes-previous.lock`,\n\
         `proto-vendor/kubernetes.lock`); `cargo xtask regen --check` keeps it true. Do not edit.\n\
         A change is marked [Pod] or [Node] when the message is reachable from that kind.\n",
        previous.version, current.version, previous.tag, current.tag
    )
    .unwrap();
    writeln!(out, "## Summary\n").unwrap();
    let rows: [(&str, usize); 8] = [
        (
            "kinds added",
            count(&|k| matches!(k, ChangeKind::MessageAdded { kind: true })),
        ),
        (
            "kinds removed",
            count(&|k| matches!(k, ChangeKind::MessageRemoved { kind: true })),
        ),
        (
            "other messages added",
            count(&|k| matches!(k, ChangeKind::MessageAdded { kind: false })),
        ),
        (
            "other messages removed",
            count(&|k| matches!(k, ChangeKind::MessageRemoved { kind: false })),
        ),
        (
            "fields added",
            count(&|k| matches!(k, ChangeKind::FieldAdded(_))),
        ),
        (
            "fields removed",
            count(&|k| matches!(k, ChangeKind::FieldRemoved(_))),
        ),
        (
            "fields renumbered",
            count(&|k| matches!(k, ChangeKind::FieldRenumbered { .. })),
        ),
        (
            "fields retyped",
            count(&|k| matches!(k, ChangeKind::FieldRetyped { .. })),
        ),
    ];
    for (what, n) in rows {
        writeln!(out, "- {what}: {n}").unwrap();
    }
    for (label, root) in WATCHED {
        let n = changes.iter().filter(|c| c.touches.contains(label)).count();
        writeln!(out, "- changes reachable from {label} (`{root}`): {n}").unwrap();
    }
    writeln!(out, "\n## What guests read most: Pod and Node\n").unwrap();
    let watched: Vec<&Change> = changes.iter().filter(|c| !c.touches.is_empty()).collect();
    if watched.is_empty() {
        writeln!(out, "No change reaches Pod or Node.").unwrap();
    }
    for change in watched {
        writeln!(out, "{}", line(change, true)).unwrap();
    }
    writeln!(out, "\n## By group/version").unwrap();
    let mut by_package: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
    for change in changes {
        by_package.entry(&change.package).or_default().push(change);
    }
    for (package, list) in by_package {
        writeln!(out, "\n### {} (`{package}`)\n", group_version(package)).unwrap();
        for change in list {
            writeln!(out, "{}", line(change, false)).unwrap();
        }
    }
    out
}

/// Fails when a guest source uses a removed kind or a field whose number or
/// type changed.
fn check_guest_users(changes: &[Change]) -> Result<(), String> {
    let sources = guest_sources()?;
    let mut problems = Vec::new();
    for change in changes {
        let (needles, what) = match &change.kind {
            ChangeKind::MessageRemoved { kind: true } => {
                let version = change.package.rsplit('.').next().unwrap_or("");
                (
                    vec![format!("{version}::{}", naming::type_name(&change.message))],
                    "was removed",
                )
            }
            ChangeKind::FieldRenumbered { name, .. } => {
                (field_needles(change, name), "was renumbered")
            }
            ChangeKind::FieldRetyped { name, .. } => (field_needles(change, name), "was retyped"),
            _ => continue,
        };
        for (path, text) in &sources {
            if needles.iter().all(|needle| has_word(text, needle)) {
                problems.push(format!(
                    "  {}: {} {what} ({})",
                    path.display(),
                    change.message,
                    describe(change)
                ));
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the bump breaks guests: {} use(s) of API that changed incompatibly:\n{}",
        problems.len(),
        problems.join("\n")
    ))
}

/// A file uses a field when it names both the message's view type and the
/// field's accessor.
fn field_needles(change: &Change, field: &str) -> Vec<String> {
    let last = change.message.rsplit('.').next().unwrap_or(&change.message);
    vec![naming::type_name(last), naming::field_method(field)]
}

fn guest_sources() -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = Vec::new();
    for dir in GUEST_SOURCES {
        let root = paths::root().join(dir);
        for rel in paths::files_below(&root, "rs")? {
            let path = root.join(&rel);
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("{}: {err}", path.display()))?;
            out.push((Path::new(dir).join(rel), text));
        }
    }
    Ok(out)
}

/// Whether `needle` occurs in `text` with no identifier character on
/// either side.
fn has_word(text: &str, needle: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_group_versions() {
        assert!(has_word("let x = spec.node_name();", "node_name"));
        assert!(!has_word("let x = spec.node_name_raw();", "node_name"));
        assert!(has_word(
            "use api::scheduling::v1alpha2::PodGroup;",
            "v1alpha2::PodGroup"
        ));
        assert_eq!(group_version("k8s.io.api.core.v1"), "core/v1");
        assert_eq!(
            group_version("k8s.io.apimachinery.pkg.apis.meta.v1"),
            "k8s.io.apimachinery.pkg.apis.meta.v1"
        );
    }
}
