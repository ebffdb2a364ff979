//! Generates zero-copy, allocation-free protobuf views from `.proto` files.
//!
//! The pipeline is: compile with [protox] (no `protoc`), lower the
//! descriptors into a small model, emit Rust with `quote`, format with
//! `prettyplease`. [`Config::generate`] is pure and returns every file's
//! contents; [`write_files`] is the only step that touches the disk.
//!
//! ```no_run
//! let mut config = kguest_codegen::Config::new();
//! config.include("protos").file("my/pkg/messages.proto");
//! let files = config.generate().unwrap();
//! kguest_codegen::write_files("src", &files).unwrap();
//! ```
//!
//! The generated code depends on the `kguest-wire` crate.
//!
//! Beside the views: [`openapi`] emits protobuf encoders for k8s-openapi's
//! types from the same [`model`], and [`kubernetes`] holds the facts about
//! Kubernetes' JSON that its protos do not carry (for [`Config`]), [`groups`]
//! the API groups of `k8s.io/api`'s folders.

#![forbid(unsafe_code)]

pub mod api_changes;
mod emit;
pub mod groups;
pub mod kubernetes;
pub mod model;
pub mod naming;
pub mod openapi;
mod write;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

pub use write::{WriteReport, stale_files, write_files};

/// The marker on line 1 of every generated file; [`write_files`] only ever
/// deletes files that carry it.
pub const GENERATED_MARKER: &str = "// @generated";

/// How a message is written as JSON: the runtime's own enum, so the
/// generator and the schemas it emits cannot disagree.
pub use kguest_wire::schema::JsonForm;

/// Builds the generator's settings, in the spirit of `prost_build::Config`.
pub struct Config {
    includes: Vec<PathBuf>,
    files: Vec<PathBuf>,
    strip_package_prefix: Option<String>,
    json_forms: BTreeMap<String, JsonForm>,
    doc_link: Option<DocLink>,
    regen_command: String,
    registry: bool,
    reflect_feature: Option<String>,
    go_presence: bool,
    explicit_presence: BTreeMap<String, Vec<String>>,
    json_names: BTreeMap<(String, String), String>,
    json_inline: BTreeMap<String, Vec<String>>,
    json_emit_empty: BTreeMap<String, Vec<String>>,
    json_omit_zero: BTreeMap<String, Vec<String>>,
    json_order: BTreeMap<String, Vec<String>>,
    templates: BTreeMap<PathBuf, Template>,
}

/// A hand-written file emitted as is: where its source lives, and its text.
struct Template {
    source: String,
    text: String,
}

