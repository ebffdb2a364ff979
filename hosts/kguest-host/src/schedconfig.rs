//! The wasm plugins of a `KubeSchedulerConfiguration` profile, read as
//! KSW's `scheduler/cmd/scheduler` reads them: a plugin counts when it is
//! enabled under `plugins.multiPoint` and its `pluginConfig` args are the
//! wasm plugin's (`guestURL`, `guestConfig`, `logSeverity`, `args`); with
//! each extension point's own lists, which
//! [`PointOrder::expand`](crate::PointOrder::expand) applies.

use serde_json::Value;

use crate::points::{ExtensionPoint, PointLists};

type Object = serde_json::Map<String, Value>;

/// One wasm plugin of a profile, as its configuration gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WasmPluginArgs {
    /// The plugin's name in the profile.
    pub name: String,
    /// `args.guestURL`, as written (`file://PATH`, `http://...`).
    pub guest_url: String,
    /// `args.guestConfig`: a string handed to the guest as bytes.
    pub guest_config: String,
    /// `args.logSeverity` (0 when absent).
    pub log_severity: i32,
    /// `args.args` (the guest's argv after its URL), empty when absent.
    pub args: Vec<String>,
    /// The Score weight: `plugins.score.enabled[].weight` when the plugin
    /// is listed there (0 without one), else
    /// `plugins.multiPoint.enabled[].weight`, else 0 (kube-scheduler, and
    /// [`Profile::new`](crate::Profile::new), make 0 into 1).
    pub weight: i64,
}

/// The wasm plugins of one profile of a `KubeSchedulerConfiguration`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedulerProfile {
    /// `schedulerName` (kube-scheduler's default, `default-scheduler`,
    /// when absent).
    pub scheduler_name: String,
    /// Its wasm plugins, in `multiPoint.enabled` order.
    pub plugins: Vec<WasmPluginArgs>,
    /// Names enabled under `multiPoint` without wasm args (kube-scheduler's
    /// own plugins): not run by kguest.
    pub other_plugins: Vec<String>,
    /// Each extension point's own `enabled`/`disabled` lists, where the
    /// profile has them (`multiPoint.disabled` only turns kube-scheduler's
    /// default plugins off, so it is not here).
    pub points: Vec<(ExtensionPoint, PointLists)>,
}

/// Go's `encoding/json` matches object keys to field names without regard
/// to case, as the scheduler decodes plugin args.
fn field<'a>(object: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    object
        .get(name)
        .or_else(|| {
            object
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

fn as_object<'a>(v: &'a Value, what: &str) -> Result<&'a serde_json::Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what} must be an object"))
}

fn as_array<'a>(v: Option<&'a Value>, what: &str) -> Result<&'a [Value], String> {
    match v {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(format!("{what} must be a list")),
    }
}

fn as_str<'a>(v: &'a Value, what: &str) -> Result<&'a str, String> {
    v.as_str()
        .ok_or_else(|| format!("{what} must be a string, not {v}"))
}

fn as_int(v: &Value, what: &str) -> Result<i64, String> {
    v.as_i64()
        .ok_or_else(|| format!("{what} must be an integer, not {v}"))
}

