//! The reader: node kinds, scalar values, errors with positions, and a
//! differential check against serde_norway on every upstream YAML and JSON
//! fixture and a corpus of YAML corner cases.

use kguest_krm::{Kind, Node, Style};
use serde_norway::Value;

use super::{arena, parse};

/// The reader's tree as a serde_norway value: plain scalars resolved the
/// way serde_norway resolves them, everything else a string.
fn tree(n: Node<'_>) -> Value {
    match n.kind() {
        Kind::Null => Value::Null,
        Kind::Scalar => {
            let s = n.as_str().expect("scalar value");
            if n.style() == Style::Plain && !n.source().contains('\n') {
                // Typed the way serde_norway types a plain scalar alone;
                // anything that is not null, a bool or a number is a string.
                match serde_norway::from_str::<Value>(s) {
                    Ok(v @ (Value::Bool(_) | Value::Number(_))) => v,
                    Ok(Value::Null) if matches!(s, "null" | "Null" | "NULL" | "~") => Value::Null,
                    _ => Value::String(s.into()),
                }
            } else {
                Value::String(s.into())
            }
        }
        Kind::Map => Value::Mapping(n.entries().map(|(k, v)| (tree(k), tree(v))).collect()),
        Kind::Seq => Value::Sequence(n.iter().map(tree).collect()),
        Kind::Alias => panic!("alias"),
    }
}

fn same_as_serde(text: &str) {
    let a = arena();
    let ours = tree(parse(&a, text));
    let theirs: Value =
        serde_norway::from_str(text).unwrap_or_else(|e| panic!("serde_norway: {e}: {text}"));
    assert_eq!(ours, theirs, "in:\n{text}");
}

/// Corner cases, each read as serde_norway reads it.
const CORPUS: &[&str] = &[
    "a: 1\nb: two\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "# comment\n---\na: 1 # trailing\n# between\nb: 2\n...\n",
    "list:\n- a\n- b\nnext: 1\n",
    "list:\n  - a\n  -   b\n  -\n    c: d\n",
    "- a: 1\n  b: 2\n- - x\n  - y\n- \n- last\n",
    "a: 'single ''quoted'''\nb: \"double \\\"q\\\" \\n \\t \\u00e9 \\U0001F600 \\x41\"\n",
    "a: plain text\n  continued here\n\n  after blank\nb: 1\n",
    "a: \"multi\n  line\n\n  quoted\"\nb: 'also\n  single'\n",
    "lit: |\n  line 1\n    indented\n\n  line 3\nkeep: |+\n  x\n\nstrip: |-\n  y\nz: 1\n",
    "fold: >\n  a\n  b\n\n  c\n    more\n  d\nafter: x\n",
    "explicit: |2\n    two extra\n  base\n",
    "flow: {a: 1, b: [x, y, {c: d}], 'e': \"f\"}\nseq: [1, 2.5, true, null, ~]\n",
    "json: {\"a\": 1, \"b\": [\"x\"], \"c\": {}}\nempty: []\n",
    "multi: [a,\n  b,\n  c]\n",
    "anchors: &x value\nafter: 1\n",
    "\"quoted key\": 1\n'single key': 2\nkey with spaces: 3\n",
    "url: http://example.com:8080/path\ncolon:in: plain\n",
    "empty:\nnull: ~\nafter: 1\n",
    "a:\n- b:\n  - c\n  - d\n  e: f\n",
    "k: v # comment\n# c\n   # indented comment\nk2: v2\n",
    "a: \"\\\n  joined\"\n",
    "annotations:\n  config.kubernetes.io/index: '0'\n  internal.config.kubernetes.io/path: 'a/b.yaml'\n",
    "- {a: 1}\n- [x]\n- 'q'\n",
    "top: |\n  # not a comment\n  text\n",
    "crlf: 1\r\nnext: two\r\n",
    "trailing: spaces   \nnext: 1   \n",
    "dash: -1\nneg: -x\nweird: a-b\n",
    "[1, 2, 3]\n",
    "just a scalar\n",
];

