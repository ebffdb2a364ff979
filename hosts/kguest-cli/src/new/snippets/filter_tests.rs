    /// A node labelled with `zone`.
    fn node_in(name: &str, zone: &str) -> Vec<u8> {
        NodeBuilder::new(name).label(NODE_ZONE_LABEL, zone).build()
    }

    #[test]
    fn filter_keeps_zoned_pods_in_their_zone() {
        let host = TestHost::new();
        host.add_node("a1", node_in("a1", "zone-a"));
        host.add_node("b1", node_in("b1", "zone-b"));
        host.add_node("bare", NodeBuilder::new("bare").build());
        let pod = PodBuilder::new("web").label(POD_ZONE_LABEL, "zone-a");
        host.set_pod(pod.build());
        let mut plugin = PLUGIN::new();
        assert!(host.filter_node(&mut plugin, "a1").is_success());
        let out = host.filter_node(&mut plugin, "b1");
        assert_eq!(out.code(), Ok(Code::UnschedulableAndUnresolvable));
        assert_eq!(out.reason(), "node(s) are not in the pod's zone");
        assert!(!host.filter_node(&mut plugin, "bare").is_success());
        let gone = host.filter_node(&mut plugin, "gone");
        assert_eq!(gone.code(), Ok(Code::Error));
    }

    #[test]
    fn filter_lets_other_pods_go_anywhere_unless_required() {
        let host = TestHost::new();
        host.add_node("b1", node_in("b1", "zone-b"));
        host.set_pod(PodBuilder::new("web").build());
        assert!(host.filter_node(&mut PLUGIN::new(), "b1").is_success());

        let host = TestHost::new();
        host.add_node("b1", node_in("b1", "zone-b"));
        host.set_pod(PodBuilder::new("web").build());
        host.set_config(r#"{"requireZone": true}"#);
        let mut strict = host.load::<PLUGIN>().expect("config");
        let out = host.filter_node(&mut strict, "b1");
        assert_eq!(out.code(), Ok(Code::UnschedulableAndUnresolvable));
    }

    #[test]
    fn filter_reads_the_zone_label_the_config_names() {
        let host = TestHost::new();
        let rack = NodeBuilder::new("r1").label("example.com/rack", "zone-a");
        host.add_node("r1", rack.build());
        let pod = PodBuilder::new("web").label(POD_ZONE_LABEL, "zone-a");
        host.set_pod(pod.build());
        host.set_config(r#"{"zoneLabel": "example.com/rack"}"#);
        let mut plugin = host.load::<PLUGIN>().expect("config");
        assert!(host.filter_node(&mut plugin, "r1").is_success());
    }
