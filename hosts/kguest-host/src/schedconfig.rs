//! The wasm plugins of a `KubeSchedulerConfiguration` profile, read as
//! KSW's `scheduler/cmd/scheduler` reads them: a plugin counts when it is
//! enabled under `plugins.multiPoint` and its `pluginConfig` args are the
//! wasm plugin's (`guestURL`, `guestConfig`, `logSeverity`, `args`).

use serde_json::Value;

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
    /// The Score weight: `plugins.score.enabled[].weight` if given there,
    /// else `plugins.multiPoint.enabled[].weight`, else 0 (which
    /// kube-scheduler, and [`Profile::new`](crate::Profile::new), make 1).
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
        let disabled = set("multiPoint", "disabled")?;
        let score_weights = set("score", "enabled")?;
        let configs = as_array(
            field(profile, "pluginConfig"),
            &format!("{at}.pluginConfig"),
        )?;
        let mut wasm = Vec::new();
        let mut others = Vec::new();
        for (name, weight) in enabled {
            if disabled.iter().any(|(d, _)| d == &name || d == "*") {
                continue;
            }
            let mut args = None;
            for (i, c) in configs.iter().enumerate() {
                let what = format!("{at}.pluginConfig[{i}]");
                let c = as_object(c, &what)?;
                if field(c, "name").and_then(Value::as_str) == Some(name.as_str()) {
                    args = field(c, "args").map(|a| (what, a));
                }
            }
            let Some((what, args)) = args else {
                others.push(name);
                continue;
            };
            let what = format!("{what}.args");
            let args = as_object(args, &what)?;
            let Some(url) = field(args, "guestURL") else {
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
            let weight = score_weights
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, w)| *w)
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
                    "score": {"enabled": [{"name": "b", "weight": 5}]}
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
            ]
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
