//! `scheduler/plugin/mask_test.go`: which interface sets register. Upstream
//! calls `maskInterfaces` on a hand-made interface set; the port loads a
//! guest exporting exactly those hooks.

use kguest_host::{Hook, LoadError, Plugin};

use crate::util::{config, rt, wat};

const F: &str = "mask_test.go";

cases!(
    F,
    mask_interfaces_prescore = ported("Test_maskInterfaces", "prescore", || {
        rejected(&[Hook::PreScore])
    }),
    mask_interfaces_prefilter = ported("Test_maskInterfaces", "prefilter", || {
        accepted(&[Hook::PreFilter], [false; 5])
    }),
    mask_interfaces_prefilter_filter = ported("Test_maskInterfaces", "prefilter|filter", || {
        accepted(
            &[Hook::PreFilter, Hook::Filter],
            [true, false, false, false, false],
        )
    }),
    mask_interfaces_filter = ported("Test_maskInterfaces", "filter", || {
        accepted(&[Hook::Filter], [true, false, false, false, false])
    }),
    mask_interfaces_prefilter_score = ported("Test_maskInterfaces", "prefilter|score", || {
        accepted(
            &[Hook::PreFilter, Hook::Score],
            [false, true, false, false, false],
        )
    }),
    mask_interfaces_prescore_score = ported("Test_maskInterfaces", "prescore|score", || {
        accepted(
            &[Hook::PreScore, Hook::Score],
            [false, true, false, false, false],
        )
    }),
    mask_interfaces_score = ported("Test_maskInterfaces", "score", || {
        accepted(&[Hook::Score], [false, true, false, false, false])
    }),
    mask_interfaces_prefilter_filter_score =
        ported("Test_maskInterfaces", "prefilter|filter|score", || {
            accepted(
                &[Hook::PreFilter, Hook::Filter, Hook::Score],
                [true, true, false, false, false],
            )
        }),
    mask_interfaces_reserve = ported("Test_maskInterfaces", "reserve", || {
        accepted(&[Hook::Reserve], [false, false, true, false, false])
    }),
    mask_interfaces_reserve_filter = ported("Test_maskInterfaces", "reserve|filter", || {
        accepted(
            &[Hook::Reserve, Hook::Filter],
            [true, false, true, false, false],
        )
    }),
);

/// A guest with a memory and one stub export per hook.
fn exporting(hooks: &[Hook]) -> Vec<u8> {
    let mut body = String::new();
    for hook in hooks {
        let result = match hook.result() {
            kguest_host::HookResult::Unit => "",
            kguest_host::HookResult::I32 => "(result i32) (i32.const 0)",
            kguest_host::HookResult::I64 => "(result i64) (i64.const 0)",
        };
        body.push_str(&format!(
            "(func (export \"{}\") {result})",
            hook.export_name()
        ));
    }
    wat(&format!("(module (memory (export \"memory\") 1) {body})"))
}

fn load(hooks: &[Hook]) -> Result<Plugin, LoadError> {
    Plugin::load(rt(), &exporting(hooks), config())
}

fn rejected(hooks: &[Hook]) {
    let err = load(hooks).unwrap_err();
    assert!(matches!(err, LoadError::UnsupportedHookSet(_)), "{err:?}");
}

/// Expected: filter, score, reserve, permit, bind plugin interfaces.
fn accepted(hooks: &[Hook], expected: [bool; 5]) {
    let plugin = load(hooks).unwrap();
    let h = plugin.hooks();
    let have = [
        h.contains(Hook::Filter),
        h.contains(Hook::Score),
        h.contains(Hook::Reserve) || h.contains(Hook::Unreserve),
        h.contains(Hook::Permit),
        h.contains(Hook::Bind),
    ];
    assert_eq!(have, expected);
}
