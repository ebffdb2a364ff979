    #[test]
    fn postbind_logs_the_node() {
        let host = TestHost::new();
        host.set_node_name("a1");
        host.post_bind(&mut PLUGIN::new());
        let logs = host.logs();
        assert_eq!(logs.len(), 1);
        assert_eq!(logs[0].msg, "pod bound");
        assert_eq!(logs[0].kvs, [("node".to_string(), "a1".to_string())]);
    }
