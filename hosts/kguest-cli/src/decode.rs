//! `kguest decode`: protobuf → Kubernetes JSON through the views.

use kguest_k8s::envelope;
use kguest_k8s::json::{object_to_json, schema_by_type_name, schema_for_api_version, to_json};
use kguest_wire::json::JsonError;

use crate::{Failure, read_input};

pub fn run(args: &[String]) -> Result<(), Failure> {
    let mut type_name = None;
    let mut file = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--type" | "-t" => {
                let value = args
                    .next()
                    .ok_or_else(|| Failure::Usage("--type needs a value".into()))?;
                type_name = Some(value.as_str());
            }
            flag if flag.starts_with("--type=") => type_name = Some(&flag["--type=".len()..]),
            flag if flag.starts_with('-') && flag != "-" => {
                return Err(Failure::Usage(format!("decode: unknown option `{flag}`")));
            }
            path => {
                if file.replace(path).is_some() {
                    return Err(Failure::Usage("decode takes one input file".into()));
                }
            }
        }
    }
    let (name, bytes) = read_input(file)?;
    let json = match crate::objects::unframe(&bytes) {
        // A stream of several objects reads back as a List.
        Some(objects) if !envelope::has_magic(&bytes) => {
            let items = objects
                .iter()
                .enumerate()
                .map(|(i, object)| decode(&format!("{name}, object {}", i + 1), object, type_name))
                .collect::<Result<Vec<_>, _>>()?;
            serde_json::json!({ "apiVersion": "v1", "kind": "List", "items": items })
        }
        _ => decode(&name, &bytes, type_name)?,
    };
    let text = serde_json::to_string_pretty(&json)
        .map_err(|err| Failure::Input(format!("{name}: writing JSON: {err}")))?;
    crate::write_stdout(format!("{text}\n").as_bytes())
}

fn decode(name: &str, bytes: &[u8], type_name: Option<&str>) -> Result<serde_json::Value, Failure> {
    let fail = |msg: String| Failure::Input(format!("{name}: {msg}"));
    if bytes.is_empty() {
        return Err(fail("input is empty".into()));
    }
    let explicit = match type_name {
        Some(t) => Some(schema_by_type_name(t).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown type `{t}` (try core.v1.Pod or apps.v1.Deployment)"
            ))
        })?),
        None => None,
    };
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
        return object_to_json(env.api_version, env.kind, schema, env.raw)
            .map_err(|err| fail(describe(err, offset)));
    }
    let Some(schema) = explicit else {
        return Err(fail(
            "no `k8s\\0` envelope; pass --type to name the message (e.g. --type core.v1.Pod)"
                .into(),
        ));
    };
    to_json(schema, bytes).map_err(|err| fail(describe(err, 0)))
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
