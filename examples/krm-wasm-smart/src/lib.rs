//! KRM function: pods that mix WebAssembly and native containers run on
//! crun's "wasm-smart" handler.
//!
//! A pod template (a Pod, or the template of a Deployment, StatefulSet,
//! DaemonSet, ReplicaSet, ReplicationController, Job or CronJob) with a
//! container or init container whose image matches one of the configured
//! glob patterns gets the annotation `module.wasm.image/variant:
//! compat-smart` on its metadata (crun then runs only the wasm containers
//! on its wasm handler; sidecars stay native) and, when configured,
//! `spec.runtimeClassName`. Other items are untouched.
//!
//! `functionConfig`: `images` (a list of patterns, `*` any text, `?` one
//! character) and optional `runtimeClassName`, at the top level of any
//! config kind or in a ConfigMap's `data` (`images` comma-separated there).

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest_krm::{Node, Report, ResourceList, Value, workload};

pub const ANNOTATION: &str = "module.wasm.image/variant";
pub const VARIANT: &str = "compat-smart";

/// The parsed config: image patterns and the runtime class to set.
struct Config<'a> {
    images: Node<'a>,
    runtime_class: Option<&'a str>,
}

pub fn run(list: &mut ResourceList) {
    let Some(config) = config(list) else {
        let _ = list.report(Report::error(
            "functionConfig lists no `images` patterns (e.g. images: [\"*/wasm/*\"])",
        ));
        return;
    };
    for i in 0..list.len() {
        let Some(item) = list.item(i) else {
            continue;
        };
        let Some(path) = workload::pod_template_path(item.group(), item.kind()) else {
            continue;
        };
        let Some(template) = item.node().path(path) else {
            continue;
        };
        let spec = template.get("spec");
        let wasm = ["containers", "initContainers"].iter().any(|key| {
            spec.and_then(|s| s.get(key)).is_some_and(|cs| {
                cs.iter().any(|c| {
                    c.get("image")
                        .and_then(|n| n.as_str())
                        .is_some_and(|image| config.matches(image))
                })
            })
        });
        if !wasm {
            continue;
        }
        let annotation = template.path(&["metadata", "annotations", ANNOTATION]);
        if !annotation.is_some_and(|a| a.is_str(VARIANT)) {
            let mut at: [&str; 8] = [""; 8];
            let n = join(&mut at, path, &["metadata", "annotations", ANNOTATION]);
            if let Err(e) = list.set(i, at.get(..n).unwrap_or(&[]), Value::Str(VARIANT)) {
                let _ = list.report(Report::error(e.as_str()).on(i));
            }
        }
        if let Some(class) = config.runtime_class {
            let current = template.path(&["spec", "runtimeClassName"]);
            if !current.is_some_and(|c| c.is_str(class)) {
                let mut at: [&str; 8] = [""; 8];
                let n = join(&mut at, path, &["spec", "runtimeClassName"]);
                if let Err(e) = list.set(i, at.get(..n).unwrap_or(&[]), Value::Str(class)) {
                    let _ = list.report(Report::error(e.as_str()).on(i));
                }
            }
        }
    }
}

/// The comma-separated parts of a string (byte-level, so no `char`
/// searcher and its panic paths end up in the module).
struct Csv<'a>(Option<&'a str>);

impl<'a> Iterator for Csv<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.0?;
        match s.bytes().position(|c| c == b',') {
            Some(i) => {
                self.0 = s.get(i + 1..);
                s.get(..i)
            }
            None => {
                self.0 = None;
                Some(s)
            }
        }
    }
}

/// `a` then `b` into `out`; returns the length.
fn join<'s>(out: &mut [&'s str; 8], a: &[&'s str], b: &[&'s str]) -> usize {
    let mut n = 0;
    for s in a.iter().chain(b) {
        if let Some(slot) = out.get_mut(n) {
            *slot = s;
            n += 1;
        }
    }
    n
}

fn config<'a>(list: &ResourceList<'a>) -> Option<Config<'a>> {
    let fc = list.function_config()?;
    let base = if fc.get("images").is_some() {
        fc
    } else {
        fc.get("data")?
    };
    let images = base.get("images")?;
    let runtime_class = base
        .get("runtimeClassName")
        .and_then(|n| n.as_str())
        .filter(|s| !s.is_empty());
    let config = Config {
        images,
        runtime_class,
    };
    config.patterns().next()?;
    Some(config)
}

