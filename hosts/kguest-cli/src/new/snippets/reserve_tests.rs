    #[test]
    fn reserve_succeeds() {
        let host = TestHost::new();
        host.set_node_name("a1");
        let mut plugin = PLUGIN::new();
        assert!(host.reserve(&mut plugin).is_success());
        host.unreserve(&mut plugin);
    }