/// Every profile's wasm plugins in `config`, a `KubeSchedulerConfiguration`
/// as JSON (YAML decoded to the same value).
pub fn scheduler_profiles(config: &Value) -> Result<Vec<SchedulerProfile>, String> {
    let top = as_object(config, "the configuration")?;
    match field(top, "kind").and_then(Value::as_str) {
        Some("KubeSchedulerConfiguration") => {}
        Some(other) => {
            return Err(format!("kind is {other}, not KubeSchedulerConfiguration"));
        }
        None => return Err("no `kind: KubeSchedulerConfiguration`".into()),
    }
    let mut out = Vec::new();
    for (p, profile) in as_array(field(top, "profiles"), "profiles")?
        .iter()
        .enumerate()
    {
        let at = format!("profiles[{p}]");
        let profile = as_object(profile, &at)?;
        let scheduler_name = match field(profile, "schedulerName") {
            Some(v) => as_str(v, &format!("{at}.schedulerName"))?.to_string(),
            None => "default-scheduler".to_string(),
        };
        let plugins = match field(profile, "plugins") {
            Some(v) => Some(as_object(v, &format!("{at}.plugins"))?),
            None => None,
        };
        let set = |point: &str, list: &str| -> Result<Vec<(String, Option<i64>)>, String> {
            let Some(plugins) = plugins else {
                return Ok(Vec::new());
            };
            let Some(point_v) = field(plugins, point) else {
                return Ok(Vec::new());
            };
            let what = format!("{at}.plugins.{point}");
            let point_o = as_object(point_v, &what)?;
            let mut names = Vec::new();
            for (i, entry) in as_array(field(point_o, list), &format!("{what}.{list}"))?
                .iter()
                .enumerate()
            {
                let what = format!("{what}.{list}[{i}]");
                let entry = as_object(entry, &what)?;
                let name = field(entry, "name")
                    .ok_or_else(|| format!("{what} has no name"))
                    .and_then(|v| as_str(v, &format!("{what}.name")))?;
                let weight = field(entry, "weight")
                    .map(|v| as_int(v, &format!("{what}.weight")))
                    .transpose()?;
                names.push((name.to_string(), weight));
            }
            Ok(names)
        };
        let enabled = set("multiPoint", "enabled")?;
        // Read for its shape only: kube-scheduler's defaulting drops the
        // default plugins it names and keeps every plugin the profile
        // enables under multiPoint, named there or not.
        set("multiPoint", "disabled")?;
        let mut points = Vec::new();
        for point in ExtensionPoint::ALL {
            let key = point.config_key();
            let lists = PointLists {
                enabled: set(key, "enabled")?,
                disabled: set(key, "disabled")?.into_iter().map(|(n, _)| n).collect(),
            };
            if lists != PointLists::default() {
                points.push((point, lists));
            }
        }
        let score_weights: &[(String, Option<i64>)] = points
            .iter()
            .find(|(point, _)| *point == ExtensionPoint::Score)
            .map_or(&[], |(_, lists)| &lists.enabled);
        let configs = as_array(
            field(profile, "pluginConfig"),
            &format!("{at}.pluginConfig"),
        )?;
        let mut wasm = Vec::new();
        let mut others = Vec::new();
        // The wasm args of the plugin `name` and their `guestURL`, if its
        // pluginConfig has them.
        let wasm_args = |name: &str| -> Result<Option<(String, &Object, &Value)>, String> {
            let mut args = None;
            for (i, c) in configs.iter().enumerate() {
                let what = format!("{at}.pluginConfig[{i}]");
                let c = as_object(c, &what)?;
                if field(c, "name").and_then(Value::as_str) == Some(name) {
                    args = field(c, "args").map(|a| (what, a));
                }
            }
            let Some((what, args)) = args else {
                return Ok(None);
            };
            let what = format!("{what}.args");
            let args = as_object(args, &what)?;
            Ok(field(args, "guestURL").map(|url| (what, args, url)))
        };
        for (point, lists) in &points {
            for (name, _) in &lists.enabled {
                if wasm_args(name)?.is_some() && !enabled.iter().any(|(n, _)| n == name) {
                    return Err(format!(
                        "{at}.plugins.{point}.enabled names the wasm plugin `{name}`, which \
                         multiPoint.enabled does not: KSW's scheduler registers only multiPoint \
                         plugins, so kube-scheduler would not find it (enable it under \
                         multiPoint and use {point}.disabled where it must not run)"
                    ));
                }
            }
        }
        for (name, weight) in enabled {
            let Some((what, args, url)) = wasm_args(&name)? else {
                others.push(name);
                continue;
            };
            let guest_url = as_str(url, &format!("{what}.guestURL"))?.to_string();
            let guest_config = match field(args, "guestConfig") {
                None => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => {
                    return Err(format!(
                        "{what}.guestConfig must be a string (quote JSON in YAML), not {other}"
                    ));
                }
            };
            let log_severity = match field(args, "logSeverity") {
                None => 0,
                Some(v) => {
                    let n = as_int(v, &format!("{what}.logSeverity"))?;
                    i32::try_from(n)
                        .map_err(|_| format!("{what}.logSeverity {n} does not fit an int32"))?
                }
            };
            let mut guest_args = Vec::new();
            for (i, a) in as_array(field(args, "args"), &format!("{what}.args"))?
                .iter()
                .enumerate()
            {
                guest_args.push(as_str(a, &format!("{what}.args[{i}]"))?.to_string());
            }
            // kube-scheduler takes the weight of the plugin's first entry
            // in score.enabled, then multiPoint.enabled.
            let weight = score_weights
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, w)| w.unwrap_or(0))
                .or(weight)
                .unwrap_or(0);
            wasm.push(WasmPluginArgs {
                name,
                guest_url,
                guest_config,
                log_severity,
                args: guest_args,
                weight,
            });
        }
        out.push(SchedulerProfile {
            scheduler_name,
            plugins: wasm,
            other_plugins: others,
            points,
        });
    }
    if out.is_empty() {
        return Err("the configuration has no profiles".into());
    }
    // KSW's scheduler registers a wasm plugin once per profile that enables
    // its name, and kube-scheduler refuses a second registration at
    // start-up (tests/ksw-e2e runs it).
    let mut seen = std::collections::HashSet::new();
    for (p, profile) in out.iter().enumerate() {
        for plugin in &profile.plugins {
            if !seen.insert(plugin.name.as_str()) {
                return Err(format!(
                    "profiles[{p}]: the wasm plugin name `{0}` is enabled twice; KSW's scheduler \
                     would register it twice and kube-scheduler refuses to start (`a plugin \
                     named {0} already exists`): give each profile's plugin a name of its own",
                    plugin.name
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_multipoint_plugins_with_wasm_args() {
        let config = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{
                "schedulerName": "s",
                "plugins": {
                    "multiPoint": {"enabled": [
                        {"name": "a", "weight": 3},
                        {"name": "NodeResourcesFit"},
                        {"name": "b"},
                        {"name": "gone"}
                    ], "disabled": [{"name": "gone"}]},
                    "score": {"enabled": [{"name": "b", "weight": 5}, {"name": "gone"}]},
                    "filter": {"disabled": [{"name": "a"}]}
                },
                "pluginConfig": [
                    {"name": "a", "args": {"guestURL": "file://a.wasm", "guestConfig": "{}", "logSeverity": 1}},
                    {"name": "b", "args": {"GuestUrl": "file://b.wasm", "args": ["x"]}},
                    {"name": "gone", "args": {"guestURL": "file://c.wasm"}}
                ]
            }]
        });
        let profiles = scheduler_profiles(&config).unwrap();
        assert_eq!(profiles.len(), 1);
        let p = &profiles[0];
        assert_eq!(p.scheduler_name, "s");
        assert_eq!(p.other_plugins, ["NodeResourcesFit"]);
        assert_eq!(
            p.plugins,
            [
                WasmPluginArgs {
                    name: "a".into(),
                    guest_url: "file://a.wasm".into(),
                    guest_config: "{}".into(),
                    log_severity: 1,
                    args: vec![],
                    weight: 3,
                },
                WasmPluginArgs {
                    name: "b".into(),
                    guest_url: "file://b.wasm".into(),
                    guest_config: String::new(),
                    log_severity: 0,
                    args: vec!["x".into()],
                    weight: 5,
                },
                // multiPoint.disabled leaves a plugin multiPoint enables;
                // a score.enabled entry without a weight gives it 0 (1).
                WasmPluginArgs {
                    name: "gone".into(),
                    guest_url: "file://c.wasm".into(),
                    guest_config: String::new(),
                    log_severity: 0,
                    args: vec![],
                    weight: 0,
                },
            ]
        );
        let keys: Vec<_> = p
            .points
            .iter()
            .map(|(point, _)| point.config_key())
            .collect();
        assert_eq!(keys, ["filter", "score"]);
        assert_eq!(p.points[0].1.disabled, ["a"]);
    }

    #[test]
    fn a_wasm_plugin_enabled_only_at_one_point_is_refused() {
        let config = json!({"kind": "KubeSchedulerConfiguration", "profiles": [{
            "plugins": {"multiPoint": {"enabled": [{"name": "a"}]},
                        "filter": {"enabled": [{"name": "NodeName"}, {"name": "b"}]}},
            "pluginConfig": [{"name": "a", "args": {"guestURL": "file:///a.wasm"}},
                             {"name": "b", "args": {"guestURL": "file:///b.wasm"}}]
        }]});
        let err = scheduler_profiles(&config).unwrap_err();
        assert!(
            err.starts_with(
                "profiles[0].plugins.filter.enabled names the wasm plugin `b`, which multiPoint.enabled does not"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_wasm_plugin_name_in_two_profiles_is_refused_as_kube_scheduler_does() {
        let profile = |scheduler: &str| {
            json!({"schedulerName": scheduler,
                "plugins": {"multiPoint": {"enabled": [{"name": "nn"}]}},
                "pluginConfig": [{"name": "nn", "args": {"guestURL": "file:///nn.wasm"}}]})
        };
        let config = json!({"kind": "KubeSchedulerConfiguration",
            "profiles": [profile("a"), profile("b")]});
        let err = scheduler_profiles(&config).unwrap_err();
        assert!(
            err.starts_with("profiles[1]: the wasm plugin name `nn` is enabled twice"),
            "{err}"
        );
        assert!(err.contains("a plugin named nn already exists"), "{err}");
    }

    #[test]
    fn bad_shapes_are_errors_naming_the_field() {
        let err = |v: Value| scheduler_profiles(&v).unwrap_err();
        assert_eq!(
            err(json!({"kind": "Pod"})),
            "kind is Pod, not KubeSchedulerConfiguration"
        );
        assert_eq!(
            err(json!({"kind": "KubeSchedulerConfiguration"})),
            "the configuration has no profiles"
        );
        let map_config = json!({"kind": "KubeSchedulerConfiguration", "profiles": [{
            "plugins": {"multiPoint": {"enabled": [{"name": "w"}]}},
            "pluginConfig": [{"name": "w", "args": {"guestURL": "file://w", "guestConfig": {"a": 1}}}]
        }]});
        assert_eq!(
            err(map_config),
            "profiles[0].pluginConfig[0].args.guestConfig must be a string (quote JSON in YAML), not {\"a\":1}"
        );
        let bad_weight = json!({"kind": "KubeSchedulerConfiguration", "profiles": [{
            "plugins": {"multiPoint": {"enabled": [{"name": "w", "weight": "high"}]}}
        }]});
        assert_eq!(
            err(bad_weight),
            "profiles[0].plugins.multiPoint.enabled[0].weight must be an integer, not \"high\""
        );
    }
}
