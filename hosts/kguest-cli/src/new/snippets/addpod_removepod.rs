/// AddPod/RemovePod: during preemption the scheduler asks how adding or
/// removing another pod (`Cycle::target_pod`) changes what PreFilter
/// computed; this plugin keeps no such state.
impl PreFilterExtensions for PLUGIN {
    fn add_pod<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }

    fn remove_pod<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