impl<'a> Config<'a> {
    /// The patterns: a sequence's strings, or a comma-separated string.
    fn patterns(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let list = self.images.iter().filter_map(|n| n.as_str());
        let csv = Csv(self.images.as_str());
        list.chain(csv)
            .map(str::trim_ascii)
            .filter(|p| !p.is_empty())
    }

    fn matches(&self, image: &str) -> bool {
        self.patterns()
            .any(|p| glob(p.as_bytes(), image.as_bytes()))
    }
}

/// `*` matches any run of characters (`/` included), `?` any one byte.
pub fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || Some(&c) == text.get(t) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

kguest_krm::export!(run);

#[cfg(test)]
mod tests {
    use kguest_krm::testing::run as exec;

    use super::{glob, run};

    const INPUT: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: mixed}
  spec:
    template:
      metadata:
        labels: {app: mixed} # keep
      spec:
        containers:
        - name: app
          image: ghcr.io/acme/wasm/app:1.0
        - name: envoy
          image: envoyproxy/envoy:v1.30
- apiVersion: v1
  kind: Pod
  metadata:
    name: native
  spec:
    containers:
    - {name: c, image: nginx}
- apiVersion: batch/v1
  kind: CronJob
  metadata: {name: tick}
  spec:
    jobTemplate:
      spec:
        template:
          spec:
            initContainers:
            - image: registry.local/wasm/init
functionConfig:
  apiVersion: krm.kguest.dev/v1
  kind: WasmSmart
  images: [\"*/wasm/*\"]
  runtimeClassName: wasm-smart
";

    #[test]
    fn wasm_pods_get_the_variant_and_runtime_class() {
        let out = exec(INPUT, run);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let expected = INPUT
            .replace(
                "        labels: {app: mixed} # keep\n      spec:\n        containers:",
                "        labels: {app: mixed} # keep\n        annotations:\n          module.wasm.image/variant: compat-smart\n      spec:\n        containers:",
            )
            .replace(
                "          image: envoyproxy/envoy:v1.30\n",
                "          image: envoyproxy/envoy:v1.30\n        runtimeClassName: wasm-smart\n",
            )
            .replace(
                "        template:\n          spec:\n            initContainers:\n            - image: registry.local/wasm/init\n",
                "        template:\n          spec:\n            initContainers:\n            - image: registry.local/wasm/init\n            runtimeClassName: wasm-smart\n          metadata:\n            annotations:\n              module.wasm.image/variant: compat-smart\n",
            );
        assert_eq!(out.stdout, expected);
        // Running again changes nothing.
        let again = exec(&out.stdout, run);
        assert_eq!(again.stdout, out.stdout);
    }

    #[test]
    fn config_map_form() {
        let input = INPUT.replace(
            "  apiVersion: krm.kguest.dev/v1\n  kind: WasmSmart\n  images: [\"*/wasm/*\"]\n  runtimeClassName: wasm-smart\n",
            "  apiVersion: v1\n  kind: ConfigMap\n  data:\n    images: \"nginx, nope\"\n",
        );
        let out = exec(&input, run);
        assert_eq!(out.code, 0);
        let v: serde_norway::Value = serde_norway::from_str(&out.stdout).unwrap();
        assert_eq!(
            v["items"][1]["metadata"]["annotations"]["module.wasm.image/variant"].as_str(),
            Some("compat-smart")
        );
        assert!(v["items"][1]["spec"].get("runtimeClassName").is_none());
        assert!(
            v["items"][0]["spec"]["template"]["metadata"]
                .get("annotations")
                .is_none()
        );
    }

    #[test]
    fn no_patterns_is_an_error() {
        let input = INPUT.replace("  images: [\"*/wasm/*\"]\n", "");
        let out = exec(&input, run);
        assert_eq!(out.code, 1);
        assert!(out.stdout.contains("functionConfig lists no `images`"));
    }

    #[test]
    fn globs() {
        assert!(glob(b"*/wasm/*", b"ghcr.io/acme/wasm/app:1"));
        assert!(!glob(b"*/wasm/*", b"ghcr.io/acme/app:1"));
        assert!(glob(b"nginx", b"nginx"));
        assert!(!glob(b"nginx", b"nginx:1"));
        assert!(glob(b"nginx*", b"nginx:1"));
        assert!(glob(b"a?c", b"abc"));
        assert!(glob(b"*", b""));
        assert!(glob(b"**a**", b"xxaxx"));
        assert!(!glob(b"", b"x"));
    }
}
