//! kube-scheduler's extension points as a profile configures them: where
//! KSW registers a guest (its interface mask), and the plugins the
//! framework runs at each point, in its order, from the profile's
//! `multiPoint` list and each point's own `enabled`/`disabled` lists.

use crate::types::{Hook, HookSet};

/// An extension point of a `KubeSchedulerConfiguration` profile that a
/// wasm plugin can be registered at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExtensionPoint {
    PreFilter,
    Filter,
    PostFilter,
    PreScore,
    Score,
    Reserve,
    Permit,
    PreBind,
    Bind,
    PostBind,
}

impl ExtensionPoint {
    /// Every point, in the order a cycle reaches them.
    pub const ALL: [ExtensionPoint; 10] = [
        ExtensionPoint::PreFilter,
        ExtensionPoint::Filter,
        ExtensionPoint::PostFilter,
        ExtensionPoint::PreScore,
        ExtensionPoint::Score,
        ExtensionPoint::Reserve,
        ExtensionPoint::Permit,
        ExtensionPoint::PreBind,
        ExtensionPoint::Bind,
        ExtensionPoint::PostBind,
    ];

    /// Its key under a profile's `plugins:`.
    pub const fn config_key(self) -> &'static str {
        match self {
            ExtensionPoint::PreFilter => "preFilter",
            ExtensionPoint::Filter => "filter",
            ExtensionPoint::PostFilter => "postFilter",
            ExtensionPoint::PreScore => "preScore",
            ExtensionPoint::Score => "score",
            ExtensionPoint::Reserve => "reserve",
            ExtensionPoint::Permit => "permit",
            ExtensionPoint::PreBind => "preBind",
            ExtensionPoint::Bind => "bind",
            ExtensionPoint::PostBind => "postBind",
        }
    }

    /// The hook of the same name.
    pub const fn hook(self) -> Hook {
        match self {
            ExtensionPoint::PreFilter => Hook::PreFilter,
            ExtensionPoint::Filter => Hook::Filter,
            ExtensionPoint::PostFilter => Hook::PostFilter,
            ExtensionPoint::PreScore => Hook::PreScore,
            ExtensionPoint::Score => Hook::Score,
            ExtensionPoint::Reserve => Hook::Reserve,
            ExtensionPoint::Permit => Hook::Permit,
            ExtensionPoint::PreBind => Hook::PreBind,
            ExtensionPoint::Bind => Hook::Bind,
            ExtensionPoint::PostBind => Hook::PostBind,
        }
    }

    /// The point `hook` runs at: `normalizescore` with Score (ScoreExtensions),
    /// `unreserve` with Reserve, `addpod`/`removepod` with PreFilter
    /// (PreFilterExtensions); `None` for `enqueue` (the framework asks every
    /// plugin of the profile for its events, whatever its points).
    pub const fn of(hook: Hook) -> Option<ExtensionPoint> {
        Some(match hook {
            Hook::Enqueue => return None,
            Hook::PreFilter | Hook::AddPod | Hook::RemovePod => ExtensionPoint::PreFilter,
            Hook::Filter => ExtensionPoint::Filter,
            Hook::PostFilter => ExtensionPoint::PostFilter,
            Hook::PreScore => ExtensionPoint::PreScore,
            Hook::Score | Hook::NormalizeScore => ExtensionPoint::Score,
            Hook::Reserve | Hook::Unreserve => ExtensionPoint::Reserve,
            Hook::Permit => ExtensionPoint::Permit,
            Hook::PreBind => ExtensionPoint::PreBind,
            Hook::Bind => ExtensionPoint::Bind,
            Hook::PostBind => ExtensionPoint::PostBind,
        })
    }

    /// Whether KSW registers a guest exporting `hooks` at this point
    /// (`kguest_abi::registered_points`).
    pub const fn ksw_registers(self, hooks: HookSet) -> bool {
        kguest_abi::registered_points(hooks.bits()) & self.hook().bit() != 0
    }

    /// kube-scheduler's name for the point's plugin interface, as its
    /// errors write it.
    const fn interface(self) -> &'static str {
        match self {
            ExtensionPoint::PreFilter => "PreFilterPlugin",
            ExtensionPoint::Filter => "FilterPlugin",
            ExtensionPoint::PostFilter => "PostFilterPlugin",
            ExtensionPoint::PreScore => "PreScorePlugin",
            ExtensionPoint::Score => "ScorePlugin",
            ExtensionPoint::Reserve => "ReservePlugin",
            ExtensionPoint::Permit => "PermitPlugin",
            ExtensionPoint::PreBind => "PreBindPlugin",
            ExtensionPoint::Bind => "BindPlugin",
            ExtensionPoint::PostBind => "PostBindPlugin",
        }
    }
}

