extern crate std;
use super::*;
use crate::bits::*;
use std::format;
use std::string::String;
use std::vec::Vec;

/// `filter|score` -> bits.
fn set(names: &str) -> u32 {
    names
        .split('|')
        .filter(|n| !n.is_empty())
        .map(|n| find_hook(n).unwrap_or_else(|| panic!("no hook `{n}`")).bit)
        .fold(0, |s, b| s | b)
}

const MUST: &str = "wasm: filter, score, reserve, permit or bind must be exported";
const NONE: &str = "wasm: guest does not export any plugin functions";

/// The 31 main-hook rows of /var/tmp/kguest-go/ksw-hookset.md (read
/// from KSW's `mask.go` switch): the set and whether KSW loads it.
const MAIN_ROWS: [(&str, bool); 31] = [
    ("filter", true),
    ("score", true),
    ("reserve", true),
    ("permit", true),
    ("bind", true),
    ("filter|score", true),
    ("filter|reserve", true),
    ("filter|permit", true),
    ("filter|bind", true),
    ("score|reserve", true),
    ("score|permit", true),
    ("score|bind", true),
    ("reserve|permit", false),
    ("reserve|bind", true),
    ("permit|bind", true),
    ("filter|score|reserve", true),
    ("filter|score|permit", true),
    ("filter|score|bind", true),
    ("filter|reserve|permit", false),
    ("filter|reserve|bind", false),
    ("filter|permit|bind", false),
    ("score|reserve|permit", false),
    ("score|reserve|bind", true),
    ("score|permit|bind", true),
    ("reserve|permit|bind", true),
    ("filter|score|reserve|permit", false),
    ("filter|score|reserve|bind", true),
    ("filter|score|permit|bind", true),
    ("filter|reserve|permit|bind", false),
    ("score|reserve|permit|bind", false),
    ("filter|score|reserve|permit|bind", true),
];

/// Coupled hooks that may ride along with any main set.
const COUPLED: [&str; 6] = [
    "",
    "prefilter",
    "prefilter|enqueue",
    "postfilter|prescore|normalizescore",
    "prebind|postbind|addpod|removepod",
    "enqueue|prefilter|addpod|removepod|postfilter|prescore|normalizescore|prebind|postbind",
];

fn decision(exports: u32) -> Result<u32, &'static str> {
    ksw_load(exports).map_err(KswRefusal::ksw_message)
}

#[test]
fn every_main_set_row() {
    // The table covers each non-empty main set once.
    let mut seen: Vec<u32> = MAIN_ROWS.iter().map(|(r, _)| set(r)).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 31);
    for (row, loads) in MAIN_ROWS {
        let main = set(row);
        for extra in COUPLED {
            let exports = main | set(extra);
            // reserve alone, reserve with unreserve, unreserve alone:
            // one interface for KSW.
            let mut variants = [exports, exports, exports];
            if main & RESERVE != 0 {
                variants[1] |= UNRESERVE;
                variants[2] = (exports & !RESERVE) | UNRESERVE;
            }
            for exports in variants {
                let want = if loads { Ok(main) } else { Err(MUST) };
                assert_eq!(decision(exports), want, "{row} + {extra}: {exports:#b}");
                if loads {
                    // The SDK's rule agrees wherever the coupling holds.
                    let list: Vec<u32> = (0..15)
                        .map(|i| 1u32 << i)
                        .filter(|b| main & b != 0)
                        .collect();
                    assert_eq!(hook_set_error(&list), None, "{row}");
                }
            }
        }
        if !loads {
            let list: Vec<u32> = (0..5)
                .map(|i| 1u32 << i)
                .filter(|b| main & b != 0)
                .collect();
            assert_eq!(
                hook_set_error(&list),
                Some(HookSetError::RejectedCombination),
                "{row}"
            );
            assert_eq!(ksw_load(main), Err(KswRefusal::RejectedCombination));
        }
    }
}

