//! What the generator refuses, and the cases it must either handle or
//! refuse with a clear error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use kguest_codegen::Error;

use crate::util::{config, generate_inline, generate_inline_with};

fn proto3(package: &str, body: &str) -> String {
    format!("syntax = \"proto3\";\npackage {package};\n{body}\n")
}

fn name_clash(result: Result<BTreeMap<PathBuf, String>, Error>) -> String {
    match result {
        Err(Error::NameClash(msg)) => msg,
        Err(other) => panic!("expected a name clash, got {other:?}"),
        Ok(files) => panic!("expected a name clash, got {} files", files.len()),
    }
}

#[test]
fn groups_are_unsupported() {
    let source = "syntax = \"proto2\";\npackage kt.g;\n\
                  message Msg {\n  optional int32 a = 1;\n  optional group Foo = 2 { optional int32 b = 3; }\n}\n";
    let err = generate_inline(&[("g.proto", source)]).unwrap_err();
    let Error::Unsupported {
        message,
        field,
        what,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (message.as_str(), field.as_str(), what.as_str()),
        ("kt.g.Msg", "foo", "groups")
    );
    assert_eq!(err.to_string(), "kt.g.Msg.foo: groups are not supported");
}

#[test]
fn a_field_clashing_with_a_raw_bytes_accessor() {
    let source = proto3(
        "kt.n",
        "message Msg { string name = 1; string name_bytes = 2; }",
    );
    let msg = name_clash(generate_inline(&[("n.proto", &source)]));
    assert_eq!(
        msg,
        "kt.n.Msg: fields name and name_bytes both map to name_bytes"
    );

    // Not a clash when `name_bytes` is not itself a singular string.
    let source = proto3(
        "kt.n",
        "message Msg { repeated string name = 1; string name_bytes = 2; }",
    );
    assert!(generate_inline(&[("n.proto", &source)]).is_ok());
}

#[test]
fn fields_with_the_same_snake_case_name() {
    // protox already rejects these unless they are proto2 with distinct JSON names.
    let clash = |a: &str, b: &str| {
        let source = format!(
            "syntax = \"proto2\";\npackage kt.n;\nmessage Msg {{\n  \
             repeated string {a} = 1 [json_name = \"a\"];\n  \
             repeated string {b} = 2 [json_name = \"b\"];\n}}\n"
        );
        name_clash(generate_inline(&[("n.proto", &source)]))
    };
    assert_eq!(
        clash("fooBar", "foo_bar"),
        "kt.n.Msg: fields fooBar and foo_bar both map to foo_bar"
    );
    // Plural acronyms fold: `podIPs` is `pod_ips`.
    assert_eq!(
        clash("podIPs", "pod_ips"),
        "kt.n.Msg: fields podIPs and pod_ips both map to pod_ips"
    );
}

#[test]
fn fields_named_like_view_methods() {
    for name in ["validate", "as_bytes", "from_bytes", "read"] {
        let source = proto3("kt.n", &format!("message Msg {{ int32 {name} = 1; }}"));
        let msg = name_clash(generate_inline(&[("n.proto", &source)]));
        assert_eq!(
            msg,
            format!("kt.n.Msg.{name} maps to the reserved method {name}")
        );
    }
    // A string `from` would get a raw accessor `from_bytes`.
    let source = proto3("kt.n", "message Msg { string from = 1; }");
    let msg = name_clash(generate_inline(&[("n.proto", &source)]));
    assert_eq!(msg, "kt.n.Msg.from maps to the reserved method from_bytes");
}

#[test]
fn a_field_named_like_the_schema_constant() {
    // Its field constant `SCHEMA` would shadow `View::SCHEMA`.
    let source = proto3("kt.n", "message Msg { int32 schema = 1; }");
    let msg = name_clash(generate_inline(&[("n.proto", &source)]));
    assert_eq!(msg, "kt.n.Msg.schema maps to the reserved constant SCHEMA");
}

#[test]
fn messages_with_the_same_schema_static() {
    let source = proto3("kt.n", "message Foo { message Bar {} }\nmessage FooBar {}");
    let msg = name_clash(generate_inline(&[("n.proto", &source)]));
    assert_eq!(
        msg,
        "kt.n.Foo.Bar and kt.n.FooBar both map to the static FOO_BAR"
    );
}

