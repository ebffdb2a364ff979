//! Guest memory and WASI preview1 for kguest's wasmtime hosts.
//!
//! - [`memory`]: bounds-checked reads and writes of a guest's linear memory.
//!   Every `(ptr, len)` a guest passes goes through [`memory::range`]; a bad
//!   pair is an [`OutOfBounds`] fault that traps the call, so a hostile
//!   guest can never make the host read or write outside its memory.
//! - [`limits`]: the store's resource limiter, which traps with
//!   [`MemoryLimitExceeded`] (naming the limit) rather than letting
//!   `memory.grow` quietly fail.
//! - [`preview1`]: the WASI functions, over one [`Wasi`] context a host keeps
//!   in its store data ([`WasiView`]). `kguest-host` defines the few its ABI
//!   lists; `kguest-krm-host` every function a module imports.
//!
//! Faults raised here travel through wasmtime as the trap's error; a host
//! finds them again with `error.downcast_ref::<Fault>()`.

#![forbid(unsafe_code)]

pub mod limits;
pub mod memory;
pub mod preview1;

pub use limits::{Limiter, MemoryLimitExceeded};
pub use memory::OutOfBounds;
pub use preview1::{Fault, Overflow, Sink, Wasi, WasiView};
