//! `kguest decode`: protobuf → Kubernetes JSON (or YAML) through the views,
//! as `kubectl get -o json|yaml` prints objects.

use kguest_json::{Event, JsonError, Reader, Style};
use kguest_k8s::envelope;
use kguest_k8s_io::json::{schema_by_type_name, schema_for_api_version, write_object};
use kguest_k8s_io::stream::unframe;

use crate::{Failure, read_input};

/// Kubernetes protobuf -> JSON or YAML, as `kubectl get -o json|yaml` prints it
///
/// Kubernetes protobuf -> JSON (or YAML), through the views, as `kubectl get -o
/// json` prints objects: members sorted, Go's zero values left out where Go's
/// json tags say omitempty. The input is what the API server sends (`k8s\0` +
/// runtime.Unknown; the type is read from it; a List decodes with its items), a
/// length-framed stream written by `kguest encode` (read back as a List) or,
/// with --type, one raw message. Reads standard input without FILE or with `-`.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The message type of a raw message (or to read an envelope's object as):
    /// core.v1.Pod, apps.v1.Deployment, rbac.authorization.k8s.io.v1.Role,
    /// meta.v1.Status or a full protobuf name (k8s.io.api.core.v1.Pod)
    #[arg(short, long = "type", value_name = "TYPE", verbatim_doc_comment)]
    type_name: Option<String>,
    /// The output format.
    #[arg(short, long, value_enum, value_name = "FORMAT", default_value_t = Format::Json)]
    output: Format,
    /// The input file; `-` or none: standard input.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    file: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Json,
    Yaml,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        type_name,
        output: format,
        file,
    } = args;
    let (type_name, file) = (type_name.as_deref(), file.as_deref());
    let explicit = match type_name {
        Some(t) => Some(schema_by_type_name(t).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown type `{t}` (try core.v1.Pod or apps.v1.Deployment)"
            ))
        })?),
        None => None,
    };
    let (name, bytes) = read_input(file)?;
    let style = Style::Compact;
    let mut out = Vec::new();
    match unframe(&bytes) {
        // A stream of several objects (what `kguest encode` writes for
        // several, or a watch stream) reads back as a List.
        Some(objects) if !envelope::has_magic(&bytes) => {
            let mut items = Vec::with_capacity(objects.len());
            for (i, object) in objects.iter().enumerate() {
                let mut item = Vec::new();
                let origin = format!("{name}, object {}", i + 1);
                decode(&origin, object, explicit, style, &mut item)?;
                items.push(item);
            }
            list(&items, style, &mut out);
        }
        _ => decode(&name, &bytes, explicit, style, &mut out)?,
    }
    let text = match format {
        Format::Json => {
            kubectl_json(&out).map_err(|err| Failure::Input(format!("{name}: {err}")))?
        }
        Format::Yaml => to_yaml(&out).map_err(|err| Failure::Input(format!("{name}: {err}")))?,
    };
    crate::write_stdout(&text)
}

/// `{"apiVersion": "v1", "items": [...], "kind": "List"}`, as kubectl prints
/// several objects.
fn list(items: &[Vec<u8>], style: Style, out: &mut Vec<u8>) {
    let pretty = style == Style::Pretty;
    let (nl, indent) = if pretty { ("\n", "    ") } else { ("", "") };
    let colon = if pretty { ": " } else { ":" };
    out.extend_from_slice(
        format!("{{{nl}{indent}\"apiVersion\"{colon}\"v1\",{nl}{indent}\"items\"{colon}[")
            .as_bytes(),
    );
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(nl.as_bytes());
        out.extend_from_slice(indent.repeat(2).as_bytes());
        // Re-indent the item two levels deeper.
        for &b in item {
            out.push(b);
            if pretty && b == b'\n' {
                out.extend_from_slice(indent.repeat(2).as_bytes());
            }
        }
    }
    if !items.is_empty() {
        out.extend_from_slice(nl.as_bytes());
        out.extend_from_slice(indent.as_bytes());
    }
    out.extend_from_slice(format!("],{nl}{indent}\"kind\"{colon}\"List\"{nl}}}").as_bytes());
}