impl std::fmt::Display for ExtensionPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.config_key())
    }
}

/// One point's own lists in a profile: `plugins.<point>.enabled` and
/// `.disabled`, every name as written (kube-scheduler's plugins too).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PointLists {
    /// `enabled[]`: names and weights, in order.
    pub enabled: Vec<(String, Option<i64>)>,
    /// `disabled[].name`, `*` included.
    pub disabled: Vec<String>,
}

/// Per extension point, the profile's plugins (indices into its plugin
/// list) that kube-scheduler runs there, in the order it runs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointOrder([Vec<usize>; 10]);

impl PointOrder {
    /// Every plugin at every point KSW registers it at, in profile order:
    /// what a profile of `multiPoint` plugins without per-point lists runs.
    pub fn multi_point(hooks: &[HookSet]) -> PointOrder {
        PointOrder(ExtensionPoint::ALL.map(|point| {
            (0..hooks.len())
                .filter(|&i| point.ksw_registers(hooks[i]))
                .collect()
        }))
    }

    /// The framework's expansion (kube-scheduler 1.33, `NewFramework`) of
    /// `plugins` (the profile's wasm plugins, in `multiPoint.enabled`
    /// order, with their exports) and each point's own `lists`: a point
    /// runs first the plugins its own `enabled` list names that are also
    /// multiPoint plugins (in that list's order), then the other multiPoint
    /// plugins KSW registers there unless the point disables them by name,
    /// then the rest of its own list; a point that disables `*` runs only
    /// its own list. Names that are not in `plugins` (kube-scheduler's own
    /// plugins) are left out. Errors in kube-scheduler's words when a
    /// point's list names a plugin twice or one not registered there.
    pub fn expand(
        plugins: &[(&str, HookSet)],
        lists: &[(ExtensionPoint, PointLists)],
    ) -> Result<PointOrder, String> {
        let index = |name: &str| plugins.iter().position(|(n, _)| *n == name);
        let mut order: [Vec<usize>; 10] = Default::default();
        for (slot, point) in order.iter_mut().zip(ExtensionPoint::ALL) {
            let empty = PointLists::default();
            let own = lists
                .iter()
                .find(|(p, _)| *p == point)
                .map_or(&empty, |(_, l)| l);
            // The point's own list, as written (its wasm plugins only).
            let mut listed: Vec<usize> = Vec::new();
            for (name, _) in &own.enabled {
                let Some(i) = index(name) else { continue };
                if !point.ksw_registers(plugins[i].1) {
                    return Err(format!(
                        "plugins.{point}.enabled: plugin {name:?} does not extend {} plugin \
                         (its guest exports {})",
                        point.interface(),
                        plugins[i].1
                    ));
                }
                if listed.contains(&i) {
                    return Err(format!(
                        "plugins.{point}.enabled: plugin {name:?} already registered as {:?}",
                        point.interface()
                    ));
                }
                listed.push(i);
            }
            if own.disabled.iter().any(|d| d == "*") {
                *slot = listed;
                continue;
            }
            let mut overrides = Vec::new();
            let mut expanded = Vec::new();
            for (i, (name, hooks)) in plugins.iter().enumerate() {
                if !point.ksw_registers(*hooks) || own.disabled.iter().any(|d| d == name) {
                    continue;
                }
                if listed.contains(&i) {
                    overrides.push(i);
                } else {
                    expanded.push(i);
                }
            }
            slot.extend(listed.iter().filter(|i| overrides.contains(i)));
            slot.extend(expanded);
            slot.extend(listed.iter().filter(|i| !overrides.contains(i)));
        }
        Ok(PointOrder(order))
    }

