//! The same plugins compiled natively: the examples' rlibs driven through
//! the SDK's `TestHost`, which runs the code the wasm exports run against
//! thread-local stand-ins for the host imports (the bytes are copied into
//! the SDK's buffers just as the wasm host copies them into guest memory).
//!
//! One difference from wasm: every plugin on a thread shares the SDK's one
//! set of input buffers, so the Pod and a Node fetched by one plugin are
//! reused by the next within a call sequence. This favours native slightly.

use kguest::testing::TestHost;

use crate::sched::PluginSet;

pub struct NativeSet {
    host: TestHost,
    names: Vec<String>,
    pods: std::sync::Arc<Vec<Vec<u8>>>,
    nodename: nodename::NodeName,
    taints: taints::Taints,
    fit: fit::Fit,
    imagelocality: imagelocality::ImageLocality,
    nodenumber: nodenumber::NodeNumber,
}

impl NativeSet {
    /// Creates the host stand-in for this thread, loaded with every node.
    pub fn new(
        nodes: &[(String, Vec<u8>)],
        pods: std::sync::Arc<Vec<Vec<u8>>>,
        nodenumber_config: &[u8],
    ) -> NativeSet {
        use kguest::Plugin;
        let host = TestHost::new();
        for (name, bytes) in nodes {
            host.add_node(name, bytes.clone());
        }
        host.set_config(nodenumber_config.to_vec());
        let nodenumber = nodenumber::NodeNumber::new();
        host.set_config(Vec::new());
        NativeSet {
            names: nodes.iter().map(|(n, _)| n.clone()).collect(),
            pods,
            nodename: nodename::NodeName::new(),
            taints: taints::Taints::new(),
            fit: fit::Fit::new(),
            imagelocality: imagelocality::ImageLocality::new(),
            nodenumber,
            host,
        }
    }
}

impl PluginSet for NativeSet {
    fn pre_filter(&mut self, pod: usize) -> Result<Option<Vec<usize>>, String> {
        let h = &self.host;
        h.set_pod(self.pods[pod].clone());
        // None of these plugins has a PreFilter of its own; the `prefilter`
        // export starts the cycle in each.
        h.new_cycle(&mut self.nodename);
        h.new_cycle(&mut self.taints);
        h.new_cycle(&mut self.fit);
        h.new_cycle(&mut self.imagelocality);
        h.new_cycle(&mut self.nodenumber);
        Ok(None)
    }

    fn filter(&mut self, node: usize) -> Result<bool, String> {
        let h = &self.host;
        h.set_node_name(&self.names[node]);
        Ok(h.filter(&mut self.nodename).is_success()
            && h.filter(&mut self.taints).is_success()
            && h.filter(&mut self.fit).is_success())
    }

    fn pre_score(&mut self, feasible: &[usize]) -> Result<bool, String> {
        let names: Vec<&str> = feasible.iter().map(|&i| self.names[i].as_str()).collect();
        let list = serde_json::to_string(&names).unwrap_or_default();
        self.host.set_filtered_node_list(&list);
        Ok(self.host.pre_score(&mut self.nodenumber).is_success())
    }

    fn score(&mut self, node: usize) -> Result<i64, String> {
        let h = &self.host;
        h.set_node_name(&self.names[node]);
        let mut total = 0i64;
        for (label, (score, outcome)) in [
            ("imagelocality", h.score(&mut self.imagelocality)),
            ("nodenumber", h.score(&mut self.nodenumber)),
        ] {
            if !outcome.is_success() {
                return Err(format!("{label}: score failed: {outcome:?}"));
            }
            total += i64::from(score);
        }
        Ok(total)
    }
}
