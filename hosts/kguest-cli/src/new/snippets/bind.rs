/// Bind: `Skip` hands the pod to the next bind plugin (the default binder).
impl Bind for PLUGIN {
    fn bind<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::skip()
    }
}
