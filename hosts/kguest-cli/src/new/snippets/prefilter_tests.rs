    #[test]
    fn prefilter_holds_annotated_pods() {
        let host = TestHost::new();
        let pod = PodBuilder::new("web").annotation(HOLD_ANNOTATION, "true");
        host.set_pod(pod.build());
        let out = host.pre_filter(&mut PLUGIN::new());
        assert_eq!(out.code(), Ok(Code::Unschedulable));
        assert_eq!(out.reason(), "pod is on hold (example.kguest.dev/hold)");

        let host = TestHost::new();
        host.set_pod(PodBuilder::new("web").build());
        assert!(host.pre_filter(&mut PLUGIN::new()).is_success());
    }