/// JSON as `kubectl get -o json` prints it: kubectl prints objects as
/// unstructured maps, so every object's members are sorted by name; four
/// spaces of indent. Strings and numbers are copied as the writer wrote
/// them (already escaped the way Go escapes).
fn kubectl_json(compact: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(compact).map_err(|err| err.to_string())?;
    let mut reader = Reader::new(text);
    let first = reader.next_event().map_err(|err| err.to_string())?;
    let tree = Tree::read(&mut reader, first).map_err(|err| err.to_string())?;
    reader.finish().map_err(|err| err.to_string())?;
    let mut out = Vec::with_capacity(compact.len() * 2);
    tree.write(0, &mut out);
    out.push(b'\n');
    Ok(out)
}

enum Tree<'a> {
    /// A number, `true`, `false` or `null`.
    Token(&'a str),
    /// A number kubectl prints differently from how it was stored.
    Number(String),
    /// A string's text between its quotes, as written.
    String(&'a str),
    /// Members: decoded name (the sort key), name as written, value.
    Object(Vec<(Vec<u8>, &'a str, Tree<'a>)>),
    Array(Vec<Tree<'a>>),
}

impl<'a> Tree<'a> {
    fn read(reader: &mut Reader<'a>, first: Event<'a>) -> Result<Tree<'a>, JsonError> {
        Ok(match first {
            Event::ObjectStart => {
                let mut members = Vec::new();
                while let Event::Key(key) = reader.next_event()? {
                    let mut name = Vec::new();
                    key.decode_into(&mut name);
                    let value = reader.next_event()?;
                    members.push((name, key.raw(), Tree::read(reader, value)?));
                }
                members.sort_by(|a, b| a.0.cmp(&b.0));
                Tree::Object(members)
            }
            Event::ArrayStart => {
                let mut items = Vec::new();
                loop {
                    let item = reader.next_event()?;
                    if item == Event::ArrayEnd {
                        break;
                    }
                    items.push(Tree::read(reader, item)?);
                }
                Tree::Array(items)
            }
            Event::String(text) => Tree::String(text.raw()),
            Event::Number(n) => match kubectl_number(n) {
                Some(text) => Tree::Number(text),
                None => Tree::Token(n),
            },
            Event::Bool(true) => Tree::Token("true"),
            Event::Bool(false) => Tree::Token("false"),
            Event::Null | Event::ObjectEnd | Event::ArrayEnd | Event::Key(_) => Tree::Token("null"),
        })
    }

    fn write(&self, depth: usize, out: &mut Vec<u8>) {
        let indent = |out: &mut Vec<u8>, depth: usize| {
            out.push(b'\n');
            out.extend(std::iter::repeat_n(b' ', 4 * depth));
        };
        match self {
            Tree::Token(t) => out.extend_from_slice(t.as_bytes()),
            Tree::Number(t) => out.extend_from_slice(t.as_bytes()),
            Tree::String(t) => {
                out.push(b'"');
                out.extend_from_slice(t.as_bytes());
                out.push(b'"');
            }
            Tree::Object(members) if members.is_empty() => out.extend_from_slice(b"{}"),
            Tree::Array(items) if items.is_empty() => out.extend_from_slice(b"[]"),
            Tree::Object(members) => {
                out.push(b'{');
                for (i, (_, name, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    indent(out, depth + 1);
                    out.push(b'"');
                    out.extend_from_slice(name.as_bytes());
                    out.extend_from_slice(b"\": ");
                    value.write(depth + 1, out);
                }
                indent(out, depth);
                out.push(b'}');
            }
            Tree::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    indent(out, depth + 1);
                    item.write(depth + 1, out);
                }
                indent(out, depth);
                out.push(b']');
            }
        }
    }
}

