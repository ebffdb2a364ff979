/// Permit, before binding: allow at once (`PermitResult::wait(ms)` would
/// hold the pod, `PermitResult::reject` turn it away).
impl Permit for PLUGIN {
    fn permit<'a>(&'a mut self, _cx: &'a Cycle) -> PermitResult<'a> {
        PermitResult::allow()
    }
}
