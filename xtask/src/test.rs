//! `cargo xtask test`: everything CI checks, in the order that fails fastest.
//!
//! 1. `tidy`: where `unsafe` may be, what may be hand-written under
//!    `generated/`, crate READMEs, no `#[ignore]` without a reason,
//! 2. vendor the pinned upstream files (from `KGUEST_K8S_DIR` and
//!    `KGUEST_KSW_DIR`, or upstream), and check for Go >= 1.26,
//! 3. `regen --check`: the committed generated code is what the generator
//!    writes; `go-facts`: the Go facts it reads agree with the Go types,
//! 4. build the example plugins and the Go judges (Kubernetes' marshallers,
//!    KEP-4944's wazero runtime, Go wasip1 KRM functions, standalone
//!    kustomize, KSW's own Go host) the tests run against,
//! 5. `cargo test --workspace` (conformance with its counts: fixtures, the
//!    Go judge, upstream's compatibility test; KSW's host suite; the KRM
//!    runtimes),
//! 6. the real kube-scheduler on an in-process API server (`e2e`), and as
//!    the judge of `kguest-extender` (`extender-e2e`),
//! 7. `size --check`: build every guest with the size profile, check its
//!    budget, that it links no panic or `core::fmt` code, and its ABI surface.

use crate::cargo::cargo;
use crate::{
    e2e, examples, extender_e2e, gofacts, golang, judge, krmgo, kswhost, regen, size, tidy, vendor,
};

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask test (unknown argument `{arg}`)"
        ));
    }
    tidy::run(&[])?;
    vendor::ensure_vendored()?;
    let ksw = vendor::ensure_ksw_vendored()?;
    golang::require()?;
    regen::run(&["--check".to_string()])?;
    gofacts::run(&[])?;
    examples::build_all()?;
    // The older releases' fixtures of upstream's compatibility test ship in
    // the k8s.io/api module the Go judge pins.
    let tag = vendor::kubernetes_release()?.tag;
    let api = golang::module_dir("tests/go-judge", &format!("k8s.io/api@{tag}"))?;
    krmgo::prepare()?;
    judge::prepare(&[])?;
    let ksw_host = kswhost::prepare()?;
    // SAFETY of the env changes: xtask is single-threaded here.
    unsafe {
        std::env::set_var("KGUEST_PLUGIN_DIR", examples::plugin_dir());
        // The tests read the copy just verified against proto-vendor/ksw.lock.
        std::env::set_var("KGUEST_KSW_DIR", ksw);
        std::env::set_var("KGUEST_KSW_HOST", ksw_host);
        std::env::set_var("KGUEST_K8S_API_DIR", api);
    }
    cargo(&[
        "test",
        "--workspace",
        "--quiet",
        "--exclude",
        "kguest-conformance",
        "--",
        // Run below with their counts (the Go wasip1 one takes minutes).
        "--skip",
        "ksw::",
        "--skip",
        "krm::",
        // Run above, before anything is built.
        "--skip",
        "tree_checks::",
    ])?;
    // kube-scheduler-wasm-extension's own host suite, ported: one test per
    // case, and `ksw::suite`, which prints `ksw host suite: N/M cases` (N
    // ported, each one of the tests of this run) and the cases left out;
    // `ksw::go_host` prints `ksw go host: N/M cases identical` (KSW's own Go
    // host as the judge).
    cargo(&[
        "test",
        "--quiet",
        "-p",
        "kguest-host",
        "--test",
        "it",
        "--",
        "--nocapture",
        "ksw::",
    ])?;
    // The KRM runtimes' counts (`krm under wazero: N/M runs identical`, ...).
    cargo(&[
        "test",
        "--quiet",
        "-p",
        "kguest-cli",
        "--test",
        "it",
        "--",
        "--nocapture",
        "krm::",
    ])?;
    // The conformance suite prints its counts (`185/185 fixtures ...`,
    // `go judge: N/M objects identical ...`, `compatibility: N/M ...`).
    cargo(&[
        "test",
        "--quiet",
        "-p",
        "kguest-conformance",
        "--",
        "--nocapture",
    ])?;
    e2e::in_test()?;
    extender_e2e::in_test()?;
    // The size gate: budgets, no fmt/panic machinery, only host imports.
    size::run(&["--check".to_string()])?;
    Ok(())
}
