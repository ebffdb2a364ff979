/// PreScore, once per cycle before Score: a pod annotated
/// `example.kguest.dev/score: "off"` skips this plugin's Score.
impl PreScore for PLUGIN {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let setting = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.annotations().get(SCORE_ANNOTATION));
        if setting == Some("off") {
            Status::skip()
        } else {
            Status::success()
        }
    }
}
