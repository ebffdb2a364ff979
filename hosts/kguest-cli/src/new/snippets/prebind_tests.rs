    #[test]
    fn prebind_succeeds() {
        let host = TestHost::new();
        assert!(host.pre_bind(&mut PLUGIN::new()).is_success());
    }