#[test]
fn corpus_reads_like_serde_norway() {
    for text in CORPUS {
        same_as_serde(text);
    }
}

fn fixtures(ext: &str) -> Vec<(String, String)> {
    let dir = std::env::var_os("KGUEST_VENDOR_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(
                std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
            )
            .join("../../proto-vendor")
        })
        .join("testdata");
    assert!(
        dir.is_dir(),
        "{} is missing: run `cargo xtask vendor` first",
        dir.display()
    );
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("read testdata")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == ext).then(|| {
                let text = std::fs::read_to_string(&p).expect("fixture text");
                (p.file_name().unwrap().to_string_lossy().into_owned(), text)
            })
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_upstream_yaml_fixture_reads_like_serde_norway() {
    let all = fixtures("yaml");
    assert!(all.len() > 150, "only {} YAML fixtures", all.len());
    for (name, text) in &all {
        let a = arena();
        let doc = kguest_krm::yaml::parse(&a, text.as_bytes(), 0)
            .unwrap_or_else(|e| panic!("{name}: {} at {}", e.what, e.at));
        let theirs: Value = serde_norway::from_str(text).expect("serde_norway");
        assert_eq!(tree(doc.root(&a)), theirs, "{name}");
    }
}

#[test]
fn every_upstream_json_fixture_reads_like_serde_norway() {
    let all = fixtures("json");
    assert!(all.len() > 150, "only {} JSON fixtures", all.len());
    for (name, text) in &all {
        let a = arena();
        let doc = kguest_krm::yaml::parse(&a, text.as_bytes(), 0)
            .unwrap_or_else(|e| panic!("{name}: {} at {}", e.what, e.at));
        let theirs: Value = serde_norway::from_str(text).expect("serde_norway");
        assert_eq!(tree(doc.root(&a)), theirs, "{name}");
    }
}

#[test]
fn node_accessors() {
    let a = arena();
    let root = parse(
        &a,
        "metadata:\n  name: web # c\n  labels: {app: web}\nspec:\n  containers:\n  - name: a\n    image: \"nginx:1\"\n  - name: b\nn: 42\nt: true\n",
    );
    assert_eq!(root.kind(), Kind::Map);
    assert_eq!(root.len(), 4);
    assert_eq!(
        root.path(&["metadata", "name"]).and_then(|n| n.as_str()),
        Some("web")
    );
    assert_eq!(
        root.path(&["metadata", "labels", "app"])
            .and_then(|n| n.as_str()),
        Some("web")
    );
    assert_eq!(
        root.path(&["spec", "containers", "0", "image"])
            .and_then(|n| n.as_str()),
        Some("nginx:1")
    );
    assert_eq!(
        root.path(&["spec", "containers", "1", "name"])
            .and_then(|n| n.as_str()),
        Some("b")
    );
    assert!(root.path(&["spec", "containers", "2"]).is_none());
    assert!(root.path(&["spec", "containers", "x"]).is_none());
    assert_eq!(root.get("n").and_then(|n| n.as_i64()), Some(42));
    assert_eq!(root.get("t").and_then(|n| n.as_bool()), Some(true));
    assert_eq!(root.path(&["spec", "containers"]).map(|n| n.len()), Some(2));
    assert_eq!(
        root.path(&["metadata", "name"]).map(|n| n.source()),
        Some("web")
    );
    assert!(root.get("missing").is_none());
    assert!(
        root.get("n").unwrap().get("x").is_none(),
        "a scalar has no keys"
    );
}

fn parse_error(text: &str) -> (String, u32) {
    let a = arena();
    match kguest_krm::yaml::parse(&a, text.as_bytes(), 0) {
        Ok(_) => panic!("accepted: {text:?}"),
        Err(e) => (e.what.to_string(), e.at),
    }
}

