//! `cargo xtask go-facts [--write]`: the Go facts the generator needs, read
//! from the Go source of the k8s.io/api and k8s.io/apimachinery modules that
//! `tests/go-judge/go.mod` pins (by `tests/go-judge/facts`), compared with
//! the committed tables in `xtask/data/` (or written over them with
//! `--write`). `regen` reads only the committed tables, so generating code
//! needs no Go; `cargo xtask test` runs the comparison, so a table that
//! disagrees with the Go types fails CI.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::{golang, paths, vendor};

const MODULE: &str = "tests/go-judge";
/// The Go modules the facts are read from, at the tag of the pinned release.
const SOURCES: &[&str] = &["k8s.io/api", "k8s.io/apimachinery"];

/// Messages with their own JSON form (`kguest_codegen::kubernetes::JSON_FORMS`):
/// they have no json tag line.
const SPECIAL_JSON: &[&str] = &[
    "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "k8s.io.apimachinery.pkg.runtime.RawExtension",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
];

/// Messages whose Go type has its own `MarshalJSON` (runtime.Unknown writes
/// its raw bytes): their struct tags do not decide their JSON, so their
/// committed lines are kept as written.
const CUSTOM_JSON: &[&str] = &["k8s.io.apimachinery.pkg.runtime.Unknown"];

/// One table: its file and the header that says where its lines come from.
struct Table {
    which: &'static str,
    file: &'static str,
    header: &'static str,
    /// Whether a message with no listed field still gets a line.
    empty_lines: bool,
}

const TABLES: &[Table] = &[
    Table {
        which: "nullable",
        file: "xtask/data/go-nullable.txt",
        header: "\
# Go pointer fields of Kubernetes API structs (Go's protobuf marshaller writes them only when
# non-nil; every other singular field it always writes).
# Written by `cargo xtask go-facts --write` from the Go source of k8s.io/api and
# k8s.io/apimachinery {TAG} (tests/go-judge/facts reads every struct field with a protobuf
# tag); `cargo xtask test` checks this file against that source.
# Slices, maps and []byte are not listed (written when len > 0).
# Format: <proto full message name> <proto field name> [<proto field name> ...]
",
        empty_lines: false,
    },
    Table {
        which: "jsontags",
        file: "xtask/data/go-json-tags.txt",
        header: "\
# Go `encoding/json` options of the Kubernetes API struct fields, for JSON output (views -> JSON).
#
# Format: <proto full message name> [<field> ...]. The fields listed are those whose json tag has
# no `omitempty`: Go writes them even when empty (their zero value, or `null` for a nil pointer,
# slice or map). `<field>:omitzero` marks a tag with `omitzero` (a zero struct is left out). Every
# field not listed has `omitempty`; fields embedded with `json:\",inline\"` are not listed.
# Every message of the protos has a line (the messages with a special JSON form excepted).
# Written by `cargo xtask go-facts --write` from the Go source of k8s.io/api and
# k8s.io/apimachinery {TAG} (tests/go-judge/facts); `cargo xtask test` checks this file
# against that source. Messages that the Go source declares as another package's type keep
# their line as written by hand (`kept:` below).
",
        empty_lines: true,
    },
    Table {
        which: "order",
        file: "xtask/data/go-json-order.txt",
        header: "\
# The field order of Kubernetes API structs whose Go order is not the protobuf number order:
# Go's `encoding/json` writes a struct's fields in Go order, so the JSON the API server writes
# (and the fixtures' .json) has them in this order. Fields embedded with `json:\",inline\"` stand
# where their members appear.
# Written by `cargo xtask go-facts --write` from the Go source of k8s.io/api and
# k8s.io/apimachinery {TAG} (tests/go-judge/facts); `cargo xtask test` checks this file
# against that source.
# Format: <proto full message name> <proto field name> ... (every protobuf field, in Go order)
",
        empty_lines: false,
    },
];

pub fn run(args: &[String]) -> Result<(), String> {
    let write = match args {
        [] => false,
        [flag] if flag == "--write" => true,
        _ => return Err("usage: cargo xtask go-facts [--write]".into()),
    };
    let dirs = source_dirs()?;
    let mut stale = Vec::new();
    for table in TABLES {
        let path = paths::root().join(table.file);
        let committed =
            std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let from_go = facts(table.which, &dirs)?;
        let text = render(table, &from_go, &parse(&committed))?;
        if text == committed {
            eprintln!("go-facts: {} matches the Go types", table.file);
        } else if write {
            std::fs::write(&path, &text).map_err(|err| format!("{}: {err}", path.display()))?;
            eprintln!("go-facts: wrote {}", table.file);
        } else {
            stale.push(format!(
                "{}: {}",
                table.file,
                diff(&parse(&committed), &parse(&text))
            ));
        }
    }
    for (which, table) in [
        (
            "inline",
            pairs(
                kguest_codegen::kubernetes::JSON_INLINE
                    .iter()
                    .map(|(m, f)| (*m, f.to_string())),
            ),
        ),
        (
            "jsonnames",
            pairs(
                kguest_codegen::kubernetes::JSON_NAMES
                    .iter()
                    .map(|(m, f, j)| (*m, format!("{f}:{j}"))),
            ),
        ),
    ] {
        let proto_dir = paths::vendor_dir().join("proto");
        let from_go: BTreeMap<String, Vec<String>> = facts(which, &dirs)?
            .into_iter()
            .filter(|(m, f)| {
                !f.is_empty() && vendored(&proto_dir, m) && !CUSTOM_JSON.contains(&m.as_str())
            })
            .collect();
        let norm = |t: &BTreeMap<String, Vec<String>>| -> BTreeMap<String, BTreeSet<String>> {
            t.iter()
                .map(|(m, f)| (m.clone(), f.iter().cloned().collect()))
                .collect()
        };
        if norm(&from_go) == norm(&table) {
            eprintln!("go-facts: kguest_codegen::kubernetes's {which} table matches the Go types");
        } else {
            stale.push(format!(
                "codegen/kguest-codegen/src/kubernetes.rs ({which}, edit by hand): {}",
                diff(&table, &from_go)
            ));
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "tables disagree with the Go types (run `cargo xtask go-facts --write`, then `cargo xtask regen`):\n{}",
            stale.join("\n")
        ))
    }
}

