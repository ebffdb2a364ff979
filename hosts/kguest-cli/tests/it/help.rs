//! `kguest <command> --help` and `kguest help <command>` for every command.

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

#[test]
fn every_command_has_help() {
    for command in COMMANDS {
        for args in [
            vec![*command, "--help"],
            vec![*command, "-h"],
            vec!["help", *command],
            // Help wins over whatever else is on the line.
            vec![*command, "--bogus", "--help"],
        ] {
            let out = kguest(&args, b"");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                text.contains(&format!("\nUsage: kguest {command} ")),
                "{args:?}: {text}"
            );
            // The full description, not only the summary line.
            assert!(text.lines().count() > 12, "{args:?}: {text}");
        }
    }
}

#[test]
fn the_overview_lists_every_command() {
    let out = kguest(&["--help"], b"");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for command in COMMANDS {
        assert!(
            text.contains(&format!("\n  {command} ")),
            "{command}: {text}"
        );
    }
}

#[test]
fn usage_errors_point_at_the_commands_help() {
    assert_fails(
        &kguest(&["check", "--bogus", "x"], b""),
        2,
        "(see `kguest check --help`)",
    );
    assert_fails(&kguest(&["help", "frob"], b""), 2, "unknown command `frob`");
    assert_fails(
        &kguest(&["frob", "--help"], b""),
        2,
        "(see `kguest --help`)",
    );
}
