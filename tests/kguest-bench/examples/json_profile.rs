//! A loop over one `json/...` benchmark case, for profilers
//! (`valgrind --tool=callgrind`, `perf record`):
//! `cargo run --release -p kguest-bench --example json_profile -- json/pod/to-json/kguest 2000`.

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args
        .next()
        .unwrap_or_else(|| "json/pod/to-protobuf/kguest".into());
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    let inputs = kguest_bench::Inputs::load();
    let Some(mut case) = kguest_bench::json_cases(&inputs)
        .into_iter()
        .find(|case| case.id == id)
    else {
        eprintln!("no case `{id}`");
        std::process::exit(2);
    };
    for _ in 0..iterations {
        (case.run)();
    }
}
