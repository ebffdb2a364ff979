//! `docs/second-hour.md` run as written: each ```` ```console ```` block is a
//! shell session (`$ ` lines are commands, the lines after one are what it
//! prints, stdout and stderr together), replayed with `sh` in a crate made
//! by `kguest new` and built by `a_new_plugin_tests_builds_checks_and_runs`,
//! with this `kguest` first on the PATH. Any difference fails the test, so
//! the guide shows what the commands print.

use std::path::Path;
use std::process::Command;

/// One command of a console block and what it prints.
#[derive(Debug)]
struct Step {
    command: String,
    expected: String,
}

/// The `console` blocks of `markdown`, as steps in order.
fn steps(markdown: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_block = false;
    for line in markdown.lines() {
        if !in_block {
            in_block = line.trim_end() == "```console";
            continue;
        }
        if line.starts_with("```") {
            in_block = false;
        } else if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_string(),
                expected: String::new(),
            });
        } else {
            let step = steps
                .last_mut()
                .unwrap_or_else(|| panic!("output before any command: {line}"));
            step.expected.push_str(line);
            step.expected.push('\n');
        }
    }
    assert!(!in_block, "an unclosed console block");
    steps
}

/// The contents of the blocks opened by `fence` (e.g. "```rust").
fn blocks(markdown: &str, fence: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == fence {
            let body: Vec<&str> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .collect();
            out.push(body.join("\n") + "\n");
        }
    }
    out
}

/// The blocks the guide introduces with `<!-- file: NAME -->`: (NAME,
/// contents).
fn files(markdown: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .strip_prefix("<!-- file: ")
            .and_then(|l| l.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "{name}: no block after the marker"
        );
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .collect();
        out.push((name.to_string(), body.join("\n") + "\n"));
    }
    out
}

/// Replays the guide in `crate_dir`, whose plugin is `wasm` (copied where
/// the guide's commands look for it, as `cargo wasm` would put it).
pub fn replay_second_hour(crate_dir: &Path, wasm: &Path) {
    let guide = kguest_test_support::workspace().join("docs/second-hour.md");
    let text = std::fs::read_to_string(&guide).expect("docs/second-hour.md");
    let steps = steps(&text);
    assert!(steps.len() >= 8, "{steps:?}");

    let lib = std::fs::read_to_string(crate_dir.join("src/lib.rs")).expect("src/lib.rs");
    for code in blocks(&text, "```rust") {
        assert!(
            lib.contains(&code),
            "docs/second-hour.md shows Rust that `kguest new` does not write:\n{code}"
        );
    }
    for (name, contents) in files(&text) {
        std::fs::write(crate_dir.join(&name), contents).expect("write a guide file");
    }
    let built = crate_dir.join("target/wasm32-unknown-unknown/guest");
    std::fs::create_dir_all(&built).expect("target dir");
    std::fs::copy(wasm, built.join("zone_memory.wasm")).expect("copy the plugin");
    let bin = Path::new(env!("CARGO_BIN_EXE_kguest"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");

    let mut differ = Vec::new();
    for step in &steps {
        let out = Command::new("sh")
            .arg("-c")
            // stderr into stdout, in the order written, as a terminal shows it.
            .arg(format!("exec 2>&1\n{}", step.command))
            .current_dir(crate_dir)
            .env("PATH", &path)
            .output()
            .expect("run sh");
        let printed = String::from_utf8_lossy(&out.stdout);
        if printed != step.expected {
            differ.push(format!(
                "$ {}\n--- the guide shows:\n{}--- it prints:\n{printed}",
                step.command, step.expected
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "docs/second-hour.md differs from what its commands print:\n{}",
        differ.join("\n")
    );
}

#[test]
fn console_blocks_are_read_as_sessions() {
    let md = "text\n```console\n$ echo a\na\n$ true\n```\n```sh\n$ not run\n```\n```console\n$ x\n1\n2\n```\n";
    let s = steps(md);
    assert_eq!(s.len(), 3);
    assert_eq!(
        (s[0].command.as_str(), s[0].expected.as_str()),
        ("echo a", "a\n")
    );
    assert_eq!(
        (s[1].command.as_str(), s[1].expected.as_str()),
        ("true", "")
    );
    assert_eq!(
        (s[2].command.as_str(), s[2].expected.as_str()),
        ("x", "1\n2\n")
    );
    assert_eq!(
        blocks("```rust\nfn a() {}\n```\n```\nx\n```\n", "```rust"),
        ["fn a() {}\n"]
    );
    let f = files("<!-- file: a.yaml -->\n```yaml\nk: v\n```\n```yaml\nnot: a file\n```\n");
    assert_eq!(f, [("a.yaml".to_string(), "k: v\n".to_string())]);
}
