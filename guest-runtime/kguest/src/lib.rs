//! Rust SDK for [kube-scheduler-wasm-extension] (KSW) plugins: `no_std`, no
//! allocator, no `core::fmt` on the guest path.
//!
//! A plugin is a type implementing [`Plugin`] and one trait per hook it
//! serves ([`Filter`], [`Score`], ...), exported with [`export!`]:
//!
//! ```
//! use kguest::{Cycle, Filter, Plugin, Status};
//!
//! struct OnlyNamed;
//!
//! impl Plugin for OnlyNamed {
//!     fn new() -> Self { OnlyNamed }
//! }
//!
//! impl Filter for OnlyNamed {
//!     fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
//!         let named = cx.pod().and_then(|p| p.metadata()).and_then(|m| m.name()).is_some();
//!         if named { Status::success() } else { Status::unresolvable("pod has no name") }
//!     }
//! }
//!
//! kguest::export!(OnlyNamed => [filter]);
//! ```
//!
//! Inputs come through the [`Cycle`] handle as zero-copy
//! [`kguest_k8s`] views; the Pod is fetched once per scheduling cycle, the
//! Node only on demand, the node list ([`Cycle::node_list`]) once per cycle,
//! image states ([`Cycle::image_states`], [`images`]) per node. Data derived
//! from the Pod can be computed once per cycle and kept in a
//! [`CycleState`]. Reasons are `&str`s ([`ReasonBuf`] builds them without
//! `fmt`). [`config`] returns the plugin's config bytes ([`json`] reads
//! JSON). [`log`] goes to klog; [`handle`] records events and reaches pods
//! waiting on Permit. [`text`] has panic-free string helpers (splitting,
//! `key=value` lists, label selectors); [`labels`] reads a Pod's or Node's
//! labels and annotations and checks `KEY=VALUE` label pairs.
//!
//! On `wasm32` the crate provides the `#[panic_handler]` (it traps) unless
//! the default `panic-handler` feature is off; plugins must not define
//! their own while it is on. Native builds have no exports; plugins test
//! with [`testing::TestHost`], which runs the same code as the exports
//! against stand-in imports.
//!
//! [kube-scheduler-wasm-extension]: https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension

#![no_std]
#![deny(unsafe_code)]

#[cfg(not(target_arch = "wasm32"))]
extern crate std;

// Code size: what a guest runs is `#[inline]` (or generic), so that it is
// compiled in the plugin's crate, where LTO may specialise it to the one
// plugin and drop what it does not use. A plain function of this crate is
// an exported symbol of its rlib, which LTO keeps as it is when the plugin
// crate is an rlib too (as the examples and `kguest new`'s template are:
// `crate-type = ["cdylib", "rlib"]`). `#[inline]` does not make LLVM inline
// at `opt-level = "z"`: a function with several callers stays one function.
pub mod args;
mod cycle;
pub mod export;
pub mod fields;
mod go_string;
pub mod handle;
mod hooks;
pub mod images;
pub mod json;
pub mod labels;
mod load;
pub mod log;
mod reason;
#[doc(hidden)]
pub mod rt;
mod state;
mod status;
mod sys;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
pub mod text;

pub use cycle::Cycle;
pub use hooks::*;
pub use kguest_k8s as k8s;
pub use load::{Load, Refusal};
pub use reason::ReasonBuf;
pub use state::{CycleState, Owned, PerCycle};
pub use status::{Code, Status, UnknownCode};

/// The plugin configuration (`PluginConfig.GuestConfig`, by convention
/// JSON; [`args::decode`] reads it into typed fields), fetched from the host once and kept. Empty when there is none.
/// Callable from [`Plugin::new`]; [`Load::load`] is given it.
#[inline]
pub fn config() -> &'static [u8] {
    sys::input(sys::getter::CONFIG)
}

/// The README's examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

/// Items the [`export!`] expansion names. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::export::bits;
    pub use crate::export::check_hooks;
    pub use crate::rt;
    pub use crate::sys::Instance;
}
