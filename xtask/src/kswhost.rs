//! KSW's own Go host as a judge (`tests/ksw-host`): builds the harness and
//! the test guests it runs beside the example plugins, and points
//! kguest-host's test `ksw::go_host` at them (`KGUEST_KSW_HOST`). The test
//! prints `ksw go host: N/M cases identical`.

use crate::{golang, guests};

/// The test and baseline guests the comparison runs (besides the examples).
const TEST_GUESTS: &[&str] = &[
    "annotation-memory",
    "nodename-view",
    "podspec-read",
    "baseline-copy",
    "baseline-empty",
    "baseline-json",
    "baseline-prost",
    "baseline-scan",
];

/// Builds the harness (it needs `proto-vendor/ksw/scheduler`, vendored
/// first) and the test guests, and exports where the harness is.
pub fn prepare() -> Result<(), String> {
    let harness = golang::build("tests/ksw-host", ".", "ksw-host")?;
    for package in TEST_GUESTS {
        guests::build(package)?;
    }
    // SAFETY of the env change: xtask is single-threaded here.
    unsafe { std::env::set_var("KGUEST_KSW_HOST", harness) };
    Ok(())
}
