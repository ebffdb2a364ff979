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
//! Resource lists are read by [`Resources`]: what the views' map iterator
//! yields, with the usual entries read in place (several times faster).

#![cfg_attr(target_arch = "wasm32", no_std)]

use kguest::fields::{self, Each};
use kguest::k8s::api::core::v1::{Container, Node, Pod, PodSpec};
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

/// Whether two names are equal: one function for every comparison (fewer
/// copies of the same code).
#[inline(never)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a == b
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
fn amount(resource: &str, q: &[u8]) -> Result<i64, TotalError> {
    let scale = if same(resource.as_bytes(), b"cpu") {
        -3
    } else {
        0
    };
    kguest::k8s::quantity::scaled(q, scale).ok_or(TotalError::Quantity)
}

impl<'a> Totals<'a> {
    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, i64)> + '_ {
        // By index rather than a `Zip` of the two arrays: less code.
        let mut i = 0;
        core::iter::from_fn(move || {
            let name = (*self.names.get(i)?)?;
            let value = *self.values.get(i)?;
            i += 1;
            Some((name, value))
        })
    }

    pub fn get(&self, resource: &str) -> i64 {
        self.iter()
            .find(|(n, _)| same(n.as_bytes(), resource.as_bytes()))
            .map_or(0, |(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot (index) of `resource`, added when new.
    fn slot(&mut self, resource: &'a str) -> Result<usize, TotalError> {
        let i = self
            .names
            .iter()
            .position(|n| n.is_none_or(|n| same(n.as_bytes(), resource.as_bytes())))
            .ok_or(TotalError::TooMany)?;
        if let Some(n) = self.names.get_mut(i)
            && n.is_none()
        {
            *n = Some(resource);
            self.len += 1;
        }
        Ok(i)
    }
}

/// One amount per slot of a [`Totals`].
type Amounts = [i64; MAX_RESOURCES];

impl<'a> Totals<'a> {
    /// Reads one `ResourceList` (a container's requests, the overhead) into
    /// `into` by slot, adding names as they come; a repeated name keeps its
    /// last value, as a protobuf map does.
    #[inline(never)]
    fn read(&mut self, list: Resources<'a>, into: &mut Amounts) -> Result<(), TotalError> {
        *into = [0; MAX_RESOURCES];
        for (name, q) in list {
            let v = amount(name, q.unwrap_or(b"0"))?;
            if let Some(slot) = into.get_mut(self.slot(name)?) {
                *slot = v;
            }
        }
        Ok(())
    }
}

/// `to += from`, slot by slot (saturating).
#[inline(never)]
fn add(to: &mut Amounts, from: &Amounts) {
    for (t, v) in to.iter_mut().zip(from) {
        *t = t.saturating_add(*v);
    }
}

/// `to = max(to, from)`, slot by slot.
#[inline(never)]
fn max(to: &mut Amounts, from: &Amounts) {
    for (t, v) in to.iter_mut().zip(from) {
        *t = (*t).max(*v);
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
    // A container's `resources.requests` (field 2 of its resources).
    // (`c.resources()` is field 8 of a container.)
    let requests = |c: &Container<'a>| {
        Resources::new(fields::last_len(c.as_bytes(), 8).unwrap_or_default(), 2)
    };
    // `spec.containers()` (field 2), as `Each` reads them, remembering
    // where the first init container (20) and overhead entry (32) start:
    // their reads start there (the fields before are well-formed and
    // neither), which skips most of the spec, as Go writes fields in
    // number order.
    let bytes = spec.as_bytes();
    let (mut init_at, mut overhead_at) = (None, None);
    let mut rest = bytes;
    while let Some(here) = Some(rest)
        && let Some((number, wire, body)) = fields::next(&mut rest)
    {
        match number {
            2 if wire != 2 => break,
            2 => {
                t.read(requests(&Container::from_bytes(body)), &mut cur)?;
                add(&mut t.values, &cur);
            }
            20 => _ = init_at.get_or_insert(here),
            32 => _ = overhead_at.get_or_insert(here),
            _ => {}
        }
    }
    // `spec.init_containers()`.
    for c in Each::new(init_at.unwrap_or(bytes), 20).map(Container::from_bytes) {
        t.read(requests(&c), &mut cur)?;
        // What the pod needs while this init container runs: it and the
        // sidecars started before it (a sidecar also keeps running).
        // `c.restart_policy_bytes()` (field 24).
        if fields::last_len(c.as_bytes(), 24).is_some_and(|p| same(p, b"Always")) {
            add(&mut t.values, &cur);
            add(&mut sidecars, &cur);
            cur = sidecars;
        } else {
            add(&mut cur, &sidecars);
        }
        max(&mut init_max, &cur);
    }
    max(&mut t.values, &init_max);
    // `spec.overhead` (field 32).
    t.read(Resources::new(overhead_at.unwrap_or(bytes), 32), &mut cur)?;
    add(&mut t.values, &cur);
    Ok(t)
}

/// What the pod needs, computed once per cycle: its totals (a pod without
/// a spec needs nothing), or why they could not be computed.
pub fn pod_needs(pod: Pod<'_>) -> Result<Totals<'_>, TotalError> {
    // No spec reads as an empty one: no containers, nothing needed.
    // `pod.spec()` (field 2).
    pod_requests(&PodSpec::from_bytes(
        fields::last_len(pod.as_bytes(), 2).unwrap_or_default(),
    ))
}

/// The node's allocatable quantity string of each of `needs`' resources
/// (`None` when not listed or without a string: zero either way), read in
/// one pass over `status.allocatable`; the last entry of a repeated name
/// wins.
pub fn node_has<'n>(node: &Node<'n>, needs: &Totals<'_>) -> Have<'n> {
    let mut have = [None; MAX_RESOURCES];
    // `node.status()` (field 3).
    let status = fields::last_len(node.as_bytes(), 3).unwrap_or_default();
    for (name, q) in Resources::new(status, 2) {
        let slot = needs
            .names
            .iter()
            .position(|n| n.is_some_and(|n| same(n.as_bytes(), name.as_bytes())));
        if let Some(h) = slot.and_then(|i| have.get_mut(i)) {
            *h = q;
        }
    }
    have
}

/// One quantity string per slot of a [`Totals`].
pub type Have<'n> = [Option<&'n [u8]>; MAX_RESOURCES];

/// The entries of the `ResourceList` field `number` of a message, as
/// (name, quantity string): exactly what the view's map iterator
/// (a `Map<Str, Msg<Quantity>>`) yields, read faster: one pass over the
/// message's fields with [`kguest::fields::next`], and an entry written
/// the usual way, `0a kl name 12 vl 0a sl quantity` with
/// one-byte lengths that add up and an ASCII name, is read in place; any
/// other by [`any_entry`], with the map iterator's rules.
pub struct Resources<'a> {
    rest: &'a [u8],
    number: u32,
}

impl<'a> Resources<'a> {
    /// The entries of field `number` of the message `bytes`.
    pub fn new(bytes: &'a [u8], number: u32) -> Self {
        Resources {
            rest: bytes,
            number,
        }
    }
}

impl<'a> Iterator for Resources<'a> {
    type Item = (&'a str, Option<&'a [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            // A field with a one-byte tag and a one- or two-byte length,
            // stepped over here (most of a status); any other through
            // `fields::next`.
            let (tag, len, skip) = match *self.rest {
                [tag @ 8..0x80, l0 @ 0..0x80, ..] => (tag, usize::from(l0), 2),
                [tag @ 8..0x80, l0 @ 0x80..=0xff, l1 @ 0..0x80, ..] => {
                    (tag, usize::from(l0 & 0x7f) | usize::from(l1) << 7, 3)
                }
                _ => (0, 0, 0),
            };
            let (number, wire, entry) = match self.rest.get(skip..) {
                Some(tail)
                    if tag & 7 == 2
                        && let Some((body, tail)) = tail.split_at_checked(len) =>
                {
                    self.rest = tail;
                    (u32::from(tag >> 3), 2, body)
                }
                // The wire reader's fields; its errors end the iteration,
                // as in the map, and so does an entry that is not
                // length-delimited.
                _ => match fields::next(&mut self.rest) {
                    Some(field) => field,
                    None => break,
                },
            };
            if number != self.number {
                continue;
            }
            if wire != 2 {
                break;
            }
            if let Some((name, q)) = usual_entry(entry)
                && let Some(name) = kguest_wire::utf8::to_str(name)
            {
                return Some((name, Some(q)));
            }
            if let Some(item) = any_entry(entry) {
                return Some(item);
            }
            // A malformed entry ends the iteration, as in the map.
            break;
        }
        self.rest = &[];
        None
    }
}

/// A `ResourceList` entry of any shape, read as the views' map iterator
/// reads it: key (1) and value (2) are each the last occurrence, a missing
/// one is the default (`""`, an empty `Quantity`), and a malformed entry, a
/// key or value that is not length-delimited or a key that is not UTF-8 is
/// `None` (the map ends there). The quantity string is what
/// `Quantity::string_bytes` reads.
fn any_entry(entry: &[u8]) -> Option<(&str, Option<&[u8]>)> {
    let (mut key, mut value) = (None, None);
    let mut rest = entry;
    while !rest.is_empty() {
        match fields::next(&mut rest)? {
            (1, wire, body) => key = Some((wire, body)),
            (2, wire, body) => value = Some((wire, body)),
            _ => {}
        }
    }
    let name = match key {
        None => "",
        Some((2, name)) => kguest_wire::utf8::to_str(name)?,
        Some(_) => return None,
    };
    let q = match value {
        None => None,
        Some((2, q)) => fields::last_len(q, 1),
        Some(_) => return None,
    };
    Some((name, q))
}

/// The name and quantity string of a `ResourceList` entry written
/// `0a kl name 12 vl 0a sl quantity`, with one-byte lengths that add up and
/// an ASCII name (the map iterator reads the same from it: each field
/// occurs once, the name is UTF-8).
fn usual_entry(entry: &[u8]) -> Option<(&[u8], &[u8])> {
    let [0x0a, kl @ 0..0x80, rest @ ..] = entry else {
        return None;
    };
    let (name, rest) = rest.split_at_checked(usize::from(*kl))?;
    let [0x12, vl @ 0..0x80, 0x0a, sl @ 0..0x80, q @ ..] = rest else {
        return None;
    };
    let sizes = usize::from(*sl) == q.len() && usize::from(*vl) == q.len() + 2;
    (sizes && name.iter().all(|&c| c < 0x80)).then_some((name, q))
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
        for ((name, v), q) in needs.iter().zip(&have) {
            if v <= 0 {
                continue;
            }
            let Ok(have) = amount(name, q.unwrap_or(b"0")) else {
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
    use kguest::k8s::Map;
    use kguest::k8s::api::core::v1::Pod;
    use kguest::k8s::apimachinery::pkg::api::resource::Quantity;
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

    use kguest::k8s::api::core::v1::NodeStatus;

    /// [`node_has`] through the view's map iterator only.
    fn by_map<'n>(status: NodeStatus<'n>, needs: &Totals<'_>) -> Have<'n> {
        let mut have = [None; MAX_RESOURCES];
        for (name, q) in status.allocatable() {
            let slot = needs.iter().position(|(n, _)| n == name);
            if let Some(h) = slot.and_then(|i| have.get_mut(i)) {
                *h = q.string_bytes();
            }
        }
        have
    }

    /// The in-place reading gives exactly what the map iterator gives: on
    /// a usual status, on every truncation of it and on every one-byte
    /// change of it.
    #[test]
    fn node_has_matches_the_map_iterator() {
        let node = NodeBuilder::new("n")
            .allocatable("cpu", "4")
            .allocatable("memory", "8Gi")
            .allocatable("example.com/gpu", "2")
            .image(&["app:v1", "app@sha256:0123"], 1 << 20)
            .allocatable("cpu", "3500m")
            .image(&[&"x".repeat(200)], 1 << 20)
            .build();
        let node = Node::from_bytes(&node);
        let status = node.status().unwrap().as_bytes().to_vec();
        let bytes = PodBuilder::new("p")
            .container(
                C::new("a")
                    .request("cpu", "1")
                    .request("memory", "1")
                    .request("example.com/gpu", "1")
                    .request("pods", "1"),
            )
            .build();
        let needs = pod_requests(&Pod::from_bytes(&bytes).spec().unwrap()).unwrap();
        // Wrapped as field 3 of a Node, as `node_has` reads it.
        let check = |s: &[u8]| {
            let mut node = vec![0x1a];
            let mut n = s.len();
            while n >= 0x80 {
                node.push((n as u8) | 0x80);
                n >>= 7;
            }
            node.push(n as u8);
            node.extend_from_slice(s);
            let got = node_has(&Node::from_bytes(&node), &needs);
            assert_eq!(got, by_map(NodeStatus::from_bytes(s), &needs), "{s:?}");
        };
        check(&status);
        let want: [Option<&[u8]>; 4] = [Some(b"3500m"), Some(b"8Gi"), Some(b"2"), None];
        assert_eq!(node_has(&node, &needs)[..4], want);
        let mut cases = 0;
        for cut in 0..status.len() {
            check(&status[..cut]);
            cases += 1;
        }
        for at in 0..status.len() {
            for b in [
                0x00, 0x01, 0x08, 0x0a, 0x10, 0x12, 0x1a, 0x22, 0x7f, 0x80, 0xc3, 0xff, b'c',
            ] {
                let mut s = status.clone();
                s[at] = b;
                check(&s);
                cases += 1;
            }
        }
        assert!(cases > 3000, "{cases}");
    }

    /// `pod_requests` as first written, through the views' accessors and
    /// map iterator (each list read three times over).
    fn reference<'a>(spec: &PodSpec<'a>) -> Result<Vec<(&'a str, i64)>, TotalError> {
        let mut names: Vec<&str> = Vec::new();
        let mut read = |list: Map<'a, _, _>| -> Result<Vec<i64>, TotalError> {
            let mut cur = vec![0; MAX_RESOURCES];
            for (name, q) in list {
                let q: Quantity<'a> = q;
                let v = amount(name, q.string_bytes().unwrap_or(b"0"))?;
                let i = match names.iter().position(|n| *n == name) {
                    Some(i) => i,
                    None if names.len() < MAX_RESOURCES => {
                        names.push(name);
                        names.len() - 1
                    }
                    None => return Err(TotalError::TooMany),
                };
                cur[i] = v;
            }
            Ok(cur)
        };
        let mut total = vec![0i64; MAX_RESOURCES];
        let (mut side, mut init_max) = (vec![0i64; MAX_RESOURCES], vec![0i64; MAX_RESOURCES]);
        let empty = kguest::k8s::api::core::v1::ResourceRequirements::from_bytes(&[]);
        for c in spec.containers() {
            let cur = read(c.resources().unwrap_or(empty).requests())?;
            for i in 0..MAX_RESOURCES {
                total[i] = total[i].saturating_add(cur[i]);
            }
        }
        for c in spec.init_containers() {
            let cur = read(c.resources().unwrap_or(empty).requests())?;
            let sidecar = c.restart_policy_bytes() == Some(b"Always");
            for i in 0..MAX_RESOURCES {
                let need = if sidecar {
                    total[i] = total[i].saturating_add(cur[i]);
                    side[i] = side[i].saturating_add(cur[i]);
                    side[i]
                } else {
                    cur[i].saturating_add(side[i])
                };
                init_max[i] = init_max[i].max(need);
            }
        }
        let cur = read(spec.overhead())?;
        for i in 0..MAX_RESOURCES {
            total[i] = total[i].max(init_max[i]).saturating_add(cur[i]);
        }
        Ok(names.iter().copied().zip(total).collect())
    }

    /// The one-pass totals equal the accessors' on a pod, on its fields in
    /// reverse order, on every truncation and on every one-byte change.
    #[test]
    fn pod_requests_matches_the_accessors() {
        let pod = PodBuilder::new("p")
            .init_container(C::new("i1").request("cpu", "2").request("memory", "100Mi"))
            .init_container(
                C::new("side")
                    .request("cpu", "500m")
                    .restart_policy("Always"),
            )
            .container(C::new("a").request("cpu", "1").request("memory", "200Mi"))
            .container(C::new("b").request("example.com/gpu", "1").image("x:1"))
            .overhead("cpu", "250m")
            .build();
        let spec = Pod::from_bytes(&pod).spec().unwrap().as_bytes().to_vec();
        let check = |s: &[u8]| {
            let spec = PodSpec::from_bytes(s);
            let got = pod_requests(&spec).map(|t| t.iter().collect::<Vec<_>>());
            assert_eq!(got, reference(&spec), "{s:?}");
        };
        check(&spec);
        assert_eq!(
            pod_requests(&PodSpec::from_bytes(&spec))
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            [("cpu", 2250), ("memory", 200 << 20), ("example.com/gpu", 1)]
        );
        // The same fields in reverse order (overhead and init containers
        // first).
        let mut fields = Vec::new();
        let mut rest = &spec[..];
        while !rest.is_empty() {
            let before = rest;
            fields::next(&mut rest).unwrap();
            fields.push(&before[..before.len() - rest.len()]);
        }
        let reversed: Vec<u8> = fields
            .iter()
            .rev()
            .flat_map(|f| f.iter().copied())
            .collect();
        check(&reversed);
        let mut cases = 0;
        for s in [&spec, &reversed] {
            for cut in 0..s.len() {
                check(&s[..cut]);
                cases += 1;
            }
            for at in 0..s.len() {
                for b in [
                    0x00, 0x08, 0x0a, 0x10, 0x12, 0x40, 0xa2, 0x82, 0x7f, 0x80, b'A',
                ] {
                    let mut m = s.clone();
                    m[at] = b;
                    check(&m);
                    cases += 1;
                }
            }
        }
        assert!(cases > 2000, "{cases}");
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
