//! Filter: the pod's resource requests must fit the node's allocatable
//! resources, computed the way Kubernetes computes a pod's requests:
//!
//! * the requests of the regular containers are summed per resource;
//! * init containers run one at a time, so the pod needs at least the
//!   largest single init container; restartable init containers
//!   (`restartPolicy: Always`, "sidecars") keep running, so they add to the
//!   regular containers' sum and to every later init container's need;
//! * the total is the per-resource maximum of the two, plus `spec.overhead`.
//!
//! Quantities are parsed exactly and converted as the scheduler does:
//! `cpu` in millicores (`MilliValue`), every other resource in whole units
//! (`Value`), rounding up. The node side is `status.allocatable` only: the
//! host ABI does not expose the requests of pods already on the node, so
//! this is "fits an empty node". The reason names the first short resource
//! (`Insufficient cpu`). At most 16 distinct resources are tracked, in
//! fixed arrays (no allocation).
//!
//! The pod's totals are computed once per scheduling cycle (kept in a
//! [`CycleState`]); per node, one pass over the node's
//! `status.allocatable` picks the amounts of the requested resources.

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::k8s::api::core::v1::{Container, Node, Pod, PodSpec};
use kguest::k8s::apimachinery::pkg::api::resource::Quantity;
use kguest::{Cycle, CycleState, Filter, PerCycle, Plugin, ReasonBuf, Status};

/// How many distinct resource names one pod may request.
pub const MAX_RESOURCES: usize = 16;

/// Why requests could not be totalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TotalError {
    /// A quantity does not parse.
    Quantity,
    /// More than [`MAX_RESOURCES`] distinct resources.
    TooMany,
}

/// Per-resource amounts in scheduler units, keyed by resource name.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals<'a> {
    /// `None` past the last name (an all-zero default: no data segment).
    names: [Option<&'a str>; MAX_RESOURCES],
    values: [i64; MAX_RESOURCES],
    len: usize,
}

/// A quantity in scheduler units: millicores for `cpu`, whole units
/// otherwise. Uses the small `u64` fast path (`quantity::scaled`) rather
/// than the exact parser: it answers for every quantity a real pod or node
/// carries and keeps this plugin a third of the size; anything it declines
/// (huge or degenerate values) is reported as a bad quantity.
fn amount(resource: &str, q: Option<Quantity<'_>>) -> Result<i64, TotalError> {
    let Some(q) = q else { return Ok(0) };
    let scale = if resource == "cpu" { -3 } else { 0 };
    kguest::k8s::quantity::scaled(q.string_bytes().unwrap_or(b"0"), scale)
        .ok_or(TotalError::Quantity)
}

