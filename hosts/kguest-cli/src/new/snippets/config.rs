/// The plugin, built from its config (`guestConfig` in the scheduler
/// configuration) when the host loads it.
pub struct PLUGIN {
    /// Score's highest score (`maxScore`: 0 to 100, default 100).
    pub max_score: i64,
    /// The node label holding a node's zone (`zoneLabel`).
    pub zone_label: &'static str,
    /// Whether a pod without a zone label fits no node (`requireZone`).
    pub require_zone: bool,
}

/// Reads `{"maxScore": 50, "zoneLabel": "...", "requireZone": true}` as Go's
/// `json.Unmarshal` reads it into a struct (missing keys keep the defaults).
/// A config Go would refuse, or a `maxScore` out of range, stops the load:
/// the host's error, and the scheduler's refusal to start, carry the reason.
impl Load for PLUGIN {
    fn load(config: &'static [u8]) -> Result<Self, Refusal> {
        let (mut max_score, mut zone_label, mut require_zone) = (100, NODE_ZONE_LABEL, false);
        args::decode(config, "PLUGINArgs", |f| {
            f.int("maxScore", &mut max_score)
                .str("zoneLabel", &mut zone_label)
                .bool("requireZone", &mut require_zone);
        })?;
        if !(0..=100).contains(&max_score) {
            return Err("PLUGINArgs.maxScore: want 0 to 100".into());
        }
        Ok(PLUGIN {
            max_score,
            zone_label,
            require_zone,
        })
    }
}
