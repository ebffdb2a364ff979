use super::to_kubectl_yaml;

/// (JSON as `encoding/json` writes it, what `sigs.k8s.io/yaml.JSONToYAML`
/// v1.6.0 with go.yaml.in/yaml/v2 v2.4.3 printed for it.)
const CASES: &[(&str, &str)] = &[
    ("{\"k\":\"\"}", "k: \"\"\n"),
    ("{\"k\":\"~\"}", "k: \"~\"\n"),
    ("{\"k\":\"1\"}", "k: \"1\"\n"),
    ("{\"k\":\"true\"}", "k: \"true\"\n"),
    ("{\"k\":\"yes\"}", "k: \"yes\"\n"),
    ("{\"k\":\"no\"}", "k: \"no\"\n"),
    ("{\"k\":\"on\"}", "k: \"on\"\n"),
    ("{\"k\":\"off\"}", "k: \"off\"\n"),
    ("{\"k\":\"y\"}", "k: \"y\"\n"),
    ("{\"k\":\"N\"}", "k: \"N\"\n"),
    ("{\"k\":\"null\"}", "k: \"null\"\n"),
    ("{\"k\":\"NULL\"}", "k: \"NULL\"\n"),
    (
        "{\"k\":\"2008-01-01T01:01:01Z\"}",
        "k: \"2008-01-01T01:01:01Z\"\n",
    ),
    ("{\"k\":\"2008-01-01\"}", "k: \"2008-01-01\"\n"),
    ("{\"k\":\"2008-02-30\"}", "k: 2008-02-30\n"),
    (
        "{\"k\":\"2008-01-01T01:01:01\"}",
        "k: 2008-01-01T01:01:01\n",
    ),
    ("{\"k\":\"0x1f\"}", "k: \"0x1f\"\n"),
    ("{\"k\":\"0o17\"}", "k: \"0o17\"\n"),
    ("{\"k\":\"0b101\"}", "k: \"0b101\"\n"),
    ("{\"k\":\"0b-1\"}", "k: \"0b-1\"\n"),
    ("{\"k\":\"017\"}", "k: \"017\"\n"),
    ("{\"k\":\"08\"}", "k: \"08\"\n"),
    ("{\"k\":\".5\"}", "k: \".5\"\n"),
    ("{\"k\":\"1e3\"}", "k: \"1e3\"\n"),
    ("{\"k\":\"1e400\"}", "k: 1e400\n"),
    ("{\"k\":\"1_000\"}", "k: \"1_000\"\n"),
    ("{\"k\":\"1:20\"}", "k: \"1:20\"\n"),
    ("{\"k\":\"190:20:30.15\"}", "k: \"190:20:30.15\"\n"),
    ("{\"k\":\".inf\"}", "k: \".inf\"\n"),
    ("{\"k\":\"-.inf\"}", "k: \"-.inf\"\n"),
    ("{\"k\":\".nan\"}", "k: \".nan\"\n"),
    ("{\"k\":\"+1\"}", "k: \"+1\"\n"),
    ("{\"k\":\"-\"}", "k: '-'\n"),
    ("{\"k\":\"-a\"}", "k: -a\n"),
    ("{\"k\":\"- a\"}", "k: '- a'\n"),
    ("{\"k\":\"a: b\"}", "k: 'a: b'\n"),
    ("{\"k\":\"a:b\"}", "k: a:b\n"),
    ("{\"k\":\"a #b\"}", "k: 'a #b'\n"),
    ("{\"k\":\"a#b\"}", "k: a#b\n"),
    ("{\"k\":\"#a\"}", "k: '#a'\n"),
    ("{\"k\":\"?a\"}", "k: ?a\n"),
    ("{\"k\":\":a\"}", "k: :a\n"),
    ("{\"k\":\"a:\"}", "k: 'a:'\n"),
    ("{\"k\":\"[a\"}", "k: '[a'\n"),
    ("{\"k\":\"{a}\"}", "k: '{a}'\n"),
    ("{\"k\":\"\\u0026a\"}", "k: '&a'\n"),
    ("{\"k\":\"*a\"}", "k: '*a'\n"),
    ("{\"k\":\"!a\"}", "k: '!a'\n"),
    ("{\"k\":\"|a\"}", "k: '|a'\n"),
    ("{\"k\":\"\\u003ea\"}", "k: '>a'\n"),
    ("{\"k\":\"'a\"}", "k: '''a'\n"),
    ("{\"k\":\"\\\"a\"}", "k: '\"a'\n"),
    ("{\"k\":\"%a\"}", "k: '%a'\n"),
    ("{\"k\":\"@a\"}", "k: '@a'\n"),
    ("{\"k\":\"`a\"}", "k: '`a'\n"),
    ("{\"k\":\"it's\"}", "k: it's\n"),
    ("{\"k\":\"---\"}", "k: '---'\n"),
    ("{\"k\":\"...\"}", "k: '...'\n"),
    ("{\"k\":\" a\"}", "k: ' a'\n"),
    ("{\"k\":\"a \"}", "k: 'a '\n"),
    ("{\"k\":\"a\\tb\"}", "k: \"a\\tb\"\n"),
    ("{\"k\":\"a\\nb\"}", "k: |-\n  a\n  b\n"),
    ("{\"k\":\"a\\n\"}", "k: |\n  a\n"),
    ("{\"k\":\"a\\n\\n\"}", "k: |+\n  a\n\n"),
    ("{\"k\":\"\\n\"}", "k: |2+\n\n"),
    ("{\"k\":\" a\\nb\"}", "k: |2-\n   a\n  b\n"),
    ("{\"k\":\"a \\nb\"}", "k: \"a \\nb\"\n"),
    ("{\"k\":\"a\\n b\"}", "k: |-\n  a\n   b\n"),
    ("{\"k\":\"a\\u0007b\"}", "k: \"a\\ab\"\n"),
    ("{\"k\":\"a\u{85}b\"}", "k: a b\n"),
    ("{\"k\":\"a \u{85} b\"}", "k: a b\n"),
    ("{\"k\":\"a\u{85}\u{85}b\"}", "k: |-\n  a\n  b\n"),
    ("{\"k\":\"a b\"}", "k: a b\n"),
    ("{\"k\":\"a\\u2028b\"}", "k: 'a\u{2028}  b'\n"),
    ("{\"k\":\"\u{feff}ab\"}", "k: \"\\uFEFF\\x61\\x62\"\n"),
    ("{\"k\":\"a\u{feff}b\"}", "k: \"a\\uFEFFb\"\n"),
    ("{\"k\":\"日本語\"}", "k: 日本語\n"),
    ("{\"k\":\"a😀b\"}", "k: \"a\\U0001F600b\"\n"),
    (
        "{\"k\":\"\\u003chtml\\u003e\\u0026amp;\"}",
        "k: <html>&amp;\n",
    ),
    (
        "{\"k\":\"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\"}",
        "k: lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt\n  ut labore\n",
    ),
    (
        "{\"k\":\"'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\"}",
        "k: '''lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n  incididunt ut labore'\n",
    ),
    (
        "{\"k\":\"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\\u0007\"}",
        "k: \"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt\n  ut labore\\a\"\n",
    ),
    (
        "{\"k\":\"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod  tempor incididunt  ut labore\\u0007\"}",
        "k: \"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod  tempor\n  incididunt  ut labore\\a\"\n",
    ),
    ("{\"n\":0}", "\"n\": 0\n"),
    ("{\"n\":-0}", "\"n\": 0\n"),
    ("{\"n\":-0.0}", "\"n\": -0\n"),
    ("{\"n\":1.0}", "\"n\": 1\n"),
    ("{\"n\":1.5}", "\"n\": 1.5\n"),
    ("{\"n\":100000.0}", "\"n\": 100000\n"),
    ("{\"n\":1000000.0}", "\"n\": 1e+06\n"),
    ("{\"n\":1e21}", "\"n\": 1e+21\n"),
    ("{\"n\":0.0001}", "\"n\": 0.0001\n"),
    ("{\"n\":0.00001}", "\"n\": 1e-05\n"),
    ("{\"n\":1.2345e-7}", "\"n\": 1.2345e-07\n"),
    (
        "{\"n\":9223372036854775807}",
        "\"n\": 9223372036854775807\n",
    ),
    (
        "{\"n\":9223372036854775808}",
        "\"n\": 9223372036854775808\n",
    ),
    (
        "{\"n\":18446744073709551616}",
        "\"n\": 1.8446744073709552e+19\n",
    ),
    (
        "{\"n\":-9223372036854775809}",
        "\"n\": -9.223372036854776e+18\n",
    ),
    ("{\"n\":1e309}", "\"n\": 1e309\n"),
    ("{\"n\":123e-2}", "\"n\": 1.23\n"),
    ("{}", "{}\n"),
    ("[]", "[]\n"),
    ("null", "null\n"),
    ("\"a\"", "a\n"),
    (
        "{\"a\":{},\"b\":[],\"c\":null,\"d\":true}",
        "a: {}\nb: []\nc: null\nd: true\n",
    ),
    (
        "[[1,[2]],{\"a\":[3]},[]]",
        "- - 1\n  - - 2\n- a:\n  - 3\n- []\n",
    ),
    (
        "{\"a\":[{\"b\":1,\"c\":[{\"d\":\"x\"}]}]}",
        "a:\n- b: 1\n  c:\n  - d: x\n",
    ),
    ("{\"a\":\"x\",\"a\":\"y\"}", "a: \"y\"\n"),
    (
        "{\"a10\":1,\"a9\":1,\"a_b\":1,\"aB\":1,\"a-b\":1,\"Z\":1,\"a\":1,\"b1\":1,\"b_\":1}",
        "Z: 1\na: 1\na-b: 1\na_b: 1\na9: 1\na10: 1\naB: 1\nb_: 1\nb1: 1\n",
    ),
    ("{\"\":1}", "\"\": 1\n"),
    ("{\"a\\nb\":[1]}", "? |-\n  a\n  b\n: - 1\n"),
    (
        "{\"k\":\"a\\nb\",\"l\":\"c\\n\"}",
        "k: |-\n  a\n  b\nl: |\n  c\n",
    ),
    (
        "{\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\":1}",
        "? xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n: 1\n",
    ),
    (
        "{\"a\":{\"b\":{\"c\":\"multi\\nline\\ntext\\n\"}}}",
        "a:\n  b:\n    c: |\n      multi\n      line\n      text\n",
    ),
    (
        "[\"a\\nb\",[\"c\\nd\"]]",
        "- |-\n  a\n  b\n- - |-\n    c\n    d\n",
    ),
];

