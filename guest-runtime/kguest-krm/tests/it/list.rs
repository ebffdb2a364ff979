//! ResourceLists end to end through `testing::run` (the code path of the
//! wasm entry point): untouched input comes out byte for byte; edits,
//! removals, additions and results change only what they must.

use kguest_krm::testing::{Output, run};
use kguest_krm::{EditError, Report, ResourceList, Severity, Value};
use serde_norway::Value as Yaml;

/// Comments everywhere, an unknown kind, kustomize/kpt internal
/// annotations, quoting styles, a flow-style item and a block scalar.
pub const LIST: &str = "\
# produced by kpt
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1 # the workload
  kind: Deployment
  metadata:
    name: web
    annotations:
      internal.config.kubernetes.io/path: 'apps/web.yaml'
      internal.config.kubernetes.io/index: '0'
      config.kubernetes.io/local-config: \"false\"
  spec:
    replicas: 3  # scaled by hand
    template:
      spec:
        containers:
        - name: web
          image: \"nginx:1.27\"
# a comment between items
- apiVersion: example.com/v1alpha1
  kind: Widget   # unknown to Kubernetes
  metadata: {name: gadget, namespace: tools}
  spec:
    script: |
      echo one
        echo two

    unknownField: [1, {deep: true}]
- {apiVersion: v1, kind: Namespace, metadata: {name: prod}}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  data: {namespace: prod}
";

fn ok(out: &Output) {
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

fn yaml(out: &Output) -> Yaml {
    serde_norway::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", out.stdout))
}

#[test]
fn untouched_input_comes_out_byte_for_byte() {
    for input in [
        LIST,
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
        "{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}]}\n",
        "apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: Pod\n",
    ] {
        let out = run(input, |_| {});
        ok(&out);
        assert_eq!(out.stdout, input);
    }
}

#[test]
fn reads_items_and_function_config() {
    let out = run(LIST, |list| {
        let items: Vec<_> = list.items().collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].kind(), "Deployment");
        assert_eq!(items[0].group(), "apps");
        assert_eq!(items[0].name(), Some("web"));
        assert_eq!(items[0].namespace(), None);
        assert_eq!(
            items[0].annotation("internal.config.kubernetes.io/path"),
            Some("apps/web.yaml")
        );
        assert_eq!(items[1].api_version(), "example.com/v1alpha1");
        assert_eq!(items[1].namespace(), Some("tools"));
        assert_eq!(
            items[1].get(&["spec", "script"]).and_then(|n| n.as_str()),
            Some("echo one\n  echo two\n")
        );
        assert_eq!(items[2].group(), "");
        assert!(items[2].is("", "Namespace"));
        let config = list.function_config().expect("functionConfig");
        assert_eq!(
            config.path(&["data", "namespace"]).and_then(|n| n.as_str()),
            Some("prod")
        );
    });
    ok(&out);
}

#[test]
fn an_edit_changes_only_its_bytes() {
    let out = run(LIST, |list| {
        list.set(0, &["metadata", "namespace"], Value::Str("prod"))
            .unwrap();
        list.set(1, &["metadata", "namespace"], Value::Str("prod"))
            .unwrap();
        list.set(2, &["metadata", "namespace"], Value::Str("prod"))
            .unwrap();
        // A second edit of an edited item.
        list.set(0, &["spec", "replicas"], Value::Int(5)).unwrap();
    });
    ok(&out);
    let expected = LIST
        .replace(
            "      config.kubernetes.io/local-config: \"false\"\n",
            "      config.kubernetes.io/local-config: \"false\"\n    namespace: prod\n",
        )
        .replace("replicas: 3  # scaled", "replicas: 5  # scaled")
        .replace("namespace: tools}", "namespace: prod}")
        .replace(
            "metadata: {name: prod}}",
            "metadata: {name: prod, namespace: prod}}",
        );
    assert_eq!(out.stdout, expected);
}

#[test]
fn deletes_keep_the_rest() {
    let out = run(LIST, |list| {
        assert!(list.delete(0, &["spec", "replicas"]).unwrap());
        assert!(
            list.delete(
                0,
                &[
                    "metadata",
                    "annotations",
                    "config.kubernetes.io/local-config"
                ]
            )
            .unwrap()
        );
        assert!(!list.delete(0, &["metadata", "labels"]).unwrap());
        assert!(list.delete(1, &["spec", "unknownField", "1"]).unwrap());
    });
    ok(&out);
    let expected = LIST
        .replace("    replicas: 3  # scaled by hand\n", "")
        .replace("      config.kubernetes.io/local-config: \"false\"\n", "")
        .replace("[1, {deep: true}]", "[1]");
    assert_eq!(out.stdout, expected);
}