impl<'a> Totals<'a> {
    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, i64)> + '_ {
        self.names
            .iter()
            .map_while(|n| *n)
            .zip(self.values.iter().copied())
    }

    pub fn get(&self, resource: &str) -> i64 {
        self.iter()
            .find(|(n, _)| *n == resource)
            .map_or(0, |(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of `resource`, added when new.
    fn slot(&mut self, resource: &'a str) -> Result<&mut i64, TotalError> {
        let i = match self
            .names
            .iter()
            .position(|n| *n == Some(resource) || n.is_none())
        {
            Some(i) => i,
            None => return Err(TotalError::TooMany),
        };
        if let Some(n) = self.names.get_mut(i)
            && n.is_none()
        {
            *n = Some(resource);
            self.len += 1;
        }
        self.values.get_mut(i).ok_or(TotalError::TooMany)
    }
}

/// One amount per slot of a [`Totals`].
type Amounts = [i64; MAX_RESOURCES];

impl<'a> Totals<'a> {
    /// Reads one `ResourceList` (a container's requests, the overhead) into
    /// `into` by slot, adding names as they come; a repeated name keeps its
    /// last value, as a protobuf map does.
    #[inline(never)]
    fn read(
        &mut self,
        list: impl Iterator<Item = (&'a str, Quantity<'a>)>,
        into: &mut Amounts,
    ) -> Result<(), TotalError> {
        *into = [0; MAX_RESOURCES];
        for (name, q) in list {
            let v = amount(name, Some(q))?;
            self.slot(name)?;
            if let Some(i) = self.names.iter().position(|n| *n == Some(name))
                && let Some(slot) = into.get_mut(i)
            {
                *slot = v;
            }
        }
        Ok(())
    }
}

/// The pod's effective requests (see the crate docs), per resource in order
/// of first appearance (containers, init containers, overhead); each
/// container's requests are read once.
pub fn pod_requests<'a>(spec: &PodSpec<'a>) -> Result<Totals<'a>, TotalError> {
    let mut t = Totals::default();
    let mut cur: Amounts = [0; MAX_RESOURCES];
    let mut sidecars: Amounts = [0; MAX_RESOURCES];
    let mut init_max: Amounts = [0; MAX_RESOURCES];
    let requests = |c: &Container<'a>| c.resources().map(|r| r.requests()).into_iter().flatten();
    for c in spec.containers() {
        t.read(requests(&c), &mut cur)?;
        for (total, v) in t.values.iter_mut().zip(cur) {
            *total = total.saturating_add(v);
        }
    }
    for c in spec.init_containers() {
        t.read(requests(&c), &mut cur)?;
        let sidecar = c.restart_policy_bytes() == Some(b"Always");
        for (((total, side), max), v) in t
            .values
            .iter_mut()
            .zip(sidecars.iter_mut())
            .zip(init_max.iter_mut())
            .zip(cur)
        {
            let need = if sidecar {
                *total = total.saturating_add(v);
                *side = side.saturating_add(v);
                *side
            } else {
                v.saturating_add(*side)
            };
            *max = (*max).max(need);
        }
    }
    for (total, max) in t.values.iter_mut().zip(init_max) {
        *total = (*total).max(max);
    }
    // `Some(..)` gives the same iterator type as `requests`: one `read`.
    t.read(Some(spec.overhead()).into_iter().flatten(), &mut cur)?;
    for (total, v) in t.values.iter_mut().zip(cur) {
        *total = total.saturating_add(v);
    }
    Ok(t)
}

/// What the pod needs, computed once per cycle: its totals (a pod without
/// a spec needs nothing), or why they could not be computed.
pub fn pod_needs(pod: Pod<'_>) -> Result<Totals<'_>, TotalError> {
    match pod.spec() {
        Some(spec) => pod_requests(&spec),
        None => Ok(Totals::default()),
    }
}

/// The node's allocatable quantity of each of `needs`' resources (`None`
/// when not listed), read in one pass over `status.allocatable`; the last
/// entry of a repeated name wins.
pub fn node_has<'n>(node: &Node<'n>, needs: &Totals<'_>) -> [Option<Quantity<'n>>; MAX_RESOURCES] {
    let mut have = [None; MAX_RESOURCES];
    if let Some(status) = node.status() {
        for (name, q) in status.allocatable() {
            let slot = needs.iter().position(|(n, _)| n == name);
            if let Some(h) = slot.and_then(|i| have.get_mut(i)) {
                *h = Some(q);
            }
        }
    }
    have
}

pub struct PerPod;

impl PerCycle for PerPod {
    type Data<'p> = Result<Totals<'p>, TotalError>;

    fn shorten<'a, 'b: 'a>(
        data: &'a Result<Totals<'b>, TotalError>,
    ) -> &'a Result<Totals<'a>, TotalError> {
        data
    }
}

pub struct Fit {
    needs: CycleState<PerPod>,
    reason: ReasonBuf<96>,
}

impl Plugin for Fit {
    fn new() -> Self {
        Fit {
            needs: CycleState::new(),
            reason: ReasonBuf::new(),
        }
    }
}

