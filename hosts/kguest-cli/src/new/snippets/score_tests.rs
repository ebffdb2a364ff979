    #[test]
    fn score_counts_gib_of_allocatable_memory() {
        let host = TestHost::new();
        let small = NodeBuilder::new("small").allocatable("memory", "16Gi");
        host.add_node("small", small.clone().build());
        let huge = NodeBuilder::new("huge").allocatable("memory", "1Ti");
        host.add_node("huge", huge.build());
        host.add_node("bare", NodeBuilder::new("bare").build());
        let mut plugin = PLUGIN::new();
        assert_eq!(host.score_node(&mut plugin, "small").0, 16);
        assert_eq!(host.score_node(&mut plugin, "huge").0, 100);
        assert_eq!(host.score_node(&mut plugin, "bare").0, 0);
        let (_, out) = host.score_node(&mut plugin, "gone");
        assert_eq!(out.code(), Ok(Code::Error));

        let host = TestHost::new();
        host.add_node("small", small.build());
        host.set_config(r#"{"maxScore": 10}"#);
        let mut capped = host.load::<PLUGIN>().expect("config");
        assert_eq!(host.score_node(&mut capped, "small").0, 10);
    }
