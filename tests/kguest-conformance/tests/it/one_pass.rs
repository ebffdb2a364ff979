//! One-pass reads against the accessors, over every type the fixtures use.
//!
//! `Reflect::reflect` reads each message in one scan (`rt::scan`, the loop
//! behind every view's `read`); `Reflect::reflect_accessors` calls each
//! field's accessor. On any input they must make the same visitor calls in
//! the same order, recursively: every fixture, re-encodings of every fixture
//! (shuffled and interleaved fields, earlier duplicates, packed/unpacked
//! splits, unknown fields, overwrites), truncations, corruptions and random
//! records, well-formed or not. The one-pass walk is also the one
//! `differential` and `no_panic` compare with prost-reflect.
//!
//! The typed API (`spec.read((PodSpec::CONTAINERS, ..))`) is checked on the
//! fields the example plugins read.

use std::time::Instant;

use kguest_k8s::api::core::v1::{Container, Node, NodeStatus, Pod, PodSpec, Toleration};
use kguest_k8s_io::json::schema_by_full_name;
use kguest_test_support::diff::{hex, hex_prefix};
use kguest_test_support::fixtures;
use kguest_test_support::rng::Lcg;
use kguest_test_support::walk;

use crate::differential::{Plan, Stats, reencode, reflect_root, root_schemas};
use crate::no_panic::{corrupt, random_message};

/// Both walks of `bytes` as the message `full_name`: `Err` with the first
/// differing call, else the number of calls.
fn same_calls(full_name: &str, bytes: &[u8]) -> Result<usize, String> {
    let mut result = None;
    let known = reflect_root(full_name, bytes, &mut |view| {
        result = Some(walk::same_calls(view));
    });
    assert!(known, "no view for {full_name}");
    result.expect("reflect_root calls back")
}

