//! `kguest new --krm`: a standalone KRM function crate on kguest-krm. The
//! function adds the labels its `functionConfig` names; the crate has its
//! own `[workspace]` and `guest` profile (so it builds anywhere), native
//! tests run on the sample `list.yaml`, and a kustomization runs the built
//! function through `kubectl kustomize` as a legacy exec plugin.

use super::{Dependency, type_name};

/// The config's API group and version (kustomize finds the legacy plugin
/// under `plugin/GROUP/VERSION/lowercase(KIND)/KIND`).
const CONFIG_API_VERSION: &str = "example.kguest.dev/v1";

pub struct Template<'a> {
    pub name: &'a str,
}

impl Template<'_> {
    fn lib_name(&self) -> String {
        self.name.replace('-', "_")
    }

    /// `AddLabels` for `add-labels`: the config kind.
    fn kind(&self) -> String {
        type_name(self.name)
    }

    /// The wrapper's path: where kustomize looks for the config's plugin.
    pub fn plugin_path(&self) -> String {
        let kind = self.kind();
        format!(
            "kustomize/plugin/{CONFIG_API_VERSION}/{}/{kind}",
            kind.to_ascii_lowercase()
        )
    }

    /// The crate's files; the last one, the plugin wrapper, is a script.
    pub fn files(&self, dependency: &Dependency) -> Vec<(String, String)> {
        let files = [
            ("Cargo.toml", self.cargo_toml(dependency)),
            (".cargo/config.toml", CARGO_CONFIG.to_string()),
            ("rust-toolchain.toml", TOOLCHAIN.to_string()),
            (".gitignore", "/target\n".to_string()),
            ("src/lib.rs", self.fill(LIB_RS)),
            ("list.yaml", self.fill(LIST_YAML)),
            ("kustomize/kustomization.yaml", KUSTOMIZATION.to_string()),
            ("kustomize/resources.yaml", RESOURCES.to_string()),
            ("kustomize/config.yaml", self.fill(CONFIG_YAML)),
            ("README.md", self.fill(README)),
        ];
        let mut files: Vec<(String, String)> = files
            .into_iter()
            .map(|(path, text)| (path.to_string(), text))
            .collect();
        files.push((self.plugin_path(), self.fill(PLUGIN)));
        files
    }

    /// The template with its placeholders filled in.
    fn fill(&self, template: &str) -> String {
        template
            .replace("{{NAME}}", self.name)
            .replace("{{LIB}}", &self.lib_name())
            .replace("{{KIND}}", &self.kind())
            .replace("{{API_VERSION}}", CONFIG_API_VERSION)
            .replace("{{PLUGIN}}", &self.plugin_path())
    }

    fn cargo_toml(&self, dependency: &Dependency) -> String {
        self.fill(CARGO_TOML)
            .replace("{{DEPENDENCY}}", &dependency.krm_line())
    }
}

/// The whole manifest; `kguest-krm`'s README shows the same one.
const CARGO_TOML: &str = r#"[package]
name = "{{NAME}}"
version = "0.1.0"
edition = "2024"
rust-version = "1.95"
publish = false

[lib]
# cdylib: the function (.wasm, a WASI command whose `_start` comes from
# `kguest_krm::export!`); rlib: lets `cargo test` link the native tests.
crate-type = ["cdylib", "rlib"]

[dependencies]
# Without the default `views` features (Kubernetes types read through the
# kguest views: add `features = ["panic-handler", "views"]` and a
# `kguest-k8s` dependency to use them); `panic-handler` is the
# `#[panic_handler]` a `no_std` wasm module needs.
{{DEPENDENCY}}

# Its own workspace, even when created inside another one.
[workspace]

# The function build: `cargo wasm` (an alias in .cargo/config.toml) runs
# `cargo build --profile guest --target wasm32-wasip1`.
[profile.guest]
inherits = "release"
opt-level = "z"
lto = true
codegen-units = 1
panic = "abort"
strip = true
debug = false
"#;

const CARGO_CONFIG: &str = r#"[alias]
# `cargo wasm`: the function, target/wasm32-wasip1/guest/<name>.wasm.
wasm = "build --profile guest --target wasm32-wasip1"
"#;

const TOOLCHAIN: &str = r#"# rustup installs the wasm target the function builds for on first use.
[toolchain]
channel = "stable"
targets = ["wasm32-wasip1"]
"#;

