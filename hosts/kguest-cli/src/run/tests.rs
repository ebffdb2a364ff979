use crate::cli::{Command, parse};

fn run_args(line: &[&str]) -> super::Args {
    let args: Vec<std::ffi::OsString> = line.iter().map(Into::into).collect();
    match parse(&args) {
        Ok(Command::Run(args)) => args,
        _ => panic!("{line:?} is not a run command line"),
    }
}

/// `--arg` repeats, and takes values that look like options (the
/// guest's own flags); a repeated single-value option keeps the last.
#[test]
fn guest_args_repeat_and_may_look_like_options() {
    let args = run_args(&[
        "kguest", "run", "p.wasm", "--pod", "a", "--arg", "-v", "--nodes", "n", "--arg", "--json",
        "--pod", "b",
    ]);
    assert_eq!(args.args, ["-v", "--json"]);
    assert!(!args.json);
    assert_eq!(args.pod, "b");
    assert_eq!(args.wasm.as_deref(), Some("p.wasm"));
}
