    #[test]
    fn pod_extensions_succeed() {
        let host = TestHost::new();
        assert!(host.add_pod(&mut PLUGIN::new()).is_success());
        assert!(host.remove_pod(&mut PLUGIN::new()).is_success());
    }