impl Filter for Fit {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let needs = match self.needs.get(cx, pod_needs) {
            Ok(t) => t,
            Err(TotalError::Quantity) => return Status::error("pod has an invalid quantity"),
            Err(TotalError::TooMany) => return Status::error("pod requests too many resources"),
        };
        if needs.iter().all(|(_, v)| v <= 0) {
            return Status::success();
        }
        let Some(node) = cx.node() else {
            return Status::error("node not found");
        };
        let have = node_has(&node, needs);
        for ((name, v), q) in needs.iter().zip(have) {
            if v <= 0 {
                continue;
            }
            let Ok(have) = amount(name, q) else {
                return Status::error("node has an invalid quantity");
            };
            if v > have {
                self.reason.clear().push_str("Insufficient ").push_str(name);
                return Status::unschedulable(self.reason.as_str());
            }
        }
        Status::success()
    }
}

kguest::export!(Fit => [filter]);

#[cfg(test)]
mod tests {
    use super::*;
    use kguest::Code;
    use kguest::k8s::api::core::v1::Pod;
    use kguest::testing::TestHost;
    use kguest::testing::proto::{ContainerBuilder as C, NodeBuilder, PodBuilder};

    fn totals(pod: PodBuilder) -> Vec<(String, i64)> {
        let bytes = pod.build();
        let spec = Pod::from_bytes(&bytes).spec().unwrap();
        let t = pod_requests(&spec).unwrap();
        t.iter().map(|(n, v)| (n.to_string(), v)).collect()
    }

