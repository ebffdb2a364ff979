    #[test]
    fn bind_leaves_binding_to_the_default_binder() {
        let host = TestHost::new();
        assert_eq!(host.bind(&mut PLUGIN::new()).code(), Ok(Code::Skip));
    }
