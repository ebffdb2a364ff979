//! `cargo xtask regen [--check]`: vendored protos → `generated/kguest-k8s/src`.

use std::path::{Path, PathBuf};

use kguest_codegen::{Config, JsonForm};

use crate::{paths, vendor};

#[path = "../../generated/kguest-k8s/src/groups.rs"]
#[allow(dead_code)]
mod groups;

/// Kubernetes messages whose JSON form is not an object of their fields.
/// Each carries a marker in its `.proto` comment (`+protobuf.as=Timestamp`,
/// `+protobuf.embed=string`, `+protobuf.nullable=true`, ...).
const JSON_FORMS: &[(&str, JsonForm)] = &[
    ("apimachinery.pkg.apis.meta.v1.Time", JsonForm::Timestamp { frac_digits: 0 }),
    ("apimachinery.pkg.apis.meta.v1.MicroTime", JsonForm::Timestamp { frac_digits: 6 }),
    ("apimachinery.pkg.apis.meta.v1.Duration", JsonForm::Duration),
    ("apimachinery.pkg.apis.meta.v1.FieldsV1", JsonForm::RawJson),
    ("apimachinery.pkg.apis.meta.v1.Verbs", JsonForm::BareArray),
    ("apimachinery.pkg.runtime.RawExtension", JsonForm::RawJson),
    ("apimachinery.pkg.api.resource.Quantity", JsonForm::EmbeddedString),
    ("apimachinery.pkg.api.resource.QuantityValue", JsonForm::EmbeddedString),
    ("apimachinery.pkg.util.intstr.IntOrString", JsonForm::IntOrString),
    ("api.authentication.v1.ExtraValue", JsonForm::BareArray),
    ("api.authentication.v1beta1.ExtraValue", JsonForm::BareArray),
    ("api.authorization.v1.ExtraValue", JsonForm::BareArray),
    ("api.authorization.v1beta1.ExtraValue", JsonForm::BareArray),
    ("api.certificates.v1.ExtraValue", JsonForm::BareArray),
    ("api.certificates.v1beta1.ExtraValue", JsonForm::BareArray),
];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            other => return Err(format!("usage: cargo xtask regen [--check] (unknown argument `{other}`)")),
        }
    }
    let vendored = vendor::ensure_vendored()?;
    let files = kubernetes_config(&vendored.join("proto"))?
        .generate()
        .map_err(|err| format!("generating views: {err}"))?;
    let out = paths::root().join("generated/kguest-k8s/src");
    if check {
        let stale = kguest_codegen::stale_files(&out, &files).map_err(|err| err.to_string())?;
        if !stale.is_empty() {
            let list: Vec<String> = stale.iter().map(|p| format!("  {}", p.display())).collect();
            return Err(format!(
                "{} generated file(s) are stale; run `cargo xtask regen`:\n{}",
                stale.len(),
                list.join("\n")
            ));
        }
        println!("regen: {} files up to date", files.len());
    } else {
        let report = kguest_codegen::write_files(&out, &files).map_err(|err| err.to_string())?;
        println!(
            "regen: {} written, {} removed, {} unchanged in {}",
            report.written.len(),
            report.removed.len(),
            report.unchanged,
            out.strip_prefix(paths::root()).unwrap_or(&out).display()
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
        .regen_command("cargo xtask regen")
        .registry(true)
        .reflect_feature("reflect")
        .doc_link(api_reference_link);
    for file in proto_files(proto_dir)? {
        config.file(file);
    }
    for (name, form) in JSON_FORMS {
        config.json_form(format!("k8s.io.{name}"), *form);
    }
    Ok(config)
}

/// Every `.proto` below `dir`, relative to it, sorted.
fn proto_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .map_err(|err| format!("reading {}: {err}", dir.join(&rel).display()))?;
        for entry in entries {
            let entry = entry.map_err(|err| err.to_string())?;
            let path = rel.join(entry.file_name());
            if entry.file_type().map_err(|err| err.to_string())?.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                out.push(path);
            }
        }
    }
    if out.is_empty() {
        return Err(format!("no .proto files below {}", dir.display()));
    }
    out.sort();
    Ok(out)
}

/// The kubernetes.io API reference anchor of a type, e.g.
/// `#pod-v1-core`, `#ingress-v1-networking-k8s-io`, `#objectmeta-v1-meta`.
fn api_reference_link(package: &str, message: &str) -> Option<String> {
    let parts: Vec<&str> = package.split('.').collect();
    let (group, version) = match parts.as_slice() {
        ["k8s", "io", "api", folder, version] => {
            let group = groups::group_of_folder(folder)?;
            (if group.is_empty() { "core".to_string() } else { group.replace('.', "-") }, *version)
        }
        ["k8s", "io", "apimachinery", "pkg", "apis", "meta", version] => ("meta".to_string(), *version),
        _ => return None,
    };
    Some(format!(
        "https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.36/#{}-{version}-{group}",
        message.to_ascii_lowercase()
    ))
}
