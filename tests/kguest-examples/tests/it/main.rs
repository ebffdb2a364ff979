//! The example plugins as wasm, through kguest-host, against upstream.
//!
//! * `nodenumber`: kguest's build and upstream's TinyGo build
//!   (`examples/nodenumber/main.wasm` of kube-scheduler-wasm-extension) run
//!   the same cycles (pods × node sets × configs) and must give identical
//!   scores, events and logs.
//! * `imagelocality`: kguest's build against an independent reading of
//!   upstream's `image_locality.go` over a generated matrix of clusters and
//!   pods (upstream ships no current binary of it).
//!
//! Inputs: the plugins from `$KGUEST_PLUGIN_DIR` (default
//! `$CARGO_TARGET_DIR/plugins`, built by `cargo xtask examples`), upstream's
//! material from `$KGUEST_KSW_DIR` (default `proto-vendor/ksw`).

mod imagelocality;
mod nodenumber;
mod util;
