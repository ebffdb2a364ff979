/// Score, per feasible node: one point per GiB of allocatable memory, at
/// most the config's `maxScore`.
impl Score for PLUGIN {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let Some(node) = cx.node() else {
            return Err(Status::error("node not found"));
        };
        let memory = node
            .status()
            .and_then(|s| s.allocatable().get("memory"))
            .and_then(|q| q.string_bytes());
        // `quantity::scaled` reads "16Gi" as bytes (scale 0) without the
        // exact parser; `None` (not a quantity, or too large) counts as 0.
        let bytes = memory.and_then(|q| quantity::scaled(q, 0)).unwrap_or(0);
        let gib = bytes / GIB;
        // `max_score` is 0..=100 (`load` checked it), so the cast is exact.
        Ok(gib.min(self.max_score).max(0) as i32)
    }
}