fn source_dirs() -> Result<Vec<String>, String> {
    let tag = vendor::kubernetes_release()?.tag;
    SOURCES
        .iter()
        .map(|m| {
            golang::module_dir(MODULE, &format!("{m}@{tag}"))
                .map(|d| d.to_string_lossy().into_owned())
        })
        .collect()
}

/// The tool's lines for one table: message -> fields.
fn facts(which: &str, dirs: &[String]) -> Result<BTreeMap<String, Vec<String>>, String> {
    let out = Command::new("go")
        .args(["run", "./facts", which])
        .args(dirs)
        .current_dir(paths::root().join(MODULE))
        .output()
        .map_err(|err| format!("running go run ./facts: {err}"))?;
    if !out.status.success() {
        return Err(format!(
            "go run ./facts {which}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(parse(&String::from_utf8_lossy(&out.stdout)))
}

/// A table's lines (`<message> <field> ...`, `#` comments) by message.
pub(crate) fn parse(text: &str) -> BTreeMap<String, Vec<String>> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let message = words.next()?.to_string();
            Some((message, words.map(str::to_string).collect()))
        })
        .collect()
}

/// The table as it should be: Go's lines for every message of a vendored
/// proto package, plus the committed lines of messages the Go source does
/// not declare as a struct of their own.
fn render(
    table: &Table,
    from_go: &BTreeMap<String, Vec<String>>,
    committed: &BTreeMap<String, Vec<String>>,
) -> Result<String, String> {
    let proto_dir = paths::vendor_dir().join("proto");
    if !proto_dir.is_dir() {
        return Err(format!(
            "{} is missing: run `cargo xtask vendor`",
            proto_dir.display()
        ));
    }
    let mut lines = BTreeMap::new();
    for (message, fields) in from_go {
        if !vendored(&proto_dir, message)
            || SPECIAL_JSON.contains(&message.as_str())
            || (table.empty_lines && CUSTOM_JSON.contains(&message.as_str()))
        {
            continue;
        }
        if fields.is_empty() && !table.empty_lines {
            continue;
        }
        lines.insert(message.clone(), fields.clone());
    }
    let mut kept = BTreeSet::new();
    if table.empty_lines {
        for (message, fields) in committed {
            let custom = CUSTOM_JSON.contains(&message.as_str());
            if (custom || !from_go.contains_key(message)) && vendored(&proto_dir, message) {
                lines.insert(message.clone(), fields.clone());
                kept.insert(message.clone());
            }
        }
    }
    let tag = vendor::kubernetes_release()?.tag;
    let mut out = table.header.replace("{TAG}", &tag);
    for message in &kept {
        out.push_str(&format!("# kept: {message}\n"));
    }
    for (message, fields) in &lines {
        out.push_str(message);
        for field in fields {
            out.push(' ');
            out.push_str(field);
        }
        out.push('\n');
    }
    Ok(out)
}

/// Whether the message's package is one of the vendored protos.
fn vendored(proto_dir: &Path, message: &str) -> bool {
    let Some(rest) = message.strip_prefix("k8s.io.") else {
        return false;
    };
    let Some((package, _)) = rest.rsplit_once('.') else {
        return false;
    };
    proto_dir
        .join("k8s.io")
        .join(package.replace('.', "/"))
        .join("generated.proto")
        .is_file()
}

/// A table of `kguest_codegen::kubernetes` (messages below `k8s.io.`) in the
/// tool's form.
fn pairs<'a>(rows: impl Iterator<Item = (&'a str, String)>) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (message, field) in rows {
        out.entry(format!("k8s.io.{message}"))
            .or_default()
            .push(field);
    }
    out
}

/// The first differences between two tables, for the error message.
fn diff(old: &BTreeMap<String, Vec<String>>, new: &BTreeMap<String, Vec<String>>) -> String {
    let mut out = Vec::new();
    for message in old.keys().chain(new.keys()).collect::<BTreeSet<_>>() {
        let a: BTreeSet<_> = old.get(message).into_iter().flatten().collect();
        let b: BTreeSet<_> = new.get(message).into_iter().flatten().collect();
        if a != b || old.contains_key(message) != new.contains_key(message) {
            let plus: Vec<_> = b.difference(&a).map(|s| s.as_str()).collect();
            let minus: Vec<_> = a.difference(&b).map(|s| s.as_str()).collect();
            out.push(format!(
                "{message} +[{}] -[{}]",
                plus.join(" "),
                minus.join(" ")
            ));
        }
    }
    let total = out.len();
    out.truncate(12);
    format!("{total} message(s) differ: {}", out.join("; "))
}
