/// PreFilter, once per scheduling cycle: a pod annotated
/// `example.kguest.dev/hold: "true"` waits until the annotation goes.
impl PreFilter for PLUGIN {
    fn pre_filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let hold = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.annotations().get(HOLD_ANNOTATION));
        if hold == Some("true") {
            Status::unschedulable("pod is on hold (example.kguest.dev/hold)")
        } else {
            Status::success()
        }
    }
}
