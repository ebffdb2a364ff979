    #[test]
    fn enqueue_names_node_events() {
        let host = TestHost::new();
        // (resource, action): Node = 1; Add = 1, UpdateNodeLabel = 8.
        assert_eq!(host.enqueue(&mut PLUGIN::new()), Some(vec![(1, 1 | 8)]));
    }
