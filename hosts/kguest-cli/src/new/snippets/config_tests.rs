    #[test]
    fn load_reads_the_config() {
        let defaults = PLUGIN::new(); // no config
        assert_eq!(defaults.max_score, 100);
        assert_eq!(defaults.zone_label, NODE_ZONE_LABEL);
        assert!(!defaults.require_zone);

        let host = TestHost::new();
        host.set_config(r#"{"maxScore": 50, "zoneLabel": "rack", "requireZone": true}"#);
        let plugin = host.load::<PLUGIN>().expect("a good config");
        assert_eq!(plugin.max_score, 50);
        assert_eq!(plugin.zone_label, "rack");
        assert!(plugin.require_zone);
    }

    #[test]
    fn load_refuses_a_bad_config() {
        let refused = |config: &str| {
            let host = TestHost::new();
            host.set_config(config);
            host.load::<PLUGIN>().err().unwrap_or_default()
        };
        assert_eq!(
            refused(r#"{"maxScore": "50"}"#),
            "json: cannot unmarshal string into Go struct field PLUGINArgs.maxScore of type int"
        );
        assert_eq!(
            refused(r#"{"maxScore": 500}"#),
            "PLUGINArgs.maxScore: want 0 to 100"
        );
        assert_eq!(
            refused("[]"),
            "json: cannot unmarshal array into Go value of type PLUGINArgs"
        );
    }
