//! Loading Kubernetes objects from JSON or YAML text into protobuf (YAML
//! input needs feature `yaml`).
//!
//! The input is one object, a multi-document YAML stream, or a `List` (any
//! object whose `kind` is `List`) whose `items` are objects; Lists nest.
//! Objects come out one at a time as [`LoadedObject`]s, each encoded in one
//! pass straight from the text (no `serde_json::Value`), with an origin
//! label for messages: `FILE`, `FILE, document 2`, `FILE, item 3`.
//!
//! ```
//! # #[cfg(feature = "yaml")] {
//! use kguest_k8s_io::load::Loader;
//!
//! let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n";
//! for object in Loader::new("pod.yaml", yaml) {
//!     let object = object.expect("loads");
//!     assert_eq!((object.kind.as_str(), object.origin.as_str()), ("Pod", "pod.yaml"));
//!     let bytes = object.enveloped(); // what the API server would send
//!     assert!(bytes.starts_with(b"k8s\0"));
//! }
//! # }
//! ```
//!
//! Memory: JSON text is read in place; a YAML stream is read one document at
//! a time, so a stream of many objects needs memory for its largest
//! document only. The encoder's scratch space is reused from object to
//! object.

use kguest_json::{Encoder, FieldValidation, JsonError, Reader, Source, SourceEvent, skip};
use kguest_k8s::envelope;
use kguest_wire::schema::MessageSchema;

use crate::json::{TYPE_META, schema_of, type_meta};

/// One object read from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedObject {
    /// Where the object came from: `FILE`, `FILE, document 2`,
    /// `FILE, document 2, item 3`.
    pub origin: String,
    /// The object's `apiVersion` (empty when an explicit type was given and
    /// the object has none).
    pub api_version: String,
    /// The object's `kind` (empty likewise).
    pub kind: String,
    /// The object's own message, without envelope.
    pub raw: Vec<u8>,
    /// Under [`FieldValidation::Warn`], one line per unknown field dropped
    /// from this object (`unknown field "spec.workloadRef"`).
    pub warnings: Vec<String>,
}

impl LoadedObject {
    /// The object as the API server sends it (`k8s\0` + `runtime.Unknown`).
    pub fn enveloped(&self) -> Vec<u8> {
        envelope::wrap(&self.api_version, &self.kind, &self.raw)
    }
}

/// An object that could not be loaded, and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// As [`LoadedObject::origin`].
    pub origin: String,
    pub error: JsonError,
}

impl core::fmt::Display for LoadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.origin, self.error)
    }
}

impl std::error::Error for LoadError {}

/// How the input is read.
enum Input<'a> {
    /// One JSON document, and the lists open in it.
    Json(Option<Reader<'a>>, JsonPending),
    #[cfg(feature = "yaml")]
    Yaml {
        docs: crate::yaml::Documents<'a>,
        doc: crate::yaml::Document,
    },
    /// YAML read from a byte stream as it comes.
    #[cfg(feature = "yaml")]
    YamlStream {
        docs: crate::yaml::Documents<'static, ReaderInput>,
        doc: crate::yaml::Document,
        error: std::rc::Rc<std::cell::RefCell<Option<String>>>,
    },
}

#[cfg(feature = "yaml")]
type ReaderInput = saphyr_parser::BufferedInput<crate::yaml::Utf8Chars<Box<dyn std::io::BufRead>>>;

/// An open `List`'s `items`: how many have been read.
struct ListFrame {
    origin: String,
    index: usize,
}

/// Reads the objects of JSON or YAML text one by one (an iterator of
/// `Result<LoadedObject, LoadError>`; it stops after the first error).
///
/// Text whose first non-blank character is `{` is read as JSON; anything
/// else as YAML (which needs the `yaml` feature; without it such text is an
/// error).
pub struct Loader<'a> {
    name: String,
    input: Input<'a>,
    schema: Option<&'static MessageSchema>,
    encoder: Encoder,
    failed: bool,
    /// The objects of the current YAML document not yet handed out, and the
    /// error that ended it, if any.
    #[cfg(feature = "yaml")]
    yaml_queue: std::collections::VecDeque<Result<LoadedObject, LoadError>>,
    /// Whether the current YAML document's last error ends the input.
    #[cfg(feature = "yaml")]
    yaml_fatal: bool,
}

