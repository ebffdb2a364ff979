    #[test]
    fn permit_allows_at_once() {
        let host = TestHost::new();
        let (out, timeout_ms) = host.permit(&mut PLUGIN::new());
        assert!(out.is_success());
        assert_eq!(timeout_ms, 0);
    }
