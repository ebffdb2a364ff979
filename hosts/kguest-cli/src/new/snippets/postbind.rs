/// PostBind, after a successful bind: tell klog where the pod went.
impl PostBind for PLUGIN {
    fn post_bind(&mut self, cx: &Cycle) {
        let node = cx.node_name();
        log::logs(log::Severity::Info, "pod bound", &[("node", node)]);
    }
}