const LIB_RS: &str = r#"//! {{NAME}}: a KRM function (kustomize, kpt) written with kguest-krm.
//!
//! It adds labels to every item: `functionConfig` names them as `labels`
//! (a mapping, in a config of any kind, e.g. `kind: {{KIND}}`) or as a
//! ConfigMap's `data`. An item that already has a label with that value is
//! left alone; everything else of every item comes out byte for byte.
//!
//! `cargo wasm` builds the function (target/wasm32-wasip1/guest/{{LIB}}.wasm);
//! `cargo test` runs the tests below natively, on the sample `list.yaml`.

// No `std` in the wasm build: kguest-krm brings the entry point, the
// panic handler and the memory; native builds (tests) keep `std`.
#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest_krm::{Node, Report, ResourceList, Value, field_path};

/// The function: adds the configured labels to every item.
pub fn run(list: &mut ResourceList) {
    let Some(labels) = labels(list) else {
        let _ = list.report(Report::error(
            "functionConfig names no labels (`labels`, or a ConfigMap's `data`)",
        ));
        return;
    };
    if labels
        .entries()
        .any(|(k, v)| k.as_str().is_none() || v.as_str().is_none())
    {
        let _ = list.report(Report::error(
            "functionConfig: every label needs a string key and value",
        ));
        return;
    }
    for i in 0..list.len() {
        for (key, value) in labels.entries() {
            let (Some(key), Some(value)) = (key.as_str(), value.as_str()) else {
                continue;
            };
            // Re-read the item each time: an `Item` is a snapshot, and the
            // `set` before changed it.
            let Some(item) = list.item(i) else {
                continue;
            };
            if item.label(key) == Some(value) {
                continue;
            }
            if let Err(e) = list.set(i, &["metadata", "labels", key], Value::Str(value)) {
                // `metadata.labels.KEY`, the result's `field.path`.
                let field = field_path(&["metadata", "labels", key]);
                let _ = list.report(Report::error(e.as_str()).on(i).field(field.as_str()));
            }
        }
    }
}

/// The labels the config names.
fn labels<'a>(list: &ResourceList<'a>) -> Option<Node<'a>> {
    let config = list.function_config()?;
    let labels = if config.get("kind").is_some_and(|k| k.is_str("ConfigMap")) {
        config.get("data")
    } else {
        config.get("labels")
    };
    labels.filter(|l| l.is_map() && !l.is_empty())
}

kguest_krm::export!(run);

#[cfg(test)]
mod tests {
    use kguest_krm::testing::run as exec;

    use super::run;

    /// The sample list, which `kguest krm` reads in the README.
    const LIST: &str = include_str!("../list.yaml");

    #[test]
    fn labels_are_added_and_the_rest_is_kept() {
        let out = exec(LIST, run);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let expected = LIST
            .replace(
                "      app: web\n",
                "      app: web\n      team: platform\n      tier: web\n",
            )
            .replace(
                "metadata: {name: settings}",
                "metadata: {name: settings, labels: {team: platform, tier: web}}",
            );
        assert_eq!(out.stdout, expected);
    }

    #[test]
    fn a_label_already_there_is_left_alone() {
        let input = LIST.replace(
            "      app: web\n",
            "      app: web\n      tier: web # mine\n",
        );
        let out = exec(&input, run);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout
                .contains("      tier: web # mine\n      team: platform\n"),
            "{}",
            out.stdout
        );
    }

    #[test]
    fn a_configmap_config_works_too() {
        let (items, _) = LIST.split_once("functionConfig:").unwrap();
        let input = format!(
            "{items}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    team: data\n"
        );
        let out = exec(&input, run);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains("      app: web\n      team: data\n"),
            "{}",
            out.stdout
        );
    }

    #[test]
    fn no_labels_is_an_error_result() {
        let (items, _) = LIST.split_once("functionConfig:").unwrap();
        let out = exec(items, run);
        assert_eq!(out.code, 1);
        assert!(out.stdout.starts_with(items), "items unchanged");
        assert!(
            out.stdout
                .contains("results:\n- message: \"functionConfig names no labels"),
            "{}",
            out.stdout
        );
    }
}
"#;

const LIST_YAML: &str = r#"# A sample ResourceList, as kustomize and kpt hand it to the function:
#   kguest krm target/wasm32-wasip1/guest/{{LIB}}.wasm < list.yaml
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # comments, key order and quoting are kept
    labels:
      app: web
  spec:
    replicas: 2
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings}
  data: {mode: "fast"}
functionConfig:
  apiVersion: {{API_VERSION}}
  kind: {{KIND}}
  metadata:
    name: {{NAME}}
  labels:
    team: platform
    tier: web
"#;

const KUSTOMIZATION: &str = r#"# `kubectl kustomize` runs the function as a legacy exec plugin (see
# README.md): KUSTOMIZE_PLUGIN_HOME=$PWD/kustomize/plugin kubectl kustomize
# --enable-alpha-plugins kustomize
resources: [resources.yaml]
transformers: [config.yaml]
"#;

