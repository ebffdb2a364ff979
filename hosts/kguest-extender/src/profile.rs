//! The profile of wasm plugins the extender serves, from the same inputs
//! `kguest run` takes: a `KubeSchedulerConfiguration` (`--config`, one of
//! its profiles) or `--plugin NAME=PLUGIN.wasm[,weight=N][,config=FILE]`.

use kguest_host::{Plugin, PluginConfig, PluginSpec, Profile, ProfilePlugin, Runtime};

/// Where the profile comes from.
#[derive(Debug, Clone, Default)]
pub struct ProfileSource {
    pub config: Option<String>,
    pub profile: Option<String>,
    pub plugins: Vec<String>,
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Loads the profile, every guest with `base`'s limits.
pub fn load(
    runtime: &Runtime,
    source: &ProfileSource,
    base: &PluginConfig,
) -> Result<Profile, String> {
    match (&source.config, source.plugins.is_empty()) {
        (Some(_), false) => Err("--config and --plugin do not go together".into()),
        (None, true) => Err("no plugins: give --config SCHED-CONFIG.yaml or --plugin".into()),
        (Some(path), true) => from_config(runtime, path, source.profile.as_deref(), base),
        (None, false) => from_specs(runtime, &source.plugins, base),
    }
}

fn from_config(
    runtime: &Runtime,
    path: &str,
    wanted: Option<&str>,
    base: &PluginConfig,
) -> Result<Profile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let value: serde_json::Value =
        serde_norway::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let profiles = kguest_host::scheduler_profiles(&value).map_err(|e| format!("{path}: {e}"))?;
    let chosen = match wanted {
        Some(name) => profiles
            .iter()
            .find(|p| p.scheduler_name == name)
            .ok_or_else(|| format!("{path}: no profile with schedulerName `{name}`"))?,
        None => profiles
            .first()
            .ok_or_else(|| format!("{path}: no profile"))?,
    };
    if chosen.plugins.is_empty() {
        return Err(format!(
            "{path}: profile `{}` enables no wasm plugin under multiPoint (a plugin counts when \
             its pluginConfig args have a guestURL)",
            chosen.scheduler_name
        ));
    }
    Profile::from_config(runtime, chosen, base)
        .map_err(|(name, e)| format!("{path}: plugin `{name}`: {}", one_line(&e.to_string())))
}

fn from_specs(runtime: &Runtime, specs: &[String], base: &PluginConfig) -> Result<Profile, String> {
    let mut plugins = Vec::new();
    for spec in specs {
        let bad = |why: &str| format!("--plugin {spec}: {why}");
        let PluginSpec {
            name,
            wasm,
            weight,
            config,
        } = PluginSpec::parse(spec).map_err(|why| bad(&why))?;
        let guest_config = match config {
            Some(file) => std::fs::read(file).map_err(|e| bad(&format!("{file}: {e}")))?,
            None => Vec::new(),
        };
        let config = PluginConfig {
            guest_config: guest_config.into(),
            ..base.clone()
        };
        let plugin = if wasm.contains("://") {
            Plugin::from_guest_url(runtime, wasm, config)
        } else {
            let bytes = std::fs::read(wasm).map_err(|e| bad(&format!("{wasm}: {e}")))?;
            Plugin::load(runtime, &bytes, config)
        }
        .map_err(|e| bad(&one_line(&e.to_string())))?;
        plugins.push(ProfilePlugin {
            name: name.to_string(),
            plugin,
            weight,
        });
    }
    Profile::new(plugins).map_err(|e| e.to_string())
}
