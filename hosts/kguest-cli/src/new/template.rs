//! The files of a new scheduler plugin crate: `Cargo.toml`, `lib.rs` (the
//! chosen hooks' snippets, see `hooks.rs`), the cargo alias and toolchain,
//! sample objects and the README.

use super::hooks::{HookCode, hook_code};
use super::{Dependency, type_name};

/// Where the generated README points for deployment.
const DEPLOY_DOC: &str = "https://github.com/kguest/kguest/blob/main/docs/deploy.md";

/// A `use` item as rustfmt writes it (one line, or wrapped at 100 columns).
fn use_line(indent: &str, path: &str, items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => format!("{indent}use {path}::{one};\n"),
        many => {
            let line = format!("{indent}use {path}::{{{}}};\n", many.join(", "));
            if line.len() <= 101 {
                return line;
            }
            let mut out = format!("{indent}use {path}::{{\n");
            let inner = format!("{indent}    ");
            let mut current = inner.clone();
            for item in many {
                let piece = format!("{item},");
                let sep = if current.len() == inner.len() {
                    ""
                } else {
                    " "
                };
                if current.len() + sep.len() + piece.len() > 100 {
                    out.push_str(current.trim_end());
                    out.push('\n');
                    current = inner.clone();
                    current.push_str(&piece);
                } else {
                    current.push_str(sep);
                    current.push_str(&piece);
                }
            }
            out.push_str(current.trim_end());
            out.push_str(&format!("\n{indent}}};\n"));
            out
        }
    }
}

/// Sorts `use` list items as rustfmt does (2024 style: by version-sort,
/// which for these names is ASCII order with `self`-like lowercase modules
/// after types).
fn sort_items(items: &mut Vec<&str>) {
    items.sort_unstable();
    items.dedup();
}

/// A scheduler plugin crate with `hooks`.
pub struct Template<'a> {
    pub name: &'a str,
    pub hooks: &'a [&'static str],
}

