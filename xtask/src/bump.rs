//! `cargo xtask bump X.Y.Z [--from DIR]`: move kguest to another Kubernetes
//! release in one command. The steps, in order, each stopping the bump with
//! one line naming it when it fails:
//!
//! 1. `fetch`: the release's protos and fixtures, from `--from DIR` (laid
//!    out as `proto/` and `testdata/`) or else from the Go modules
//!    `k8s.io/api` and `k8s.io/apimachinery` at the release's tag (the
//!    module proxy serves the same bytes as the GitHub tag);
//! 2. `lock`: `proto-vendor/kubernetes.lock` rewritten for those files, the
//!    lock it replaces kept as `kubernetes-previous.lock`, both vendored;
//! 3. `go modules`: every k8s.io module of the Go judges at the previous
//!    release's tag moved to the new one (`go get`, `go mod tidy`);
//! 4. `k8s-openapi`: the `v1_NN` feature in the manifests that name it;
//! 5. `go-facts`: the Go facts tables rewritten from the new Go types;
//! 6. `regen`: generated code and `docs/api-changes/<minor>.md`, which
//!    fails on a removed kind or a renumbered/retyped field a guest uses;
//! 7. `sizes`: every guest rebuilt and measured against its budget.

use std::path::{Path, PathBuf};

use crate::vendor::{self, Release};
use crate::{gofacts, golang, paths, regen, size};

const USAGE: &str = "usage: cargo xtask bump X.Y.Z [--from DIR]";

/// The Go modules of the release: (module path, its folder below `proto/`).
const MODULES: &[(&str, &str)] = &[
    ("k8s.io/api", "k8s.io/api"),
    ("k8s.io/apimachinery", "k8s.io/apimachinery"),
];

pub fn run(args: &[String]) -> Result<(), String> {
    let mut version = None;
    let mut from = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--from" => from = Some(PathBuf::from(iter.next().ok_or(USAGE)?)),
            flag if flag.starts_with("--") => return Err(format!("{USAGE} (unknown `{flag}`)")),
            value if version.is_none() => version = Some(value.to_string()),
            extra => return Err(format!("{USAGE} (unexpected `{extra}`)")),
        }
    }
    let release = Release::parse(version.as_deref().ok_or(USAGE)?)?;
    let before = vendor::kubernetes_release()?;
    println!("bump: Kubernetes {} -> {}", before.version, release.version);
    let dir = step("fetch", || match &from {
        Some(dir) => Ok(dir.clone()),
        None => stage_from_go_modules(&release),
    })?;
    step("lock", || vendor::bump_locks(&dir, &release))?;
    let previous = vendor::previous_release()?.unwrap_or(before);
    step("go modules", || bump_go_modules(&previous, &release))?;
    step("k8s-openapi", || bump_openapi_feature(&release))?;
    step("go-facts", || gofacts::run(&["--write".to_string()]))?;
    step("regen", || regen::run(&[]))?;
    step("sizes", || size::run(&["--check".to_string()]))?;
    println!(
        "bump: done; review docs/api-changes/{}.md, then run `cargo xtask test`",
        release.major_minor()
    );
    Ok(())
}

/// Runs one step; its failure becomes one line naming the step (the
/// details were printed above it).
fn step<T>(name: &str, body: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    eprintln!("bump: {name}");
    body().map_err(|err| {
        eprintln!("{err}");
        format!("bump stopped at step `{name}` (details above)")
    })
}