    /// The plugins run at `point`, in order.
    pub fn at(&self, point: ExtensionPoint) -> &[usize] {
        &self.0[point as usize]
    }

    /// Whether plugin `i` runs at `point`.
    pub fn runs(&self, i: usize, point: ExtensionPoint) -> bool {
        self.at(point).contains(&i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILTER: HookSet = HookSet::EMPTY.with(Hook::Filter);
    const SCORE: HookSet = HookSet::EMPTY.with(Hook::PreScore).with(Hook::Score);
    const BOTH: HookSet = FILTER.with(Hook::Score);

    fn lists(
        point: ExtensionPoint,
        enabled: &[&str],
        disabled: &[&str],
    ) -> (ExtensionPoint, PointLists) {
        (
            point,
            PointLists {
                enabled: enabled.iter().map(|n| (n.to_string(), None)).collect(),
                disabled: disabled.iter().map(|n| n.to_string()).collect(),
            },
        )
    }

    #[test]
    fn multi_point_registers_by_the_interface_mask() {
        let order = PointOrder::multi_point(&[FILTER, SCORE]);
        assert_eq!(order.at(ExtensionPoint::PreFilter), [0, 1]);
        assert_eq!(order.at(ExtensionPoint::Filter), [0]);
        assert_eq!(order.at(ExtensionPoint::PostFilter), [0]);
        assert_eq!(order.at(ExtensionPoint::Score), [1]);
        assert!(order.at(ExtensionPoint::Bind).is_empty());
        let expanded = PointOrder::expand(&[("a", FILTER), ("b", SCORE)], &[]).unwrap();
        assert_eq!(expanded, order);
    }

    #[test]
    fn a_point_disables_by_name_or_star_and_its_own_list_goes_first() {
        let plugins = [("a", BOTH), ("b", BOTH), ("c", SCORE)];
        let order = PointOrder::expand(
            &plugins,
            &[
                lists(ExtensionPoint::Filter, &[], &["b"]),
                lists(ExtensionPoint::Score, &["NodeResourcesFit", "c", "b"], &[]),
                lists(ExtensionPoint::PreFilter, &["b"], &["*"]),
            ],
        )
        .unwrap();
        assert_eq!(order.at(ExtensionPoint::Filter), [0]);
        assert_eq!(order.at(ExtensionPoint::PostFilter), [0, 1]);
        assert_eq!(order.at(ExtensionPoint::Score), [2, 1, 0]);
        assert_eq!(order.at(ExtensionPoint::PreFilter), [1]);
        // Disabled by name but listed: the point's own list keeps it, last.
        let order = PointOrder::expand(
            &plugins,
            &[lists(ExtensionPoint::Score, &["a"], &["a", "b"])],
        )
        .unwrap();
        assert_eq!(order.at(ExtensionPoint::Score), [2, 0]);
    }

    #[test]
    fn a_point_list_naming_a_plugin_twice_or_outside_its_interfaces_is_refused() {
        let plugins = [("a", FILTER), ("b", SCORE)];
        let err =
            PointOrder::expand(&plugins, &[lists(ExtensionPoint::Score, &["a"], &[])]).unwrap_err();
        assert!(
            err.contains("plugin \"a\" does not extend ScorePlugin plugin"),
            "{err}"
        );
        let err = PointOrder::expand(&plugins, &[lists(ExtensionPoint::Score, &["b", "b"], &[])])
            .unwrap_err();
        assert!(err.contains("plugin \"b\" already registered"), "{err}");
    }
}
