//! `scope::KINDS` is what k8s-openapi says: every `impl Resource` in its
//! source for the Kubernetes version the workspace pins, read the way
//! xtask reads it. `UPDATE_EXPECT=1` rewrites the table.

use std::path::{Path, PathBuf};

use kguest_krm::scope;

fn workspace() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../..")
}

/// `src/v1_NN` of the k8s-openapi the workspace resolves to.
fn k8s_openapi_src() -> PathBuf {
    let manifest =
        std::fs::read_to_string(workspace().join("Cargo.toml")).expect("workspace manifest");
    let line = manifest
        .lines()
        .find(|l| l.starts_with("k8s-openapi ="))
        .expect("k8s-openapi in [workspace.dependencies]");
    let feature = line
        .split('"')
        .find(|s| s.starts_with("v1_"))
        .expect("a v1_NN feature");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(workspace().join("Cargo.toml"))
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let manifest_path = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == "k8s-openapi")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("k8s-openapi package");
    Path::new(manifest_path)
        .parent()
        .expect("dir")
        .join("src")
        .join(feature)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn quoted_const<'t>(body: &'t str, name: &str) -> Option<&'t str> {
    let at = body.find(&format!("const {name}: &'static str = \""))?;
    let rest = &body[at..];
    let start = rest.find('"')? + 1;
    let end = rest[start..].find('"')? + start;
    Some(&rest[start..end])
}

/// (group, kind, namespaced) of every resource k8s-openapi defines.
fn expected() -> Vec<(String, String, bool)> {
    let mut files = Vec::new();
    rust_files(&k8s_openapi_src(), &mut files);
    let mut rows = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("source");
        for block in text.split("impl crate::Resource for ").skip(1) {
            let body = &block[..block.find("\n}").expect("impl end")];
            let scope = body
                .split("type Scope = crate::")
                .nth(1)
                .and_then(|s| s.split(';').next())
                .expect("Scope");
            let namespaced = match scope {
                "NamespaceResourceScope" => true,
                "ClusterResourceScope" => false,
                _ => continue, // subresources
            };
            let group = quoted_const(body, "GROUP").expect("GROUP");
            let kind = quoted_const(body, "KIND").expect("KIND");
            rows.push((group.to_string(), kind.to_string(), namespaced));
        }
    }
    rows.sort();
    rows.dedup();
    rows
}

#[test]
fn table_matches_k8s_openapi() {
    let want = expected();
    assert!(want.len() > 70, "only {} resources found", want.len());
    let have: Vec<(String, String, bool)> = scope::KINDS
        .iter()
        .map(|(g, k, n)| (g.to_string(), k.to_string(), *n))
        .collect();
    if have == want {
        return;
    }
    let table: String = want
        .iter()
        .map(|(g, k, n)| format!("    (\"{g}\", \"{k}\", {n}),\n"))
        .collect();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let path = PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
        )
        .join("src/scope.rs");
        let src = std::fs::read_to_string(&path).expect("scope.rs");
        let (head, rest) = src.split_once("// @table-begin\n").expect("begin marker");
        let (_, tail) = rest.split_once("// @table-end").expect("end marker");
        std::fs::write(
            &path,
            format!("{head}// @table-begin\n{table}// @table-end{tail}"),
        )
        .expect("write");
        return;
    }
    panic!("scope::KINDS is stale; run with UPDATE_EXPECT=1. Expected:\n{table}");
}

#[test]
fn lookups() {
    assert_eq!(scope::is_namespaced("", "Pod"), Some(true));
    assert_eq!(scope::is_namespaced("", "Namespace"), Some(false));
    assert_eq!(scope::is_namespaced("apps", "Deployment"), Some(true));
    assert_eq!(
        scope::is_namespaced("rbac.authorization.k8s.io", "ClusterRole"),
        Some(false)
    );
    assert_eq!(
        scope::is_namespaced_api_version("storage.k8s.io/v1", "StorageClass"),
        Some(false)
    );
    assert_eq!(
        scope::is_namespaced_api_version("v1", "ConfigMap"),
        Some(true)
    );
    assert_eq!(scope::is_namespaced("example.com", "Widget"), None);
    assert_eq!(
        scope::is_namespaced("apps", "Pod"),
        None,
        "the group matters"
    );
    // Sorted, or binary search would miss entries.
    assert!(
        scope::KINDS
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1))
    );
}
