//! Unknown fields as the API server's `fieldValidation` treats them
//! (Strict fails naming the first, Warn drops and reports each, Ignore drops
//! them as Go's decoder does), and a dump that goes on past an item it
//! cannot load under the lenient modes.

use kguest_json::FieldValidation;
use kguest_k8s_io::json::object_from_json_text;
use kguest_k8s_io::load::Loader;

const NEWER: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","shard":{"x":1}},"spec":{"workloadRef":{"name":"w"},"nodeName":"n","containers":[{"name":"c","futureField":true}]}}"#;
const KNOWN: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"nodeName":"n","containers":[{"name":"c"}]}}"#;

fn load(
    text: &str,
    mode: FieldValidation,
) -> Vec<Result<kguest_k8s_io::load::LoadedObject, String>> {
    Loader::new("in", text)
        .field_validation(mode)
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
}

#[test]
fn strict_fails_on_the_first_unknown_field() {
    let got = load(NEWER, FieldValidation::Strict);
    let [Err(err)] = got.as_slice() else {
        panic!("{got:?}")
    };
    assert_eq!(err, "in: metadata.shard: unknown field");
    assert!(
        object_from_json_text(NEWER).is_err(),
        "the default is strict"
    );
}

#[test]
fn warn_and_ignore_drop_unknown_fields() {
    let known = object_from_json_text(KNOWN).unwrap().raw;
    for mode in [FieldValidation::Warn, FieldValidation::Ignore] {
        let got = load(NEWER, mode);
        let [Ok(object)] = got.as_slice() else {
            panic!("{mode:?}: {got:?}")
        };
        assert_eq!(object.raw, known, "{mode:?}");
        let want: &[&str] = match mode {
            FieldValidation::Warn => &[
                r#"unknown field "metadata.shard""#,
                r#"unknown field "spec.workloadRef""#,
                r#"unknown field "spec.containers[0].futureField""#,
            ],
            _ => &[],
        };
        assert_eq!(object.warnings, want, "{mode:?}");
    }
}

#[test]
fn lenient_modes_go_on_past_an_item_that_fails() {
    let list = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{KNOWN},{{"apiVersion":"example.com/v1","kind":"Widget","spec":{{"a":[1,{{}}]}}}},{{"apiVersion":"v1","kind":"Pod","spec":{{"nodeName":7}}}},{KNOWN}]}}"#
    );
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n";
    for mode in [FieldValidation::Warn, FieldValidation::Ignore] {
        let got = load(&list, mode);
        let shape: Vec<bool> = got.iter().map(Result::is_ok).collect();
        assert_eq!(shape, [true, false, false, true], "{mode:?}: {got:?}");
        let Err(err) = &got[1] else { unreachable!() };
        assert!(
            err.starts_with("in, item 2: ") && err.contains("unknown apiVersion"),
            "{err}"
        );
        let Err(err) = &got[2] else { unreachable!() };
        assert!(err.starts_with("in, item 3: spec.nodeName"), "{err}");

        let got = load(yaml, mode);
        let shape: Vec<bool> = got.iter().map(Result::is_ok).collect();
        assert_eq!(
            shape,
            [true, false, true],
            "{mode:?} (YAML stream): {got:?}"
        );
    }
    // Strict stops at the first error, after the objects before it.
    let got = load(&list, FieldValidation::Strict);
    let shape: Vec<bool> = got.iter().map(Result::is_ok).collect();
    assert_eq!(shape, [true, false]);
    let got = load(yaml, FieldValidation::Strict);
    let shape: Vec<bool> = got.iter().map(Result::is_ok).collect();
    assert_eq!(shape, [true, false]);
}
