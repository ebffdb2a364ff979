//! Runs KRM functions built for WASI preview1 (`wasm32-wasip1`): the
//! kustomize/kpt function protocol, as KEP-4944's prototype runs them
//! (`_start`, argv `["krm"]`, the ResourceList on standard input, the
//! result on standard output, no environment, files or sockets), on
//! wasmtime, with a deadline, a memory limit and an output limit.
//!
//! - [`execute`]: one function run, ResourceList checks included, in the
//!   function protocol or kustomize's legacy exec plugin protocol
//!   ([`Mode`]). `kguest krm` is a thin command line around it.
//! - [`run`]: the bare WASI command runner underneath.
//!
//! WASI is this crate's own minimal preview1 (see `wasi.rs`), not
//! wasmtime-wasi: wasmtime-wasi brings its async runtime, the component
//! model and a filesystem and socket layer, which a KRM function must not
//! have, and would double the host's build time on two cores.

#![forbid(unsafe_code)]

mod error;
mod krm;
mod run;
mod wasi;

pub use error::RunError;
pub use krm::{KrmError, Mode, Response, check_list, execute, function_input, legacy_input};
pub use run::{Limits, Outcome, run};
