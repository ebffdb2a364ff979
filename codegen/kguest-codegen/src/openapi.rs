//! The k8s-openapi front-end of kguest's encoders: `impl Message` for every
//! k8s-openapi type that has a protobuf message, one Rust file (kguest's
//! `generated/kguest-k8s-encode/src/openapi.rs`, beside the hand-written
//! runtime `rt.rs` that the impls call through `super::rt`).
//!
//! Inputs: the lowered protobuf [`Model`] (field numbers, Go presence, inline
//! fields, JSON names and forms) and k8s-openapi's own source, read with syn:
//! its struct fields and, from its serde code, which JSON name each field
//! has. Fields are joined by JSON name, so no naming guesswork is involved.
//! Anything that does not line up (a k8s-openapi field with no protobuf
//! field, a type that does not fit) is an error, so a Kubernetes bump cannot
//! silently drop data.
//!
//! Messages whose JSON form is not an object ([`JsonForm`]) get no impl: the
//! runtime encodes them by hand (k8s-openapi has newtypes or enums for them),
//! except the bare arrays, which k8s-openapi holds as `Vec<String>` and the
//! impls write as the protobuf message of repeated strings.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::model::{Field, FieldType, Label, Message, Model, Scalar};
use crate::{Error, GENERATED_MARKER, JsonForm};

/// The emitted file and how many k8s-openapi types it covers.
#[derive(Debug)]
pub struct Generated {
    /// The file's text, under the `@generated` header.
    pub text: String,
    /// The k8s-openapi types given an impl.
    pub types: usize,
}

/// Generates the impls for `model` from the k8s-openapi source below
/// `k8s_openapi_src` (a folder such as k8s-openapi's `src/v1_36`, whose
/// subfolders are its modules); `regen_command` is named in the header.
pub fn generate(
    model: &Model,
    k8s_openapi_src: &Path,
    regen_command: &str,
) -> Result<Generated, Error> {
    let structs = read_structs(k8s_openapi_src).map_err(Error::OpenApi)?;
    emit(model, &structs, regen_command)
}

/// One k8s-openapi struct: its fields by JSON name.
struct RustStruct {
    /// JSON name → (field ident, type).
    fields: BTreeMap<String, (String, syn::Type)>,
    /// A tuple struct (k8s-openapi's JSON-value newtypes).
    newtype: bool,
}

/// k8s-openapi's structs by (module path, name).
type Structs = HashMap<(Vec<String>, String), RustStruct>;

fn emit(model: &Model, structs: &Structs, regen_command: &str) -> Result<Generated, Error> {
    let messages: HashMap<&str, &Message> = model
        .packages
        .values()
        .flat_map(|p| &p.messages)
        .map(|m| (m.full_name.as_str(), m))
        .collect();

    let mut impls = Vec::new();
    let mut registry = Vec::new();
    let mut problems = Vec::new();
    for package in model.packages.values() {
        for message in package.messages.iter().filter(|m| !m.map_entry) {
            if message.json != JsonForm::Object {
                continue; // encoded by hand, or a `Vec<String>` (see the module docs)
            }
            let module = rust_module(&message.full_name);
            let Some(rust) = structs.get(&(module.clone(), message.type_name.clone())) else {
                continue; // k8s-openapi has no type for it (old versions, *Options, ...)
            };
            if rust.newtype && !message.fields.is_empty() {
                problems.push(format!(
                    "{}: k8s-openapi has a newtype, the proto has fields",
                    message.full_name
                ));
                continue;
            }
            let mut emitter = ImplGen {
                messages: &messages,
                rust,
                used: BTreeSet::new(),
                problems: Vec::new(),
            };
            let (len, write) = emitter.body(message, &message.full_name);
            // apiVersion and kind travel in the envelope, as Go's TypeMeta.
            let unused: Vec<&String> = rust
                .fields
                .keys()
                .filter(|json| {
                    !emitter.used.contains(json.as_str())
                        && !["apiVersion", "kind"].contains(&json.as_str())
                })
                .collect();
            for json in unused {
                emitter.problems.push(format!(
                    "{}: k8s-openapi field `{json}` has no protobuf field",
                    message.full_name
                ));
            }
            if !emitter.problems.is_empty() {
                problems.extend(emitter.problems);
                continue;
            }
            let path = rust_type_path(&module, &message.type_name);
            let (sizes, w) = params(!len.is_empty());
            let len = sum(&len);
            impls.push(quote! {
                impl Message for #path {
                    fn body_len(&self, #sizes: &mut Sizes) -> usize {
                        #len
                    }
                    fn write_body(&self, #w: &mut Writer<'_>) {
                        #(#write)*
                    }
                }
            });
            let name = Literal::string(&message.full_name);
            registry.push(quote! {
                #name => serde_json::from_value::<#path>(json).map(|v| v.encode_to_vec()),
            });
        }
    }
    if !problems.is_empty() {
        return Err(Error::OpenApi(format!(
            "k8s-openapi does not line up with the protos:\n  {}",
            problems.join("\n  ")
        )));
    }
    let types = impls.len();
    let tokens = quote! {
        //! `Message` for every k8s-openapi type with a protobuf message.

        use super::rt::{self, Encode, Leaf, Message, Sizes, Writer};

        #(#impls)*

        /// Decodes `json` into the k8s-openapi type of the protobuf message
        /// `full_name` and encodes it; `None` when k8s-openapi has no such type.
        pub fn encode_json_as_openapi(
            full_name: &str,
            json: serde_json::Value,
        ) -> Option<Result<Vec<u8>, serde_json::Error>> {
            Some(match full_name {
                #(#registry)*
                _ => return None,
            })
        }
    };
    let file: syn::File = syn::parse2(tokens).map_err(|err| Error::Emit(err.to_string()))?;
    let text = format!(
        "{GENERATED_MARKER} by `{regen_command}`. Do not edit.\n\n{}",
        prettyplease::unparse(&file)
    );
    Ok(Generated { text, types })
}

