/// PostFilter, when no node passed Filter: a preempting plugin would nominate
/// a node here (`PostFilterResult::nominate`); this one does not preempt.
impl PostFilter for PLUGIN {
    fn post_filter<'a>(&'a mut self, _cx: &'a Cycle) -> PostFilterResult<'a> {
        PostFilterResult::status(Status::unschedulable("no preemption"))
    }
}