#[test]
fn removes_items() {
    for (remove, gone) in [
        (vec![0], vec!["web"]),
        (vec![1], vec!["gadget"]),
        (vec![2], vec!["prod"]),
        (vec![0, 2], vec!["web", "prod"]),
    ] {
        let out = run(LIST, |list| {
            for &i in &remove {
                list.remove(i).unwrap();
            }
            assert_eq!(list.remove(remove[0]), Err(EditError::Removed));
            assert_eq!(
                list.set(remove[0], &["a"], Value::Null),
                Err(EditError::Removed)
            );
        });
        ok(&out);
        let v = yaml(&out);
        let names: Vec<&str> = v["items"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 3 - gone.len(), "{}", out.stdout);
        for g in &gone {
            assert!(!names.contains(g), "{g} still there:\n{}", out.stdout);
        }
        // The comments of the untouched items survive.
        if !remove.contains(&1) {
            assert!(
                out.stdout
                    .contains("kind: Widget   # unknown to Kubernetes")
            );
        }
        assert!(out.stdout.contains("functionConfig:\n  apiVersion: v1"));
    }
    let out = run(LIST, |list| {
        for i in 0..3 {
            list.remove(i).unwrap();
        }
    });
    ok(&out);
    assert!(
        out.stdout.contains("items: []\nfunctionConfig:"),
        "{}",
        out.stdout
    );
    assert_eq!(yaml(&out)["items"].as_sequence().map(Vec::len), Some(0));
}

