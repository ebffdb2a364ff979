//! `kguest encode`: Kubernetes JSON/YAML → the protobuf the API server sends.
//!
//! Objects are encoded one by one as they are read (YAML from a file or
//! standard input is read document by document), and written out as they
//! come, so a long stream needs memory for one object at a time.

use std::io::{BufRead, BufReader, Read, Write};

use kguest_json::FieldValidation;
use kguest_k8s_io::json::schema_by_type_name;
use kguest_k8s_io::load::{LoadedObject, Loader};
use kguest_k8s_io::stream::frame_length;

use crate::Failure;

/// Kubernetes JSON or YAML -> protobuf, byte for byte what the API server writes
///
/// The input is one object, a multi-document YAML stream or a List. One
/// object is written as `k8s\0` + runtime.Unknown (--raw: the bare message);
/// several are written as a stream, each prefixed by its 4-byte big-endian
/// length, which decode reads back as a List. YAML is read one document at a
/// time, so a long stream needs memory for one object only. Reads standard
/// input without FILE or with `-`; writes to standard output unless -o OUT.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Write the bare message, without the `k8s\0` + runtime.Unknown envelope.
    #[arg(long)]
    raw: bool,
    /// The message type, when the input has no apiVersion/kind (core.v1.Pod).
    #[arg(short, long = "type", value_name = "TYPE")]
    type_name: Option<String>,
    /// What to do with fields the 1.37 API does not have (an object from a
    /// newer release), as kubectl's flag does: strict fails naming the first,
    /// warn drops each and prints a warning on stderr, ignore drops them
    /// silently
    #[arg(long, value_enum, value_name = "MODE", default_value_t = Validate::Strict, ignore_case = true, verbatim_doc_comment)]
    validate: Validate,
    /// The output file (standard output without it).
    #[arg(short, long, value_name = "OUT", value_hint = clap::ValueHint::FilePath)]
    output: Option<String>,
    /// The input file; `-` or none: standard input.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    file: Option<String>,
}

/// `--validate`: kubectl's modes; its default too (unknown fields are an
/// error).
#[derive(Clone, Copy, clap::ValueEnum)]
enum Validate {
    Strict,
    Warn,
    Ignore,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        raw,
        type_name,
        validate,
        output,
        file,
    } = args;
    let validation = match validate {
        Validate::Strict => FieldValidation::Strict,
        Validate::Warn => FieldValidation::Warn,
        Validate::Ignore => FieldValidation::Ignore,
    };
    let (type_name, file) = (type_name.as_deref(), file.as_deref());
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
        Loader::from_json(&name, &json_text)
    } else {
        Loader::from_reader(&name, input)
    };
    let loader = match explicit {
        Some(schema) => loader.with_schema(schema),
        None => loader,
    }
    .field_validation(validation);

    let mut sink = Sink::open(output.as_deref())?;
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
    // Each object is copied once on its way out: into its envelope (none
    // for --raw); a frame's length goes to the sink before it.
    let write = |sink: &mut Sink, object: &LoadedObject, framed: bool| {
        let enveloped;
        let bytes = if raw {
            &object.raw
        } else {
            enveloped = object.enveloped();
            &enveloped
        };
        if framed {
            sink.write(&frame_length(bytes))?;
        }
        sink.write(bytes)
    };
    // The first object is held until a second shows whether this is a
    // stream (framed) or a single object (written as is).
    let mut held: Option<LoadedObject> = None;
    let mut count = 0usize;
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
            write(sink, &first, true)?;
        }
        write(sink, &object, true)?;
    }
    match (count, held) {
        (0, _) => return Err(Failure::Input(format!("{name}: no objects in the input"))),
        (_, Some(only)) => write(sink, &only, false)?,
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