struct ImplGen<'m> {
    messages: &'m HashMap<&'m str, &'m Message>,
    rust: &'m RustStruct,
    used: BTreeSet<String>,
    problems: Vec<String>,
}

impl ImplGen<'_> {
    /// The length terms and write statements for the fields of `message`,
    /// read from the k8s-openapi struct (inlined messages read from it too).
    fn body(&mut self, message: &Message, context: &str) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut lens = Vec::new();
        let mut writes = Vec::new();
        for field in &message.fields {
            let number = Literal::u32_unsuffixed(field.number);
            if field.inline {
                let FieldType::Message(inner) = &field.ty else {
                    continue;
                };
                let Some(inner) = self.messages.get(inner.as_str()).copied() else {
                    continue;
                };
                let (inner_lens, inner_writes) = self.body(inner, context);
                let (sizes, w) = params(!inner_lens.is_empty());
                let inner_len = sum(&inner_lens);
                lens.push(quote!(rt::inline_len(#number, sizes, |#sizes| #inner_len)));
                writes.push(quote!(rt::write_inline(#number, w, |#w| { #(#inner_writes)* });));
                continue;
            }
            let json = field
                .json_name
                .clone()
                .unwrap_or_else(|| field.proto_name.clone());
            let Some((ident, ty)) = self.rust.fields.get(&json) else {
                // k8s-openapi lacks the field: it can only be unset.
                if let Some((len, write)) = self.zero(field) {
                    lens.push(len);
                    writes.push(write);
                }
                continue;
            };
            self.used.insert(json.clone());
            let member = match ident.strip_prefix("r#") {
                Some(raw) => Ident::new_raw(raw, Span::call_site()),
                None => Ident::new(ident, Span::call_site()),
            };
            match self.field(field, &member, ty) {
                Ok((len, write)) => {
                    lens.push(len);
                    writes.push(write);
                }
                Err(problem) => self
                    .problems
                    .push(format!("{context}.{}: {problem}", field.proto_name)),
            }
        }
        (lens, writes)
    }

    fn field(
        &self,
        field: &Field,
        member: &Ident,
        ty: &syn::Type,
    ) -> Result<(TokenStream, TokenStream), String> {
        let number = Literal::u32_unsuffixed(field.number);
        let (optional, inner) = match generic_arg(ty, "Option") {
            Some(inner) => (true, inner),
            None => (false, ty),
        };
        match &field.label {
            Label::Map { value, .. } => {
                let map_value = generic_args(inner, "BTreeMap")
                    .and_then(|args| args.get(1).copied())
                    .ok_or("a map field that is not a BTreeMap")?;
                self.check_leaf(value, map_value)?;
                let map = if optional {
                    quote!(self.#member.as_ref())
                } else {
                    quote!(Some(&self.#member))
                };
                Ok((
                    quote!(rt::map_len(#map, #number, sizes)),
                    quote!(rt::write_map(#map, #number, w);),
                ))
            }
            Label::Repeated => {
                let element =
                    generic_arg(inner, "Vec").ok_or("a repeated field that is not a Vec")?;
                self.check_leaf(&field.ty, element)?;
                let items = if optional {
                    quote!(self.#member.iter().flatten())
                } else {
                    quote!(&self.#member)
                };
                Ok((
                    quote!(rt::repeated_len(#items, #number, sizes)),
                    quote!(rt::write_repeated(#items, #number, w);),
                ))
            }
            Label::Singular => {
                self.check_leaf(&field.ty, inner)?;
                if !optional {
                    return Ok((
                        quote!(self.#member.field_len(#number, sizes)),
                        quote!(self.#member.write_field(#number, w);),
                    ));
                }
                match self.zero(field) {
                    Some((zero_len, zero_write)) => Ok((
                        quote!(match &self.#member { Some(v) => v.field_len(#number, sizes), None => #zero_len }),
                        quote!(match &self.#member { Some(v) => v.write_field(#number, w), None => { #zero_write } }),
                    )),
                    None => Ok((
                        quote!(rt::opt_len(&self.#member, #number, sizes)),
                        quote!(rt::write_opt(&self.#member, #number, w);),
                    )),
                }
            }
        }
    }

    /// The JSON form of the message `full_name` (an object when the model
    /// does not have it).
    fn form(&self, full_name: &str) -> JsonForm {
        self.messages
            .get(full_name)
            .map_or(JsonForm::Object, |m| m.json)
    }

    /// What Go writes for the field when it is unset: its zero value for a
    /// non-pointer field, nothing otherwise (`None`).
    fn zero(&self, field: &Field) -> Option<(TokenStream, TokenStream)> {
        if !field.always || field.label != Label::Singular {
            return None;
        }
        let number = Literal::u32_unsuffixed(field.number);
        Some(match &field.ty {
            FieldType::String => (
                quote!(rt::zero::string_len(#number)),
                quote!(rt::zero::write_string(#number, w);),
            ),
            FieldType::Scalar(Scalar::Double | Scalar::Float) => return None,
            FieldType::Scalar(_) => (
                quote!(rt::zero::varint_len(#number)),
                quote!(rt::zero::write_varint(#number, w);),
            ),
            FieldType::Bytes => return None,
            FieldType::Message(name) => {
                let value = match self.form(name) {
                    // Go's zero `Time` and `MicroTime`: January 1, year 1.
                    JsonForm::Timestamp { frac_digits: 0 } => quote!(rt::zero::time()),
                    JsonForm::Timestamp { frac_digits: 6 } => quote!(rt::zero::micro_time()),
                    JsonForm::BareArray => quote!(Vec::<String>::new()),
                    _ => {
                        let (module, type_name) = split_name(name);
                        let path = rust_type_path(&module, type_name);
                        quote!(<#path>::default())
                    }
                };
                (
                    quote!(#value.field_len(#number, sizes)),
                    quote!(#value.write_field(#number, w);),
                )
            }
        })
    }

    /// Checks that the k8s-openapi type `rust` can hold a protobuf `ty`.
    fn check_leaf(&self, ty: &FieldType, rust: &syn::Type) -> Result<(), String> {
        let last = last_segment(rust).unwrap_or_default();
        let ok = match ty {
            FieldType::String => last == "String",
            FieldType::Bytes => last == "ByteString",
            FieldType::Scalar(Scalar::Int32) => last == "i32",
            FieldType::Scalar(Scalar::Int64) => last == "i64",
            FieldType::Scalar(Scalar::Bool) => last == "bool",
            FieldType::Scalar(Scalar::Double) => last == "f64",
            FieldType::Scalar(other) => return Err(format!("unexpected protobuf type {other:?}")),
            FieldType::Message(name) if self.form(name) == JsonForm::BareArray => {
                generic_arg(rust, "Vec").and_then(last_segment).as_deref() == Some("String")
            }
            FieldType::Message(name) => Some(split_name(name).1) == last_segment(rust).as_deref(),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "k8s-openapi type `{}` does not hold {ty:?}",
                quote!(#rust)
            ))
        }
    }
}

/// `a + b + c`, or `0` for no terms.
fn sum(terms: &[TokenStream]) -> TokenStream {
    match terms.split_first() {
        // A leading `match` would parse as a statement, not an operand.
        Some((first, rest)) if first.to_string().starts_with("match") && !rest.is_empty() => {
            quote!((#first) #(+ #rest)*)
        }
        Some((first, rest)) => quote!(#first #(+ #rest)*),
        None => quote!(0),
    }
}

/// The parameter names of `body_len`/`write_body`: `_`-prefixed when the
/// message has nothing to write.
fn params(used: bool) -> (Ident, Ident) {
    let name = |n: &str| {
        Ident::new(
            &if used { n.to_string() } else { format!("_{n}") },
            Span::call_site(),
        )
    };
    (name("sizes"), name("w"))
}

fn split_name(full_name: &str) -> (Vec<String>, &str) {
    let (package, name) = full_name.rsplit_once('.').unwrap_or(("", full_name));
    (rust_module(&format!("{package}.x")), name)
}

/// k8s-openapi's module for a protobuf message: the package below `k8s.io`.
fn rust_module(full_name: &str) -> Vec<String> {
    let package = full_name.rsplit_once('.').map_or("", |(p, _)| p);
    package
        .strip_prefix("k8s.io.")
        .unwrap_or(package)
        .split('.')
        .map(str::to_string)
        .collect()
}

fn rust_type_path(module: &[String], name: &str) -> TokenStream {
    let segments = module.iter().map(|m| Ident::new(m, Span::call_site()));
    let name = Ident::new(name, Span::call_site());
    quote!(k8s_openapi::#(#segments::)*#name)
}

fn last_segment(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn generic_args<'t>(ty: &'t syn::Type, wrapper: &str) -> Option<Vec<&'t syn::Type>> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    Some(
        args.args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
    )
}

fn generic_arg<'t>(ty: &'t syn::Type, wrapper: &str) -> Option<&'t syn::Type> {
    generic_args(ty, wrapper)?.first().copied()
}

/// Every struct below `dir`, by (module path, name): a file's folder below
/// `dir` is its module (`api/core/v1/pod.rs` is in `api::core::v1`); the
/// `mod.rs` files only re-export.
fn read_structs(dir: &Path) -> Result<Structs, String> {
    let mut out = HashMap::new();
    for path in rust_files_below(dir)? {
        if path.file_name().is_some_and(|n| n == "mod.rs") {
            continue;
        }
        let rel = path.parent().unwrap_or(Path::new(""));
        let full = dir.join(&path);
        let text = fs::read_to_string(&full).map_err(|err| format!("{}: {err}", full.display()))?;
        let file = syn::parse_file(&text).map_err(|err| format!("{}: {err}", full.display()))?;
        let module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let json_names = json_names(&text);
        for item in file.items {
            let syn::Item::Struct(item) = item else {
                continue;
            };
            let named = match item.fields {
                syn::Fields::Named(named) => named,
                // A JSON-value newtype stands for a message without fields.
                _ => {
                    let fields = BTreeMap::new();
                    out.insert(
                        (module.clone(), item.ident.to_string()),
                        RustStruct {
                            fields,
                            newtype: true,
                        },
                    );
                    continue;
                }
            };
            let mut fields = BTreeMap::new();
            for field in named.named {
                let ident = field.ident.map(|i| i.to_string()).unwrap_or_default();
                let key = ident.trim_start_matches("r#").to_string();
                let json = json_names.get(&key).cloned().ok_or_else(|| {
                    format!(
                        "{}: no JSON name for field `{ident}` of {}",
                        full.display(),
                        item.ident
                    )
                })?;
                fields.insert(json, (ident, field.ty));
            }
            out.insert(
                (module.clone(), item.ident.to_string()),
                RustStruct {
                    fields,
                    newtype: false,
                },
            );
        }
    }
    Ok(out)
}

/// From k8s-openapi's serde code: `"nodeName" => Field::Key_node_name` gives
/// field `node_name` the JSON name `nodeName`.
fn json_names(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('"') else {
            continue;
        };
        let Some((json, rest)) = rest.split_once('"') else {
            continue;
        };
        let Some(key) = rest.trim().strip_prefix("=> Field::Key_") else {
            continue;
        };
        let key = key.trim_end_matches(',').trim();
        out.insert(key.to_string(), json.to_string());
    }
    out
}

/// Every `.rs` file below `dir`, relative to it, sorted.
fn rust_files_below(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let here = if rel.as_os_str().is_empty() {
            dir.to_path_buf()
        } else {
            dir.join(&rel)
        };
        let entries =
            fs::read_dir(&here).map_err(|err| format!("reading {}: {err}", here.display()))?;
        for entry in entries {
            let entry = entry.map_err(|err| format!("reading {}: {err}", here.display()))?;
            let path = rel.join(entry.file_name());
            let is_dir = entry
                .file_type()
                .map_err(|err| format!("{}: {err}", dir.join(&path).display()))?
                .is_dir();
            if is_dir {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