    #[test]
    fn containers_sum_and_units() {
        let pod = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "250m").request("memory", "1Gi"))
            .container(
                C::new("b")
                    .request("cpu", "1.5")
                    .request("nvidia.com/gpu", "1"),
            )
            .container(C::new("c"));
        assert_eq!(
            totals(pod),
            [
                ("cpu".into(), 1750),
                ("memory".into(), 1 << 30),
                ("nvidia.com/gpu".into(), 1)
            ]
        );
        // Rounding up like the scheduler: 0.1m cpu is 1m; 1.5 bytes is 2.
        let pod = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "0.1m").request("memory", "1.5"));
        assert_eq!(totals(pod), [("cpu".into(), 1), ("memory".into(), 2)]);
    }

    #[test]
    fn init_containers_take_the_max() {
        let pod = PodBuilder::new("p")
            .init_container(C::new("i1").request("cpu", "2").request("memory", "100Mi"))
            .init_container(C::new("i2").request("cpu", "500m").request("memory", "1Gi"))
            .container(C::new("a").request("cpu", "1").request("memory", "200Mi"));
        assert_eq!(
            totals(pod),
            [("cpu".into(), 2000), ("memory".into(), 1 << 30)]
        );
    }

    #[test]
    fn sidecars_add_to_containers_and_later_inits() {
        let pod = PodBuilder::new("p")
            .init_container(
                C::new("side")
                    .request("cpu", "500m")
                    .restart_policy("Always"),
            )
            .init_container(C::new("late").request("cpu", "2"))
            .container(C::new("a").request("cpu", "1"));
        // Regular: 1 + 0.5 sidecar = 1.5; init: max(0.5, 2 + 0.5) = 2.5.
        assert_eq!(totals(pod), [("cpu".into(), 2500)]);
        let pod = PodBuilder::new("p")
            .init_container(C::new("early").request("cpu", "1"))
            .init_container(
                C::new("side")
                    .request("cpu", "500m")
                    .restart_policy("Always"),
            )
            .container(C::new("a").request("cpu", "1"));
        assert_eq!(totals(pod), [("cpu".into(), 1500)]);
    }

    #[test]
    fn overhead_is_added() {
        let pod = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "1"))
            .overhead("cpu", "250m");
        assert_eq!(totals(pod), [("cpu".into(), 1250)]);
    }

    #[test]
    fn too_many_resources_and_bad_quantities() {
        let mut c = C::new("a");
        for i in 0..=MAX_RESOURCES {
            c = c.request(&format!("example.com/r{i}"), "1");
        }
        let bytes = PodBuilder::new("p").container(c).build();
        let spec = Pod::from_bytes(&bytes).spec().unwrap();
        assert_eq!(pod_requests(&spec).err(), Some(TotalError::TooMany));
        let bytes = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "lots"))
            .build();
        let spec = Pod::from_bytes(&bytes).spec().unwrap();
        assert_eq!(pod_requests(&spec).err(), Some(TotalError::Quantity));
    }

    fn filter(pod: PodBuilder, node: NodeBuilder) -> kguest::testing::Outcome {
        let host = TestHost::new();
        host.set_pod(pod.build());
        host.add_node("n", node.build());
        host.filter_node(&mut Fit::new(), "n")
    }

    fn node() -> NodeBuilder {
        NodeBuilder::new("n")
            .allocatable("cpu", "4")
            .allocatable("memory", "8Gi")
            .allocatable("pods", "110")
    }

    #[test]
    fn fits_and_does_not_fit() {
        let ok = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "4").request("memory", "8Gi"));
        assert!(filter(ok, node()).is_success());
        let big = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "100m").request("memory", "9Gi"));
        let out = filter(big, node());
        assert_eq!(
            (out.code(), out.reason()),
            (Ok(Code::Unschedulable), "Insufficient memory")
        );
        let cpu = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "4001m").request("memory", "9Gi"));
        assert_eq!(filter(cpu, node()).reason(), "Insufficient cpu");
        let gpu = PodBuilder::new("p").container(C::new("a").request("nvidia.com/gpu", "1"));
        assert_eq!(filter(gpu, node()).reason(), "Insufficient nvidia.com/gpu");
    }

    #[test]
    fn pods_without_requests_fit_without_reading_the_node() {
        let host = TestHost::new();
        host.set_pod(
            PodBuilder::new("p")
                .container(C::new("a").request("cpu", "0"))
                .build(),
        );
        assert!(host.filter_node(&mut Fit::new(), "missing").is_success());
        assert_eq!(host.calls("node"), 0);
        host.set_pod(Vec::new());
        assert!(host.filter_node(&mut Fit::new(), "missing").is_success());
    }

    #[test]
    fn totals_once_per_cycle_last_allocatable_entry_wins() {
        let host = TestHost::new();
        host.add_node(
            "a",
            NodeBuilder::new("a")
                .allocatable("cpu", "x")
                .allocatable("cpu", "2")
                .build(),
        );
        host.add_node("b", NodeBuilder::new("b").allocatable("cpu", "1").build());
        host.set_pod(
            PodBuilder::new("p")
                .container(C::new("a").request("cpu", "1500m"))
                .build(),
        );
        let mut p = Fit::new();
        host.new_cycle(&mut p);
        assert!(host.filter_node(&mut p, "a").is_success());
        assert_eq!(host.filter_node(&mut p, "b").reason(), "Insufficient cpu");
        let pod_calls = host.calls("currentPod");
        assert!(host.filter_node(&mut p, "a").is_success());
        assert_eq!(host.calls("currentPod"), pod_calls);
        // A new cycle with a smaller pod: recomputed.
        host.set_pod(
            PodBuilder::new("p")
                .container(C::new("a").request("cpu", "1"))
                .build(),
        );
        host.new_cycle(&mut p);
        assert!(host.filter_node(&mut p, "b").is_success());
    }

    #[test]
    fn errors() {
        let pod = || PodBuilder::new("p").container(C::new("a").request("cpu", "1"));
        let host = TestHost::new();
        host.set_pod(pod().build());
        assert_eq!(
            host.filter_node(&mut Fit::new(), "missing").code(),
            Ok(Code::Error)
        );
        let out = filter(pod(), NodeBuilder::new("n").allocatable("cpu", "x"));
        assert_eq!(out.reason(), "node has an invalid quantity");
        let out = filter(
            PodBuilder::new("p").container(C::new("a").request("cpu", "x")),
            node(),
        );
        assert_eq!(out.reason(), "pod has an invalid quantity");
    }
}
