//! Upstream's compatibility test, as Kubernetes runs it on its own types
//! (`k8s.io/api`'s roundtrip test): the fixtures of older releases
//! (`testdata/v1.34.0`, `v1.35.0`, `v1.36.0` in the k8s.io/api v0.37.2
//! module, the three releases before it) must be read by the current API and written back identically, or
//! as the `<name>.after_roundtrip.<ext>` beside them says (fields the
//! current release dropped). kguest reads each fixture the way an API
//! server of 1.37 would (unknown JSON fields dropped as Go's decoder drops
//! them, unknown protobuf fields skipped) and writes it again:
//! - `.pb`: views -> JSON -> protobuf, byte-exact against Go's bytes;
//! - `.json`: JSON -> protobuf -> views -> JSON, indented as upstream's
//!   fixtures are (two spaces, Go's field order), byte-exact;
//! - `.yaml`: YAML -> protobuf -> views -> kubectl's YAML (sorted keys),
//!   byte-exact.
//!
//! Kinds that 1.37 no longer serves are counted apart: each must be
//! refused with a one-line "unknown apiVersion" error.
//!
//! The fixtures come from the Go module cache: `cargo xtask test` sets
//! `KGUEST_K8S_API_DIR` to the k8s.io/api module directory of the pinned release (v0.37.2).

use kguest_json::{FieldValidation, Style};
use kguest_k8s::envelope;
use kguest_k8s_io::json::{
    object_from_json_text, schema_by_type_name, schema_for_api_version, write_object,
};
use kguest_k8s_io::load::Loader;
use kguest_test_support::diff::byte_difference_in_text;
use kguest_test_support::vendor;

const RELEASES: &[&str] = &["v1.34.0", "v1.35.0", "v1.36.0"];

/// What reading and writing one fixture file gave.
enum Outcome {
    Same,
    /// The kind is not in 1.37 and was refused with this error.
    Removed(String),
    Differs(String),
}

/// Go's `json.Indent(dst, src, "", "  ")` of compact JSON text.
fn indent(compact: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', 2 * depth));
    };
    let mut i = 0;
    while i < compact.len() {
        let c = compact[i];
        i += 1;
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                out.push(c);
            }
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                out.push(c);
                if compact.get(i) == Some(&close) {
                    out.push(close);
                    i += 1;
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            b',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(c),
        }
    }
    out
}

/// Whether the fixture's JSON carries no `apiVersion`/`kind` of its own
/// (a watch event: `{"type": .., "object": ..}`).
fn untyped(name: &str) -> bool {
    name.ends_with(".WatchEvent")
}

/// The objects of JSON or YAML text, read as a 1.37 API server reads them.
/// An object without `apiVersion` (a `WatchEvent`) is read as the type its
/// file is named for.
fn load(name: &str, text: &str) -> Result<kguest_k8s_io::load::LoadedObject, String> {
    let mut objects = Loader::new(name, text).field_validation(FieldValidation::Ignore);
    if untyped(name) {
        let schema = schema_by_type_name(name).ok_or_else(|| format!("{name}: no such type"))?;
        objects = objects.with_schema(schema);
    }
    let object = objects
        .next()
        .ok_or_else(|| format!("{name}: no object"))?
        .map_err(|err| err.to_string())?;
    if objects.next().is_some() {
        return Err(format!("{name}: more than one object"));
    }
    Ok(object)
}

/// The object as kguest's views write it (compact JSON, Go's field order).
fn json_of(name: &str, api_version: &str, kind: &str, raw: &[u8]) -> Result<Vec<u8>, String> {
    let schema = match (api_version, kind) {
        _ if untyped(name) => schema_by_type_name(name),
        _ => schema_for_api_version(api_version, kind),
    }
    .ok_or_else(|| format!("unknown apiVersion `{api_version}` / kind `{kind}`"))?;
    let mut out = Vec::new();
    write_object(api_version, kind, schema, raw, Style::Compact, &mut out)
        .map_err(|err| format!("views -> JSON: {err}"))?;
    Ok(out)
}

