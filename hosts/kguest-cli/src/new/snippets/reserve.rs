/// Reserve, on the chosen node: a plugin that tracks capacity claims it
/// here and gives it back in `unreserve` (left as the default, a no-op).
impl Reserve for PLUGIN {
    fn reserve<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