/// A number as kubectl prints it, where that differs from its text: kubectl
/// reads objects into maps, where a number is an int64 if it is one and a
/// float64 otherwise, and Go's `encoding/json` prints a float64 in its
/// shortest form, with an exponent below 1e-6 and from 1e21 (`1.50` is
/// printed `1.5`, `1E3` `1000`). Only embedded JSON (`RawExtension`) holds
/// such numbers; every field of the API is an integer.
fn kubectl_number(text: &str) -> Option<String> {
    if let Ok(int) = text.parse::<i64>() {
        let plain = int.to_string();
        return (plain != text).then_some(plain);
    }
    let float: f64 = text.parse().ok().filter(|f: &f64| f.is_finite())?;
    let mut out = Vec::new();
    kguest_json::write_go_float(float, &mut out);
    let go = String::from_utf8(out).ok()?;
    (go != text).then_some(go)
}

fn decode(
    name: &str,
    bytes: &[u8],
    explicit: Option<&'static kguest_wire::schema::MessageSchema>,
    style: Style,
    out: &mut Vec<u8>,
) -> Result<(), Failure> {
    let fail = |msg: String| Failure::Input(format!("{name}: {msg}"));
    if bytes.is_empty() {
        return Err(fail("input is empty".into()));
    }
    if envelope::has_magic(bytes) {
        let env = envelope::unwrap(bytes).map_err(|err| match err {
            envelope::EnvelopeError::Malformed(e) => fail(format!(
                "malformed envelope: {} at byte {}",
                e.kind.as_str(),
                e.offset
            )),
            other => fail(other.as_str().into()),
        })?;
        if !env.content_encoding.is_empty() {
            return Err(fail(format!(
                "unsupported content encoding `{}`",
                env.content_encoding
            )));
        }
        let schema = match explicit {
            Some(schema) => schema,
            None => schema_for_api_version(env.api_version, env.kind).ok_or_else(|| {
                fail(format!(
                    "unknown apiVersion `{}` / kind `{}`",
                    env.api_version, env.kind
                ))
            })?,
        };
        let offset = envelope_raw_offset(bytes, env.raw);
        return write_object(env.api_version, env.kind, schema, env.raw, style, out)
            .map_err(|err| fail(describe(err, offset)));
    }
    let Some(schema) = explicit else {
        return Err(fail(
            "no `k8s\\0` envelope; pass --type to name the message (e.g. --type core.v1.Pod)"
                .into(),
        ));
    };
    write_object("", "", schema, bytes, style, out).map_err(|err| fail(describe(err, 0)))
}

/// Where `raw` starts inside `whole`, so offsets point into the input file.
fn envelope_raw_offset(whole: &[u8], raw: &[u8]) -> usize {
    (raw.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize)
}

fn describe(err: JsonError, base: usize) -> String {
    match err {
        JsonError::Decode(e) => {
            let field = if e.field != 0 {
                format!(" (field {})", e.field)
            } else {
                String::new()
            };
            format!(
                "malformed protobuf: {} at byte {}{field}",
                e.kind.as_str(),
                e.offset + base
            )
        }
        other => other.to_string(),
    }
}

/// YAML as `kubectl get -o yaml` prints it (go-yaml v2's key order,
/// quoting, block scalars and line folding), byte for byte.
fn to_yaml(json: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(json).map_err(|err| format!("writing YAML: {err}"))?;
    kguest_k8s_io::kubectl_yaml::to_kubectl_yaml(text)
        .map(String::into_bytes)
        .map_err(|err| format!("writing YAML: {err}"))
}

#[cfg(test)]
mod number_tests {
    use super::kubectl_number;

    /// Go's `json.Marshal(float64)` of each, as kubectl prints it.
    #[test]
    fn numbers_print_as_go_prints_a_float64() {
        let cases = [
            ("1.50", Some("1.5")),
            ("1E3", Some("1000")),
            ("1e21", Some("1e+21")),
            ("1.5e-7", None),
            ("15e-8", Some("1.5e-7")),
            ("0.000001", None),
            ("0.0000000001", Some("1e-10")),
            ("12345678901234567890", Some("12345678901234567000")),
            ("-0", Some("0")),
            ("7", None),
            ("-3", None),
        ];
        for (text, want) in cases {
            assert_eq!(kubectl_number(text).as_deref(), want, "{text}");
        }
    }
}
