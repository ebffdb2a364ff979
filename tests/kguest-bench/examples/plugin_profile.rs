//! The example plugins compiled natively and driven through the SDK's
//! `TestHost` on the benchmark inputs, for profilers (`valgrind
//! --tool=callgrind` counts instructions deterministically; the wasm build
//! runs the same code):
//!
//! `cargo run --release -p kguest-bench --example plugin_profile -- PLUGIN SCENARIO N`
//!
//! PLUGIN: `fit`, `taints`, `imagelocality`, `nodename` or `nodenumber`
//! (PreScore then Score); SCENARIO:
//! `cycle` (a new scheduling cycle per call, as `filter/<plugin>/cycle`) or
//! `node` (the next node of the same cycle, as `filter/<plugin>/node`); N
//! calls (default 1,000). Prints the number of successful calls.

use kguest::Plugin;
use kguest::testing::TestHost;

fn main() {
    let mut args = std::env::args().skip(1);
    let plugin = args.next().unwrap_or_else(|| "fit".into());
    let scenario = args.next().unwrap_or_else(|| "node".into());
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let new_cycle = match scenario.as_str() {
        "cycle" => true,
        "node" => false,
        other => panic!("unknown scenario {other} (cycle, node)"),
    };
    let inputs = kguest_bench::Inputs::load();
    let name = inputs.node_name();
    let host = TestHost::new();
    host.set_pod(inputs.pod.protobuf.clone());
    host.add_node(&name, inputs.node.protobuf.clone());
    let ok = match plugin.as_str() {
        "fit" => run(
            &host,
            &mut fit::Fit::new(),
            &name,
            new_cycle,
            iterations,
            filter,
        ),
        "taints" => run(
            &host,
            &mut taints::Taints::new(),
            &name,
            new_cycle,
            iterations,
            filter,
        ),
        "nodename" => run(
            &host,
            &mut nodename::NodeName::new(),
            &name,
            new_cycle,
            iterations,
            filter,
        ),
        "imagelocality" => run(
            &host,
            &mut imagelocality::ImageLocality::new(),
            &name,
            new_cycle,
            iterations,
            |h, p, n| h.score_node(p, n).1.is_success(),
        ),
        // PreScore (the pod's digit and its event) then Score, per call.
        "nodenumber" => run(
            &host,
            &mut nodenumber::NodeNumber::new(),
            &name,
            new_cycle,
            iterations,
            |h, p, n| h.pre_score(p).is_success() && h.score_node(p, n).1.is_success(),
        ),
        other => {
            panic!("unknown plugin {other} (fit, taints, imagelocality, nodename, nodenumber)")
        }
    };
    println!("{ok}");
}

fn filter<P: kguest::Filter>(host: &TestHost, p: &mut P, node: &str) -> bool {
    host.filter_node(p, node).is_success()
}

fn run<P: Plugin>(
    host: &TestHost,
    p: &mut P,
    node: &str,
    new_cycle: bool,
    iterations: usize,
    call: impl Fn(&TestHost, &mut P, &str) -> bool,
) -> usize {
    host.new_cycle(p);
    let mut ok = 0;
    for _ in 0..iterations {
        if new_cycle {
            host.new_cycle(p);
        }
        ok += usize::from(call(host, p, node));
    }
    ok
}
