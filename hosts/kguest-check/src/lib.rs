//! Checks a built [kube-scheduler-wasm-extension] plugin, whatever built
//! it: its imports and exports against the ABI ([`kguest_abi`]), its hook
//! set against the scheduler's rules, its size, and the panic and
//! `core::fmt` functions it contains, with the functions that pull them in.
//!
//! `kguest check` and kguest's own size gate (`cargo xtask size --check`)
//! are this crate. It reads modules with `wasmparser` and has no runtime.
//!
//! ```no_run
//! let wasm = std::fs::read("plugin.wasm")?;
//! let module = kguest_check::Module::parse(&wasm)?;
//! for finding in module.abi_findings() {
//!     println!("{}: {}", finding.severity, finding.message);
//! }
//! for reach in module.panic_reach() {
//!     println!("{} pulls in {}", reach.function, reach.via);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [kube-scheduler-wasm-extension]: https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

use kguest_abi::{self as abi, KswRefusal};
use wasmparser::{
    CompositeInnerType, Encoding, ExternalKind, KnownCustom, Name, Operator, Parser, Payload,
    TypeRef,
};

/// A module that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

impl From<wasmparser::BinaryReaderError> for ParseError {
    fn from(err: wasmparser::BinaryReaderError) -> Self {
        ParseError(format!(
            "malformed wasm at byte {}: {}",
            err.offset(),
            err.message()
        ))
    }
}

/// A function signature; value types are spelled as in the text format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub params: Vec<String>,
    pub results: Vec<String>,
}

impl Signature {
    fn of(ty: &wasmparser::FuncType) -> Signature {
        let name = |t: &wasmparser::ValType| t.to_string();
        Signature {
            params: ty.params().iter().map(name).collect(),
            results: ty.results().iter().map(name).collect(),
        }
    }

    /// Whether this is the ABI signature `params -> results`.
    pub fn is(&self, params: &[abi::ValType], results: &[abi::ValType]) -> bool {
        let same = |ours: &[String], theirs: &[abi::ValType]| {
            ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(a, b)| a == b.as_str())
        };
        same(&self.params, params) && same(&self.results, results)
    }
}

/// Writes `params -> results` the way the ABI tables do: `(i32, i32) -> i32`.
fn write_signature(f: &mut fmt::Formatter<'_>, params: &[&str], results: &[&str]) -> fmt::Result {
    write!(f, "({}) -> ", params.join(", "))?;
    match results {
        [one] => f.write_str(one),
        many => write!(f, "({})", many.join(", ")),
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<&str> = self.params.iter().map(String::as_str).collect();
        let results: Vec<&str> = self.results.iter().map(String::as_str).collect();
        write_signature(f, &params, &results)
    }
}

/// The ABI signature `params -> results`, for messages.
struct AbiSignature(&'static [abi::ValType], &'static [abi::ValType]);

impl fmt::Display for AbiSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |ts: &[abi::ValType]| ts.iter().map(|t| t.as_str()).collect::<Vec<_>>();
        write_signature(f, &names(self.0), &names(self.1))
    }
}

/// What an import or export is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Func(Signature),
    Table,
    Memory,
    Global,
    Tag,
}

