/// EnqueueExtensions: the events after which pods this plugin turned away
/// are worth retrying: a node is added or its labels change.
impl EnqueueExtensions for PLUGIN {
    fn events(&mut self) -> &[ClusterEvent] {
        const EVENTS: &[ClusterEvent] = &[ClusterEvent::new(
            Resource::NODE,
            ActionType::ADD.or(ActionType::UPDATE_NODE_LABEL),
        )];
        EVENTS
    }
}