impl<'a> Loader<'a> {
    /// A loader for `text`, labelled `name` in origins.
    pub fn new(name: &str, text: &'a str) -> Self {
        #[cfg(feature = "yaml")]
        if !text.trim_start().starts_with('{') {
            return Loader::with_input(
                name,
                Input::Yaml {
                    docs: crate::yaml::Documents::new(text),
                    doc: crate::yaml::Document::default(),
                },
            );
        }
        Loader::from_json(name, text)
    }

    /// A loader for `text` read as JSON (one object or a List), for a caller
    /// that has already looked at the text; labelled `name` in origins.
    pub fn from_json(name: &str, text: &'a str) -> Self {
        Loader::with_input(
            name,
            Input::Json(Some(Reader::new(text)), JsonPending::default()),
        )
    }

    fn with_input(name: &str, input: Input<'a>) -> Self {
        Loader {
            name: name.into(),
            input,
            schema: None,
            encoder: Encoder::new(),
            failed: false,
            #[cfg(feature = "yaml")]
            yaml_queue: std::collections::VecDeque::new(),
            #[cfg(feature = "yaml")]
            yaml_fatal: false,
        }
    }

    /// A loader for YAML (or JSON, which is YAML) read from `reader` as it
    /// comes: one document is held at a time, so a long stream of objects
    /// needs memory for its largest document only.
    #[cfg(feature = "yaml")]
    pub fn from_reader(name: &str, reader: Box<dyn std::io::BufRead>) -> Loader<'static> {
        let chars = crate::yaml::Utf8Chars::new(reader);
        let error = chars.error();
        Loader {
            name: name.into(),
            input: Input::YamlStream {
                docs: crate::yaml::Documents::from_chars(chars),
                doc: crate::yaml::Document::default(),
                error,
            },
            schema: None,
            encoder: Encoder::new(),
            failed: false,
            yaml_queue: std::collections::VecDeque::new(),
            yaml_fatal: false,
        }
    }

    /// Encodes every object as the message `schema` instead of the type its
    /// `apiVersion` and `kind` name (`Lists` are still expanded).
    pub fn with_schema(mut self, schema: &'static MessageSchema) -> Self {
        self.schema = Some(schema);
        self
    }

    /// Treats members that name no field as `mode` says (Kubernetes'
    /// `fieldValidation`; the default is [`FieldValidation::Strict`], which
    /// fails on the first). Under `Warn` and `Ignore` the loader also goes on
    /// after an object it cannot load (an unknown kind, a bad value) when
    /// more objects follow in the same List or stream: the iterator yields
    /// that object's error, then the next object. Under `Warn` each object
    /// carries its dropped fields in [`LoadedObject::warnings`].
    pub fn field_validation(mut self, mode: FieldValidation) -> Self {
        self.encoder.set_field_validation(mode);
        self
    }

    /// Reads every object, or the first error.
    pub fn load_all(self) -> Result<Vec<LoadedObject>, LoadError> {
        self.collect()
    }

    fn fail(
        &mut self,
        origin: String,
        error: JsonError,
    ) -> Option<Result<LoadedObject, LoadError>> {
        self.failed = true;
        Some(Err(LoadError { origin, error }))
    }
}

impl Iterator for Loader<'_> {
    type Item = Result<LoadedObject, LoadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match &mut self.input {
            Input::Json(slot, pending) => {
                let mut reader = slot.take()?;
                let name = self.name.clone();
                let result = walk(&mut reader, &name, self.schema, &mut self.encoder, pending);
                match result {
                    Err(Failed { error, more: true }) => {
                        *slot = Some(reader);
                        Some(Err(error))
                    }
                    Err(Failed { error, .. }) => self.fail(error.origin, error.error),
                    Ok(Walked { object, more }) => {
                        if more {
                            // Keep reading this document's list.
                            *slot = Some(reader);
                        } else if let Err(error) = reader.finish() {
                            return self.fail(name, error);
                        }
                        object.map(Ok)
                    }
                }
            }
            #[cfg(feature = "yaml")]
            Input::Yaml { .. } | Input::YamlStream { .. } => self.next_yaml(),
        }
    }
}