#[test]
fn prints_what_go_yaml_prints() {
    let mut failures = Vec::new();
    for &(json, expected) in CASES {
        match to_kubectl_yaml(json) {
            Ok(yaml) if yaml == expected => {}
            other => failures.push(format!("{json}\n  want {expected:?}\n  got  {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn refuses_what_go_yaml_cannot_read() {
    let long_key = format!("{{\"{}\":1}}", "x".repeat(1023));
    let escaped_key = format!("{{\"{}\\u003c\":1}}", "x".repeat(1017));
    for json in [
        // go-yaml's reader refuses DEL and C1 controls (but U+0085).
        "{\"k\":\"a\u{7f}b\"}",
        "{\"k\":[\"a\\u0090b\"]}",
        "{\"k\":\"\\uffff\"}",
        // A raw NEL in a key breaks the flow key's line.
        "{\"a\u{85}b\":1}",
        // A line starting `--- ` after a NEL ends the document.
        "{\"k\":\"a\u{85}--- b\"}",
        // A key longer than 1024 characters (quotes included) as JSON.
        &long_key,
        &escaped_key,
    ] {
        let err = to_kubectl_yaml(json).expect_err(json);
        assert!(
            matches!(err, kguest_json::JsonError::Unrepresentable { .. }),
            "{json}: {err}"
        );
    }
    let ok = format!("{{\"{}\":1}}", "x".repeat(1022));
    assert!(to_kubectl_yaml(&ok).is_ok());
}

#[test]
fn names_the_path_of_what_it_refuses() {
    let err =
        to_kubectl_yaml("{\"metadata\":{\"annotations\":{\"a\":\"\u{7f}\"}}}").expect_err("DEL");
    assert!(
        err.to_string()
            .starts_with("metadata.annotations.a: U+007F"),
        "{err}"
    );
    let err = to_kubectl_yaml("{\"a\":[1,\"\u{7f}\"]}").expect_err("DEL");
    assert!(err.to_string().starts_with("a[1]: "), "{err}");
}

#[test]
fn bad_json_is_an_error() {
    for json in ["", "{", "{\"a\":}", "[1,]", "{} {}", "nul"] {
        let err = to_kubectl_yaml(json).expect_err(json);
        assert!(
            matches!(err, kguest_json::JsonError::Syntax { .. }),
            "{json}: {err}"
        );
    }
}

#[test]
fn key_order_is_go_yaml_order_not_byte_order() {
    // Byte order would put "a10" before "a9" and "aB" before "a_b".
    let yaml = to_kubectl_yaml("{\"a10\":1,\"a9\":2,\"aB\":3,\"a_b\":4}").unwrap();
    assert_eq!(yaml, "a_b: 4\na9: 2\na10: 1\naB: 3\n");
    // `½` and `³` are numeric but not digits to Go: against a digit they
    // count as the number 0, so `½x` sorts before `3x`.
    assert!(
        super::key_order::key_less("\u{bd}x", "3x") && !super::key_order::key_less("3x", "\u{bd}x")
    );
    assert!(
        super::key_order::is_digit('\u{0967}')
            && !super::key_order::is_digit('\u{b3}')
            && !super::key_order::is_digit('\u{2160}')
    );
}
