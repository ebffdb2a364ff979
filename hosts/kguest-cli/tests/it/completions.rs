//! `kguest completions SHELL`: scripts that name every command, and a bash
//! script that bash parses and that completes a command and an option.

use std::process::Command;

use super::{assert_fails, kguest};

const COMMANDS: &[&str] = &[
    "decode",
    "encode",
    "run",
    "check",
    "new",
    "krm",
    "completions",
];

fn script(shell: &str) -> String {
    let out = kguest(&["completions", shell], b"");
    assert!(
        out.status.success(),
        "{shell}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 script")
}

#[test]
fn every_script_names_the_commands() {
    for shell in ["bash", "zsh", "fish"] {
        let text = script(shell);
        for command in COMMANDS {
            assert!(text.contains(command), "{shell}: no `{command}`");
        }
        for flag in ["--nodes", "--kguest-path", "--max-bytes", "--validate"] {
            assert!(text.contains(&flag[2..]), "{shell}: no `{flag}`");
        }
    }
    assert_fails(
        &kguest(&["completions", "tcsh"], b""),
        2,
        "bash, zsh or fish",
    );
}

/// Runs `script` in bash (which must be installed: a missing bash fails
/// the test).
fn bash(script: &str) -> String {
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .output()
        .expect("bash must be installed to test the bash completion script");
    assert!(
        out.status.success(),
        "bash: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_bash_script_parses_and_completes() {
    let path = super::temp_file("kguest.bash", script("bash").as_bytes());
    let path = path.to_str().expect("utf8 path");
    // Syntax only.
    let out = Command::new("bash")
        .args(["-n", path])
        .output()
        .expect("bash must be installed to test the bash completion script");
    assert!(
        out.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // What bash offers after `kguest de` and `kguest run --no`, calling
    // the function the script registers as bash's completion would.
    let complete = |words: &str| {
        bash(&format!(
            "source '{path}'\n\
             COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n\
             _kguest kguest \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        ))
    };
    assert_eq!(complete("kguest de").trim(), "decode");
    assert_eq!(complete("kguest run --no").trim(), "--nodes");
    let all = complete("kguest ''");
    for command in COMMANDS {
        assert!(all.lines().any(|l| l == *command), "{command}: {all}");
    }
}