#[derive(Default)]
struct Tally {
    cases: usize,
    calls: usize,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, label: &str, full_name: &str, bytes: &[u8]) {
        self.cases += 1;
        match same_calls(full_name, bytes) {
            Ok(n) => self.calls += n,
            Err(err) if self.failures.len() < 20 => {
                self.failures.push(format!(
                    "{label} ({full_name}): {err}\n  input ({})",
                    hex_prefix(bytes, 200)
                ));
            }
            Err(_) => self.failures.push(String::new()),
        }
    }

    fn finish(self, what: &str, start: Instant) {
        println!(
            "one_pass ({what}): {} cases, {} visitor calls each way, {} differ ({:.2?})",
            self.cases,
            self.calls,
            self.failures.len(),
            start.elapsed()
        );
        assert!(self.calls > 1000, "too little was compared");
        assert!(
            self.failures.is_empty(),
            "{} input(s) read differently in one pass and through the accessors:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

#[test]
fn one_pass_walk_equals_accessor_walk_on_fixtures_and_reencodings() {
    let start = Instant::now();
    let mut tally = Tally::default();
    let mut stats = Stats::default();
    for (name, full_name, raw) in &fixtures::raw() {
        tally.check(name, full_name, raw);
        let schema = schema_by_full_name(full_name).expect("schema");
        for round in 0..3u64 {
            let plan = Plan {
                shuffle: true,
                unknown: round > 0,
                pad: round > 0,
                earlier_duplicate: true,
                split_packed: true,
                earlier_map_duplicate: true,
                overwrite: round == 2,
            };
            let seed = round.wrapping_mul(0x0e9a_55ed) ^ raw.len() as u64;
            let mutated = reencode(schema, raw, seed, plan, &mut stats);
            tally.check(
                &format!("{name} re-encoded (seed {seed})"),
                full_name,
                &mutated,
            );
        }
    }
    tally.finish("fixtures and re-encodings", start);
}

#[test]
fn one_pass_walk_equals_accessor_walk_on_malformed_and_random_input() {
    let start = Instant::now();
    let mut tally = Tally::default();
    let mut rng = Lcg::new(0x006f_6e65_7061_7373);
    let fixtures = fixtures::raw();
    // Every fixture cut at random points: the malformed field moves through
    // every message, where singular fields give up and iterators stop.
    for (name, full_name, raw) in &fixtures {
        for _ in 0..6 {
            let cut = rng.below(raw.len().max(1));
            tally.check(&format!("{name} cut at {cut}"), full_name, &raw[..cut]);
        }
        for i in 0..6 {
            let mut bytes = raw.clone();
            for _ in 0..1 + rng.below(3) {
                corrupt(&mut bytes, &mut rng);
            }
            tally.check(&format!("{name} corruption #{i}"), full_name, &bytes);
        }
    }
    // Random records (wrong wire types, unknown fields, packed runs, bad
    // UTF-8, garbage) and random bytes, as random root types.
    let roots: Vec<&'static str> = root_schemas().iter().map(|s| s.name()).collect();
    for i in 0..1500 {
        let full_name = roots[rng.below(roots.len())];
        let schema = schema_by_full_name(full_name).expect("schema");
        let mut bytes = Vec::new();
        random_message(schema, &mut rng, 0, &mut bytes);
        if i % 4 == 0 {
            corrupt(&mut bytes, &mut rng);
        }
        tally.check(&format!("random records #{i}"), full_name, &bytes);
        let bytes = rng.bytes(64);
        tally.check(&format!("random bytes #{i}"), full_name, &bytes);
    }
    tally.finish("malformed and random input", start);
}

/// What the `fit`, `taints` and `imagelocality` examples read, through the
/// accessors and in one pass, as text.
fn plugin_fields(pod: &[u8], node: &[u8], one_pass: bool) -> Vec<String> {
    let spec = Pod::from_bytes(pod).spec().unwrap_or_default();
    let status = Node::from_bytes(node).status().unwrap_or_default();
    let container = |c: Container<'_>| {
        let requests = c
            .resources()
            .map(|r| {
                r.requests()
                    .map(|(k, q)| format!("{k}={:?}", q.string()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        format!("{:?} {:?} {requests:?}", c.name(), c.restart_policy())
    };
    let toleration = |t: Toleration<'_>| format!("{:?}", (t.key(), t.operator(), t.effect()));
    if !one_pass {
        return vec![
            format!("{:?}", spec.containers().map(container).collect::<Vec<_>>()),
            format!(
                "{:?}",
                spec.init_containers().map(container).collect::<Vec<_>>()
            ),
            format!(
                "{:?}",
                spec.overhead()
                    .map(|(k, q)| (k, q.string()))
                    .collect::<Vec<_>>()
            ),
            format!("{:?}", spec.node_name()),
            format!(
                "{:?}",
                spec.tolerations().map(toleration).collect::<Vec<_>>()
            ),
            format!(
                "{:?}",
                status.allocatable().get("cpu").and_then(|q| q.string())
            ),
            format!("{:?}", status.images().count()),
        ];
    }
    let (containers, init_containers, overhead, node_name, tolerations) = spec.read((
        PodSpec::CONTAINERS,
        PodSpec::INIT_CONTAINERS,
        PodSpec::OVERHEAD,
        PodSpec::NODE_NAME,
        PodSpec::TOLERATIONS,
    ));
    let (allocatable, images) = status.read((NodeStatus::ALLOCATABLE, NodeStatus::IMAGES));
    vec![
        format!("{:?}", containers.map(container).collect::<Vec<_>>()),
        format!("{:?}", init_containers.map(container).collect::<Vec<_>>()),
        format!(
            "{:?}",
            overhead.map(|(k, q)| (k, q.string())).collect::<Vec<_>>()
        ),
        format!("{node_name:?}"),
        format!("{:?}", tolerations.map(toleration).collect::<Vec<_>>()),
        format!("{:?}", allocatable.get("cpu").and_then(|q| q.string())),
        format!("{:?}", images.count()),
    ]
}

#[test]
fn typed_one_pass_reads_equal_the_accessors() {
    let fixtures = fixtures::raw();
    let find = |wanted: &str| {
        fixtures
            .iter()
            .find(|(name, _, _)| name == wanted)
            .map(|(_, _, raw)| raw.clone())
            .unwrap_or_else(|| panic!("no fixture {wanted}"))
    };
    let (pod, node) = (find("core.v1.Pod"), find("core.v1.Node"));
    let read = plugin_fields(&pod, &node, true);
    assert_eq!(read, plugin_fields(&pod, &node, false));
    assert!(
        read.iter()
            .filter(|v| !v.starts_with("[]") && *v != "None")
            .count()
            >= 4,
        "the fixtures should fill most of these fields: {read:?}"
    );
    let mut rng = Lcg::new(0x0074_7970_6564);
    for _ in 0..300 {
        let (mut pod, mut node) = (pod.clone(), node.clone());
        corrupt(&mut pod, &mut rng);
        corrupt(&mut node, &mut rng);
        assert_eq!(
            plugin_fields(&pod, &node, true),
            plugin_fields(&pod, &node, false),
            "pod {}\nnode {}",
            hex(&pod),
            hex(&node)
        );
    }
}
