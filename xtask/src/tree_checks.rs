//! The checks of the tree as a test, so a plain `cargo test` fails on them
//! too: `tidy`, the freshness of `generated/` (`regen --check`) and of the Go
//! facts the generator reads (`go-facts`). `cargo xtask test` runs them
//! itself first and skips this module.
//!
//! `go-facts` reads the Go source of k8s.io/api: it needs Go (a missing `go`
//! fails the test with one line) and downloads that module through the Go
//! module proxy the first time.

#[test]
fn tidy() {
    crate::tidy::run(&[]).unwrap_or_else(|err| panic!("cargo xtask tidy: {err}"));
}

#[test]
fn generated_code_is_what_regen_writes() {
    crate::regen::run(&["--check".to_string()])
        .unwrap_or_else(|err| panic!("cargo xtask regen --check: {err}"));
}

#[test]
fn go_facts_match_the_go_types() {
    crate::golang::require().unwrap_or_else(|err| panic!("cargo xtask go-facts: {err}"));
    crate::gofacts::run(&[]).unwrap_or_else(|err| panic!("cargo xtask go-facts: {err}"));
}