type DocLink = Box<dyn Fn(&str, &str) -> Option<String>>;

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    pub fn new() -> Self {
        Config {
            includes: Vec::new(),
            files: Vec::new(),
            strip_package_prefix: None,
            json_forms: BTreeMap::new(),
            doc_link: None,
            regen_command: "the kguest code generator".into(),
            registry: false,
            reflect_feature: None,
            go_presence: false,
            explicit_presence: BTreeMap::new(),
            json_names: BTreeMap::new(),
            json_inline: BTreeMap::new(),
            json_emit_empty: BTreeMap::new(),
            json_omit_zero: BTreeMap::new(),
            json_order: BTreeMap::new(),
            templates: BTreeMap::new(),
        }
    }

    /// Adds an include directory (the root that import paths are relative to).
    pub fn include(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.includes.push(dir.into());
        self
    }

    /// Adds a file to generate, relative to an include directory. Its
    /// imports are compiled too, and generated as well.
    pub fn file(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.files.push(path.into());
        self
    }

    /// Drops a leading package prefix from module paths: with `k8s.io`, the
    /// package `k8s.io.api.core.v1` becomes the module `api::core::v1`.
    pub fn strip_package_prefix(&mut self, prefix: impl Into<String>) -> &mut Self {
        self.strip_package_prefix = Some(prefix.into());
        self
    }

    /// Gives the message `full_name` (no leading dot) a special JSON form.
    pub fn json_form(&mut self, full_name: impl Into<String>, form: JsonForm) -> &mut Self {
        self.json_forms.insert(full_name.into(), form);
        self
    }

    /// A link for each view type's doc comment, from (package, message name).
    pub fn doc_link(&mut self, link: impl Fn(&str, &str) -> Option<String> + 'static) -> &mut Self {
        self.doc_link = Some(Box::new(link));
        self
    }

    /// The command named in each file's `@generated` header.
    pub fn regen_command(&mut self, command: impl Into<String>) -> &mut Self {
        self.regen_command = command.into();
        self
    }

    /// Also emits `registry.rs`: a `MESSAGES` slice of every message schema,
    /// sorted by full name, for tools that pick a type at run time.
    pub fn registry(&mut self, on: bool) -> &mut Self {
        self.registry = on;
        self
    }

    /// Also emits `path` (relative to the output `src/`): `text` unchanged
    /// under the `@generated` header and a line naming `source`, where the
    /// text is edited (see [`from_template`]). For the hand-written parts of
    /// the generated crate, such as its root (`lib.rs`) or inherent methods
    /// on views, which must live in the crate that defines the views.
    pub fn template(
        &mut self,
        path: impl Into<PathBuf>,
        source: impl Into<String>,
        text: impl Into<String>,
    ) -> &mut Self {
        let template = Template {
            source: source.into(),
            text: text.into(),
        };
        self.templates.insert(path.into(), template);
        self
    }

    /// Also emits `kguest_wire::reflect::Reflect` for every view, compiled
    /// only when the generated crate's cargo feature `feature` is on.
    pub fn reflect_feature(&mut self, feature: impl Into<String>) -> &mut Self {
        self.reflect_feature = Some(feature.into());
        self
    }

    /// Marks singular fields "always written" (see
    /// `kguest_wire::schema::FieldSchema::always`), as Go's gogo marshaller
    /// treats non-pointer fields, except those named with
    /// [`Config::explicit_presence`]. Off by default: encoders then write a
    /// singular field only when it is set.
    pub fn go_presence(&mut self, on: bool) -> &mut Self {
        self.go_presence = on;
        self
    }

    /// With [`Config::go_presence`]: the field `field` (protobuf name) of the
    /// message `message` (full name) is a Go pointer, written only when set.
    pub fn explicit_presence(
        &mut self,
        message: impl Into<String>,
        field: impl Into<String>,
    ) -> &mut Self {
        self.explicit_presence
            .entry(message.into())
            .or_default()
            .push(field.into());
        self
    }

    /// The field `field` of `message` has the JSON name `json_name` instead
    /// of its protobuf name.
    pub fn json_name(
        &mut self,
        message: impl Into<String>,
        field: impl Into<String>,
        json_name: impl Into<String>,
    ) -> &mut Self {
        self.json_names
            .insert((message.into(), field.into()), json_name.into());
        self
    }

    /// The order in which Go's `encoding/json` writes `message`'s fields (the
    /// Go struct's field order) when it is not the protobuf number order:
    /// every field's protobuf name, in that order.
    pub fn json_order(&mut self, message: impl Into<String>, fields: Vec<String>) -> &mut Self {
        self.json_order.insert(message.into(), fields);
        self
    }

    /// The message field `field` of `message` is inlined into its parent's
    /// JSON object (a Go struct embedded with `json:",inline"`).
    pub fn json_inline(
        &mut self,
        message: impl Into<String>,
        field: impl Into<String>,
    ) -> &mut Self {
        self.json_inline
            .entry(message.into())
            .or_default()
            .push(field.into());
        self
    }

    /// The field `field` of `message` is written to JSON even when empty, as
    /// Go writes a field whose json tag lacks `omitempty` (see
    /// `kguest_wire::schema::FieldSchema::emit_empty`).
    pub fn json_emit_empty(
        &mut self,
        message: impl Into<String>,
        field: impl Into<String>,
    ) -> &mut Self {
        self.json_emit_empty
            .entry(message.into())
            .or_default()
            .push(field.into());
        self
    }

    /// The message field `field` of `message` is left out of JSON when its
    /// value is zero, as Go does for a json tag with `omitzero`.
    pub fn json_omit_zero(
        &mut self,
        message: impl Into<String>,
        field: impl Into<String>,
    ) -> &mut Self {
        self.json_omit_zero
            .entry(message.into())
            .or_default()
            .push(field.into());
        self
    }

    /// Compiles the configured files with protox.
    pub fn compile(&self) -> Result<prost_types::FileDescriptorSet, Error> {
        let set = protox::compile(&self.files, &self.includes)
            .map_err(|err| Error::Compile(format!("{err:?}")))?;
        Ok(set)
    }

    /// Compiles and generates: file path (relative to the output `src/`) →
    /// contents.
    pub fn generate(&self) -> Result<BTreeMap<PathBuf, String>, Error> {
        self.generate_from(&self.compile()?)
    }

    /// The lowered model of the configured files, for emitters of other
    /// kinds of code (hosts generate encoders from it).
    pub fn model(&self) -> Result<model::Model, Error> {
        model::lower(self, &self.compile()?)
    }

    /// Generates from already compiled descriptors. Pure and deterministic.
    pub fn generate_from(
        &self,
        set: &prost_types::FileDescriptorSet,
    ) -> Result<BTreeMap<PathBuf, String>, Error> {
        let model = model::lower(self, set)?;
        emit::files(self, &model)
    }

    fn module_path(&self, package: &str) -> Vec<String> {
        let mut rest = package;
        if let Some(prefix) = &self.strip_package_prefix {
            // Whole components only: `kt.a` strips `kt.a.b`, not `kt.ab`.
            match rest.strip_prefix(prefix.as_str()) {
                Some("") => rest = "",
                Some(stripped) if stripped.starts_with('.') => rest = &stripped[1..],
                _ => {}
            }
        }
        rest.split('.')
            .filter(|c| !c.is_empty())
            .map(naming::module)
            .collect()
    }
}