const RESOURCES: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
"#;

const CONFIG_YAML: &str = r#"# The function's config: kustomize runs the plugin its apiVersion and kind
# name, {{PLUGIN}}.
apiVersion: {{API_VERSION}}
kind: {{KIND}}
metadata:
  name: {{NAME}}
labels:
  team: platform
"#;

const PLUGIN: &str = r#"#!/bin/sh
# kustomize's legacy exec plugin for {{KIND}} ({{API_VERSION}}): runs the
# wasm function through `kguest krm --legacy`, which turns kustomize's
# protocol into a ResourceList. $1 is the config file. Set KGUEST to use a
# kguest binary that is not on PATH.
here=$(dirname "$0")
exec "${KGUEST:-kguest}" krm "$here/../../../../../target/wasm32-wasip1/guest/{{LIB}}.wasm" --legacy "$1"
"#;

const README: &str = r#"# {{NAME}}

A KRM function (kustomize, kpt) written with
[kguest-krm](https://github.com/kguest/kguest/tree/main/guest-runtime/kguest-krm):
it adds the labels its `functionConfig` names to every item. `src/lib.rs`
is the function; replace it with your own logic.

## Build and test

```sh
cargo test          # native tests on list.yaml (kguest_krm::testing::run)
cargo wasm          # the function: target/wasm32-wasip1/guest/{{LIB}}.wasm
```

`cargo wasm` is an alias (`.cargo/config.toml`) for
`cargo build --profile guest --target wasm32-wasip1`; the `guest` profile in
`Cargo.toml` optimizes for size, and the crate is its own `[workspace]`, so
it builds wherever it sits. `rust-toolchain.toml` makes rustup install the
wasm32-wasip1 target on first use.

The crate is a `cdylib` (plus `rlib` for the tests) and `no_std` on wasm32
(`#![cfg_attr(target_arch = "wasm32", no_std)]`): `kguest_krm::export!`
writes the module's `_start` and kguest-krm its panic handler. A `bin`
crate, or a crate that keeps `std` on wasm32, gets a second `_start` or
`panic_impl` from the standard library and does not link.

## Run it

```sh
kguest krm target/wasm32-wasip1/guest/{{LIB}}.wasm < list.yaml
kguest check target/wasm32-wasip1/guest/{{LIB}}.wasm
```

`kguest krm` runs the function as KEP-4944's wasm runtime would (WASI
preview1, no files, sockets or environment) and prints the ResourceList it
wrote; it exits 1 when the function reports an error. `kguest check` checks
the module is a WASI preview1 command that such a runtime can run, and
prints its size by section.

## With kustomize

`kubectl kustomize` runs functions as legacy exec plugins, found by the
config's `apiVersion` and `kind`: `kustomize/` holds a kustomization, its
resources, the function's config (`config.yaml`) and the plugin,
`{{PLUGIN}}`, a one-line wrapper around `kguest krm --legacy`:

```sh
cargo wasm
KUSTOMIZE_PLUGIN_HOME=$PWD/kustomize/plugin kubectl kustomize --enable-alpha-plugins kustomize
```

Standalone kustomize (`kustomize build --enable-alpha-plugins --enable-exec`)
also runs exec KRM functions, and kpt takes `kpt fn eval DIR --exec "kguest
krm FUNCTION.wasm"`: see the kguest README's "KRM functions".
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_sits_where_kustomize_looks() {
        let t = Template { name: "add-labels" };
        assert_eq!(
            t.plugin_path(),
            "kustomize/plugin/example.kguest.dev/v1/addlabels/AddLabels"
        );
        // The wrapper climbs from its directory (one `../` per `/` of its
        // path) to the crate root.
        let depth = t.plugin_path().matches('/').count();
        let wrapper = t.fill(PLUGIN);
        assert!(
            wrapper.contains(&format!(
                "\"$here/{}target/wasm32-wasip1/guest/add_labels.wasm\"",
                "../".repeat(depth)
            )),
            "{wrapper}"
        );
    }

    #[test]
    fn every_placeholder_is_filled() {
        let t = Template { name: "add-labels" };
        let files = t.files(&Dependency::Version("0.1.0"));
        for (path, text) in &files {
            assert!(!text.contains("{{"), "{path}: {text}");
        }
        let manifest = &files[0].1;
        assert!(manifest.contains(
            "\nkguest-krm = { version = \"0.1.0\", default-features = false, features = [\"panic-handler\"] }\n"
        ));
        assert!(manifest.contains("\n[workspace]\n"));
        assert!(manifest.contains("\n[profile.guest]\n"));
    }
}
