//! `cargo xtask regen [--check]`: vendored protos → `generated/kguest-k8s/src`
//! (views and schemas) and `generated/kguest-k8s-encode/src` (encoders for
//! k8s-openapi's types).
//!
//! Here: finding the inputs (the vendored protos, the tables of
//! `xtask/data/`, k8s-openapi's source through [`openapi`]), the generator's
//! settings, and writing or checking. The generators and the Kubernetes
//! facts written in Rust (`kguest_codegen::kubernetes`) live in
//! `kguest-codegen`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kguest_codegen::groups;
use kguest_codegen::kubernetes::{JSON_FORMS, JSON_INLINE, JSON_NAMES};
use kguest_codegen::{Config, JsonForm};

use crate::{openapi, paths, vendor};

/// The command named in every generated file's header.
const REGEN_COMMAND: &str = "cargo xtask regen";

/// The hand-written files of the generated crates, kept as templates in
/// `codegen/templates/` and emitted with the `@generated` header:
/// (path below the crate's `src/`, template, its text). `kguest-k8s`: the
/// crate root and `helpers.rs`, inherent methods on views, which must live in
/// the crate that defines the views.
const VIEW_TEMPLATES: &[(&str, &str, &str)] = &[
    (
        "lib.rs",
        "codegen/templates/kguest-k8s/lib.rs",
        include_str!("../../codegen/templates/kguest-k8s/lib.rs"),
    ),
    (
        "helpers.rs",
        "codegen/templates/kguest-k8s/helpers.rs",
        include_str!("../../codegen/templates/kguest-k8s/helpers.rs"),
    ),
];

/// `kguest-k8s-encode`: the crate root and `rt.rs`, the traits the generated
/// impls implement and their impls for k8s-openapi's leaf types. The orphan
/// rule keeps them in the crate of the generated impls (both the traits'
/// impls and k8s-openapi's types are foreign anywhere else).
const ENCODE_TEMPLATES: &[(&str, &str, &str)] = &[
    (
        "lib.rs",
        "codegen/templates/kguest-k8s-encode/lib.rs",
        include_str!("../../codegen/templates/kguest-k8s-encode/lib.rs"),
    ),
    (
        "rt.rs",
        "codegen/templates/kguest-k8s-encode/rt.rs",
        include_str!("../../codegen/templates/kguest-k8s-encode/rt.rs"),
    ),
];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            other => {
                return Err(format!(
                    "usage: cargo xtask regen [--check] (unknown argument `{other}`)"
                ));
            }
        }
    }
    let vendored = vendor::ensure_vendored()?;
    let config = kubernetes_config(&vendored.join("proto"))?;
    let views = config
        .generate()
        .map_err(|err| format!("generating views: {err}"))?;
    let model = config
        .model()
        .map_err(|err| format!("lowering protos: {err}"))?;
    check_json_tags_cover(&model, &go_json_tags()?)?;
    let mut encoders = BTreeMap::from([(
        PathBuf::from("openapi.rs"),
        openapi::generate(&model, REGEN_COMMAND)?,
    )]);
    for (path, source, text) in ENCODE_TEMPLATES {
        let file = kguest_codegen::from_template(REGEN_COMMAND, source, text);
        encoders.insert(PathBuf::from(path), file);
    }
    let trees = [
        ("generated/kguest-k8s/src", views),
        ("generated/kguest-k8s-encode/src", encoders),
    ];
    let mut stale = Vec::new();
    for (dir, files) in &trees {
        let out = paths::root().join(dir);
        if check {
            let found = kguest_codegen::stale_files(&out, files).map_err(|err| err.to_string())?;
            stale.extend(found.iter().map(|p| format!("  {dir}/{}", p.display())));
            continue;
        }
        let report = kguest_codegen::write_files(&out, files).map_err(|err| err.to_string())?;
        println!(
            "regen: {} written, {} removed, {} unchanged in {dir}",
            report.written.len(),
            report.removed.len(),
            report.unchanged,
        );
    }
    // The API-change report is compared (or written) after the generated code.
    let changes = crate::apichanges::run(check);
    if !stale.is_empty() {
        return Err(format!(
            "{} generated file(s) are stale; run `cargo xtask regen`:\n{}",
            stale.len(),
            stale.join("\n")
        ));
    }
    changes?;
    if check {
        println!(
            "regen: {} files up to date",
            trees.iter().map(|(_, f)| f.len()).sum::<usize>()
        );
    }
    Ok(())
}