/// A hand-written template as a generated file: the `@generated` header
/// naming `regen_command`, a line naming `source` (the file to edit
/// instead), then `text` unchanged.
pub fn from_template(regen_command: &str, source: &str, text: &str) -> String {
    format!(
        "{GENERATED_MARKER} by `{regen_command}` from `{source}`. Do not edit; edit the \
         template.\n\n{text}"
    )
}

/// What can go wrong while generating.
#[derive(Debug)]
pub enum Error {
    /// protox could not compile the files.
    Compile(String),
    /// A `k8s.io.api.<folder>` package whose API group [`groups`] does not
    /// know (a release added a group: add it to the table).
    UnknownApiGroup(String),
    /// A descriptor feature the views do not support (e.g. groups).
    Unsupported {
        message: String,
        field: String,
        what: String,
    },
    /// Two items would get the same Rust name.
    NameClash(String),
    /// A field or message named in the configuration does not exist.
    UnknownField(String),
    /// A file declares messages but no package (views live in the module
    /// of their package).
    NoPackage(String),
    /// The emitted code did not parse (a generator bug).
    Emit(String),
    /// k8s-openapi's source could not be read, or does not line up with
    /// the protos ([`openapi`]).
    OpenApi(String),
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Compile(msg) => write!(f, "compiling protos: {msg}"),
            Error::UnknownApiGroup(package) => write!(
                f,
                "{package}: its k8s.io/api folder has no API group in \
                 codegen/kguest-codegen/src/groups.rs (add the group's name there)"
            ),
            Error::Unsupported {
                message,
                field,
                what,
            } => {
                write!(f, "{message}.{field}: {what} are not supported")
            }
            Error::NameClash(msg) => write!(f, "name clash: {msg}"),
            Error::NoPackage(file) => {
                write!(f, "{file}: messages without a package are not supported")
            }
            Error::UnknownField(name) => write!(
                f,
                "the configuration names {name}, which the protos do not have"
            ),
            Error::Emit(msg) => write!(f, "emitting code: {msg}"),
            Error::OpenApi(msg) => write!(f, "{msg}"),
            Error::Io(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::Io(err)
    }
}
