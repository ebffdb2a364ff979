//! `scheduler/plugin/wasm_test.go`: fetching the guest from its `guestURL`.

use super::{Case, left_out};

const F: &str = "wasm_test.go";

/// Why: KSW's plugin reads `guestURL` (file, http, https) before compiling;
/// kguest-host is handed the wasm bytes by its embedder.
const URL: &str = "reading guestURL (file://, http(s)://) is the embedding scheduler's job; \
                   kguest-host takes wasm bytes";

pub fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = [
        "relative file valid",
        "file valid",
        "not url",
        "http invalid",
        "https invalid",
        "http",
        "unsupported scheme",
        "file not found",
        "relative dir not file",
        "dir not file",
    ]
    .into_iter()
    .map(|name| left_out(F, "Test_getURL", name, URL))
    .collect();
    for name in [
        "http/plain wasm binary",
        "http/compressed payload",
        "http/http error",
        "https/plain wasm binary",
        "https/compressed payload",
        "https/http error",
    ] {
        cases.push(left_out(F, "Test_httpGet", name, URL));
    }
    cases
}