#[test]
fn no_main_hook_rows() {
    assert_eq!(decision(0), Err(NONE));
    assert_eq!(decision(PREFILTER), Ok(0));
    assert_eq!(decision(ADDPOD), Ok(0));
    assert_eq!(decision(REMOVEPOD), Ok(0));
    assert_eq!(decision(ADDPOD | REMOVEPOD), Ok(0));
    for refused in [
        "prefilter|enqueue",
        "prefilter|addpod",
        "prefilter|removepod",
        "enqueue",
        "prescore",
        "normalizescore",
        "postfilter",
        "prebind",
        "postbind",
        "prescore|normalizescore|postfilter|prebind|postbind",
        "enqueue|addpod",
    ] {
        assert_eq!(decision(set(refused)), Err(MUST), "{refused}");
        assert_eq!(ksw_load(set(refused)), Err(KswRefusal::NoMainHook));
    }
    // 9b2791f's plugin_test.go: "prescore" and "normalizescore" alone
    // ("missing score") and a module with only `memory` ("not plugin").
    assert_eq!(decision(PRESCORE), Err(MUST));
    assert_eq!(decision(NORMALIZESCORE), Err(MUST));
    assert_eq!(decision(0), Err(NONE));
}

/// 9b2791f's `scheduler/plugin/mask_test.go` `Test_maskInterfaces`:
/// (interfaces, error?, filter, score, reserve, permit, bind). Its
/// interface sets are exports here (`reserve` for iReservePlugin).
#[test]
fn upstream_mask_test_cases() {
    type Row = (&'static str, bool, [bool; 5]);
    const T: bool = true;
    const F: bool = false;
    let cases: [Row; 10] = [
        ("prescore", T, [F; 5]),
        ("prefilter", F, [F; 5]),
        ("prefilter|filter", F, [T, F, F, F, F]),
        ("filter", F, [T, F, F, F, F]),
        ("prefilter|score", F, [F, T, F, F, F]),
        ("prescore|score", F, [F, T, F, F, F]),
        ("score", F, [F, T, F, F, F]),
        ("prefilter|filter|score", F, [T, T, F, F, F]),
        ("reserve", F, [F, F, T, F, F]),
        ("reserve|filter", F, [T, F, T, F, F]),
    ];
    for (name, error, expect) in cases {
        // iReservePlugin is set by either export.
        let spellings: Vec<u32> = if name.contains("reserve") {
            let without = set(&name.replace("reserve", "").replace("||", "|"));
            std::vec![
                without | RESERVE,
                without | UNRESERVE,
                without | RESERVE | UNRESERVE
            ]
        } else {
            std::vec![set(name)]
        };
        for exports in spellings {
            match ksw_load(exports) {
                Err(_) => assert!(error, "{name} should load"),
                Ok(main) => {
                    assert!(!error, "{name} should be refused");
                    let have = [FILTER, SCORE, RESERVE, PERMIT, BIND].map(|b| main & b != 0);
                    assert_eq!(have, expect, "{name}");
                }
            }
        }
    }
}

#[test]
fn unpaired_reserve_warns_but_loads() {
    assert_eq!(
        ksw_warning(RESERVE | FILTER),
        Some(KswWarning::ReserveWithoutUnreserve)
    );
    assert_eq!(
        ksw_warning(UNRESERVE),
        Some(KswWarning::UnreserveWithoutReserve)
    );
    assert_eq!(ksw_warning(RESERVE | UNRESERVE), None);
    assert_eq!(ksw_warning(FILTER | SCORE), None);
    assert_eq!(ksw_load(RESERVE), Ok(RESERVE));
    assert_eq!(ksw_load(UNRESERVE | SCORE), Ok(RESERVE | SCORE));
}

#[test]
fn sdk_rule_couples_hooks_and_refuses_duplicates() {
    assert_eq!(hook_set_error(&[]), Some(HookSetError::NoMainHook));
    assert_eq!(hook_set_error(&[PREFILTER]), Some(HookSetError::NoMainHook));
    assert_eq!(
        hook_set_error(&[FILTER, FILTER]),
        Some(HookSetError::Duplicate)
    );
    assert_eq!(
        hook_set_error(&[FILTER, PRESCORE]),
        Some(HookSetError::NeedsScore)
    );
    assert!(hook_set_error(&[SCORE, PRESCORE, NORMALIZESCORE, ENQUEUE, PREFILTER]).is_none());
    assert_eq!(
        hook_set_error(&[SCORE, POSTFILTER]),
        Some(HookSetError::NeedsFilter)
    );
    assert_eq!(
        hook_set_error(&[SCORE, ADDPOD]),
        Some(HookSetError::NeedsFilter)
    );
    assert!(hook_set_error(&[FILTER, POSTFILTER, ADDPOD, REMOVEPOD]).is_none());
    assert_eq!(
        hook_set_error(&[PERMIT, PREBIND]),
        Some(HookSetError::NeedsBind)
    );
    assert!(hook_set_error(&[BIND, PREBIND, POSTBIND]).is_none());
    assert_eq!(
        hook_set_error(&[RESERVE, PERMIT]),
        Some(HookSetError::RejectedCombination)
    );
    // Coupled hooks without their main hook load in KSW but are never
    // called; the SDK refuses them.
    assert!(ksw_load(FILTER | PRESCORE).is_ok());
    assert_eq!(never_called(FILTER | PRESCORE), PRESCORE);
    assert_eq!(
        never_called(SCORE | POSTFILTER | PREBIND),
        POSTFILTER | PREBIND
    );
    assert_eq!(never_called(FILTER | POSTFILTER | ADDPOD), 0);
    // TinyGo's nodenumber exports every hook.
    let every = HOOKS.iter().fold(0, |set, h| set | h.bit);
    assert_eq!(ksw_load(every), Ok(MAIN));
    assert_eq!(never_called(every), 0);
}

#[test]
fn registered_points_follow_the_interface_mask() {
    // Every plugin is at PreFilter; a main hook brings its group's points.
    assert_eq!(registered_points(PERMIT), PREFILTER | PERMIT);
    assert_eq!(registered_points(FILTER), PREFILTER | FILTER | POSTFILTER);
    assert_eq!(
        registered_points(SCORE | NORMALIZESCORE),
        PREFILTER | PRESCORE | SCORE
    );
    assert_eq!(registered_points(UNRESERVE), PREFILTER | RESERVE);
    assert_eq!(
        registered_points(BIND),
        PREFILTER | PREBIND | BIND | POSTBIND
    );
    // What a module exports and KSW never calls is outside its points.
    for set in [FILTER | PRESCORE, SCORE | POSTFILTER | PREBIND] {
        assert_eq!(never_called(set) & registered_points(set), 0);
    }
}

#[test]
fn tables_are_consistent() {
    for (i, h) in HOOKS.iter().enumerate() {
        assert_eq!(h.bit.count_ones(), 1, "{}", h.name);
        assert!(
            HOOKS[i + 1..]
                .iter()
                .all(|o| o.bit != h.bit && o.name != h.name)
        );
        assert_eq!(find_hook(h.name).map(|f| f.bit), Some(h.bit));
    }
    assert!(find_hook("memory").is_none());
    for (i, imp) in IMPORTS.iter().enumerate() {
        assert!(
            IMPORTS[i + 1..]
                .iter()
                .all(|o| (o.module, o.name) != (imp.module, imp.name))
        );
        let list = |ts: &[ValType]| ts.iter().map(|t| t.as_str()).collect::<Vec<_>>();
        let results = match list(imp.results).as_slice() {
            [one] => String::from(*one),
            many => format!("({})", many.join(", ")),
        };
        let text = format!("({}) -> {results}", list(imp.params).join(", "));
        assert_eq!(imp.signature, text, "{}.{}", imp.module, imp.name);
    }
    assert_eq!(
        import(MODULE_SCHEDULER, "currentPod").map(|i| i.params.len()),
        Some(2)
    );
    assert!(import(MODULE_API, "currentPod").is_none());
    assert_eq!(IMPORTS.iter().filter(|i| !i.is_wasi()).count(), 21);
    let names: Vec<&str> = hook_names(SCORE | PRESCORE | UNRESERVE).collect();
    assert_eq!(names, ["prescore", "score", "unreserve"]);
    assert_eq!(code::name(0), Some("Success"));
    assert_eq!(code::name(i64::from(code::SKIP)), Some("Skip"));
    assert_eq!(code::name(6), None);
    assert_eq!(code::name(-1), None);
    assert_eq!(event::ALL, 63);
}
