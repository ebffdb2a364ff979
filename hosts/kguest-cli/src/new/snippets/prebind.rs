/// PreBind: the place to prepare the node (volumes, network) before the
/// pod is bound; nothing to do here.
impl PreBind for PLUGIN {
    fn pre_bind<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
