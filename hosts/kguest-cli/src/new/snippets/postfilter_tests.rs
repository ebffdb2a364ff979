    #[test]
    fn postfilter_nominates_nothing() {
        let host = TestHost::new();
        let (out, mode, nominated) = host.post_filter(&mut PLUGIN::new());
        assert_eq!(out.code(), Ok(Code::Unschedulable));
        assert_eq!((mode, nominated), (0, None));
    }
