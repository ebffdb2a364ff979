//! `kguest encode`: Kubernetes JSON/YAML → the protobuf the API server sends.
//!
//! Objects are encoded one by one as they are read (YAML from a file or
//! standard input is read document by document), and written out as they
//! come, so a long stream needs memory for one object at a time.

use std::io::{BufRead, BufReader, Read, Write};

use kguest_json::FieldValidation;
use kguest_k8s_io::json::schema_by_type_name;
use kguest_k8s_io::load::{LoadedObject, Loader};
use kguest_k8s_io::stream::push_frame;

use crate::Failure;

pub fn run(args: &[String]) -> Result<(), Failure> {
    let mut raw = false;
    let mut output = None;
    let mut type_name = None;
    let mut file = None;
    // kubectl's flag and default: unknown fields are an error.
    let mut validation = FieldValidation::Strict;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--raw" => raw = true,
            flag if flag == "--validate" || flag.starts_with("--validate=") => {
                let value = match flag.strip_prefix("--validate=") {
                    Some(v) => v,
                    None => args.next().map(String::as_str).ok_or_else(|| {
                        Failure::Usage("--validate needs strict, warn or ignore".into())
                    })?,
                };
                validation = FieldValidation::parse(value).ok_or_else(|| {
                    Failure::Usage(format!(
                        "encode: --validate takes strict, warn or ignore, not `{value}`"
                    ))
                })?;
            }
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
    let explicit = match type_name {
        Some(t) => Some(
            schema_by_type_name(t)
                .ok_or_else(|| Failure::Usage(format!("unknown type `{t}` (try core.v1.Pod)")))?,
        ),
        None => None,
    };
    let (name, mut input) = open_input(file)?;
    // JSON (one object or a List) is read whole and encoded in place; YAML
    // streams document by document.
    let json_text;
    let first = peek_first_char(&mut input).map_err(|e| Failure::Input(format!("{name}: {e}")))?;
    let loader = if first == Some(b'{') {
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::Input(format!("{name}: {e}")))?;
        json_text = String::from_utf8(bytes)
            .map_err(|_| Failure::Input(format!("{name}: not UTF-8 text")))?;
        Loader::new(&name, &json_text)
    } else {
        Loader::from_reader(&name, input)
    };
    let loader = match explicit {
        Some(schema) => loader.with_schema(schema),
        None => loader,
    }
    .field_validation(validation);

    let mut sink = Sink::open(output.map(String::as_str))?;
    match write_objects(loader, raw, &name, &mut sink) {
        Ok(()) => sink.finish(),
        Err(err) => {
            sink.abort();
            Err(err)
        }
    }
}

fn write_objects(
    loader: Loader<'_>,
    raw: bool,
    name: &str,
    sink: &mut Sink,
) -> Result<(), Failure> {
    let bytes = |object: &LoadedObject| {
        if raw {
            object.raw.clone()
        } else {
            object.enveloped()
        }
    };
    // The first object is held until a second shows whether this is a
    // stream (framed) or a single object (written as is).
    let mut held: Option<LoadedObject> = None;
    let mut count = 0usize;
    let mut frame = Vec::new();
    for object in loader {
        let object = object.map_err(|err| Failure::Input(err.to_string()))?;
        for warning in &object.warnings {
            eprintln!("warning: {}: {warning}", object.origin);
        }
        count += 1;
        if count == 1 {
            held = Some(object);
            continue;
        }
        if raw {
            return Err(Failure::Input(format!(
                "{name}: --raw writes one message, but the input has more than one object"
            )));
        }
        if let Some(first) = held.take() {
            frame.clear();
            push_frame(&mut frame, &bytes(&first));
            sink.write(&frame)?;
        }
        frame.clear();
        push_frame(&mut frame, &bytes(&object));
        sink.write(&frame)?;
    }
    match (count, held) {
        (0, _) => return Err(Failure::Input(format!("{name}: no objects in the input"))),
        (_, Some(only)) => sink.write(&bytes(&only))?,
        _ => {}
    }
    Ok(())
}

/// The input file, or standard input for `-` or no file.
fn open_input(path: Option<&str>) -> Result<(String, Box<dyn BufRead>), Failure> {
    match path {
        None | Some("-") => Ok(("<stdin>".into(), Box::new(BufReader::new(std::io::stdin())))),
        Some(path) => std::fs::File::open(path)
            .map(|f| {
                (
                    path.to_string(),
                    Box::new(BufReader::new(f)) as Box<dyn BufRead>,
                )
            })
            .map_err(|err| Failure::Input(format!("{path}: {err}"))),
    }
}

/// The first byte that is not whitespace, without consuming it.
fn peek_first_char(input: &mut Box<dyn BufRead>) -> std::io::Result<Option<u8>> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if blank < buf.len() {
            return Ok(Some(buf[blank]));
        }
        let n = buf.len();
        input.consume(n);
    }
}

/// Where the output goes: a file or standard output, written as objects
/// come. A file left half-written by an error is removed.
enum Sink {
    File {
        path: String,
        out: Option<std::io::BufWriter<std::fs::File>>,
    },
    Stdout(std::io::BufWriter<std::io::Stdout>),
}

impl Sink {
    fn open(path: Option<&str>) -> Result<Sink, Failure> {
        Ok(match path {
            Some(path) => Sink::File {
                path: path.to_string(),
                out: None,
            },
            None => Sink::Stdout(std::io::BufWriter::new(std::io::stdout())),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        match self {
            Sink::File { path, out } => {
                if out.is_none() {
                    let file = std::fs::File::create(&*path)
                        .map_err(|err| Failure::Input(format!("{path}: {err}")))?;
                    *out = Some(std::io::BufWriter::new(file));
                }
                match out {
                    Some(out) => out
                        .write_all(bytes)
                        .map_err(|err| Failure::Input(format!("{path}: {err}"))),
                    None => Ok(()),
                }
            }
            Sink::Stdout(out) => match out.write_all(bytes) {
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => {
                    other.map_err(|err| Failure::Input(format!("writing standard output: {err}")))
                }
            },
        }
    }

    fn finish(self) -> Result<(), Failure> {
        match self {
            Sink::File { path, out } => match out {
                Some(mut out) => out
                    .flush()
                    .map_err(|err| Failure::Input(format!("{path}: {err}"))),
                None => std::fs::write(&path, b"")
                    .map_err(|err| Failure::Input(format!("{path}: {err}"))),
            },
            Sink::Stdout(mut out) => match out.flush() {
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => {
                    other.map_err(|err| Failure::Input(format!("writing standard output: {err}")))
                }
            },
        }
    }

    /// Drops a partly written output file.
    fn abort(self) {
        if let Sink::File {
            path,
            out: Some(out),
        } = self
        {
            drop(out);
            let _ = std::fs::remove_file(path);
        }
    }
}
