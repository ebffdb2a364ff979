//! Anchors and aliases: an edit changes only its target. An alias on the
//! edit's path is replaced by a copy of what it reads (the anchored item
//! stays byte for byte); an edit of an anchored node that an alias
//! elsewhere reads is refused, naming the anchor.

use kguest_krm::testing::run;
use kguest_krm::{EditError, Kind, ResourceList, Value};
use serde_norway::Value as Yaml;

use super::{arena, parse};

/// Two items sharing `metadata` through an anchor.
const SHARED: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: &m {name: a}
- apiVersion: v1
  kind: Secret
  metadata: *m
";

fn label(list: &mut ResourceList, i: usize) -> Result<(), EditError> {
    list.set(i, &["metadata", "labels", "team"], Value::Str("x"))
}

fn items(stdout: &str) -> Vec<Yaml> {
    let doc: Yaml = serde_norway::from_str(stdout).unwrap_or_else(|e| panic!("{e}:\n{stdout}"));
    doc["items"].as_sequence().expect("items").clone()
}

#[test]
fn an_alias_in_the_edited_item_is_expanded_and_the_anchor_kept() {
    let mut got = None;
    let out = run(SHARED, |list| got = Some(label(list, 1)));
    assert_eq!(got, Some(Ok(())));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        SHARED.replace(
            "  metadata: *m\n",
            "  metadata: {name: a, labels: {team: x}}\n"
        )
    );
    let items = items(&out.stdout);
    assert!(
        items[0]["metadata"].get("labels").is_none(),
        "the anchored item is unchanged"
    );
    assert_eq!(items[0]["metadata"]["name"], "a");
    assert_eq!(items[1]["metadata"]["name"], "a");
    assert_eq!(items[1]["metadata"]["labels"]["team"], "x");
}

#[test]
fn a_block_anchor_is_copied_at_the_alias_indentation() {
    let input = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: &m # shared
    name: a
    annotations:
      note: |
        two
          lines
- apiVersion: v1
  kind: Secret
  metadata: *m
";
    let mut got = None;
    let out = run(input, |list| got = Some(label(list, 1)));
    assert_eq!(got, Some(Ok(())));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (head, tail) = input.split_at(input.find("- apiVersion: v1\n  kind: Secret").unwrap());
    assert!(
        out.stdout.starts_with(head),
        "the first item is byte for byte"
    );
    assert_eq!(
        &out.stdout[head.len()..],
        tail.replace(
            "  metadata: *m\n",
            "  metadata:\n    name: a\n    annotations:\n      note: |\n        two\n          lines\n    labels:\n      team: x\n"
        )
    );
    let items = items(&out.stdout);
    assert_eq!(items[0], items[1].clone().tap_remove_labels());
    assert_eq!(
        items[1]["metadata"]["annotations"]["note"],
        "two\n  lines\n"
    );
}

/// `Yaml` less `metadata.labels` and with the first item's kind.
trait TapRemoveLabels {
    fn tap_remove_labels(self) -> Yaml;
}

impl TapRemoveLabels for Yaml {
    fn tap_remove_labels(mut self) -> Yaml {
        if let Some(m) = self.get_mut("metadata").and_then(|m| m.as_mapping_mut()) {
            m.remove("labels");
        }
        self["kind"] = Yaml::from("ConfigMap");
        self
    }
}

#[test]
fn an_edit_of_an_anchor_an_alias_reads_is_refused() {
    let mut got = None;
    let out = run(SHARED, |list| got = Some(label(list, 0)));
    let err = got.expect("ran").expect_err("refused");
    assert!(matches!(err, EditError::Aliased(_)), "{err:?}");
    assert_eq!(
        err.as_str(),
        "the edit would change `&m`, which an alias elsewhere reads"
    );
    assert_eq!(out.stdout, SHARED, "nothing changed");

    // Outside the anchored node the item is edited as usual; removing the
    // item would leave the alias without its anchor.
    let mut got = (None, None, None);
    let out = run(SHARED, |list| {
        got.0 = Some(list.set(0, &["data", "k"], Value::Str("v")));
        got.1 = Some(list.remove(0));
        got.2 = Some(list.delete(0, &["metadata", "name"]));
    });
    assert_eq!(got.0, Some(Ok(())));
    assert!(
        matches!(got.1, Some(Err(EditError::Aliased(_)))),
        "{:?}",
        got.1
    );
    assert!(
        matches!(got.2, Some(Err(EditError::Aliased(_)))),
        "{:?}",
        got.2
    );
    assert_eq!(
        out.stdout,
        SHARED.replace(
            "  metadata: &m {name: a}\n",
            "  metadata: &m {name: a}\n  data:\n    k: v\n"
        )
    );
}

