//! A kube-scheduler extender that serves a profile of
//! kube-scheduler-wasm-extension plugins from kguest's wasmtime host.
//!
//! kube-scheduler calls the extender's `filter` and `prioritize` verbs over
//! HTTP(S) with the Pod and either the candidate Nodes or only their names
//! (`nodeCacheCapable: true`; the extender then reads Nodes from its own
//! cache, [`nodes`]). Each request runs the plugins' hooks in a fresh cycle
//! ([`decide`]), so replicas share nothing.
//!
//! Modules: [`api`] (the extender's JSON), [`request`] (a body to an
//! answer), [`decide`] (the verbs over a profile), [`nodes`] (the protobuf
//! list/watch node cache), [`server`] (HTTP, limits, shutdown), [`tls`]
//! (mTLS), [`metrics`], [`profile`] (loading plugins), [`predict`].

#![forbid(unsafe_code)]

pub mod api;
pub mod decide;
pub mod metrics;
pub mod nodes;
pub mod predict;
pub mod profile;
pub mod request;
pub mod server;
pub mod tls;