impl Template<'_> {
    fn lib_name(&self) -> String {
        self.name.replace('-', "_")
    }

    pub fn files(&self, dependency: &Dependency) -> Vec<(&'static str, String)> {
        vec![
            ("Cargo.toml", self.cargo_toml(dependency)),
            (".cargo/config.toml", CARGO_CONFIG.to_string()),
            ("rust-toolchain.toml", toolchain()),
            (".gitignore", "/target\n".to_string()),
            ("src/lib.rs", self.lib_rs()),
            ("pod.yaml", POD_YAML.to_string()),
            ("nodes.yaml", NODES_YAML.to_string()),
            ("README.md", self.readme()),
        ]
    }

    fn cargo_toml(&self, dependency: &Dependency) -> String {
        format!(
            r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
rust-version = "1.95"
publish = false

[lib]
# cdylib: the plugin (.wasm); rlib: lets `cargo test` link the native tests.
crate-type = ["cdylib", "rlib"]

[dependencies]
{dependency}

# Its own workspace, even when created inside another one.
[workspace]

# The plugin build: `cargo wasm` (an alias in .cargo/config.toml) runs
# `cargo build --profile guest --target wasm32-unknown-unknown`.
[profile.guest]
inherits = "release"
opt-level = "z"
lto = true
codegen-units = 1
panic = "abort"
strip = true
debug = false

# `cargo wasm-names`: the same build with function names kept (no debug
# info), for `kguest check --strict`, in its own folder
# (target/wasm32-unknown-unknown/guest-names/): the deployable file stays
# as `cargo wasm` built it.
[profile.guest-names]
inherits = "guest"
strip = "debuginfo"

# The Kubernetes views are a big crate; without debug info `cargo test`
# builds it much faster.
[profile.dev.package.kguest-k8s]
debug = false
"#,
            name = self.name,
            dependency = dependency.line(),
        )
    }

    fn lib_rs(&self) -> String {
        let ty = type_name(self.name);
        let codes: Vec<HookCode> = self
            .hooks
            .iter()
            .filter(|h| **h != "removepod" || !self.hooks.contains(&"addpod"))
            .filter_map(|h| hook_code(h))
            .collect();

        let mut out = format!(
            "//! {}: a kube-scheduler-wasm-extension plugin written with kguest.\n//!\n",
            self.name
        );
        for code in &codes {
            out.push_str(&format!("//! - {}\n", code.doc));
        }
        out.push_str(&format!(
            "//!\n//! `cargo wasm` builds the plugin (target/wasm32-unknown-unknown/guest/{}.wasm);\n//! `cargo test` runs the tests below natively against kguest's `TestHost`.\n\n",
            self.lib_name()
        ));
        out.push_str("#![cfg_attr(target_arch = \"wasm32\", no_std)]\n\n");

        let mut imports: Vec<&str> = vec!["Load", "Refusal", "args"];
        imports.extend(codes.iter().flat_map(|c| c.imports.iter().copied()));
        sort_items(&mut imports);
        out.push_str(&use_line("", "kguest", &imports));
        out.push('\n');

        let mut consts: Vec<&str> = vec![NODE_ZONE_LABEL];
        consts.extend(codes.iter().flat_map(|c| c.consts.iter().copied()));
        consts.dedup();
        for c in &consts {
            out.push_str(c);
            out.push('\n');
        }
        if !consts.is_empty() {
            out.push('\n');
        }

        out.push_str(&CONFIG.replace("PLUGIN", &ty));
        for code in &codes {
            out.push('\n');
            out.push_str(&code.code.replace("PLUGIN", &ty));
        }
        out.push_str(&format!(
            "\nkguest::export!({ty} => [load, {}]);\n",
            self.hooks.join(", ")
        ));

        out.push_str("\n#[cfg(test)]\nmod tests {\n    use super::*;\n");
        let mut test_imports: Vec<&str> = vec!["kguest::Plugin", "kguest::testing::TestHost"];
        test_imports.extend(codes.iter().flat_map(|c| c.test_imports.iter().copied()));
        sort_items(&mut test_imports);
        let mut grouped: Vec<(&str, Vec<&str>)> = Vec::new();
        for item in test_imports {
            let (path, name) = item.rsplit_once("::").unwrap_or(("", item));
            match grouped.iter_mut().find(|(p, _)| *p == path) {
                Some((_, names)) => names.push(name),
                None => grouped.push((path, vec![name])),
            }
        }
        // rustfmt orders `use` items by path, a `{...}` list after the
        // names beside it: ASCII order of the lines, as `{` follows letters.
        let mut lines: Vec<String> = grouped
            .iter()
            .map(|(path, names)| use_line("    ", path, names))
            .collect();
        lines.sort_unstable();
        for line in lines {
            out.push_str(&line);
        }
        out.push('\n');
        out.push_str(&CONFIG_TESTS.replace("PLUGIN", &ty));
        for code in &codes {
            out.push('\n');
            out.push_str(&code.tests.replace("PLUGIN", &ty));
        }
        out.push_str("}\n");
        out
    }

    fn readme(&self) -> String {
        let lib = self.lib_name();
        let wasm = format!("target/wasm32-unknown-unknown/guest/{lib}.wasm");
        let named = format!("target/wasm32-unknown-unknown/guest-names/{lib}.wasm");
        let hooks = self.hooks.join(", ");
        format!(
            r#"# {name}

A [kube-scheduler-wasm-extension] plugin (hooks: {hooks}), written with
[kguest](https://github.com/kguest/kguest). `src/lib.rs` says what each hook
does; replace the examples with your own logic.

## Build and test

```sh
cargo test          # native tests against kguest::testing::TestHost
cargo wasm          # the plugin: {wasm}
```

`cargo wasm` is an alias (`.cargo/config.toml`) for
`cargo build --profile guest --target wasm32-unknown-unknown`; the `guest`
profile in `Cargo.toml` optimizes for size. `rust-toolchain.toml` makes
rustup install the wasm32 target on first use.

## Try it on objects

```sh
kguest run {wasm} --pod pod.yaml --nodes nodes.yaml
```

runs one scheduling cycle through kguest's wasmtime host, in the
scheduler's order (PreFilter, Filter per node, PreScore and Score on the
nodes that passed) and prints each node's outcome. `pod.yaml` and
`nodes.yaml` are samples; for your cluster's objects:

```sh
kubectl get pod NAME -o yaml > pod.yaml
kubectl get nodes -o yaml > nodes.yaml
```

`--guest-config FILE` passes the plugin's config (`guestConfig`, below),
`--json` prints JSON lines, `--timing` the time per call, `--sort-nodes`
visits the nodes by name instead of in the order given, and `--fail-on
error` (or `unbound`) exits 3 when a hook errs (or the pod would not be
bound), for CI.

## Config

`src/lib.rs` reads the config (`guestConfig` in the scheduler
configuration) when the host loads the plugin (`impl Load`), e.g.

```json
{{"maxScore": 50, "zoneLabel": "topology.kubernetes.io/zone", "requireZone": false}}
```

`kguest::args::decode` reads it as Go's `json.Unmarshal` would read it into
a struct, and refuses what Go would refuse, in Go's words; `load` also
refuses a `maxScore` out of range. A refused config stops the load: `kguest
run` exits 1 with `wasm: instantiate error: <the reason>`, and the
scheduler refuses to start with the same reason.

## Check it

```sh
kguest check --max-bytes 16384 {wasm}
cargo wasm-names && kguest check --strict {named}
```

`kguest check` reads the module's imports, exports and hook set against the
kube-scheduler-wasm-extension ABI and exits 1 on a violation; `--max-bytes`
also fails a deployable file over that size. `cargo wasm-names` builds the
same plugin with its function names kept (the `guest-names` profile,
`strip = "debuginfo"`) into its own folder, so the file you deploy stays as
`cargo wasm` built it; on that build `kguest check --strict` also lists
panic and `core::fmt` code and the functions that pull it in: a plugin that
avoids them stays a few KB (prefer byte scans and `get` to slicing, indexing
and `unwrap`).

## Deploy

kube-scheduler-wasm-extension runs inside a kube-scheduler built with its
plugin. Put the `.wasm` where the scheduler can read it (a hostPath, a
ConfigMap: a few KB fit easily under its 1 MiB limit, or an https URL) and
enable it in the scheduler configuration:

```yaml
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {name}
  plugins:
    multiPoint:
      enabled:
      - name: {name}
  pluginConfig:
  - name: {name}
    args:
      guestURL: file:///etc/kubernetes/wasm/{lib}.wasm
      guestConfig: '{{"maxScore": 50}}'
```

The full walk-through: [docs/deploy.md]({deploy}).

[kube-scheduler-wasm-extension]: https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension
"#,
            name = self.name,
            deploy = DEPLOY_DOC,
        )
    }
}