#[test]
fn malformed_yaml_names_the_problem_and_place() {
    let cases: &[(&str, &str, u32)] = &[
        ("a: 1\n\tb: 2\n", "tab in indentation", 5),
        (
            "a:\n    b: 1\n  c: 2\n",
            "bad indentation (deeper than the mapping's keys)",
            14,
        ),
        ("a: 1\n  b: 2\n", "bad indentation of a mapping entry", 7),
        ("a: \"open\n", "unterminated quoted string", 3),
        ("a: [1, 2\n", "unterminated flow sequence", 3),
        ("a: {x: 1\n", "unterminated flow mapping", 3),
        ("? complex\n: value\n", "complex mapping keys", 0),
        (
            "a: b: c\n",
            "a mapping cannot start on the line of its key",
            4,
        ),
        (
            "a: 1\n- b\n",
            "a sequence entry where a mapping key was expected",
            5,
        ),
        ("a: 1\n---\nb: 2\n", "more than one YAML document", 9),
        ("a: {x: 1 y: 2}\n", "expected `,` or `}`", 10),
        ("- a\n  b: 1\n", "bad indentation of a mapping entry", 6),
        ("a: \"x\" y\n", "unexpected text after a value", 7),
        ("a: @x\n", "reserved character", 3),
    ];
    for (text, what, at) in cases {
        let (got, pos) = parse_error(text);
        assert!(got.contains(what), "{text:?}: {got:?} lacks {what:?}");
        assert_eq!(pos, *at, "{text:?}: {got}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = "[".repeat(10_000);
    assert_eq!(parse_error(&text).0, "nesting too deep");
    let mut block = String::new();
    for i in 0..300 {
        block.push_str(&" ".repeat(i));
        block.push_str("a:\n");
    }
    assert_eq!(parse_error(&block).0, "nesting too deep");
}

#[test]
fn arena_exhaustion_is_an_error() {
    let a = kguest_krm::Arena::with_capacity(64);
    let err = kguest_krm::yaml::parse(&a, b"a: [1, 2, 3, 4, 5, 6, 7, 8]\n", 0).unwrap_err();
    assert_eq!(err.what, "out of memory");
}

#[test]
fn truncated_inputs_never_panic() {
    // Every prefix of a document with every construct: an error or a tree,
    // never a panic.
    let text = CORPUS.concat();
    let full = "a: |\n  lit\nb: >-\n  f\nc: {x: [1, 'q', \"d\\n\"]}\nd:\n- e: 1\n  f: &a 2\n- *a\n";
    for t in [text.as_str(), full] {
        for cut in 0..t.len() {
            if !t.is_char_boundary(cut) {
                continue;
            }
            let a = arena();
            if let Ok(doc) = kguest_krm::yaml::parse(&a, &t.as_bytes()[..cut], 0) {
                let _ = walk(doc.root(&a));
            }
        }
    }
}

fn walk(n: Node<'_>) -> usize {
    match n.kind() {
        Kind::Map => n.entries().map(|(k, v)| walk(k) + walk(v)).sum(),
        Kind::Seq => n.iter().map(walk).sum(),
        _ => usize::from(n.as_str().is_some()),
    }
}

#[test]
fn mutants_read_like_serde_norway_when_both_accept() {
    const ALPHABET: &[u8] = b" \n-:#'\"{}[],|>&aZ09.\t?%@\\";
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let mut compared = 0;
    for round in 0..8000 {
        let base = CORPUS[round % CORPUS.len()];
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..1 + rnd(3) {
            let at = rnd(bytes.len());
            let c = ALPHABET[rnd(ALPHABET.len())];
            match rnd(3) {
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
        let Ok(theirs) = serde_norway::from_str::<Value>(&text) else {
            continue;
        };
        let a = arena();
        let Ok(doc) = kguest_krm::yaml::parse(&a, text.as_bytes(), 0) else {
            continue;
        };
        if has_alias_or_tag(&text) {
            continue;
        }
        assert_eq!(tree(doc.root(&a)), theirs, "in:\n{text:?}");
        compared += 1;
    }
    assert!(compared > 1000, "only {compared} mutants compared");
}

fn has_alias_or_tag(text: &str) -> bool {
    text.contains('*') || text.contains('!') || text.contains('&')
}
