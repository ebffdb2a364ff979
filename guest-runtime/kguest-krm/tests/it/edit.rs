//! Edits, byte for byte: `set_in_text` (whole documents) and item edits
//! through a ResourceList leave every other byte where it was.

use kguest_krm::{EditError, Value, set_in_text};

use super::arena;

fn set(text: &str, path: &[&str], value: Value<'_>) -> Result<String, EditError> {
    let a = arena();
    let out = set_in_text(&a, text.as_bytes(), path, value)?;
    Ok(String::from_utf8(out.to_vec()).expect("utf8"))
}

#[test]
fn replaces_a_scalar_keeping_its_comment() {
    let text = "a: 1 # one\nb: 2\n";
    assert_eq!(
        set(text, &["a"], Value::Int(5)).unwrap(),
        "a: 5 # one\nb: 2\n"
    );
    assert_eq!(
        set(text, &["b"], Value::Str("x y")).unwrap(),
        "a: 1 # one\nb: \"x y\"\n"
    );
}

#[test]
fn replaces_quoted_and_tagged_scalars_entirely() {
    assert_eq!(set("a: 'q'\n", &["a"], Value::Str("v")).unwrap(), "a: v\n");
    assert_eq!(
        set("a: &x 'q'\n", &["a"], Value::Str("v")).unwrap(),
        "a: v\n"
    );
    assert_eq!(
        set("a: |\n  text\nb: 1\n", &["a"], Value::Str("v")).unwrap(),
        "a: v\nb: 1\n"
    );
}

#[test]
fn adds_a_key_after_the_last_one() {
    let text = "metadata:\n  name: web # the name\n# trailing comment\nspec: {}\n";
    assert_eq!(
        set(text, &["metadata", "namespace"], Value::Str("prod")).unwrap(),
        "metadata:\n  name: web # the name\n  namespace: prod\n# trailing comment\nspec: {}\n"
    );
}

#[test]
fn creates_missing_mappings() {
    let text = "kind: Pod\nmetadata:\n  name: web\n";
    assert_eq!(
        set(
            text,
            &["metadata", "annotations", "a.b/c"],
            Value::Str("on")
        )
        .unwrap(),
        "kind: Pod\nmetadata:\n  name: web\n  annotations:\n    a.b/c: \"on\"\n"
    );
    assert_eq!(
        set(text, &["spec", "template", "x"], Value::Bool(true)).unwrap(),
        "kind: Pod\nmetadata:\n  name: web\nspec:\n  template:\n    x: true\n"
    );
}

#[test]
fn fills_empty_and_null_values() {
    assert_eq!(
        set(
            "metadata:\nspec: 1\n",
            &["metadata", "name"],
            Value::Str("web")
        )
        .unwrap(),
        "metadata:\n  name: web\nspec: 1\n"
    );
    assert_eq!(
        set("metadata: null\n", &["metadata", "name"], Value::Str("web")).unwrap(),
        "metadata:\n  name: web\n"
    );
    assert_eq!(set("a:\n", &["a"], Value::Str("web")).unwrap(), "a: web\n");
    assert_eq!(
        set("a: ~ # c\n", &["a"], Value::Int(1)).unwrap(),
        "a: 1 # c\n"
    );
}

#[test]
fn edits_flow_mappings_in_flow_style() {
    assert_eq!(
        set("labels: {a: b}\n", &["labels", "c"], Value::Str("d")).unwrap(),
        "labels: {a: b, c: d}\n"
    );
    assert_eq!(
        set("labels: {}\n", &["labels", "c"], Value::Str("d")).unwrap(),
        "labels: {c: d}\n"
    );
    assert_eq!(
        set("{\"a\": {\"b\": 1}}\n", &["a", "c", "d"], Value::Str("e")).unwrap(),
        "{\"a\": {\"b\": 1, \"c\": {\"d\": \"e\"}}}\n"
    );
    assert_eq!(
        set("{\"a\": {\"b\": 1}}", &["a", "b"], Value::Str("x")).unwrap(),
        "{\"a\": {\"b\": x}}"
    );
    // JSON stays JSON: a double-quoted string is replaced by one.
    assert_eq!(
        set("{\"a\": \"b\"}", &["a"], Value::Str("x")).unwrap(),
        "{\"a\": \"x\"}"
    );
    assert_eq!(
        set("{a: 1}\n", &["a"], Value::Yaml("x: 1\ny: 2\n")),
        Err(EditError::FlowStyle)
    );
}

#[test]
fn writes_block_values_reindented() {
    assert_eq!(
        set(
            "spec:\n  a: 1\n",
            &["spec", "b"],
            Value::Yaml("x: 1\n# c\ny: [2]\n")
        )
        .unwrap(),
        "spec:\n  a: 1\n  b:\n    x: 1\n    # c\n    y: [2]\n"
    );
    assert_eq!(
        set("spec:\n  a: 1\n", &["spec"], Value::Yaml("- x\n- y\n")).unwrap(),
        "spec:\n  - x\n  - y\n"
    );
}

#[test]
fn edits_inside_sequences() {
    let text = "containers:\n- name: a\n  image: x # pinned\n- name: b\n";
    assert_eq!(
        set(text, &["containers", "1", "image"], Value::Str("nginx")).unwrap(),
        "containers:\n- name: a\n  image: x # pinned\n- name: b\n  image: nginx\n"
    );
    assert_eq!(
        set(text, &["containers", "5", "image"], Value::Str("y")),
        Err(EditError::NoSuchIndex)
    );
    assert_eq!(
        set(text, &["containers", "0", "name", "x"], Value::Str("y")),
        Err(EditError::NotAMapping)
    );
}

#[test]
fn quotes_what_would_not_read_back() {
    for (s, written) in [
        ("plain-ok.v1/x", "plain-ok.v1/x"),
        ("yes", "\"yes\""),
        ("1.27", "\"1.27\""),
        ("", "\"\""),
        ("a: b", "\"a: b\""),
        ("#x", "\"#x\""),
        ("line\nbreak", "\"line\\nbreak\""),
        ("quote\"back\\slash", "\"quote\\\"back\\\\slash\""),
        ("émoji ✓", "\"émoji ✓\""),
    ] {
        assert_eq!(
            set("k: 0\n", &["k"], Value::Str(s)).unwrap(),
            format!("k: {written}\n")
        );
        // And it reads back as the same string.
        let out = set("k: 0\n", &["k"], Value::Str(s)).unwrap();
        let v: serde_norway::Value = serde_norway::from_str(&out).unwrap();
        assert_eq!(v["k"].as_str(), Some(s), "{out}");
    }
}

#[test]
fn a_bad_yaml_value_is_refused() {
    assert_eq!(
        set("a: 1\n", &["a"], Value::Yaml("[unclosed")),
        Err(EditError::BadYaml)
    );
    assert_eq!(set("a: 1\n", &[], Value::Int(1)), Err(EditError::EmptyPath));
}