/// Lays the release's files out as the lock expects, below the target dir:
/// `proto/<import path>/generated.proto` of both modules (apimachinery's
/// test-only `testapigroup` left out) and `testdata/` from api's
/// `testdata/HEAD`.
fn stage_from_go_modules(release: &Release) -> Result<PathBuf, String> {
    let stage = paths::target_dir().join(format!("kguest-bump/{}", release.version));
    if stage.exists() {
        std::fs::remove_dir_all(&stage).map_err(|err| format!("{}: {err}", stage.display()))?;
    }
    let mut api_dir = None;
    for (module, folder) in MODULES {
        let dir = golang::module_dir("tests/go-judge", &format!("{module}@{}", release.tag))?;
        for rel in paths::files_below(&dir, "proto")? {
            let keep = rel.file_name().is_some_and(|n| n == "generated.proto")
                && !rel.components().any(|c| c.as_os_str() == "testapigroup");
            if keep {
                copy(
                    &dir.join(&rel),
                    &stage.join("proto").join(folder).join(&rel),
                )?;
            }
        }
        if *module == "k8s.io/api" {
            api_dir = Some(dir);
        }
    }
    let head = api_dir.ok_or("no k8s.io/api module")?.join("testdata/HEAD");
    let entries = std::fs::read_dir(&head).map_err(|err| format!("{}: {err}", head.display()))?;
    for entry in entries {
        let entry = entry.map_err(|err| err.to_string())?;
        if entry.file_type().map_err(|err| err.to_string())?.is_file() {
            copy(
                &entry.path(),
                &stage.join("testdata").join(entry.file_name()),
            )?;
        }
    }
    eprintln!(
        "bump: staged the {} files in {}",
        release.tag,
        stage.display()
    );
    Ok(stage)
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|err| format!("{}: {err}", parent.display()))?;
    }
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|err| format!("copying {}: {err}", from.display()))
}

/// Moves every `k8s.io/...` requirement of the Go judges that is at the
/// previous release's tag to the new tag. Modules pinned to another release
/// on purpose (the KSW judge builds only against 1.33) are left alone.
fn bump_go_modules(previous: &Release, release: &Release) -> Result<(), String> {
    for module in golang::MODULES {
        let path = paths::root().join(module).join("go.mod");
        let text =
            std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let direct: Vec<String> = text
            .lines()
            .filter(|line| !line.contains("// indirect") && !line.contains("=>"))
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let name = words.next()?;
                let at = words.next()?;
                (name.starts_with("k8s.io/") && at == previous.tag)
                    .then(|| format!("{name}@{}", release.tag))
            })
            .collect();
        if direct.is_empty() {
            continue;
        }
        let mut get = vec!["get"];
        get.extend(direct.iter().map(String::as_str));
        golang::run_go(module, &get)?;
        golang::run_go(module, &["mod", "tidy"])?;
    }
    Ok(())
}

/// Points k8s-openapi's version feature (`v1_NN`) at the release in every
/// manifest that names the crate.
fn bump_openapi_feature(release: &Release) -> Result<(), String> {
    let feature = format!("\"v1_{}\"", release.minor());
    let listed = std::process::Command::new("git")
        .args(["ls-files", "Cargo.toml", "**/Cargo.toml"])
        .current_dir(paths::root())
        .output()
        .map_err(|err| format!("running git ls-files: {err}"))?;
    let manifests = String::from_utf8_lossy(&listed.stdout).into_owned();
    for manifest in manifests.lines().map(Path::new) {
        let path = paths::root().join(manifest);
        let text =
            std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let mut changed = false;
        let lines: Vec<String> = text
            .lines()
            .map(|line| {
                let updated = with_feature(line, &feature);
                changed |= updated != line;
                updated
            })
            .collect();
        if changed {
            let mut out = lines.join("\n");
            out.push('\n');
            std::fs::write(&path, out).map_err(|err| format!("{}: {err}", path.display()))?;
            eprintln!(
                "bump: {} now uses k8s-openapi's {feature}",
                manifest.display()
            );
        }
    }
    Ok(())
}

/// A manifest line with k8s-openapi's `"v1_NN"` feature replaced by
/// `feature`; any other line unchanged.
fn with_feature(line: &str, feature: &str) -> String {
    if !line.trim_start().starts_with("k8s-openapi") {
        return line.to_string();
    }
    let Some(at) = line.find("\"v1_") else {
        return line.to_string();
    };
    let end = line[at + 1..].find('"').map_or(line.len(), |e| at + 2 + e);
    format!("{}{feature}{}", &line[..at], &line[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_lines() {
        assert_eq!(
            with_feature(
                r#"k8s-openapi = { version = "0.29", features = ["v1_36"] }"#,
                "\"v1_37\""
            ),
            r#"k8s-openapi = { version = "0.29", features = ["v1_37"] }"#
        );
        let other = r#"kube = { version = "1", features = ["v1_36"] }"#;
        assert_eq!(with_feature(other, "\"v1_37\""), other);
    }
}
