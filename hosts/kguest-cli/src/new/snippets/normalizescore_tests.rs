    #[test]
    fn normalizescore_keeps_the_scores() {
        let host = TestHost::new();
        host.set_node_score_list("{\"a1\":16,\"a2\":64}");
        assert!(host.normalize_score(&mut PLUGIN::new()).is_success());
        assert_eq!(host.normalized_score_list(), None);
    }