/// The generator settings for Kubernetes' protos below `proto_dir`.
pub fn kubernetes_config(proto_dir: &Path) -> Result<Config, String> {
    let mut config = Config::new();
    config
        .include(proto_dir)
        .strip_package_prefix("k8s.io")
        .regen_command(REGEN_COMMAND)
        .registry(true)
        .reflect_feature("reflect")
        .doc_link(api_reference_link);
    for file in proto_files(proto_dir)? {
        config.file(file);
    }
    for (path, source, text) in VIEW_TEMPLATES {
        config.template(*path, *source, *text);
    }
    for (name, form) in JSON_FORMS {
        config.json_form(format!("k8s.io.{name}"), *form);
    }
    for (message, field, json_name) in JSON_NAMES {
        config.json_name(format!("k8s.io.{message}"), *field, *json_name);
    }
    for (message, field) in JSON_INLINE {
        config.json_inline(format!("k8s.io.{message}"), *field);
    }
    config.go_presence(true);
    for (message, field) in go_pointer_fields()? {
        config.explicit_presence(message, field);
    }
    let tags = go_json_tags()?;
    for (message, fields) in &tags {
        for (field, tag) in fields {
            match tag {
                GoJsonTag::NoOmitEmpty => config.json_emit_empty(message, field),
                GoJsonTag::OmitZero => config.json_omit_zero(message, field),
            };
        }
    }
    for (message, fields) in go_json_order()? {
        config.json_order(message, fields);
    }
    Ok(config)
}

/// The Go struct field order of the messages whose JSON (Go's
/// `encoding/json`, struct order) is not in protobuf number order, from
/// `xtask/data/go-json-order.txt`.
fn go_json_order() -> Result<Vec<(String, Vec<String>)>, String> {
    let path = paths::root().join("xtask/data/go-json-order.txt");
    let text =
        std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(crate::gofacts::parse(&text).into_iter().collect())
}

/// A json tag option of a Go field, from `xtask/data/go-json-tags.txt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GoJsonTag {
    /// The tag lacks `omitempty`.
    NoOmitEmpty,
    /// The tag has `omitzero`.
    OmitZero,
}

/// The json tags of Kubernetes' API structs that differ from plain
/// `omitempty`, by message: read from the upstream Go types, kept in
/// `xtask/data/go-json-tags.txt` (its header names the sources).
fn go_json_tags() -> Result<BTreeMap<String, Vec<(String, GoJsonTag)>>, String> {
    let path = paths::root().join("xtask/data/go-json-tags.txt");
    let text =
        std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
    parse_json_tags(&text).map_err(|err| format!("{}:{err}", path.display()))
}

fn parse_json_tags(text: &str) -> Result<BTreeMap<String, Vec<(String, GoJsonTag)>>, String> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let message = words.next().unwrap_or_default().to_string();
        let mut fields = Vec::new();
        for word in words {
            let (field, tag) = match word.split_once(':') {
                None => (word, GoJsonTag::NoOmitEmpty),
                Some((field, "omitzero")) => (field, GoJsonTag::OmitZero),
                Some((_, other)) => {
                    return Err(format!("{}: unknown tag option `{other}`", i + 1));
                }
            };
            fields.push((field.to_string(), tag));
        }
        if out.insert(message.clone(), fields).is_some() {
            return Err(format!("{}: `{message}` is listed twice", i + 1));
        }
    }
    Ok(out)
}

/// Every message whose JSON is an object of its fields must have a line in
/// the json tag table (the generator itself refuses names the protos lack).
fn check_json_tags_cover(
    model: &kguest_codegen::model::Model,
    tags: &BTreeMap<String, Vec<(String, GoJsonTag)>>,
) -> Result<(), String> {
    let missing: Vec<&str> = model
        .packages
        .values()
        .flat_map(|p| &p.messages)
        .filter(|m| !m.map_entry && m.json == JsonForm::Object)
        // A message without fields (an empty Go struct) has no tags to read.
        .filter(|m| !m.fields.is_empty())
        .map(|m| m.full_name.as_str())
        .filter(|name| !tags.contains_key(*name))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "xtask/data/go-json-tags.txt has no line for {} message(s) (read their json tags from the \
         Go types): {}",
        missing.len(),
        missing.join(", ")
    ))
}

/// The Go pointer fields of Kubernetes' API structs, which Go's marshaller
/// writes only when set (every other singular field it always writes).
/// Facts read from the upstream Go types, kept in `xtask/data/go-nullable.txt`.
fn go_pointer_fields() -> Result<Vec<(String, String)>, String> {
    let path = paths::root().join("xtask/data/go-nullable.txt");
    let text =
        std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let message = words.next().unwrap_or_default();
        let fields: Vec<&str> = words.collect();
        if fields.is_empty() {
            return Err(format!(
                "{}:{}: a message without fields",
                path.display(),
                i + 1
            ));
        }
        out.extend(
            fields
                .into_iter()
                .map(|f| (message.to_string(), f.to_string())),
        );
    }
    Ok(out)
}

