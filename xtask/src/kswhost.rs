//! KSW's own Go host as a judge (`tests/ksw-host`): builds the harness and
//! the test guests it runs beside the example plugins, and points
//! kguest-host's test `ksw::go_host` at them (`KGUEST_KSW_HOST`). The test
//! prints `ksw go host: N/M cases identical`.

use std::path::PathBuf;

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
/// first) and the test guests; returns the harness, for `KGUEST_KSW_HOST`.
pub fn prepare() -> Result<PathBuf, String> {
    let harness = golang::build("tests/ksw-host", ".", "ksw-host")?;
    for package in TEST_GUESTS {
        guests::build(package)?;
    }
    Ok(harness)
}
