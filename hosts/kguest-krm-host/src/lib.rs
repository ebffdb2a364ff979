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
//! WASI is `kguest-wasi`'s small preview1 (the one kguest-host uses too),
//! not wasmtime-wasi: see ARCHITECTURE.md for the measurements behind that.

#![forbid(unsafe_code)]

mod error;
mod krm;
mod run;

pub use error::RunError;
pub use krm::{KrmError, Mode, Response, check_list, execute, function_input, legacy_input};
pub use run::{Limits, Outcome, run};