#[test]
fn compile_errors_name_the_file() {
    let cases = [
        (
            "syntax = \"proto3\";\nmessage Msg { int32 a = 1 }\n",
            "bad.proto",
        ),
        (
            "syntax = \"proto3\";\nmessage Msg { Missing m = 1; }\n",
            "Missing",
        ),
        (
            "syntax = \"proto3\";\nimport \"nowhere.proto\";\n",
            "nowhere.proto",
        ),
    ];
    for (source, needle) in cases {
        match generate_inline(&[("bad.proto", source)]) {
            Err(Error::Compile(msg)) => assert!(msg.contains(needle), "{msg}"),
            other => panic!("expected a compile error, got {other:?}"),
        }
    }
    let mut config = config();
    config.file("kt/not-there.proto");
    assert!(matches!(config.generate(), Err(Error::Compile(_))));
}

// --- Output that would not compile ------------------------------------------

/// Names defined twice in one module's type namespace (modules, types and
/// `use` imports), the cause of E0428/E0255. A static check on the parsed
/// output, standing in for compiling it.
fn duplicate_names(files: &BTreeMap<PathBuf, String>) -> Vec<String> {
    fn scope(path: &str, items: &[syn::Item], out: &mut Vec<String>) {
        let mut names = Vec::new();
        let mut inline_mods = Vec::new();
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    names.push(m.ident.to_string());
                    if let Some((_, inner)) = &m.content {
                        inline_mods.push((format!("{path}::{}", m.ident), inner));
                    }
                }
                syn::Item::Struct(s) => names.push(s.ident.to_string()),
                syn::Item::Enum(e) => names.push(e.ident.to_string()),
                syn::Item::Type(t) => names.push(t.ident.to_string()),
                syn::Item::Trait(t) => names.push(t.ident.to_string()),
                syn::Item::Use(u) => use_names(&u.tree, &mut names),
                _ => {}
            }
        }
        let mut seen = BTreeSet::new();
        for name in names {
            if !seen.insert(name.clone()) {
                out.push(format!("{path}::{name}"));
            }
        }
        for (path, inner) in inline_mods {
            scope(&path, inner, out);
        }
    }
    fn use_names(tree: &syn::UseTree, out: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => use_names(&p.tree, out),
            syn::UseTree::Name(n) => out.push(n.ident.to_string()),
            syn::UseTree::Rename(r) => out.push(r.rename.to_string()),
            syn::UseTree::Glob(_) => {}
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
        }
    }
    let mut out = Vec::new();
    for (path, contents) in files {
        let file = syn::parse_file(contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        scope(&path.display().to_string(), &file.items, &mut out);
    }
    out
}

#[test]
fn the_duplicate_name_check_works() {
    let files: BTreeMap<PathBuf, String> = [(
        PathBuf::from("x.rs"),
        "use a::{Map, b as C};\npub struct Map;\nmod m { pub mod n {} pub mod n {} }\nmod C {}\n"
            .to_string(),
    )]
    .into();
    assert_eq!(
        duplicate_names(&files),
        ["x.rs::Map", "x.rs::C", "x.rs::m::n"]
    );
    assert_eq!(
        duplicate_names(&config().generate().unwrap()),
        Vec::<String>::new()
    );
}

/// What is wrong with the result, if anything: refusing with a name clash
/// is fine; otherwise the output must not define a name twice.
fn clash_problem(result: Result<BTreeMap<PathBuf, String>, Error>) -> Option<String> {
    match result {
        Err(Error::NameClash(_)) => None,
        Err(other) => Some(format!("unexpected error {other:?}")),
        Ok(files) => {
            let duplicates = duplicate_names(&files);
            (!duplicates.is_empty()).then(|| format!("defined twice: {duplicates:?}"))
        }
    }
}

fn assert_clash_free(result: Result<BTreeMap<PathBuf, String>, Error>) {
    assert_eq!(clash_problem(result), None);
}

#[test]

fn messages_nested_two_levels_deep() {
    let source = proto3(
        "kt.d",
        "message Outer { Mid mid = 1; message Mid { Inner inner = 1; message Inner { string x = 1; } } }",
    );
    assert_clash_free(generate_inline(&[("d.proto", &source)]));
}

#[test]

fn nested_types_module_named_like_a_child_package() {
    let parent = proto3(
        "kt.q",
        "message C { Nested n = 1; message Nested { int32 a = 1; } }",
    );
    let child = proto3("kt.q.c", "message Leaf { int32 a = 1; }");
    assert_clash_free(generate_inline(&[
        ("q.proto", &parent),
        ("q/c.proto", &child),
    ]));
}

