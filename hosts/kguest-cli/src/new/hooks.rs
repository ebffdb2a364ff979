//! What each hook writes into a new plugin crate: its trait impl and
//! tests (`snippets/`, written as they are with `PLUGIN` replaced by the
//! plugin's type name), imports and constants. `a_plugin_with_every_hook_*`
//! in the CLI's tests builds and tests a crate with every snippet.

/// What one hook contributes to the crate.
pub struct HookCode {
    /// Items imported from `kguest`.
    pub imports: &'static [&'static str],
    /// A line for the crate docs.
    pub doc: &'static str,
    /// The trait impl (`PLUGIN` stands for the type name).
    pub code: &'static str,
    /// Tests (`PLUGIN` as above).
    pub tests: &'static str,
    /// Constants the code uses.
    pub consts: &'static [&'static str],
    /// Test-only imports.
    pub test_imports: &'static [&'static str],
}

const POD_ZONE_LABEL: &str = "\
/// The pod label naming the zone a pod must run in.
pub const POD_ZONE_LABEL: &str = \"example.kguest.dev/zone\";";
const HOLD_ANNOTATION: &str = "\
/// The pod annotation that holds a pod back.
pub const HOLD_ANNOTATION: &str = \"example.kguest.dev/hold\";";
const SCORE_ANNOTATION: &str = "\
/// The pod annotation that turns this plugin's scoring off.
pub const SCORE_ANNOTATION: &str = \"example.kguest.dev/score\";";
const GIB: &str = "\
/// One GiB, in bytes.
const GIB: i64 = 1 << 30;";

const CODE: &str = "kguest::Code";
const TEST_HOST: &str = "kguest::testing::TestHost";
const NODE_BUILDER: &str = "kguest::testing::proto::NodeBuilder";
const POD_BUILDER: &str = "kguest::testing::proto::PodBuilder";

/// What `hook` (a name `--hooks` accepts) writes; `None` for any other name.
pub fn hook_code(hook: &str) -> Option<HookCode> {
    Some(match hook {
        "prefilter" => HookCode {
            imports: &["Cycle", "PreFilter", "Status"],
            doc: "PreFilter: a pod annotated `example.kguest.dev/hold: \"true\"` waits.",
            consts: &[HOLD_ANNOTATION],
            code: include_str!("snippets/prefilter.rs"),
            test_imports: &[CODE, TEST_HOST, POD_BUILDER],
            tests: include_str!("snippets/prefilter_tests.rs"),
        },
        "filter" => HookCode {
            imports: &["Cycle", "Filter", "Status"],
            doc: "Filter: a pod labelled `example.kguest.dev/zone: Z` fits only nodes whose zone\n//!   label (`zoneLabel`) is Z; other pods fit every node unless `requireZone`.",
            consts: &[POD_ZONE_LABEL],
            code: include_str!("snippets/filter.rs"),
            test_imports: &[CODE, TEST_HOST, NODE_BUILDER, POD_BUILDER],
            tests: include_str!("snippets/filter_tests.rs"),
        },
        "postfilter" => HookCode {
            imports: &["Cycle", "PostFilter", "PostFilterResult", "Status"],
            doc: "PostFilter: nominates no node (this plugin does not preempt).",
            consts: &[],
            code: include_str!("snippets/postfilter.rs"),
            test_imports: &[CODE, TEST_HOST],
            tests: include_str!("snippets/postfilter_tests.rs"),
        },
        "addpod" | "removepod" => HookCode {
            imports: &["Cycle", "PreFilterExtensions", "Status"],
            doc: "AddPod/RemovePod: keep no PreFilter state, so nothing changes.",
            consts: &[],
            code: include_str!("snippets/addpod_removepod.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/addpod_removepod_tests.rs"),
        },
        "prescore" => HookCode {
            imports: &["Cycle", "PreScore", "Status"],
            doc: "PreScore: a pod annotated `example.kguest.dev/score: \"off\"` skips Score.",
            consts: &[SCORE_ANNOTATION],
            code: include_str!("snippets/prescore.rs"),
            test_imports: &[CODE, TEST_HOST, POD_BUILDER],
            tests: include_str!("snippets/prescore_tests.rs"),
        },
        "score" => HookCode {
            imports: &["Cycle", "Score", "Status", "k8s::quantity"],
            doc: "Score: one point per GiB of allocatable memory, at most `maxScore`.",
            consts: &[GIB],
            code: include_str!("snippets/score.rs"),
            test_imports: &[CODE, TEST_HOST, NODE_BUILDER],
            tests: include_str!("snippets/score_tests.rs"),
        },
        "normalizescore" => HookCode {
            imports: &["Cycle", "NormalizeScore", "Status"],
            doc: "NormalizeScore: scores are already 0..=100, nothing is rescaled.",
            consts: &[],
            code: include_str!("snippets/normalizescore.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/normalizescore_tests.rs"),
        },
        "reserve" => HookCode {
            imports: &["Cycle", "Reserve", "Status"],
            doc: "Reserve/Unreserve: nothing to claim on the chosen node.",
            consts: &[],
            code: include_str!("snippets/reserve.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/reserve_tests.rs"),
        },
        "permit" => HookCode {
            imports: &["Cycle", "Permit", "PermitResult"],
            doc: "Permit: lets every pod through at once.",
            consts: &[],
            code: include_str!("snippets/permit.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/permit_tests.rs"),
        },
        "prebind" => HookCode {
            imports: &["Cycle", "PreBind", "Status"],
            doc: "PreBind: nothing to prepare on the node.",
            consts: &[],
            code: include_str!("snippets/prebind.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/prebind_tests.rs"),
        },
        "bind" => HookCode {
            imports: &["Cycle", "Bind", "Status"],
            doc: "Bind: skips, so the default binder binds the pod.",
            consts: &[],
            code: include_str!("snippets/bind.rs"),
            test_imports: &[CODE, TEST_HOST],
            tests: include_str!("snippets/bind_tests.rs"),
        },
        "postbind" => HookCode {
            imports: &["Cycle", "PostBind", "log"],
            doc: "PostBind: logs the node the pod was bound to.",
            consts: &[],
            code: include_str!("snippets/postbind.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/postbind_tests.rs"),
        },
        "enqueue" => HookCode {
            imports: &[
                "ActionType",
                "ClusterEvent",
                "EnqueueExtensions",
                "Resource",
            ],
            doc: "EnqueueExtensions: retries rejected pods when nodes are added or relabelled.",
            consts: &[],
            code: include_str!("snippets/enqueue.rs"),
            test_imports: &[TEST_HOST],
            tests: include_str!("snippets/enqueue_tests.rs"),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::hook_code;

    /// Each hook `--hooks` accepts (kguest_abi's list) has its snippets:
    /// an impl for the plugin type and at least one test.
    #[test]
    fn every_hook_of_the_abi_has_a_snippet() {
        for hook in super::super::hook_names() {
            let code = hook_code(hook).unwrap_or_else(|| panic!("no snippet for {hook}"));
            assert!(code.code.contains(" for PLUGIN {"), "{hook}: {}", code.code);
            assert!(code.tests.contains("#[test]"), "{hook}: {}", code.tests);
            assert!(!code.doc.is_empty(), "{hook}");
        }
        assert!(hook_code("unreserve").is_none());
        assert!(hook_code("frobnicate").is_none());
    }
}