/// The state kept between objects of one JSON document: the open lists.
#[derive(Default)]
struct JsonPending {
    lists: Vec<ListFrame>,
}

/// What [`walk`] found: the next object, if the document has one, and
/// whether the document may hold more.
struct Walked {
    object: Option<LoadedObject>,
    more: bool,
}

/// An object that failed; `more` says whether the source has been moved
/// past it (a List item under a lenient mode), so reading can go on.
struct Failed {
    error: LoadError,
    more: bool,
}

impl From<LoadError> for Failed {
    fn from(error: LoadError) -> Self {
        Failed { error, more: false }
    }
}

/// Reads the next object of the document `src` is in (`pending` carries the
/// open lists between calls).
fn walk<'s, S: Source<'s> + Clone>(
    src: &mut S,
    name: &str,
    schema: Option<&'static MessageSchema>,
    encoder: &mut Encoder,
    pending: &mut JsonPending,
) -> Result<Walked, Failed> {
    let error = |origin: &str, error: JsonError| {
        Failed::from(LoadError {
            origin: origin.to_string(),
            error,
        })
    };
    loop {
        let origin = match pending.lists.last_mut() {
            None => name.to_string(),
            Some(frame) => {
                frame.index += 1;
                format!("{}, item {}", frame.origin, frame.index)
            }
        };
        let fork = src.clone();
        let first = src.next_event().map_err(|e| error(&origin, e))?;
        if first == SourceEvent::ArrayEnd && !pending.lists.is_empty() {
            // The end of a list's items: skip the rest of the list object.
            let frame = pending.lists.pop();
            skip_members(src).map_err(|e| error(&origin, e))?;
            if pending.lists.is_empty() {
                let _ = frame;
                return Ok(Walked {
                    object: None,
                    more: false,
                });
            }
            continue;
        }
        match first {
            SourceEvent::ObjectStart => {}
            SourceEvent::Null if pending.lists.is_empty() => {
                return Ok(Walked {
                    object: None,
                    more: false,
                });
            }
            other => {
                return Err(error(
                    &origin,
                    JsonError::Invalid {
                        path: ".".into(),
                        reason: format!("expected an object, found {}", other.describe()),
                    },
                ));
            }
        }
        let (api_version, kind) = type_meta(&mut fork.clone()).map_err(|e| error(&origin, e))?;
        if kind.as_deref() == Some("List") {
            // Find `items` and go into it.
            loop {
                let key = match src.next_event().map_err(|e| error(&origin, e))? {
                    SourceEvent::Key(key) => key,
                    _ => {
                        return Err(error(
                            &origin,
                            JsonError::Invalid {
                                path: ".".into(),
                                reason: "a List without `items`".into(),
                            },
                        ));
                    }
                };
                let value = src.next_event().map_err(|e| error(&origin, e))?;
                if key.eq_str("items") {
                    match value {
                        SourceEvent::ArrayStart => break,
                        other => {
                            return Err(error(
                                &origin,
                                JsonError::Invalid {
                                    path: "items".into(),
                                    reason: format!(
                                        "expected an array, found {}",
                                        other.describe()
                                    ),
                                },
                            ));
                        }
                    }
                }
                skip(value, src).map_err(|e| error(&origin, e))?;
            }
            pending.lists.push(ListFrame { origin, index: 0 });
            continue;
        }
        let mut raw = Vec::new();
        let encoded = match schema {
            Some(schema) => Ok(schema),
            None => schema_of(api_version.as_deref(), kind.as_deref()),
        }
        .and_then(|message| encoder.encode_from(message, first, src, TYPE_META, &mut raw));
        if let Err(e) = encoded {
            let failed = error(&origin, e).error;
            let lenient = encoder.field_validation() != FieldValidation::Strict;
            if lenient && !pending.lists.is_empty() {
                // Step over the whole item from where it started.
                let mut rewind = fork;
                let skipped = rewind.next_event().and_then(|v| skip(v, &mut rewind));
                if skipped.is_ok() {
                    *src = rewind;
                    return Err(Failed {
                        error: failed,
                        more: true,
                    });
                }
            }
            return Err(failed.into());
        }
        let object = LoadedObject {
            origin,
            api_version: api_version.unwrap_or_default(),
            kind: kind.unwrap_or_default(),
            raw,
            warnings: encoder.take_warnings(),
        };
        return Ok(Walked {
            object: Some(object),
            more: !pending.lists.is_empty(),
        });
    }
}

