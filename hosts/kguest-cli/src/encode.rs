//! `kguest encode`: Kubernetes JSON/YAML → the protobuf the API server sends.

use kguest_k8s::json::{from_json, object_from_json, schema_by_type_name};

use crate::objects::{self, frame};
use crate::{Failure, read_input};

pub fn run(args: &[String]) -> Result<(), Failure> {
    let mut raw = false;
    let mut output = None;
    let mut type_name = None;
    let mut file = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--raw" => raw = true,
            "-o" | "--output" => {
                output = Some(
                    args.next()
                        .ok_or_else(|| Failure::Usage("-o needs a file".into()))?,
                );
            }
            "--type" | "-t" => {
                type_name = Some(
                    args.next()
                        .ok_or_else(|| Failure::Usage("--type needs a value".into()))?,
                );
            }
            flag if flag.starts_with('-') && flag != "-" => {
                return Err(Failure::Usage(format!("encode: unknown option `{flag}`")));
            }
            path => {
                if file.replace(path).is_some() {
                    return Err(Failure::Usage("encode takes one input file".into()));
                }
            }
        }
    }
    let (name, bytes) = read_input(file)?;
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::Input(format!("{name}: not UTF-8 text")))?;
    let documents = objects::parse(&name, &text).map_err(Failure::Input)?;
    if raw && documents.len() > 1 {
        return Err(Failure::Input(format!(
            "{name}: --raw writes one message, but the input has {} objects",
            documents.len()
        )));
    }
    let explicit = match type_name {
        Some(t) => Some(
            schema_by_type_name(t)
                .ok_or_else(|| Failure::Usage(format!("unknown type `{t}` (try core.v1.Pod)")))?,
        ),
        None => None,
    };
    let mut encoded = Vec::new();
    for doc in &documents {
        let fail = |err: String| Failure::Input(format!("{}: {err}", doc.origin));
        let bytes = match explicit {
            // A message named on the command line: the JSON is that message.
            Some(schema) => {
                // apiVersion and kind travel in the envelope unless the
                // message itself has such fields.
                let mut body = doc.json.clone();
                if let Some(members) = body.as_object_mut() {
                    for key in ["apiVersion", "kind"] {
                        if !schema.fields.iter().any(|f| f.json_name() == key) {
                            members.remove(key);
                        }
                    }
                }
                let raw_bytes = from_json(schema, &body).map_err(|e| fail(e.to_string()))?;
                if raw {
                    raw_bytes
                } else {
                    let text = |key: &str| {
                        doc.json
                            .get(key)
                            .and_then(|v| v.as_str())
                            .unwrap_or("")
                            .to_string()
                    };
                    kguest_k8s::envelope::wrap(&text("apiVersion"), &text("kind"), &raw_bytes)
                }
            }
            None => {
                let object = object_from_json(&doc.json).map_err(|e| fail(e.to_string()))?;
                if raw { object.raw } else { object.enveloped() }
            }
        };
        encoded.push(bytes);
    }
    let out = if encoded.len() == 1 {
        encoded.pop().unwrap_or_default()
    } else {
        frame(&encoded)
    };
    match output {
        Some(path) => {
            std::fs::write(path, &out).map_err(|err| Failure::Input(format!("{path}: {err}")))
        }
        None => crate::write_stdout(&out),
    }
}