/// Every `.proto` below `dir`, relative to it, sorted.
fn proto_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let out = paths::files_below(dir, "proto")?;
    if out.is_empty() {
        return Err(format!("no .proto files below {}", dir.display()));
    }
    Ok(out)
}

/// The kubernetes.io API reference anchor of a type, e.g.
/// `#pod-v1-core`, `#ingress-v1-networking-k8s-io`, `#objectmeta-v1-meta`.
fn api_reference_link(package: &str, message: &str) -> Option<String> {
    let parts: Vec<&str> = package.split('.').collect();
    let (group, version) = match parts.as_slice() {
        ["k8s", "io", "api", folder, version] => {
            let group = groups::group_of_folder(folder)?;
            (
                if group.is_empty() {
                    "core".to_string()
                } else {
                    group.replace('.', "-")
                },
                *version,
            )
        }
        ["k8s", "io", "apimachinery", "pkg", "apis", "meta", version] => {
            ("meta".to_string(), *version)
        }
        _ => return None,
    };
    Some(format!(
        "{}#{}-{version}-{group}",
        api_reference_page()?,
        message.to_ascii_lowercase()
    ))
}

/// The API reference page of the pinned release's minor version.
fn api_reference_page() -> Option<&'static str> {
    static PAGE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PAGE.get_or_init(|| {
        let release = vendor::kubernetes_release().ok()?;
        Some(format!(
            "https://kubernetes.io/docs/reference/generated/kubernetes-api/v{}/",
            release.major_minor()
        ))
    })
    .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_arguments_are_usage_errors() {
        let err = run(&["--frobnicate".to_string()]).unwrap_err();
        assert!(err.starts_with("usage:"), "{err}");
    }

    #[test]
    fn json_tag_lines_parse_and_mistakes_are_refused() {
        let tags = parse_json_tags(
            "# comment\n\nk8s.io.a.v1.Empty\nk8s.io.a.v1.M  spec status creationTimestamp:omitzero\n",
        )
        .expect("parses");
        assert_eq!(tags["k8s.io.a.v1.Empty"], vec![]);
        assert_eq!(
            tags["k8s.io.a.v1.M"],
            vec![
                ("spec".to_string(), GoJsonTag::NoOmitEmpty),
                ("status".to_string(), GoJsonTag::NoOmitEmpty),
                ("creationTimestamp".to_string(), GoJsonTag::OmitZero),
            ]
        );
        let err = parse_json_tags("a.M x:inline\n").unwrap_err();
        assert!(err.contains("1: unknown tag option `inline`"), "{err}");
        let err = parse_json_tags("a.M x\n# c\na.M y\n").unwrap_err();
        assert!(err.contains("3: `a.M` is listed twice"), "{err}");
    }

    /// The committed table parses, and every message the protos define as a
    /// JSON object has a line.
    #[test]
    fn the_committed_json_tag_table_parses() {
        let tags = go_json_tags().expect("xtask/data/go-json-tags.txt parses");
        assert!(tags.len() > 500, "{} messages", tags.len());
        let pod = &tags["k8s.io.api.core.v1.Pod"];
        assert!(pod.is_empty(), "Pod's members are all omitempty: {pod:?}");
    }

    #[test]
    fn a_folder_without_protos_is_refused() {
        let dir = std::env::temp_dir().join(format!("kguest-regen-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = kubernetes_config(&dir)
            .err()
            .expect("no protos is an error");
        assert!(err.contains("no .proto files"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_broken_proto_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("kguest-regen-broken-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("k8s.io")).unwrap();
        std::fs::write(
            dir.join("k8s.io/x.proto"),
            "syntax = \"proto2\";\nmessage {",
        )
        .unwrap();
        let err = kubernetes_config(&dir)
            .unwrap()
            .generate()
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("compiling protos:"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn api_reference_links() {
        let minor = vendor::kubernetes_release().unwrap().major_minor();
        let page =
            format!("https://kubernetes.io/docs/reference/generated/kubernetes-api/v{minor}/");
        assert_eq!(
            api_reference_link("k8s.io.api.core.v1", "Pod"),
            Some(format!("{page}#pod-v1-core"))
        );
        assert_eq!(
            api_reference_link("k8s.io.api.networking.v1", "Ingress"),
            Some(format!("{page}#ingress-v1-networking-k8s-io"))
        );
        assert_eq!(
            api_reference_link("k8s.io.apimachinery.pkg.runtime", "Unknown"),
            None
        );
    }
}