/// Skips members up to the end of the current object.
fn skip_members<'s, S: Source<'s>>(src: &mut S) -> Result<(), JsonError> {
    loop {
        match src.next_event()? {
            SourceEvent::Key(_) => {
                let value = src.next_event()?;
                skip(value, src)?;
            }
            _ => return Ok(()),
        }
    }
}

#[cfg(feature = "yaml")]
impl Loader<'_> {
    fn next_yaml(&mut self) -> Option<Result<LoadedObject, LoadError>> {
        loop {
            if let Some(next) = self.yaml_queue.pop_front() {
                if next.is_err() && self.yaml_queue.is_empty() && self.yaml_fatal {
                    self.failed = true;
                }
                return Some(next);
            }
            let step = match &mut self.input {
                Input::Yaml { docs, doc } => {
                    read_document(docs, doc, &self.name, self.schema, &mut self.encoder, None)
                }
                Input::YamlStream { docs, doc, error } => read_document(
                    docs,
                    doc,
                    &self.name,
                    self.schema,
                    &mut self.encoder,
                    Some(error),
                ),
                Input::Json(..) => return None,
            };
            match step {
                DocStep::End => return None,
                DocStep::Objects(objects, fatal) => {
                    // Under Strict every error ends the input; leniently, only
                    // one the document's text itself caused.
                    let strict = self.encoder.field_validation() == FieldValidation::Strict;
                    self.yaml_fatal = fatal || (strict && objects.iter().any(Result::is_err));
                    self.yaml_queue = objects.into();
                }
            }
        }
    }
}

#[cfg(feature = "yaml")]
enum DocStep {
    End,
    /// A document's objects and errors in order, and whether its last error
    /// is one reading cannot go on from.
    Objects(Vec<Result<LoadedObject, LoadError>>, bool),
}

/// Reads and encodes the next YAML document (all of a List's items at once:
/// the document is buffered anyway).
#[cfg(feature = "yaml")]
fn read_document<T: saphyr_parser::Input>(
    docs: &mut crate::yaml::Documents<'_, T>,
    doc: &mut crate::yaml::Document,
    name: &str,
    schema: Option<&'static MessageSchema>,
    encoder: &mut Encoder,
    read_error: Option<&std::rc::Rc<std::cell::RefCell<Option<String>>>>,
) -> DocStep {
    loop {
        let origin = |docs: &crate::yaml::Documents<'_, T>| {
            if docs.several || docs.count > 1 {
                format!("{name}, document {}", docs.count)
            } else {
                name.to_string()
            }
        };
        let more = docs.next_into(doc);
        if let Some(why) = read_error.and_then(|e| e.borrow_mut().take()) {
            let error = JsonError::Syntax {
                line: doc.line,
                column: 1,
                reason: why,
            };
            return DocStep::Objects(
                vec![Err(LoadError {
                    origin: origin(docs),
                    error,
                })],
                true,
            );
        }
        match more {
            Ok(false) => return DocStep::End,
            Ok(true) => {}
            Err(error) => {
                return DocStep::Objects(
                    vec![Err(LoadError {
                        origin: origin(docs),
                        error,
                    })],
                    true,
                );
            }
        }
        if doc.is_null() {
            continue;
        }
        let origin = origin(docs);
        let mut src = doc.source();
        let mut pending = JsonPending::default();
        let mut objects = Vec::new();
        loop {
            let step = walk(&mut src, &origin, schema, encoder, &mut pending);
            match step {
                Err(Failed { error, more }) => {
                    objects.push(Err(error));
                    if !more {
                        // The rest of this document cannot be read; the
                        // next document can (a YAML stream's documents are
                        // parsed one by one).
                        let fatal = encoder.field_validation() == FieldValidation::Strict;
                        return DocStep::Objects(objects, fatal);
                    }
                }
                Ok(Walked { object, more }) => {
                    objects.extend(object.map(Ok));
                    if !more {
                        return DocStep::Objects(objects, false);
                    }
                }
            }
        }
    }
}
