//! Conformance of kguest's views with the upstream Kubernetes fixtures and
//! with an independent protobuf decoder. One test binary, one module per
//! concern.

mod compatibility;
mod differential;
mod field_validation;
mod fuzz_regressions;
mod go_judge;
mod json_conformance;
mod json_encode;
mod json_go_rules;
mod json_text;
mod no_panic;
mod one_pass;
mod openapi_encode;
mod realistic;
mod skew;
