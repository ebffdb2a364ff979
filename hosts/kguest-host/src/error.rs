//! Typed errors for loading a plugin and for calling a hook.

use std::fmt;
use std::time::Duration;

use crate::types::{Code, Hook, HookSet, Status};

/// Why [`Plugin::load`](crate::Plugin::load) failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// The configuration is inconsistent with the runtime (e.g. a memory
    /// limit above the runtime's pool slot size).
    InvalidConfig(String),
    /// The bytes are not a valid wasm module (or use disabled features):
    /// wasmtime's reason, on one line.
    Compile(String),
    /// The guest does not export a 32-bit, unshared linear memory named `memory`.
    MissingMemory,
    /// A known export has the wrong kind or signature.
    WrongSignature {
        /// Export name, e.g. `"score"` or `"_start"`.
        export: String,
        /// What KSW requires, e.g. `"() -> i64"`.
        expected: &'static str,
    },
    /// The guest imports something the host does not provide.
    UnknownImport {
        /// Import module.
        module: String,
        /// Import name.
        name: String,
    },
    /// A known import is declared with the wrong type.
    ImportSignature {
        /// Import module.
        module: String,
        /// Import name.
        name: String,
        /// The signature the host provides, e.g. `"(i32, i32) -> i32"`.
        expected: &'static str,
    },
    /// The guest exports none of the plugin hooks.
    NoHooks,
    /// The exported hooks form a set that KSW's host rejects (mask.go).
    UnsupportedHookSet(HookSet),
    /// Linking failed (a host bug if imports validated): wasmtime's reason,
    /// on one line.
    Link(String),
    /// Creating the first instance, or running `_start`, failed.
    Instantiate(CallError),
    /// [`Plugin::from_guest_url`](crate::Plugin::from_guest_url) was given
    /// an empty URL.
    MissingGuestUrl,
    /// Reading the guest from its URL failed.
    GuestUrl {
        url: String,
        source: crate::guest_url::FetchError,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::InvalidConfig(m) => write!(f, "invalid plugin configuration: {m}"),
            LoadError::Compile(m) => write!(f, "wasm: error compiling guest: {m}"),
            LoadError::MissingMemory => f.write_str("wasm: guest doesn't export memory[memory]"),
            LoadError::WrongSignature { export, expected } => write!(
                f,
                "wasm: guest exports the wrong signature for func[{export}]. should be {expected}"
            ),
            LoadError::UnknownImport { module, name } => {
                write!(f, "guest imports unknown function {module}.{name}")
            }
            LoadError::ImportSignature {
                module,
                name,
                expected,
            } => write!(
                f,
                "guest imports {module}.{name} with the wrong signature; host provides {expected}"
            ),
            LoadError::NoHooks => {
                f.write_str(kguest_abi::KswRefusal::NoPluginFunctions.ksw_message())
            }
            LoadError::UnsupportedHookSet(set) => match kguest_abi::ksw_load(set.bits()) {
                Err(refusal) => write!(
                    f,
                    "{} (exports: {set}; {})",
                    refusal.ksw_message(),
                    refusal.explanation()
                ),
                // Not built by the host from a refused set.
                Ok(_) => write!(f, "hook set {set} refused"),
            },
            LoadError::Link(m) => write!(f, "error linking guest: {m}"),
            LoadError::Instantiate(CallError::Exit { hook: None, code }) => write!(
                f,
                "wasm: _start called proc_exit({code}): the guest exits while initializing \
                 (a TinyGo >= 0.35 guest must be built with -buildmode=wasi-legacy)"
            ),
            LoadError::Instantiate(e) => write!(f, "{e}"),
            LoadError::MissingGuestUrl => f.write_str("wasm: guestURL is required"),
            LoadError::GuestUrl { url, source } => {
                write!(f, "wasm: error reading guestURL {url}: {source}")
            }
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Instantiate(e) => Some(e),
            LoadError::GuestUrl { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Why a hook call failed. After every variant except
/// [`CallError::NotExported`] and [`CallError::UnknownStatus`] the instance
/// that ran the call has been discarded; the plugin keeps serving with fresh
/// instances.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// The guest trapped (e.g. `unreachable`, which is how a TinyGo panic
    /// ends). Displayed like KSW's error: `wasm: <hook> error: <output>\n<trap>`.
    Trap {
        /// Hook being called (`None` for instantiation, `_start` included).
        hook: Option<Hook>,
        /// What the guest wrote to stdout/stderr during the call (a TinyGo
        /// panic's text), lossy UTF-8; empty if nothing.
        output: String,
        /// The trap as wasmtime reports it, with its wasm backtrace.
        message: String,
    },
    /// The call ran past its deadline and was interrupted.
    Deadline {
        /// Hook being called (`None` for `_start`).
        hook: Option<Hook>,
        /// The configured timeout.
        timeout: Duration,
    },
    /// The guest exhausted its wasm stack.
    StackOverflow {
        /// Hook being called (`None` for `_start`).
        hook: Option<Hook>,
    },
    /// The guest tried to grow its memory past the configured limit.
    MemoryLimit {
        /// Hook being called (`None` for `_start`).
        hook: Option<Hook>,
        /// Requested memory size in bytes.
        requested: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A host import was given a `ptr`/`len` outside guest memory (or whose
    /// sum overflows 32 bits).
    OutOfBounds {
        /// Import name, e.g. `"result.status_reason"`.
        import: &'static str,
        /// Guest pointer.
        ptr: u32,
        /// Length requested.
        len: u64,
        /// Guest memory size at the time.
        memory_size: usize,
    },
    /// A host import received malformed data (e.g. a cluster event list whose
    /// length is not a multiple of 8).
    Abi {
        /// Import name.
        import: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// The guest called WASI `proc_exit`.
    Exit {
        /// Hook being called (`None` for `_start`).
        hook: Option<Hook>,
        /// Exit code.
        code: i32,
    },
    /// The guest returned a status code outside 0..=5 and the plugin was
    /// configured with `strict_status`.
    UnknownStatus(i32),
    /// The hook is not exported by this guest.
    NotExported(Hook),
    /// A fresh instance could not be created (e.g. the runtime's instance
    /// pool is exhausted).
    Instantiate(String),
}

/// The name KSW's errors use: the export, or `instantiate` for `_start`.
fn hook_name(hook: &Option<Hook>) -> &'static str {
    match hook {
        Some(h) => h.export_name(),
        None => "instantiate",
    }
}

impl CallError {
    /// The status KSW's host returns for this error
    /// (`framework.AsStatus(err)`): code `Error`, the error text as reason.
    pub fn as_status(&self) -> Status {
        Status {
            code: Code::ERROR,
            reason: Some(self.to_string()),
        }
    }

    /// What the guest printed before a trap (e.g. `panic: ...`), if anything.
    pub fn guest_output(&self) -> Option<&str> {
        match self {
            CallError::Trap { output, .. } if !output.is_empty() => Some(output),
            _ => None,
        }
    }

    /// The hook that failed (`None` for instantiation or an import fault).
    pub fn hook(&self) -> Option<Hook> {
        match self {
            CallError::Trap { hook, .. }
            | CallError::Deadline { hook, .. }
            | CallError::StackOverflow { hook }
            | CallError::MemoryLimit { hook, .. }
            | CallError::Exit { hook, .. } => *hook,
            CallError::NotExported(hook) => Some(*hook),
            _ => None,
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Trap {
                hook,
                output,
                message,
            } => {
                write!(f, "wasm: {} error: ", hook_name(hook))?;
                if !output.is_empty() {
                    writeln!(f, "{output}")?;
                }
                f.write_str(message)
            }
            CallError::Deadline { hook, timeout } => write!(
                f,
                "wasm: {} error: deadline of {timeout:?} exceeded",
                hook_name(hook)
            ),
            CallError::StackOverflow { hook } => {
                write!(f, "wasm: {} error: stack overflow", hook_name(hook))
            }
            CallError::MemoryLimit {
                hook,
                requested,
                limit,
            } => write!(
                f,
                "wasm: {} error: memory growth to {requested} bytes exceeds the limit of {limit} bytes",
                hook_name(hook)
            ),
            CallError::OutOfBounds {
                import,
                ptr,
                len,
                memory_size,
            } => write!(
                f,
                "wasm: {import} accessed {len} bytes at {ptr:#x}, outside guest memory of {memory_size} bytes"
            ),
            CallError::Abi { import, detail } => write!(f, "wasm: {import}: {detail}"),
            CallError::Exit { hook, code } => {
                write!(f, "wasm: {} error: proc_exit({code})", hook_name(hook))
            }
            CallError::UnknownStatus(code) => write!(f, "wasm: unknown status code {code}"),
            CallError::NotExported(hook) => write!(f, "wasm: guest does not export {hook}"),
            CallError::Instantiate(m) => write!(f, "wasm: error creating instance: {m}"),
        }
    }
}

impl std::error::Error for CallError {}

/// Raised inside host functions; travels through wasmtime as the trap payload
/// and is turned back into a [`CallError`] by the caller.
#[derive(Debug)]
pub(crate) enum HostFault {
    /// A call that breaks the ABI's rules (guest memory faults are
    /// `kguest_wasi`'s).
    Abi {
        import: &'static str,
        detail: String,
    },
}

impl fmt::Display for HostFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostFault::Abi { import, detail } => write!(f, "{import}: {detail}"),
        }
    }
}

impl std::error::Error for HostFault {}

/// A wasmtime error on one line: its causes joined by `: `, up to the first
/// that spans lines, which is cut at its first line break. wasmparser
/// follows some reasons with a multi-line dump (a bad magic header prints
/// the expected and actual bytes, one per line, after ` - `); the dump's
/// start is dropped with it.
pub(crate) fn one_line(err: &wasmtime::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        let (line, cut) = match text.split_once('\n') {
            Some((first, _)) => (first.trim_end(), true),
            None => (text.as_str(), false),
        };
        let line = match line.rsplit_once(" - ") {
            Some((reason, _)) if cut => reason,
            _ => line,
        };
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(line);
        if cut {
            break;
        }
    }
    out
}
