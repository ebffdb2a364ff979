    #[test]
    fn prescore_skips_pods_that_opt_out() {
        let host = TestHost::new();
        let pod = PodBuilder::new("web").annotation(SCORE_ANNOTATION, "off");
        host.set_pod(pod.build());
        assert_eq!(host.pre_score(&mut PLUGIN::new()).code(), Ok(Code::Skip));

        let host = TestHost::new();
        host.set_pod(PodBuilder::new("web").build());
        assert!(host.pre_score(&mut PLUGIN::new()).is_success());
    }
