//! The checks of the tree as a test, so a plain `cargo test` fails on them
//! too: `tidy` and the freshness of `generated/` (`regen --check`).
//! `cargo xtask test` runs both itself first and skips this module.
//!
//! `go-facts` is not here: it needs Go and the Go modules of k8s.io/api
//! downloaded, which `cargo xtask test` prepares.

#[test]
fn tidy() {
    crate::tidy::run(&[]).unwrap_or_else(|err| panic!("cargo xtask tidy: {err}"));
}

#[test]
fn generated_code_is_what_regen_writes() {
    crate::regen::run(&["--check".to_string()])
        .unwrap_or_else(|err| panic!("cargo xtask regen --check: {err}"));
}
