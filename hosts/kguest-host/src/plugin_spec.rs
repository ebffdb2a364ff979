//! A plugin of a profile given on a command line,
//! `NAME=PLUGIN.wasm[,weight=N][,config=FILE]` (`kguest run --plugin` and
//! `kguest-extender --plugin`), parsed in one place so both read it alike.

/// One parsed `NAME=PLUGIN.wasm[,weight=N][,config=FILE]`; the caller loads
/// the plugin and reads the config file its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginSpec<'a> {
    /// Its name in the profile.
    pub name: &'a str,
    /// The `.wasm` file or guest URL, as given.
    pub wasm: &'a str,
    /// Its Score weight (0 when not given; kube-scheduler turns 0 into 1).
    pub weight: i64,
    /// The guest config's file, when given.
    pub config: Option<&'a str>,
}

impl<'a> PluginSpec<'a> {
    /// Parses `spec`; the error says what is wrong with it (the caller
    /// names the flag).
    pub fn parse(spec: &'a str) -> Result<Self, String> {
        let mut parts = spec.split(',');
        let (name, wasm) = parts
            .next()
            .and_then(|p| p.split_once('='))
            .filter(|(n, w)| !n.is_empty() && !w.is_empty())
            .ok_or("expected NAME=PLUGIN.wasm[,weight=N][,config=FILE]")?;
        let mut parsed = PluginSpec {
            name,
            wasm,
            weight: 0,
            config: None,
        };
        for part in parts {
            match part.split_once('=') {
                Some(("weight", n)) => {
                    parsed.weight = n.parse().map_err(|_| "weight must be an integer")?;
                }
                Some(("config", file)) => parsed.config = Some(file),
                _ => return Err(format!("unknown part `{part}` (weight=N or config=FILE)")),
            }
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::PluginSpec;

    #[test]
    fn parses_name_wasm_weight_and_config() {
        assert_eq!(
            PluginSpec::parse("nn=a.wasm,weight=3,config=c.json"),
            Ok(PluginSpec {
                name: "nn",
                wasm: "a.wasm",
                weight: 3,
                config: Some("c.json"),
            })
        );
        assert_eq!(PluginSpec::parse("nn=a.wasm").map(|s| s.weight), Ok(0));
    }

    #[test]
    fn says_what_is_wrong() {
        let wanted = "expected NAME=PLUGIN.wasm[,weight=N][,config=FILE]";
        assert_eq!(PluginSpec::parse("a.wasm"), Err(wanted.to_string()));
        assert_eq!(PluginSpec::parse("=a.wasm"), Err(wanted.to_string()));
        assert_eq!(
            PluginSpec::parse("nn=a.wasm,weight=x"),
            Err("weight must be an integer".to_string())
        );
        assert_eq!(
            PluginSpec::parse("nn=a.wasm,color=red"),
            Err("unknown part `color=red` (weight=N or config=FILE)".to_string())
        );
    }
}
