/// Filter, per node: a pod labelled `example.kguest.dev/zone: Z` fits only
/// nodes whose zone label (the config's `zoneLabel`) is Z; other pods fit
/// anywhere, or nowhere with `requireZone`.
impl Filter for PLUGIN {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let wanted = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.labels().get(POD_ZONE_LABEL));
        let Some(wanted) = wanted else {
            return if self.require_zone {
                Status::unresolvable("pod has no zone label (requireZone)")
            } else {
                Status::success()
            };
        };
        // The node is fetched from the host only when a hook asks for it.
        let Some(node) = cx.node() else {
            return Status::error("node not found");
        };
        let labels = node.metadata().map(|m| m.labels());
        let zone = labels.and_then(|l| l.get(self.zone_label));
        if zone == Some(wanted) {
            Status::success()
        } else {
            Status::unresolvable("node(s) are not in the pod's zone")
        }
    }
}