#[test]

fn messages_named_like_runtime_imports() {
    let mut problems = Vec::new();
    for (package, body) in [
        ("kt.m1", "message Map { int32 a = 1; }"),
        ("kt.m2", "message View { int32 a = 1; }"),
        ("kt.m3", "message Repeated { int32 a = 1; }"),
        ("kt.m4", "message MessageSchema { int32 a = 1; }"),
        // Nested types live in a module named after the parent.
        (
            "kt.m5",
            "message Codec { Inner i = 1; message Inner { int32 b = 1; } }",
        ),
        (
            "kt.m6",
            "message Rt { Inner i = 1; message Inner { int32 b = 1; } }",
        ),
    ] {
        let source = proto3(package, body);
        problems.extend(clash_problem(generate_inline(&[("m.proto", &source)])));
    }
    // A package component named `rt` or `codec` below a package with messages.
    let parent = proto3("kt.p", "message Msg { int32 a = 1; }");
    let child = proto3("kt.p.rt", "message Leaf { int32 a = 1; }");
    problems.extend(clash_problem(generate_inline(&[
        ("p.proto", &parent),
        ("p/rt.proto", &child),
    ])));
    assert_eq!(problems, Vec::<String>::new());
}

#[test]

fn files_without_a_package() {
    let loose = "syntax = \"proto3\";\nmessage Loose { int32 a = 1; }\n";
    let user = "syntax = \"proto3\";\npackage kt.u;\nimport \"loose.proto\";\nmessage User { Loose loose = 1; }\n";
    let mut problems = Vec::new();
    for protos in [
        vec![("loose.proto", loose)],
        vec![("loose.proto", loose), ("user.proto", user)],
    ] {
        match generate_inline(&protos) {
            // Refusing is fine, as long as it is not reported as a generator bug.
            Err(Error::Emit(msg)) => problems.push(format!("Error::Emit({msg:?})")),
            Err(_) => {}
            Ok(files) if !files.values().any(|f| f.contains("pub struct Loose<'a>")) => {
                problems.push(format!(
                    "Loose is not generated: {:?}",
                    files.keys().collect::<Vec<_>>()
                ));
            }
            Ok(_) => {}
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

#[test]

fn strip_package_prefix_matches_whole_components() {
    let mut config = kguest_codegen::Config::new();
    config
        .include(crate::util::manifest_path("tests/protos"))
        .file("kt/ab.proto")
        .strip_package_prefix("kt.a");
    let files = config.generate().unwrap();
    let paths: Vec<String> = files.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(paths, ["kt/ab/mod.rs", "kt/ab/schema.rs", "kt/mod.rs"]);
}

#[test]
fn strip_package_prefix() {
    let mut config = kguest_codegen::Config::new();
    config
        .include(crate::util::manifest_path("tests/protos"))
        .file("kt/ab.proto")
        .strip_package_prefix("kt");
    let files = config.generate().unwrap();
    let paths: Vec<String> = files.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(paths, ["ab/mod.rs", "ab/schema.rs"]);
    assert!(files[&PathBuf::from("ab/mod.rs")].contains("crate::ab::schema::GroupVersion<'a>"));
}

#[test]
fn registry_carries_known_api_groups_and_refuses_an_unknown_one() {
    let known = proto3("k8s.io.api.rbac.v1", "message Role { string a = 1; }");
    let with_registry = |c: &mut kguest_codegen::Config| {
        c.registry(true);
    };
    let files = generate_inline_with(
        &[("k8s.io/api/rbac/v1/generated.proto", &known)],
        with_registry,
    )
    .unwrap();
    let registry = &files[&PathBuf::from("registry.rs")];
    assert!(
        registry.contains("(\"rbac\", \"rbac.authorization.k8s.io\")"),
        "{registry}"
    );

    let unknown = proto3("k8s.io.api.frobnicate.v1", "message Frob { string a = 1; }");
    let err = generate_inline_with(
        &[("k8s.io/api/frobnicate/v1/generated.proto", &unknown)],
        with_registry,
    )
    .unwrap_err();
    assert!(matches!(err, Error::UnknownApiGroup(_)), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with("k8s.io.api.frobnicate.v1: ") && text.contains("groups.rs"),
        "{text}"
    );
}