#[test]
fn adds_items() {
    let out = run(LIST, |list| {
        let i = list
            .add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added # new\ndata:\n  k: |\n    v\n")
            .unwrap();
        assert_eq!(i, 3);
        assert_eq!(list.item(i).and_then(|it| it.name()), Some("added"));
        list.set(i, &["metadata", "namespace"], Value::Str("prod"))
            .unwrap();
        assert_eq!(list.add("kind: NoVersion\n"), Err(EditError::NotAResource));
        assert_eq!(list.add("{unclosed"), Err(EditError::BadYaml));
    });
    ok(&out);
    assert!(
        out.stdout.contains(
            "- {apiVersion: v1, kind: Namespace, metadata: {name: prod}}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: added # new\n    namespace: prod\n  data:\n    k: |\n      v\nfunctionConfig:"
        ),
        "{}",
        out.stdout
    );
    assert_eq!(yaml(&out)["items"][3]["data"]["k"].as_str(), Some("v\n"));

    for empty in ["items: []\n", "items:\n", "items: null\n"] {
        let input = format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{empty}");
        let out = run(&input, |list| {
            list.add("apiVersion: v1\nkind: Secret\n").unwrap();
        });
        ok(&out);
        assert!(
            out.stdout
                .ends_with("items:\n- apiVersion: v1\n  kind: Secret\n"),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn results_are_appended() {
    let out = run(LIST, |list| {
        list.report(
            Report::error("needs: a \"request\"")
                .on(0)
                .field("spec.containers[0].resources"),
        )
        .unwrap();
        list.report(Report::warning("just so you know")).unwrap();
        list.report(Report::new(Severity::Info, "about the widget").on(1))
            .unwrap();
    });
    assert_eq!(out.code, 1, "an error result fails the run");
    assert!(
        out.stdout.starts_with(LIST),
        "the input is kept:\n{}",
        out.stdout
    );
    let v = yaml(&out);
    let r = &v["results"];
    assert_eq!(r[0]["message"].as_str(), Some("needs: a \"request\""));
    assert_eq!(r[0]["severity"].as_str(), Some("error"));
    assert_eq!(r[0]["resourceRef"]["kind"].as_str(), Some("Deployment"));
    assert_eq!(r[0]["resourceRef"]["name"].as_str(), Some("web"));
    assert_eq!(r[0]["resourceRef"]["apiVersion"].as_str(), Some("apps/v1"));
    assert_eq!(
        r[0]["field"]["path"].as_str(),
        Some("spec.containers[0].resources")
    );
    assert_eq!(r[0]["file"]["path"].as_str(), Some("apps/web.yaml"));
    assert_eq!(r[0]["file"]["index"].as_i64(), Some(0));
    assert_eq!(r[1]["severity"].as_str(), Some("warning"));
    assert!(r[1].get("resourceRef").is_none());
    assert_eq!(r[2]["resourceRef"]["namespace"].as_str(), Some("tools"));

    // Warnings alone succeed; existing results are kept and extended.
    let input = format!("{LIST}results:\n- message: earlier\n  severity: info\n");
    let out = run(&input, |list| {
        list.report(Report::warning("later")).unwrap();
    });
    ok(&out);
    let v = yaml(&out);
    assert_eq!(v["results"][0]["message"].as_str(), Some("earlier"));
    assert_eq!(v["results"][1]["message"].as_str(), Some("later"));
}

#[test]
fn results_about_items_whose_names_need_decoding() {
    // The name is escaped and the namespace folded over two lines: both
    // are decoded into the arena, which must not disturb the output.
    let input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: \"w\\u0065b\"\n    namespace: team\n      a\n";
    let out = run(input, |list| {
        list.report(Report::error("bad").on(0)).unwrap();
    });
    assert_eq!(out.code, 1);
    let v = yaml(&out);
    assert_eq!(v["results"][0]["resourceRef"]["name"].as_str(), Some("web"));
    assert_eq!(
        v["results"][0]["resourceRef"]["namespace"].as_str(),
        Some("team a")
    );
}

#[test]
fn json_input_gets_json_style_results() {
    let input = "{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}]}";
    let out = run(input, |list| {
        list.set(0, &["metadata", "namespace"], Value::Str("ns"))
            .unwrap();
        list.report(Report::error("bad").on(0)).unwrap();
    });
    assert_eq!(out.code, 1);
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    assert_eq!(v["items"][0]["metadata"]["namespace"], "ns");
    assert_eq!(v["results"][0]["resourceRef"]["name"], "p");
}

#[test]
fn bad_input_is_one_line_on_stderr_and_nothing_on_stdout() {
    for (input, needle) in [
        (
            "a: [",
            "error: input: unterminated flow sequence at line 1, column 4",
        ),
        (
            "- just\n- a list\n",
            "not a ResourceList: the input is not a mapping",
        ),
        (
            "apiVersion: v1\nkind: List\nitems: []\n",
            "`kind` is not ResourceList at line 2",
        ),
        (
            "apiVersion: v1\nkind: ResourceList\nitems: []\n",
            "`apiVersion` is not config.kubernetes.io/*",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n",
            "`items` is not a sequence",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: Pod\n",
            "item has no apiVersion (item 0) at line 4",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n- apiVersion: v1\n",
            "item has no kind (item 1) at line 6",
        ),
        (
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- 3\n",
            "item is not a mapping",
        ),
        ("\u{0}", "NUL"),
        ("", "not a mapping"),
    ] {
        let out = run(input, |_| panic!("the function must not run"));
        assert_eq!(out.code, 1, "{input:?}");
        assert!(out.stdout.is_empty(), "{input:?}");
        assert!(out.stderr.contains(needle), "{input:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
}

#[test]
fn many_items_many_edits() {
    let mut input =
        String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in 0..1000 {
        input.push_str(&format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{i} # {i}\n  data:\n    key: \"value {i}\"\n"
        ));
    }
    let out = run(&input, |list: &mut ResourceList| {
        for i in 0..list.len() {
            list.set(i, &["metadata", "namespace"], Value::Str("prod"))
                .unwrap();
            if i % 3 == 0 {
                list.remove(i).unwrap();
            }
        }
    });
    ok(&out);
    let v = yaml(&out);
    let items = v["items"].as_sequence().unwrap();
    assert_eq!(items.len(), 666);
    assert_eq!(items[0]["metadata"]["name"].as_str(), Some("cm-1"));
    assert!(
        items
            .iter()
            .all(|i| i["metadata"]["namespace"].as_str() == Some("prod"))
    );
    assert!(
        out.stdout
            .contains("    name: cm-998 # 998\n    namespace: prod\n")
    );
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_lists_never_panic_and_edits_read_back() {
    const ALPHABET: &[u8] = b" \n\t-:#'\"{}[],|>&*!?%@`\\aZ09.\r";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0;
    for _ in 0..3000 {
        let mut bytes = LIST.as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len());
            let c = ALPHABET[rng.below(ALPHABET.len())];
            match rng.below(3) {
                0 => bytes[at] = c,
                1 => bytes.insert(at, c),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let out = run(&text, |list| {
            for i in 0..list.len() {
                let _ = list.set(i, &["metadata", "namespace"], Value::Str("prod"));
                let _ = list.set(i, &["spec", "x", "y"], Value::Yaml("a: 1\nb: [2]\n"));
                let _ = list.delete(i, &["metadata", "name"]);
                let _ = list.report(Report::warning("w").on(i).field("f"));
            }
            let _ = list.add("apiVersion: v1\nkind: Secret\n");
            if list.len() > 1 {
                let _ = list.remove(0);
            }
        });
        if out.code == 0 {
            parsed += 1;
            // What the SDK wrote, the SDK reads.
            let again = run(&out.stdout, |_| {});
            assert_eq!(again.code, 0, "{}\n--- from ---\n{text}", again.stderr);
        } else {
            // Only a list that does not load fails here: nothing written.
            assert!(out.stdout.is_empty(), "{}", out.stderr);
            assert_eq!(out.stderr.lines().count(), 1);
        }
    }
    assert!(parsed > 300, "only {parsed} mutants parsed");
}

#[test]
fn edits_of_mutated_lists_mean_what_they_say() {
    // For every mutant both readers take: setting a label and deleting a
    // field changes, as serde_norway reads the output, exactly that.
    const ALPHABET: &[u8] = b" \n-:#'\"{}[],|>aZ09.";
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut checked = 0;
    for _ in 0..3000 {
        let mut bytes = LIST.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len());
            let c = ALPHABET[rng.below(ALPHABET.len())];
            match rng.below(3) {
                0 => bytes[at] = c,
                1 => bytes.insert(at, c),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let Ok(mut want) = serde_norway::from_str::<Yaml>(&text) else {
            continue;
        };
        let mut changed = Vec::new();
        let out = run(&text, |list| {
            for i in 0..list.len() {
                let set = list.set(i, &["metadata", "labels", "team"], Value::Str("a b"));
                let deleted = list.delete(i, &["apiVersion"]);
                changed.push((i, set.is_ok(), deleted == Ok(true)));
            }
        });
        if out.code != 0 {
            continue;
        }
        for &(i, set, deleted) in &changed {
            let item = &mut want["items"][i];
            if set {
                let meta = item
                    .as_mapping_mut()
                    .unwrap()
                    .entry("metadata".into())
                    .or_insert(Yaml::Null);
                if meta.is_null() {
                    *meta = Yaml::Mapping(Default::default());
                }
                let labels = meta
                    .as_mapping_mut()
                    .unwrap()
                    .entry("labels".into())
                    .or_insert(Yaml::Null);
                if labels.is_null() {
                    *labels = Yaml::Mapping(Default::default());
                }
                labels
                    .as_mapping_mut()
                    .unwrap()
                    .insert("team".into(), "a b".into());
            }
            if deleted {
                item.as_mapping_mut().unwrap().remove("apiVersion");
            }
        }
        let got: Yaml = serde_norway::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}:\n{}\n--- from ---\n{text}", out.stdout));
        assert_eq!(got, want, "output:\n{}\n--- from ---\n{text}", out.stdout);
        checked += 1;
    }
    assert!(checked > 300, "only {checked} mutants checked");
}

#[test]
fn paths_join_and_print_dotted() {
    use kguest_krm::{Path, field_path, workload};
    assert_eq!(field_path(&[]).as_str(), "");
    assert_eq!(
        field_path(&["metadata", "labels", "app"]).as_str(),
        "metadata.labels.app"
    );
    assert_eq!(
        field_path(&["items", "0", "1", "x"]).as_str(),
        "items[0][1].x"
    );
    let template = workload::pod_template_path("batch", "CronJob").unwrap();
    let p = Path::<8>::new(template)
        .extend(&["spec", "containers"])
        .push("2");
    assert_eq!(
        p.field().as_str(),
        "spec.jobTemplate.spec.template.spec.containers[2]"
    );
    let full = Path::<2>::new(&["a", "b"]).push("c");
    assert!(full.overflowed());
    assert!(full.as_slice().is_empty());

    // A path from a Path edits like the array it holds; an overflowed one
    // is refused.
    let mut got = (None, None);
    let out = run(LIST, |list| {
        let p = Path::<4>::new(&["metadata"]).push("labels").push("team");
        got.0 = Some(list.set(1, p.as_slice(), Value::Str("x")));
        got.1 = Some(list.set(1, full.as_slice(), Value::Str("x")));
    });
    assert_eq!(got.0, Some(Ok(())));
    assert_eq!(got.1, Some(Err(EditError::EmptyPath)));
    assert!(
        out.stdout
            .contains("metadata: {name: gadget, namespace: tools, labels: {team: x}}"),
        "{}",
        out.stdout
    );
}

/// An `Item` taken before an edit still reads the old text.
#[test]
fn items_are_snapshots() {
    let mut seen = (None, None);
    run(LIST, |list| {
        let before = list.item(0).unwrap();
        list.set(0, &["metadata", "name"], Value::Str("api"))
            .unwrap();
        seen = (
            before.name().map(str::to_string),
            list.item(0).unwrap().name().map(str::to_string),
        );
    });
    assert_eq!(seen, (Some("web".to_string()), Some("api".to_string())));
}
