/// NormalizeScore, once per cycle after Score: scores are already in
/// 0..=100, so no list is sent back and the scheduler keeps them (a
/// rescaling plugin reads `Cycle::node_score_list` and answers with
/// `Cycle::set_normalized_score_list`).
impl NormalizeScore for PLUGIN {
    fn normalize_score<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
