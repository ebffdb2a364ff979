//! wasmtime host