/// The first hour's function: label every item. The anchored item is
/// refused while the alias reads it; once the alias is expanded (the
/// second item's own edit), it can be edited too.
#[test]
fn labelling_every_item_changes_each_item_only_through_its_own_edit() {
    let mut first = Vec::new();
    let out = run(SHARED, |list| {
        for i in 0..list.len() {
            first.push(label(list, i).map_err(|e| e.as_str().to_string()));
        }
        // Nothing reads `&m` now: the first item can take the label.
        first.push(label(list, 0).map_err(|e| e.as_str().to_string()));
    });
    assert_eq!(
        first,
        [
            Err("the edit would change `&m`, which an alias elsewhere reads".to_string()),
            Ok(()),
            Ok(()),
        ]
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items(&out.stdout);
    for item in &items {
        assert_eq!(item["metadata"]["name"], "a");
        assert_eq!(item["metadata"]["labels"]["team"], "x");
    }
}

#[test]
fn an_alias_inside_the_same_item_counts_too() {
    let input = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: example.com/v1
  kind: Pair
  spec:
    a: &x {k: v}
    b: *x
";
    let mut got = (None, None);
    let out = run(input, |list| {
        got.0 = Some(list.set(0, &["spec", "a", "k2"], Value::Int(1)));
        got.1 = Some(list.set(0, &["spec", "b", "k2"], Value::Int(2)));
    });
    assert!(
        matches!(got.0, Some(Err(EditError::Aliased(_)))),
        "{:?}",
        got.0
    );
    assert_eq!(got.1, Some(Ok(())));
    assert_eq!(
        out.stdout,
        input.replace("    b: *x\n", "    b: {k: v, k2: 2}\n")
    );
}

#[test]
fn delete_through_an_alias_and_an_alias_without_anchor() {
    let mut got = None;
    let out = run(SHARED, |list| {
        got = Some(list.delete(1, &["metadata", "name"]))
    });
    assert_eq!(got, Some(Ok(true)));
    assert_eq!(
        out.stdout,
        SHARED.replace("  metadata: *m\n", "  metadata: {}\n")
    );

    let input = SHARED.replace("  metadata: &m {name: a}\n", "  metadata: {name: a}\n");
    let mut got = None;
    let out = run(&input, |list| got = Some(label(list, 1)));
    assert_eq!(got, Some(Err(EditError::UnknownAlias)));
    assert_eq!(
        EditError::UnknownAlias.as_str(),
        "an alias on the path names no anchor before it"
    );
    assert_eq!(out.stdout, input);

    // Replacing the alias itself needs no anchor.
    let mut got = None;
    let out = run(&input, |list| {
        got = Some(list.set(1, &["metadata"], Value::Yaml("{name: b}")))
    });
    assert_eq!(got, Some(Ok(())));
    assert!(
        out.stdout
            .ends_with("  kind: Secret\n  metadata: {name: b}\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_long_anchor_name_is_cut_in_the_message() {
    let name = "n".repeat(200);
    let input = SHARED
        .replace("&m", &format!("&{name}"))
        .replace("*m", &format!("*{name}"));
    let mut got = None;
    run(&input, |list| got = Some(label(list, 0)));
    let err = got.unwrap().unwrap_err();
    assert_eq!(
        err.as_str(),
        format!(
            "the edit would change `&{}`, which an alias elsewhere reads",
            &name[..40]
        )
    );
}

#[test]
fn nodes_name_their_anchors_and_aliases() {
    let arena = arena();
    let root = parse(
        &arena,
        "a: &x 1\nb: !t &y\n  c: d\ns:\n- &z [1]\n- *z\nf: {k: &w v, l: *w}\nn: plain\n",
    );
    let anchor = |path: &[&str]| root.path(path).and_then(|n| n.anchor());
    assert_eq!(anchor(&["a"]), Some("x"));
    assert_eq!(anchor(&["b"]), Some("y"));
    assert_eq!(anchor(&["s", "0"]), Some("z"));
    assert_eq!(anchor(&["f", "k"]), Some("w"));
    assert_eq!(anchor(&["n"]), None);
    assert_eq!(anchor(&["b", "c"]), None);
    let alias = root.path(&["s", "1"]).unwrap();
    assert_eq!(alias.kind(), Kind::Alias);
    assert_eq!(alias.alias(), Some("z"));
    assert_eq!(root.path(&["f", "l"]).and_then(|n| n.alias()), Some("w"));
    assert_eq!(root.get("a").and_then(|n| n.alias()), None);
}