/// The node label every plugin's config starts from.
const NODE_ZONE_LABEL: &str = "\
/// The node label naming a node's zone, unless the config names another.
pub const NODE_ZONE_LABEL: &str = \"topology.kubernetes.io/zone\";";

/// The plugin type, its config and `Load` (`PLUGIN` stands for the type
/// name): every plugin refuses a bad config when the host loads it.
const CONFIG: &str = include_str!("snippets/config.rs");
/// The tests of [`CONFIG`].
const CONFIG_TESTS: &str = include_str!("snippets/config_tests.rs");

const CARGO_CONFIG: &str = r#"[alias]
# `cargo wasm`: the plugin, target/wasm32-unknown-unknown/guest/<name>.wasm.
wasm = "build --profile guest --target wasm32-unknown-unknown"
# `cargo wasm-names`: the same with function names kept, for `kguest check
# --strict`: target/wasm32-unknown-unknown/guest-names/<name>.wasm.
wasm-names = "build --profile guest-names --target wasm32-unknown-unknown"
"#;

/// `rust-toolchain.toml`: the Rust release kguest needs (its
/// `rust-version`, which rustup reads as the newest patch release of it).
fn toolchain() -> String {
    format!(
        r#"# The Rust kguest needs; rustup installs it, and the wasm target the
# plugin builds for, on first use.
[toolchain]
channel = "{}"
targets = ["wasm32-unknown-unknown"]
"#,
        env!("CARGO_PKG_RUST_VERSION")
    )
}

const POD_YAML: &str = r#"# A sample pod: it asks for zone-a through the example.kguest.dev/zone label.
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: default
  labels:
    app: web
    example.kguest.dev/zone: zone-a
spec:
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests: {cpu: 250m, memory: 256Mi}
"#;

const NODES_YAML: &str = r#"# Three sample nodes in two zones, with different amounts of memory.
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a1
    labels: {kubernetes.io/hostname: node-a1, topology.kubernetes.io/zone: zone-a}
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a2
    labels: {kubernetes.io/hostname: node-a2, topology.kubernetes.io/zone: zone-a}
  status:
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-b1
    labels: {kubernetes.io/hostname: node-b1, topology.kubernetes.io/zone: zone-b}
  status:
    allocatable: {cpu: "32", memory: 128Gi, pods: "110"}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_lines_wrap_like_rustfmt() {
        assert_eq!(use_line("", "kguest", &["Plugin"]), "use kguest::Plugin;\n");
        assert_eq!(
            use_line("", "kguest", &["Cycle", "Plugin"]),
            "use kguest::{Cycle, Plugin};\n"
        );
        let long: Vec<&str> = super::super::hook_names().collect();
        let wrapped = use_line("", "kguest", &long);
        assert!(wrapped.starts_with("use kguest::{\n    enqueue, prefilter,"));
        assert!(wrapped.lines().all(|l| l.len() <= 100));
        assert!(wrapped.ends_with("postbind,\n};\n"));
    }
}