impl Kind {
    fn noun(&self) -> &'static str {
        match self {
            Kind::Func(_) => "a function",
            Kind::Table => "a table",
            Kind::Memory => "a memory",
            Kind::Global => "a global",
            Kind::Tag => "a tag",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Import {
    pub module: String,
    pub name: String,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    pub name: String,
    pub kind: Kind,
}

/// What the checks need from a module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The module's size in bytes.
    pub size: usize,
    pub imports: Vec<Import>,
    pub exports: Vec<Export>,
    /// `(section, bytes of content)` in file order; custom sections are
    /// named `custom "NAME"`.
    pub sections: Vec<(String, usize)>,
    /// Whether there is a `name` section (stripped builds have none).
    pub has_name_section: bool,
    /// Function names from the `name` section, by function index (imports
    /// first).
    pub function_names: BTreeMap<u32, String>,
    /// Imported plus defined functions.
    pub function_count: u32,
    /// The functions each defined function calls directly, by index.
    calls: BTreeMap<u32, BTreeSet<u32>>,
}

const SECTION_NAMES: [&str; 14] = [
    "custom",
    "type",
    "import",
    "function",
    "table",
    "memory",
    "global",
    "export",
    "start",
    "element",
    "code",
    "data",
    "datacount",
    "tag",
];

impl Module {
    /// Reads `wasm`. Fails on anything that is not a well-formed core
    /// module (the function bodies are read for their calls, not
    /// validated).
    pub fn parse(wasm: &[u8]) -> Result<Module, ParseError> {
        if !wasm.starts_with(b"\0asm") {
            return Err(ParseError(
                "not a WebAssembly module (no `\\0asm` header)".into(),
            ));
        }
        let mut module = Module {
            size: wasm.len(),
            ..Module::default()
        };
        // Type index -> signature (None for non-function types).
        let mut types: Vec<Option<Signature>> = Vec::new();
        // Function index -> type index.
        let mut func_types: Vec<u32> = Vec::new();
        let mut raw_exports: Vec<(String, ExternalKind, u32)> = Vec::new();
        let mut imported_functions = 0u32;
        let mut next_body = 0u32;
        for payload in Parser::new(0).parse_all(wasm) {
            let payload = payload?;
            if let Some((id, range)) = payload.as_section() {
                let name = match &payload {
                    Payload::CustomSection(c) => format!("custom \"{}\"", c.name()),
                    _ => SECTION_NAMES
                        .get(usize::from(id))
                        .map_or_else(|| format!("section {id}"), |s| s.to_string()),
                };
                module.sections.push((name, range.len()));
            }
            match payload {
                Payload::Version {
                    encoding: Encoding::Component,
                    ..
                } => {
                    return Err(ParseError(
                        "a WebAssembly component, not a core module (the scheduler loads core modules)"
                            .into(),
                    ));
                }
                Payload::TypeSection(reader) => {
                    for group in reader {
                        for ty in group?.into_types() {
                            types.push(match &ty.composite_type.inner {
                                CompositeInnerType::Func(f) => Some(Signature::of(f)),
                                _ => None,
                            });
                        }
                    }
                }
                Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        let import = import?;
                        let kind = match import.ty {
                            TypeRef::Func(t) | TypeRef::FuncExact(t) => {
                                imported_functions += 1;
                                func_types.push(t);
                                func_kind(&types, t)?
                            }
                            TypeRef::Table(_) => Kind::Table,
                            TypeRef::Memory(_) => Kind::Memory,
                            TypeRef::Global(_) => Kind::Global,
                            TypeRef::Tag(_) => Kind::Tag,
                        };
                        module.imports.push(Import {
                            module: import.module.to_string(),
                            name: import.name.to_string(),
                            kind,
                        });
                    }
                }
                Payload::FunctionSection(reader) => {
                    for t in reader {
                        func_types.push(t?);
                    }
                }
                Payload::ExportSection(reader) => {
                    for export in reader {
                        let export = export?;
                        raw_exports.push((export.name.to_string(), export.kind, export.index));
                    }
                }
                Payload::CodeSectionEntry(body) => {
                    let index = imported_functions + next_body;
                    next_body += 1;
                    let mut callees = BTreeSet::new();
                    let mut ops = body.get_operators_reader()?;
                    while !ops.eof() {
                        match ops.read()? {
                            Operator::Call { function_index }
                            | Operator::ReturnCall { function_index } => {
                                callees.insert(function_index);
                            }
                            _ => {}
                        }
                    }
                    module.calls.insert(index, callees);
                }
                Payload::CustomSection(reader) => {
                    if let KnownCustom::Name(names) = reader.as_known() {
                        module.has_name_section = true;
                        for name in names {
                            // A malformed name section only costs the names.
                            let Ok(Name::Function(map)) = name else {
                                continue;
                            };
                            for naming in map.into_iter().flatten() {
                                module
                                    .function_names
                                    .insert(naming.index, naming.name.to_string());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        module.function_count = u32::try_from(func_types.len()).unwrap_or(u32::MAX);
        for (name, kind, index) in raw_exports {
            let kind = match kind {
                ExternalKind::Func | ExternalKind::FuncExact => {
                    let ty = func_types.get(index as usize).copied().ok_or_else(|| {
                        ParseError(format!(
                            "export `{name}` names function {index}, which does not exist"
                        ))
                    })?;
                    func_kind(&types, ty)?
                }
                ExternalKind::Table => Kind::Table,
                ExternalKind::Memory => Kind::Memory,
                ExternalKind::Global => Kind::Global,
                ExternalKind::Tag => Kind::Tag,
            };
            module.exports.push(Export { name, kind });
        }
        Ok(module)
    }

    /// The hooks exported as functions, as a [`kguest_abi::bits`] set.
    pub fn hooks(&self) -> u32 {
        self.exports
            .iter()
            .filter(|e| matches!(e.kind, Kind::Func(_)))
            .filter_map(|e| abi::find_hook(&e.name))
            .fold(0, |set, h| set | h.bit)
    }

    /// The name of function `index` (`func[N]` when the name section does
    /// not have it).
    pub fn function_name(&self, index: u32) -> String {
        self.function_names
            .get(&index)
            .cloned()
            .unwrap_or_else(|| format!("func[{index}]"))
    }

    /// Everything the ABI says about this module: [`Severity::Violation`]s
    /// make the scheduler refuse or misuse it; [`Severity::Warning`]s are
    /// legal but not what a kguest plugin does (WASI imports, extra
    /// exports, hooks that are never called).
    pub fn abi_findings(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut wasi = Vec::new();
        for import in &self.imports {
            let what = format!("`{}`.`{}`", import.module, import.name);
            let Some(spec) = abi::import(&import.module, &import.name) else {
                out.push(Finding::violation(format!(
                    "imports {what}, which the host does not provide"
                )));
                continue;
            };
            match &import.kind {
                Kind::Func(sig) if sig.is(spec.params, spec.results) => {
                    if spec.is_wasi() {
                        wasi.push(import.name.as_str());
                    }
                }
                Kind::Func(sig) => out.push(Finding::violation(format!(
                    "imports {what} as {sig}; the host's is {}",
                    AbiSignature(spec.params, spec.results)
                ))),
                other => out.push(Finding::violation(format!(
                    "imports {what} as {}; the host's is a function",
                    other.noun()
                ))),
            }
        }
        // A `kguest::Load` plugin writes why it refuses its config to
        // stderr in `_start` (the hosts put it in their load error), as a
        // TinyGo guest's panic in `main` does: the one WASI import a kguest
        // plugin has a use for.
        let loads = self.exports.iter().any(|e| e.name == "_start");
        if loads {
            wasi.retain(|name| *name != "fd_write");
        }
        if !wasi.is_empty() {
            out.push(Finding::warning(format!(
                "imports WASI ({}); the scheduler provides it, kguest plugins do without",
                wasi.join(", ")
            )));
        }

        match self.exports.iter().find(|e| e.name == "memory") {
            None => out.push(Finding::violation(
                "does not export `memory`, which the scheduler requires".into(),
            )),
            Some(e) if e.kind != Kind::Memory => out.push(Finding::violation(format!(
                "exports `memory` as {}; the scheduler requires a memory",
                e.kind.noun()
            ))),
            Some(_) => {}
        }
        let mut ignored = Vec::new();
        for export in &self.exports {
            let expected = if let Some(hook) = abi::find_hook(&export.name) {
                let results: &'static [abi::ValType] = match hook.result {
                    Some(abi::ValType::I32) => &[abi::ValType::I32],
                    Some(abi::ValType::I64) => &[abi::ValType::I64],
                    None => &[],
                };
                Some(AbiSignature(&[], results))
            } else if export.name == "_start" {
                Some(AbiSignature(&[], &[]))
            } else {
                None
            };
            match (expected, &export.kind) {
                (Some(want), Kind::Func(sig)) if sig.is(want.0, want.1) => {}
                (Some(want), Kind::Func(sig)) => out.push(Finding::violation(format!(
                    "exports `{}` as {sig}; the scheduler calls it as {want}",
                    export.name
                ))),
                (Some(want), other) => out.push(Finding::violation(format!(
                    "exports `{}` as {}; the scheduler calls it as a function {want}",
                    export.name,
                    other.noun()
                ))),
                (None, Kind::Memory) if export.name == "memory" => {}
                // rustc exports these from every wasm cdylib.
                (None, Kind::Global) if RUSTC_GLOBALS.contains(&export.name.as_str()) => {}
                (None, _) => ignored.push(export.name.as_str()),
            }
        }
        if !ignored.is_empty() {
            out.push(Finding::warning(format!(
                "exports {}, which the scheduler ignores",
                ignored
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }

        // The one hook-set rule, shared with kguest's host: KSW's load
        // decision, with its error text.
        let hooks = self.hooks();
        if let Err(refusal) = abi::ksw_load(hooks) {
            out.push(Finding::violation(format!(
                "hook set {}: the scheduler refuses it with `{}` ({})",
                hook_list(hooks),
                refusal.ksw_message(),
                refusal.explanation()
            )));
            if refusal == KswRefusal::NoPluginFunctions {
                return out;
            }
        }
        if let Some(warning) = abi::ksw_warning(hooks) {
            out.push(Finding::warning(warning.as_str().into()));
        }
        for orphan in abi::hook_names(abi::never_called(hooks)) {
            let main = match orphan {
                "postfilter" => "filter",
                "prescore" | "normalizescore" => "score",
                _ => "bind",
            };
            out.push(Finding::warning(format!(
                "exports `{orphan}` without `{main}`: the scheduler never calls it"
            )));
        }
        out
    }

    /// The findings for a KRM function (a WASI preview1 command, see
    /// `kguest krm`): it imports only `wasi_snapshot_preview1` functions
    /// and exports `_start` and `memory` (plus rustc's data symbols).
    pub fn krm_findings(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        for import in &self.imports {
            if import.module != abi::MODULE_WASI {
                out.push(Finding::violation(format!(
                    "imports `{}`.`{}`, which is not WASI preview1",
                    import.module, import.name
                )));
            }
        }
        let has = |name: &str, kind: fn(&Kind) -> bool| {
            self.exports.iter().any(|e| e.name == name && kind(&e.kind))
        };
        if !has(
            "_start",
            |k| matches!(k, Kind::Func(sig) if sig.is(&[], &[])),
        ) {
            out.push(Finding::violation(
                "does not export `_start` as a function () -> ()".into(),
            ));
        }
        if !has("memory", |k| *k == Kind::Memory) {
            out.push(Finding::violation("does not export `memory`".into()));
        }
        for export in &self.exports {
            let expected = match &export.kind {
                Kind::Func(_) => export.name == "_start",
                Kind::Memory => export.name == "memory",
                Kind::Global => RUSTC_GLOBALS.contains(&export.name.as_str()),
                _ => false,
            };
            if !expected {
                out.push(Finding::warning(format!(
                    "exports `{}` ({}), which a KRM runtime ignores",
                    export.name,
                    export.kind.noun()
                )));
            }
        }
        out
    }

    /// The functions whose names say they are `core::fmt` or panic
    /// machinery (empty without a name section).
    pub fn forbidden_functions(&self) -> Vec<&str> {
        self.function_names
            .values()
            .map(String::as_str)
            .filter(|name| is_forbidden(name))
            .collect()
    }

    /// Where panic/fmt code comes from: each function outside the standard
    /// library that calls it directly, or through standard-library code
    /// that leads to it, with the callee on that path. Sorted by function
    /// name; empty without a name section.
    pub fn panic_reach(&self) -> Vec<Reach> {
        if self.function_names.is_empty() {
            return Vec::new();
        }
        let mut callers: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for (&caller, callees) in &self.calls {
            for &callee in callees {
                callers.entry(callee).or_default().insert(caller);
            }
        }
        // Walk from the forbidden functions up through library code; the
        // first function outside the library on each path is the answer.
        let mut seen: BTreeSet<u32> = self
            .function_names
            .iter()
            .filter(|(_, name)| is_forbidden(name))
            .map(|(&i, _)| i)
            .collect();
        let mut queue: VecDeque<u32> = seen.iter().copied().collect();
        let go = self
            .function_names
            .values()
            .any(|n| n.starts_with("runtime."));
        let mut found: BTreeMap<String, String> = BTreeMap::new();
        while let Some(callee) = queue.pop_front() {
            for &caller in callers.get(&callee).into_iter().flatten() {
                if seen.contains(&caller) {
                    continue;
                }
                let name = self.function_name(caller);
                if is_library(&name, go) {
                    seen.insert(caller);
                    queue.push_back(caller);
                } else {
                    found
                        .entry(name)
                        .or_insert_with(|| self.function_name(callee));
                }
            }
        }
        found
            .into_iter()
            .map(|(function, via)| Reach { function, via })
            .collect()
    }
}

fn func_kind(types: &[Option<Signature>], index: u32) -> Result<Kind, ParseError> {
    match types.get(index as usize) {
        Some(Some(sig)) => Ok(Kind::Func(sig.clone())),
        _ => Err(ParseError(format!(
            "a function refers to type {index}, which is not a function type"
        ))),
    }
}

/// `prefilter|filter`, or `(none)`.
pub fn hook_list(set: u32) -> String {
    let names: Vec<&str> = abi::hook_names(set).collect();
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join("|")
    }
}

/// Data symbols rustc exports from every wasm cdylib.
const RUSTC_GLOBALS: &[&str] = &["__data_end", "__heap_base"];

/// Function-name fragments that mean `core::fmt` or panic machinery
/// (demangled and legacy-mangled spellings).
pub const FORBIDDEN: &[&str] = &[
    "core::fmt",
    "4core3fmt",
    "panicking",
    "panic_fmt",
    "panic_bounds_check",
    "panic_nounwind",
    "begin_panic",
    "rust_begin_unwind",
    "slice_index_fail",
    "slice_end_index_len_fail",
    "slice_start_index_len_fail",
    "slice_error_fail",
    "str_index_overflow_fail",
    "unwrap_failed",
    "expect_failed",
    "assert_failed",
];

/// Whether `name` is `core::fmt` or panic machinery: Rust's (see
/// [`FORBIDDEN`]) or, in TinyGo builds, Go's `fmt` package and the
/// runtime's panics.
pub fn is_forbidden(name: &str) -> bool {
    if FORBIDDEN.iter().any(|f| name.contains(f)) {
        return true;
    }
    let go = name.trim_start_matches(['(', '*']);
    go.starts_with("fmt.") || (go.starts_with("runtime.") && name.contains("anic"))
}

/// Whether `name` is a standard-library function: Rust's core, alloc,
/// std and compiler_builtins (trait impls included), or, in a Go module,
/// a package of Go's standard library (whose import paths have no dot in
/// their first element) or compiler-made code.
fn is_library(name: &str, go: bool) -> bool {
    let name = name
        .trim_start_matches(['<', '&', '*', '(', '['])
        .trim_start_matches("mut ")
        .trim_start_matches("dyn ");
    const RUST: &[&str] = &[
        "core::",
        "alloc::",
        "std::",
        "compiler_builtins::",
        "_ZN4core",
        "_ZN5alloc",
        "_ZN3std",
        "_ZN17compiler_builtins",
    ];
    if RUST.iter().any(|p| name.starts_with(p)) {
        return true;
    }
    if !go || name.contains("::") {
        return false;
    }
    if name.starts_with("interface:") || name.starts_with("byn$") {
        return true;
    }
    let first = match name.split_once('/') {
        Some((first, _)) if !first.contains(['(', ' ', '{']) => first,
        _ => name.split('.').next().unwrap_or(""),
    };
    !first.is_empty()
        && first != "main"
        && !first.contains('.')
        && first
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The scheduler refuses the module, or calls something that is not
    /// there.
    Violation,
    /// Legal, but not what a kguest plugin does.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Violation => "violation",
            Severity::Warning => "warning",
        })
    }
}

/// One thing the checks found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub message: String,
}

impl Finding {
    fn violation(message: String) -> Finding {
        Finding {
            severity: Severity::Violation,
            message,
        }
    }

    fn warning(message: String) -> Finding {
        Finding {
            severity: Severity::Warning,
            message,
        }
    }
}

/// A function outside the standard library that pulls in panic or
/// `core::fmt` code, and the function it calls on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reach {
    pub function: String,
    pub via: String,
}

/// `12345` → `12,345`.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