fn round_trip(name: &str, ext: &str, input: &[u8]) -> Result<Vec<u8>, String> {
    match ext {
        "pb" => {
            let env = envelope::unwrap(input).map_err(|err| err.as_str().to_string())?;
            let json = json_of(name, env.api_version, env.kind, env.raw)?;
            let text = std::str::from_utf8(&json).map_err(|err| err.to_string())?;
            if untyped(name) {
                let object = load(name, text)?;
                return Ok(envelope::wrap(env.api_version, env.kind, &object.raw));
            }
            let object = object_from_json_text(text).map_err(|err| format!("JSON -> pb: {err}"))?;
            Ok(object.enveloped())
        }
        "json" | "yaml" => {
            let text = std::str::from_utf8(input).map_err(|err| err.to_string())?;
            let object = load(name, text)?;
            let json = json_of(name, &object.api_version, &object.kind, &object.raw)?;
            if ext == "json" {
                return Ok(indent(&json));
            }
            let text = std::str::from_utf8(&json).map_err(|err| err.to_string())?;
            kguest_k8s_io::kubectl_yaml::to_kubectl_yaml(text)
                .map(String::into_bytes)
                .map_err(|err| format!("JSON -> YAML: {err}"))
        }
        other => Err(format!("unexpected extension {other}")),
    }
}

fn check(dir: &std::path::Path, name: &str, ext: &str) -> Outcome {
    let read = |file: String| std::fs::read(dir.join(&file)).ok();
    let input = read(format!("{name}.{ext}")).expect("listed fixture exists");
    let expected = read(format!("{name}.after_roundtrip.{ext}")).unwrap_or_else(|| input.clone());
    match round_trip(name, ext, &input) {
        Ok(ours) if ours == expected => Outcome::Same,
        Ok(ours) => Outcome::Differs(byte_difference_in_text(&ours, &expected, "Go")),
        Err(err) if err.contains("unknown apiVersion") => Outcome::Removed(err),
        Err(err) => Outcome::Differs(err),
    }
}

#[test]
fn older_releases_fixtures_round_trip_as_go() {
    let root = vendor::k8s_api_dir().join("testdata");
    let (mut same, mut total, mut removed) = (0usize, 0usize, Vec::new());
    let mut failures = Vec::new();
    let mut per_ext: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for release in RELEASES {
        let dir = root.join(release);
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|f| !f.contains(".after_roundtrip."))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no fixtures in {}", dir.display());
        for file in files {
            let Some((name, ext)) = file.rsplit_once('.') else {
                continue;
            };
            let ext: &'static str = match ext {
                "pb" => "pb",
                "json" => "json",
                "yaml" => "yaml",
                _ => continue,
            };
            match check(&dir, name, ext) {
                Outcome::Same => {
                    same += 1;
                    total += 1;
                    let e = per_ext.entry(ext).or_default();
                    e.0 += 1;
                    e.1 += 1;
                }
                Outcome::Removed(err) => {
                    if err.contains('\n') {
                        failures.push(format!(
                            "{release}/{file}: a removed kind's error spans lines: {err}"
                        ));
                    }
                    removed.push(format!("{release}/{file}"));
                }
                Outcome::Differs(why) => {
                    total += 1;
                    per_ext.entry(ext).or_default().1 += 1;
                    failures.push(format!("{release}/{file}: {why}"));
                }
            }
        }
    }
    let by_ext: Vec<String> = per_ext
        .iter()
        .map(|(ext, (s, t))| format!("{ext} {s}/{t}"))
        .collect();
    println!(
        "compatibility: {same}/{total} fixtures as Go (v1.34.0..v1.36.0; {}), {} of kinds 1.37 removed refused in one line",
        by_ext.join(", "),
        removed.len()
    );
    assert!(
        failures.is_empty(),
        "{} fixture(s) do not round-trip as Go:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn indent_matches_go() {
    assert_eq!(
        indent(br#"{"a":[1,{"b":"x,\"y\":{"}],"c":{},"d":[]}"#),
        b"{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x,\\\"y\\\":{\"\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}"
    );
}
