//! Project automation: `cargo xtask <task>`. One module per task.

mod apichanges;
mod bench;
mod bump;
mod cargo;
mod demo;
mod e2e;
mod examples;
mod extender;
mod extender_e2e;
mod fuzz;
mod gofacts;
mod golang;
mod guests;
mod judge;
mod krmgo;
mod kswhost;
mod openapi;
mod package;
mod paths;
mod perf;
mod regen;
mod size;
mod test;
mod tidy;
#[cfg(test)]
mod tree_checks;
mod vendor;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  bump X.Y.Z [--from DIR]         move to another Kubernetes release: pin its protos and fixtures
                                  (from DIR, else the k8s.io Go modules), keep the previous lock,
                                  Go judges' modules, k8s-openapi feature, go-facts, regen with
                                  docs/api-changes/<minor>.md, sizes; stops at the first failing step
  demo                            run the example plugins on the sample objects in tests/data
  e2e [--full]                    the real kube-scheduler on an in-process API server: pods bound
                                  where kguest picks, and throughput (--full: 500 nodes)
  examples                        build the example plugins into target/plugins/
  extender-e2e [--full]           the real kube-scheduler (1.33.4, 1.37.2) with kguest-extender as its
                                  extender, configured from deploy/extender: pods bound where
                                  kguest predicts, nodes changing, the extender killed
  extender-load [--nodes N] [--requests N] [--clients N]
                                  kguest-extender (release, loopback) under parallel filter and
                                  prioritize requests carrying N Nodes as JSON: p50/p99, errors
  go-lint                         gofmt and go vet over the Go harnesses under tests/
  go-facts [--write]              check xtask/data/'s Go facts against the Go source of
                                  k8s.io/api and apimachinery (Go >= 1.26), or rewrite them
  fuzz [--seconds N] [TARGET]     run the cargo-fuzz targets in fuzz/ (nightly + cargo-fuzz)
  judge [--seeds N] [--kinds REGEX]
                                  kguest against Kubernetes' Go marshallers on random objects
                                  of every type (Go >= 1.26; `test` runs it with 2 seeds)
  ksw-host                        kguest-host against KSW's own Go host in the framework on every
                                  example, test guest and `kguest new`'s plugin (`ksw go host: N/M`)
  krm-bench [--runs N]            KRM functions in Go (wasip1, kyaml) beside kguest's on 1,000 items,
                                  under `kguest krm` and wazero; rewrites its docs/benchmarks.md section
  package [--no-verify]           cargo package + cargo doc for every publishable crate
  bench [--quick]                 latency and encoding benchmarks; rewrites docs/benchmarks.md
  perf [--quick]                  scheduling throughput: 500 nodes x 1,000 pods through the host,
                                  natively and with upstream's TinyGo guests
  size [--check] [--bless] [--allow-growth]
                                  wasm sizes of examples and baselines vs size-budgets.toml
  test                            everything CI checks (tidy, vendor, regen --check, tests, guest sizes)
  tidy                            checks of the tree: where `unsafe` may be, hand-written files
                                  under generated/, crate READMEs, no reasonless #[ignore]
  vendor [kubernetes|ksw] [--from DIR] [--check]
                                  fetch the pinned Kubernetes protos and fixtures and
                                  kube-scheduler-wasm-extension's test material into proto-vendor/
         [--update-lock --from DIR [--kubernetes X.Y.Z | --commit HASH]]
  regen [--check]                 regenerate generated/ from the vendored protos, and the
                                  API-change report against the previous release
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match task.as_str() {
        "bench" => bench::run(rest),
        "bump" => bump::run(rest),
        "demo" => demo::run(rest),
        "e2e" => e2e::run(rest),
        "examples" => examples::run(rest),
        "extender-e2e" => extender_e2e::run(rest),
        "extender-load" => extender::run(rest),
        "fuzz" => fuzz::run(rest),
        "go-facts" => gofacts::run(rest),
        "go-lint" => golang::lint_command(rest),
        "judge" => judge::run(rest),
        "krm-bench" => krmgo::bench(rest),
        "ksw-host" => kswhost::run(rest),
        "package" => package::run(rest),
        "perf" => perf::run(rest),
        "size" => size::run(rest),
        "test" => test::run(rest),
        "tidy" => tidy::run(rest),
        "vendor" => vendor::run(rest),
        "regen" => regen::run(rest),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => {
            eprintln!("error: unknown task `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
