//! Model → Rust source. One function per kind of item; no decisions here.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::model::{Field, FieldType, Label, Message, MessagePath, Model, Package, Scalar};
use crate::{Config, Error, GENERATED_MARKER, JsonForm};

/// The module holding a package's schema statics. Its leading underscore
/// keeps it clear of package names (`k8s.io.apimachinery.pkg.runtime.schema`).
const SCHEMA_MODULE: &str = "_schema";

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

fn path_tokens(segments: &[String]) -> TokenStream {
    let segments = segments.iter().map(|s| ident(s));
    quote!(#(#segments)::*)
}

/// Everything an emitter needs to resolve names.
struct Ctx<'m> {
    paths: HashMap<String, MessagePath>,
    config: &'m Config,
}

impl Ctx<'_> {
    fn target(&self, full_name: &str) -> Result<&MessagePath, Error> {
        self.paths
            .get(full_name)
            .ok_or_else(|| Error::Emit(format!("unknown message type {full_name}")))
    }

    /// The view type of `full_name` as seen from module `from` (package
    /// module + nested modules).
    fn view_type(&self, full_name: &str, from: &[String]) -> Result<TokenStream, Error> {
        let target = self.target(full_name)?;
        let mut module = target.module.clone();
        module.extend(target.nested_modules.iter().cloned());
        let name = ident(&target.type_name);
        if module == from {
            return Ok(quote!(#name));
        }
        let module = path_tokens(&module);
        Ok(quote!(crate::#module::#name))
    }

    /// The schema static of `full_name` as seen from the `schema` module of
    /// package `from`.
    fn schema_static(&self, full_name: &str, from_package: &str) -> Result<TokenStream, Error> {
        let schema_mod = ident(SCHEMA_MODULE);
        let target = self.target(full_name)?;
        let name = ident(&target.schema_static);
        if target.package == from_package {
            return Ok(quote!(#name));
        }
        let module = path_tokens(&target.module);
        Ok(quote!(crate::#module::#schema_mod::#name))
    }
}

/// Emits every file: one per module of the package tree, plus the registry
/// and the templates.
pub fn files(config: &Config, model: &Model) -> Result<BTreeMap<PathBuf, String>, Error> {
    let ctx = Ctx {
        paths: model.paths(),
        config,
    };

    // Module tree: every prefix of every package's module path.
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    let mut packages: BTreeMap<Vec<String>, &Package> = BTreeMap::new();
    for package in model.packages.values() {
        for depth in 1..=package.module.len() {
            children
                .entry(package.module[..depth].to_vec())
                .or_default();
            children
                .entry(package.module[..depth - 1].to_vec())
                .or_default()
                .insert(package.module[depth - 1].clone());
        }
        packages.insert(package.module.clone(), package);
    }

    let mut out = BTreeMap::new();
    for (module, kids) in &children {
        if module.is_empty() {
            continue; // the crate root is the user's (or a template)
        }
        let body = module_file(&ctx, kids, packages.get(module).copied())?;
        let mut path: PathBuf = module.iter().collect();
        if kids.is_empty() {
            path.set_extension("rs");
        } else {
            path.push("mod.rs");
        }
        out.insert(path, render(config, body)?);
    }
    if config.registry {
        out.insert(
            PathBuf::from("registry.rs"),
            render(config, registry(&ctx, model)?)?,
        );
    }
    for (path, template) in &config.templates {
        if out.contains_key(path) {
            return Err(Error::NameClash(format!(
                "the template {} would replace a generated file",
                path.display()
            )));
        }
        let text = crate::from_template(&config.regen_command, &template.source, &template.text);
        out.insert(path.clone(), text);
    }
    Ok(out)
}

fn render(config: &Config, tokens: TokenStream) -> Result<String, Error> {
    let file: syn::File = syn::parse2(tokens).map_err(|err| Error::Emit(err.to_string()))?;
    Ok(format!(
        "{GENERATED_MARKER} by `{}`. Do not edit.\n\n{}",
        config.regen_command,
        space_items(&wrap_field_consts(&prettyplease::unparse(&file)))
    ))
}

/// prettyplease breaks a field constant too long for one line inside its
/// initializer (`Field::new(\n 3,\n )`); break it after `=` instead, as
/// rustfmt does.
fn wrap_field_consts(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let Some(head) = line
            .strip_suffix("Field::new(")
            .or_else(|| line.strip_suffix("Field::in_oneof("))
            .filter(|head| head.trim_start().starts_with("pub const ") && head.ends_with("= "))
        else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let call = &line[head.len()..];
        let indent = &line[..line.len() - line.trim_start().len()];
        let mut args = String::new();
        for arg in lines.by_ref() {
            let arg = arg.trim();
            if arg == ");" {
                break;
            }
            if !args.is_empty() {
                args.push(' ');
            }
            args.push_str(arg);
        }
        let args = args.strip_suffix(',').unwrap_or(&args);
        out.push_str(&format!(
            "{}\n{indent}    {call}{args});\n",
            head.trim_end()
        ));
    }
    out
}

/// prettyplease packs items together; separate them with blank lines the
/// way hand-formatted Rust reads: after the module docs, and before every
/// item (or its docs and attributes) that follows a finished item.
fn space_items(code: &str) -> String {
    const ITEM_STARTS: &[&str] = &[
        "///", "#[", "pub ", "impl", "fn ", "const ", "use ", "mod ", "static ",
    ];
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    let mut previous = "";
    for line in code.lines() {
        let this = line.trim_start();
        let prev = previous.trim_start();
        let after_module_docs = prev.starts_with("//!") && !this.starts_with("//!");
        let starts_item = ITEM_STARTS.iter().any(|s| this.starts_with(s));
        let prev_leads_in = prev.is_empty()
            || prev.starts_with("///")
            || prev.starts_with("#[")
            || prev.starts_with("#![")
            || prev.starts_with("//!")
            || prev.ends_with(['{', '(', '[', ',']);
        // Runs of `pub mod x;` or `use` lines stay together.
        let same_run = ["pub mod ", "use "]
            .iter()
            .any(|s| prev.starts_with(s) && this.starts_with(s));
        if !this.is_empty() && (after_module_docs || (starts_item && !prev_leads_in && !same_run)) {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        previous = line;
    }
    out
}

fn module_file(
    ctx: &Ctx<'_>,
    kids: &BTreeSet<String>,
    package: Option<&Package>,
) -> Result<TokenStream, Error> {
    let kids = kids.iter().map(|k| ident(k));
    let mut items = quote! { #(pub mod #kids;)* };
    let Some(package) = package else {
        return Ok(items);
    };
    let doc = format!(" Views of the protobuf package `{}`.", package.name);
    items = quote! { #![doc = #doc] #items };

    let views: Vec<&Message> = package.messages.iter().filter(|m| !m.map_entry).collect();
    if !views.is_empty() {
        items.extend(quote! {
            #[allow(unused_imports)]
            use kguest_wire::{Field, FieldSet, Map, Repeated, View, codec, rt, schema::MessageSchema};
        });
    }
    // Top-level views, then nested ones in modules named after their parents.
    let mut nested: BTreeMap<Vec<String>, Vec<TokenStream>> = BTreeMap::new();
    for message in &views {
        let target = ctx.target(&message.full_name)?;
        let mut from = package.module.clone();
        from.extend(target.nested_modules.iter().cloned());
        let view = view(ctx, message, &from)?;
        if target.nested_modules.is_empty() {
            items.extend(view);
        } else {
            nested
                .entry(target.nested_modules.clone())
                .or_default()
                .push(view);
        }
    }
    items.extend(nested_modules(&nested, &[]));
    items.extend(schema_module(ctx, package)?);
    Ok(items)
}

/// The modules for nested views below `prefix`, as one tree: every module
/// is emitted once, holding its views and its own nested modules.
fn nested_modules(
    nested: &BTreeMap<Vec<String>, Vec<TokenStream>>,
    prefix: &[String],
) -> TokenStream {
    let children: BTreeSet<&String> = nested
        .keys()
        .filter(|path| path.len() > prefix.len() && path.starts_with(prefix))
        .map(|path| &path[prefix.len()])
        .collect();
    let mut out = TokenStream::new();
    for child in children {
        let mut path = prefix.to_vec();
        path.push(child.clone());
        let views = nested.get(&path).map(Vec::as_slice).unwrap_or_default();
        let inner = nested_modules(nested, &path);
        let name = ident(child);
        out.extend(quote! {
            pub mod #name {
                #[allow(unused_imports)]
                use kguest_wire::{Field, FieldSet, Map, Repeated, View, codec, rt, schema::MessageSchema};
                #(#views)*
                #inner
            }
        });
    }
    out
}

fn view(ctx: &Ctx<'_>, message: &Message, from: &[String]) -> Result<TokenStream, Error> {
    let schema_mod = ident(SCHEMA_MODULE);
    let name = ident(&message.type_name);
    let schema = ident(&message.schema_static);
    let schema_path = if from.len() > ctx.target(&message.full_name)?.module.len() {
        let package_module = path_tokens(&ctx.target(&message.full_name)?.module);
        quote!(crate::#package_module::#schema_mod::#schema)
    } else {
        quote!(#schema_mod::#schema)
    };
    let mut doc = vec![format!(" View of `{}`.", message.full_name)];
    let package = &ctx.target(&message.full_name)?.package;
    if let Some(link) = ctx
        .config
        .doc_link
        .as_ref()
        .and_then(|f| f(package, &message.nesting.join(".")))
    {
        doc.push(String::new());
        doc.push(format!(" [Kubernetes API reference]({link})"));
    }
    let debug_name = Literal::string(&message.type_name);
    let accessors = message
        .fields
        .iter()
        .map(|field| accessor(ctx, field, from))
        .collect::<Result<Vec<_>, _>>()?;
    let field_consts = field_consts(ctx, message, from)?;
    let read = if message.fields.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            /// Reads several fields in one pass over the message: pass a tuple
            /// of this type's field constants (`Self::FIELD_NAME`); each value
            /// is what that field's accessor returns (see
            /// [`kguest_wire::fields`]).
            #[inline]
            pub fn read<F: FieldSet<'a, Self>>(&self, fields: F) -> F::Output {
                fields.read_from(self.bytes)
            }
        }
    };
    let reflect = match &ctx.config.reflect_feature {
        Some(feature) => reflect_impl(message, feature),
        None => TokenStream::new(),
    };
    Ok(quote! {
        #(#[doc = #doc])*
        #[derive(Clone, Copy, Default)]
        pub struct #name<'a> {
            bytes: &'a [u8],
        }

        impl<'a> #name<'a> {
            /// Wraps the encoded message; nothing is read until an accessor runs.
            pub const fn from_bytes(bytes: &'a [u8]) -> Self {
                Self { bytes }
            }

            /// The encoded message this view reads.
            pub const fn as_bytes(&self) -> &'a [u8] {
                self.bytes
            }

            #(#accessors)*

            #read
        }

        #field_consts

        impl<'a> View<'a> for #name<'a> {
            const SCHEMA: &'static MessageSchema = &#schema_path;

            fn from_bytes(bytes: &'a [u8]) -> Self {
                Self { bytes }
            }

            fn as_bytes(&self) -> &'a [u8] {
                self.bytes
            }
        }

        impl ::core::fmt::Debug for #name<'_> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#debug_name).field("len", &self.bytes.len()).finish_non_exhaustive()
            }
        }

        #reflect
    })
}

/// The associated constants naming each field for one-pass reads (none for
/// a message without fields).
fn field_consts(ctx: &Ctx<'_>, message: &Message, from: &[String]) -> Result<TokenStream, Error> {
    if message.fields.is_empty() {
        return Ok(TokenStream::new());
    }
    let name = ident(&message.type_name);
    let doc = format!(
        " The fields of `{}`, for one-pass reads with [`{}::read`].",
        message.full_name, message.type_name
    );
    let consts = message
        .fields
        .iter()
        .map(|field| {
            let constant = ident(&field.constant);
            let number = Literal::u32_unsuffixed(field.number);
            let doc = format!(" `{}` (field {}).", field.proto_name, field.number);
            let kind = match &field.label {
                Label::Singular => codec(ctx, &field.ty, from)?.0,
                Label::Repeated => {
                    let (codec, _) = codec(ctx, &field.ty, from)?;
                    quote!(Repeated<'a, #codec>)
                }
                Label::Map { key, value } => {
                    let (key, _) = codec(ctx, key, from)?;
                    let (value, _) = codec(ctx, value, from)?;
                    quote!(Map<'a, #key, #value>)
                }
            };
            let init = if field.oneof_siblings.is_empty() {
                quote!(Field::new(#number))
            } else {
                let siblings = field
                    .oneof_siblings
                    .iter()
                    .map(|n| Literal::u32_unsuffixed(*n));
                quote!(Field::in_oneof(#number, &[#(#siblings),*]))
            };
            Ok(quote! {
                #[doc = #doc]
                pub const #constant: Field<Self, #kind> = #init;
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(quote! {
        #[doc = #doc]
        impl<'a> #name<'a> {
            #(#consts)*
        }
    })
}

/// The reflect item for a value `expr` of type `ty`.
fn reflect_item(ty: &FieldType, expr: TokenStream) -> TokenStream {
    match reflect_variant(ty) {
        Some(variant) => quote!(#variant(#expr)),
        None => quote!(Item::Message(&#expr)),
    }
}

/// The `Item` variant of a non-message type (`None` for messages).
fn reflect_variant(ty: &FieldType) -> Option<TokenStream> {
    let variant = match ty {
        FieldType::Message(_) => return None,
        FieldType::String => "Str",
        FieldType::Bytes => "Bytes",
        FieldType::Scalar(scalar) => match scalar {
            Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 | Scalar::Enum => "I32",
            Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => "I64",
            Scalar::Uint32 | Scalar::Fixed32 => "U32",
            Scalar::Uint64 | Scalar::Fixed64 => "U64",
            Scalar::Bool => "Bool",
            Scalar::Float => "F32",
            Scalar::Double => "F64",
        },
    };
    let variant = ident(variant);
    Some(quote!(Item::#variant))
}

fn reflect_impl(message: &Message, feature: &str) -> TokenStream {
    let name = ident(&message.type_name);
    // The same visitor calls twice: from one scan, and through the accessors.
    let visits = |read: &dyn Fn(usize, &Field) -> TokenStream| -> Vec<TokenStream> {
        message
            .fields
            .iter()
            .enumerate()
            .map(|(index, field)| {
                let number = Literal::u32_unsuffixed(field.number);
                let value = read(index, field);
                match &field.label {
                    Label::Singular => match reflect_variant(&field.ty) {
                        Some(variant) => quote!(visitor.field(#number, #value.map(#variant));),
                        None => quote! {
                            visitor.field(#number, #value.as_ref().map(|x| Item::Message(x)));
                        },
                    },
                    Label::Repeated => {
                        let item = reflect_item(&field.ty, quote!(x));
                        quote!(for x in #value { visitor.element(#number, #item); })
                    }
                    Label::Map { key, value: v } => {
                        let key = reflect_item(key, quote!(k));
                        let v = reflect_item(v, quote!(v));
                        quote!(for (k, v) in #value { visitor.entry(#number, #key, #v); })
                    }
                }
            })
            .collect()
    };
    let one_pass = visits(&|index, field| {
        let index = Literal::usize_unsuffixed(index);
        let constant = ident(&field.constant);
        quote!(fields.get(#index, Self::#constant))
    });
    let accessors = visits(&|_, field| {
        let method = ident(&field.method);
        quote!(self.#method())
    });
    let (visitor, scan) = if message.fields.is_empty() {
        (quote!(_visitor), TokenStream::new())
    } else {
        let numbers = message
            .fields
            .iter()
            .map(|field| Literal::u32_unsuffixed(field.number));
        (
            quote!(visitor),
            quote!(let fields = rt::Scan::new(self.bytes, &[#(#numbers),*]);),
        )
    };
    quote! {
        #[cfg(feature = #feature)]
        impl<'a> kguest_wire::reflect::Reflect<'a> for #name<'a> {
            fn schema(&self) -> &'static MessageSchema {
                <Self as View<'a>>::SCHEMA
            }

            fn reflect(&self, #visitor: &mut dyn kguest_wire::reflect::Visitor<'a>) {
                #[allow(unused_imports)]
                use kguest_wire::reflect::Item;
                #scan
                #(#one_pass)*
            }

            fn reflect_accessors(&self, #visitor: &mut dyn kguest_wire::reflect::Visitor<'a>) {
                #[allow(unused_imports)]
                use kguest_wire::reflect::Item;
                #(#accessors)*
            }
        }
    }
}

fn scalar_codec(scalar: Scalar) -> (TokenStream, TokenStream) {
    match scalar {
        Scalar::Int32 => (quote!(codec::Int32), quote!(i32)),
        Scalar::Int64 => (quote!(codec::Int64), quote!(i64)),
        Scalar::Uint32 => (quote!(codec::Uint32), quote!(u32)),
        Scalar::Uint64 => (quote!(codec::Uint64), quote!(u64)),
        Scalar::Sint32 => (quote!(codec::Sint32), quote!(i32)),
        Scalar::Sint64 => (quote!(codec::Sint64), quote!(i64)),
        Scalar::Bool => (quote!(codec::Bool), quote!(bool)),
        Scalar::Enum => (quote!(codec::Enum), quote!(i32)),
        Scalar::Fixed32 => (quote!(codec::Fixed32), quote!(u32)),
        Scalar::Sfixed32 => (quote!(codec::Sfixed32), quote!(i32)),
        Scalar::Float => (quote!(codec::Float), quote!(f32)),
        Scalar::Fixed64 => (quote!(codec::Fixed64), quote!(u64)),
        Scalar::Sfixed64 => (quote!(codec::Sfixed64), quote!(i64)),
        Scalar::Double => (quote!(codec::Double), quote!(f64)),
    }
}

/// The codec and item type of a field type.
fn codec(
    ctx: &Ctx<'_>,
    ty: &FieldType,
    from: &[String],
) -> Result<(TokenStream, TokenStream), Error> {
    Ok(match ty {
        FieldType::Scalar(scalar) => scalar_codec(*scalar),
        FieldType::String => (quote!(codec::Str), quote!(&'a str)),
        FieldType::Bytes => (quote!(codec::Bytes), quote!(&'a [u8])),
        FieldType::Message(name) => {
            let view = ctx.view_type(name, from)?;
            (quote!(codec::Msg<#view<'a>>), quote!(#view<'a>))
        }
    })
}

fn accessor(ctx: &Ctx<'_>, field: &Field, from: &[String]) -> Result<TokenStream, Error> {
    let method = ident(&field.method);
    let number = Literal::u32_unsuffixed(field.number);
    let doc = format!(" `{}` (field {}).", field.proto_name, field.number);
    Ok(match &field.label {
        Label::Singular => {
            let (codec, item) = codec(ctx, &field.ty, from)?;
            let siblings = field
                .oneof_siblings
                .iter()
                .map(|n| Literal::u32_unsuffixed(*n));
            let read = if field.oneof_siblings.is_empty() {
                quote!(rt::get::<#codec>(self.bytes, #number))
            } else {
                quote!(rt::get_in_oneof::<#codec>(self.bytes, #number, &[#(#siblings),*]))
            };
            let mut tokens = quote! {
                #[doc = #doc]
                #[inline]
                pub fn #method(&self) -> Option<#item> {
                    #read
                }
            };
            if let Some(raw) = &field.raw_method {
                let raw = ident(raw);
                let raw_doc = format!(
                    " `{}` (field {}) as raw bytes, not checked for UTF-8.",
                    field.proto_name, field.number
                );
                tokens.extend(quote! {
                    #[doc = #raw_doc]
                    #[inline]
                    pub fn #raw(&self) -> Option<&'a [u8]> {
                        rt::get::<codec::Bytes>(self.bytes, #number)
                    }
                });
            }
            tokens
        }
        Label::Repeated => {
            let (codec, _) = codec(ctx, &field.ty, from)?;
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #method(&self) -> Repeated<'a, #codec> {
                    Repeated::new(self.bytes, #number)
                }
            }
        }
        Label::Map { key, value } => {
            let (key, _) = codec(ctx, key, from)?;
            let (value, _) = codec(ctx, value, from)?;
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #method(&self) -> Map<'a, #key, #value> {
                    Map::new(self.bytes, #number)
                }
            }
        }
    })
}

fn json_form(form: JsonForm) -> TokenStream {
    match form {
        JsonForm::Object => quote!(JsonForm::Object),
        JsonForm::Timestamp { frac_digits } => {
            let digits = Literal::u8_unsuffixed(frac_digits);
            quote!(JsonForm::Timestamp { frac_digits: #digits })
        }
        JsonForm::EmbeddedString => quote!(JsonForm::EmbeddedString),
        JsonForm::Quantity => quote!(JsonForm::Quantity),
        JsonForm::IntOrString => quote!(JsonForm::IntOrString),
        JsonForm::RawJson => quote!(JsonForm::RawJson),
        JsonForm::BareArray => quote!(JsonForm::BareArray),
        JsonForm::Duration => quote!(JsonForm::Duration),
    }
}

fn kind(ctx: &Ctx<'_>, field: &Field, package: &str) -> Result<TokenStream, Error> {
    Ok(match &field.ty {
        FieldType::Scalar(scalar) => {
            let name = ident(&format!("{scalar:?}"));
            quote!(Kind::#name)
        }
        FieldType::String => quote!(Kind::String),
        FieldType::Bytes => quote!(Kind::Bytes),
        FieldType::Message(name) => {
            let path = ctx.schema_static(name, package)?;
            quote!(Kind::Message(&#path))
        }
    })
}

fn schema_module(ctx: &Ctx<'_>, package: &Package) -> Result<TokenStream, Error> {
    let schema_mod = ident(SCHEMA_MODULE);
    let mut statics = Vec::new();
    for message in &package.messages {
        let name = ident(&message.schema_static);
        let full_name = Literal::string(&message.full_name);
        let form = json_form(message.json);
        let fields = message
            .fields
            .iter()
            .map(|field| {
                let number = Literal::u32_unsuffixed(field.number);
                let proto_name = Literal::string(&field.proto_name);
                let label = match field.label {
                    Label::Singular => quote!(Label::Singular),
                    Label::Repeated => quote!(Label::Repeated),
                    Label::Map { .. } => quote!(Label::Map),
                };
                let kind = kind(ctx, field, &package.name)?;
                let mut tokens = quote!(F::new(#number, #proto_name, #label, #kind));
                if field.always {
                    tokens.extend(quote!(.always()));
                }
                if field.inline {
                    tokens.extend(quote!(.inline()));
                }
                if field.emit_empty {
                    tokens.extend(quote!(.emit_empty()));
                }
                if field.omit_zero {
                    tokens.extend(quote!(.omit_zero()));
                }
                if let Some(json_name) = &field.json_name {
                    tokens.extend(quote!(.with_json_name(#json_name)));
                }
                Ok(tokens)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let schema = if message.json_order.is_empty() {
            quote!(MessageSchema::new(#full_name, #form, &[#(#fields),*]))
        } else {
            let order = message
                .json_order
                .iter()
                .map(|i| Literal::u16_unsuffixed(*i));
            quote!(MessageSchema::new(#full_name, #form, &[#(#fields),*]).with_json_order(&[#(#order),*]))
        };
        statics.push(quote! {
            pub static #name: MessageSchema = #schema;
        });
    }
    Ok(quote! {
        /// Static schemas of this package's messages (for validation and JSON).
        #[doc(hidden)]
        pub mod #schema_mod {
            #[allow(unused_imports)]
            use kguest_wire::schema::{FieldSchema as F, JsonForm, Kind, Label, MessageSchema};
            #(#statics)*
        }
    })
}

fn registry(ctx: &Ctx<'_>, model: &Model) -> Result<TokenStream, Error> {
    let mut entries: Vec<(&str, TokenStream)> = Vec::new();
    for package in model.packages.values() {
        for message in package.messages.iter().filter(|m| !m.map_entry) {
            entries.push((
                &message.full_name,
                ctx.schema_static(&message.full_name, "")?,
            ));
        }
    }
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let paths = entries.iter().map(|(_, path)| path);
    let groups = api_groups(model)?;
    let groups = if groups.is_empty() {
        quote! {}
    } else {
        let folders = groups.iter().map(|(folder, _)| folder);
        let names = groups.iter().map(|(_, group)| group);
        quote! {
            /// `(folder in k8s.io/api, API group name)` of every `k8s.io.api`
            /// package here, sorted by folder; the core group's name is empty.
            /// The protobuf package is named after the folder
            /// (`k8s.io.api.rbac.v1`), `apiVersion` after the group
            /// (`rbac.authorization.k8s.io/v1`).
            pub static API_GROUPS: &[(&str, &str)] = &[#((#folders, #names)),*];
        }
    };
    Ok(quote! {
        //! Every message schema of the crate, sorted by full protobuf name.

        use kguest_wire::schema::MessageSchema;

        /// All message schemas (map entries excluded), sorted by full name.
        pub static MESSAGES: &[&MessageSchema] = &[#(&#paths),*];

        #groups
    })
}

/// The API group of each `k8s.io/api` folder the model has packages of,
/// from [`crate::groups`] (group names are not in the protos).
fn api_groups(model: &Model) -> Result<Vec<(&str, &'static str)>, Error> {
    let mut out: Vec<(&str, &'static str)> = Vec::new();
    for package in model.packages.values() {
        let Some(rest) = package.name.strip_prefix("k8s.io.api.") else {
            continue;
        };
        let folder = rest.split('.').next().unwrap_or(rest);
        if out.iter().any(|(f, _)| *f == folder) {
            continue;
        }
        let group = crate::groups::group_of_folder(folder)
            .ok_or_else(|| Error::UnknownApiGroup(package.name.clone()))?;
        out.push((folder, group));
    }
    out.sort();
    Ok(out)
}
