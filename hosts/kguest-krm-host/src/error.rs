//! Typed errors of running a KRM function.

use std::fmt;
use std::time::Duration;

/// Why a function could not run to completion.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// Not a valid wasm module.
    Compile(String),
    /// The module imports something other than WASI preview1 functions
    /// (another module, a memory or table, or a name preview1 does not have).
    Import { module: String, name: String },
    /// No `_start: () -> ()` export (not a WASI command).
    NoStart,
    /// The function ran past its deadline.
    Deadline(Duration),
    /// The function asked for more memory than allowed.
    MemoryLimit { requested: usize, limit: usize },
    /// The function wrote more than allowed to standard output.
    OutputLimit(usize),
    /// The function trapped (or called an unsupported WASI function).
    Trap(String),
    /// A host-side failure (engine setup).
    Internal(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Compile(m) => write!(f, "not a valid wasm module: {m}"),
            RunError::Import { module, name } => write!(
                f,
                "the module imports `{module}`.`{name}`; a KRM function may import only WASI preview1 functions"
            ),
            RunError::NoStart => {
                f.write_str("the module exports no `_start` function (not a WASI command)")
            }
            RunError::Deadline(d) => write!(
                f,
                "the function ran longer than {} s and was stopped",
                d.as_secs_f64()
            ),
            RunError::MemoryLimit { requested, limit } => write!(
                f,
                "the function asked for {} MiB of memory, over the limit of {} MiB",
                requested >> 20,
                limit >> 20
            ),
            RunError::OutputLimit(limit) => {
                write!(
                    f,
                    "the function wrote more than {} MiB to standard output",
                    limit >> 20
                )
            }
            RunError::Trap(m) => write!(f, "the function trapped: {m}"),
            RunError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for RunError {}
