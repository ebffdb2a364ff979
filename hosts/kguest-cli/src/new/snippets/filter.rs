/// Filter, per node: a pod labelled `example.kguest.dev/zone: Z` fits only
/// nodes labelled `topology.kubernetes.io/zone: Z`; other pods fit anywhere.
impl Filter for PLUGIN {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let wanted = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.labels().get(POD_ZONE_LABEL));
        let Some(wanted) = wanted else {
            return Status::success();
        };
        // The node is fetched from the host only when a hook asks for it.
        let Some(node) = cx.node() else {
            return Status::error("node not found");
        };
        let labels = node.metadata().map(|m| m.labels());
        let zone = labels.and_then(|l| l.get(NODE_ZONE_LABEL));
        if zone == Some(wanted) {
            Status::success()
        } else {
            Status::unresolvable("node(s) are not in the pod's zone")
        }
    }
}
