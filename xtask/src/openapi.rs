//! Where k8s-openapi's source is, for the k8s-openapi front-end of the
//! encoders (`kguest_codegen::openapi`, which reads it and emits
//! `generated/kguest-k8s-encode/src/openapi.rs`).

use std::path::{Path, PathBuf};

use kguest_codegen::model::Model;

use crate::{paths, vendor};

/// `openapi.rs` for `model`, named as written by `regen_command`.
pub fn generate(model: &Model, regen_command: &str) -> Result<String, String> {
    let source = k8s_openapi_source()?;
    let generated = kguest_codegen::openapi::generate(model, &source, regen_command)
        .map_err(|err| err.to_string())?;
    eprintln!("regen: k8s-openapi encoders for {} types", generated.types);
    Ok(generated.text)
}

/// k8s-openapi's `src/v1_<minor>` for the pinned release, found through `cargo metadata`: the copy of
/// the crate the workspace's dependency graph resolves to.
fn k8s_openapi_source() -> Result<PathBuf, String> {
    let output =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(paths::root().join("Cargo.toml"))
            .output()
            .map_err(|err| format!("running cargo metadata: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let meta: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|err| format!("cargo metadata output: {err}"))?;
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-openapi")
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or("k8s-openapi is not in the workspace's dependency graph")?;
    let release = vendor::kubernetes_release()?;
    let dir = Path::new(manifest)
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("src/v1_{}", release.minor()));
    if !dir.is_dir() {
        return Err(format!(
            "{} is missing (k8s-openapi without Kubernetes {} support?)",
            dir.display(),
            release.major_minor()
        ));
    }
    Ok(dir)
}
