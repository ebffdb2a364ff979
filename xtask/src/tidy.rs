//! `cargo xtask tidy`: checks of the tree that neither the compiler nor
//! clippy makes, in the spirit of rust-analyzer's `tidy.rs`. `cargo xtask
//! test` runs it first.
//!
//! - `unsafe` (in code, not in comments or strings) appears only in the files
//!   of [`UNSAFE_FILES`], each listed with its reason, and every file listed
//!   there still has some;
//! - every Rust file under `generated/` starts with the generator's
//!   `@generated` header or is one of the hand-written files listed in
//!   [`HAND_WRITTEN`] (none: the hand-written parts are templates);
//! - every workspace member has a `README.md`;
//! - no `#[ignore]` without a reason (`#[ignore = "why"]`), and no test
//!   (a file under a member's `tests/`) prints that it skipped something or
//!   did "not run": a test that cannot run fails ([`SKIP_PRINTS`] lists the
//!   prints that say "skipped" for another reason).
//!
//! Each finding is one line, `path:line: what, why`.

use std::fmt;
use std::path::Path;
use std::process::Command;

use kguest_codegen::GENERATED_MARKER;

use crate::paths;

/// The files allowed to contain `unsafe`, with the reason.
const UNSAFE_FILES: &[(&str, &str)] = &[
    (
        "guest-runtime/kguest/src/sys.rs",
        "the SDK's one unsafe module: host imports, the exported shims, the input buffers",
    ),
    (
        "guest-runtime/kguest/src/export.rs",
        "`#[unsafe(no_mangle)]` on the hook exports `export!` writes into the plugin crate",
    ),
    (
        "guest-runtime/kguest-krm/src/sys.rs",
        "the KRM SDK's one unsafe module: the bump arena and the WASI imports",
    ),
    (
        "guest-runtime/kguest-krm/src/lib.rs",
        "`#[unsafe(no_mangle)]` on the `_start` that `export!` writes into the function crate",
    ),
    (
        "guest-runtime/kguest-wire/src/utf8.rs",
        "`from_utf8_unchecked` after the crate's own UTF-8 check, written for size",
    ),
    (
        "tests/guest-ffi/src/lib.rs",
        "the raw host imports of the guests without the SDK, and their static buffers",
    ),
    (
        "tests/guests/nodename-view/src/lib.rs",
        "a views-only guest without the SDK: its `filter` export and the raw pulls",
    ),
    (
        "tests/guests/podspec-read/src/lib.rs",
        "a views-only guest without the SDK: its `filter` export and the raw pulls",
    ),
    (
        "tests/baselines/copy/src/lib.rs",
        "a comparison guest without the SDK: its `filter` export and the raw pulls",
    ),
    (
        "tests/baselines/empty/src/lib.rs",
        "a comparison guest without the SDK: its `filter` export",
    ),
    (
        "tests/baselines/json/src/lib.rs",
        "a comparison guest without the SDK: its `filter` export",
    ),
    (
        "tests/baselines/prost/src/lib.rs",
        "a comparison guest without the SDK: its `filter` export",
    ),
    (
        "tests/baselines/scan/src/lib.rs",
        "a comparison guest without the SDK: its `filter` export and the raw pulls",
    ),
    (
        "xtask/src/judge.rs",
        "`std::env::set_var` (unsafe since edition 2024) before any thread starts",
    ),
    (
        "xtask/src/krmgo.rs",
        "`std::env::set_var` (unsafe since edition 2024) before any thread starts",
    ),
    (
        "xtask/src/test.rs",
        "`std::env::set_var` (unsafe since edition 2024) before any thread starts",
    ),
];

/// Hand-written Rust under `generated/` that belongs there, with the reason.
/// None: the crate roots and the hand-written parts of the generated crates
/// (inherent methods on views, the encoders' traits) are templates in
/// `codegen/templates/`, which `cargo xtask regen` emits with the header.
const HAND_WRITTEN: &[&str] = &[];

/// Words a test must not print: a test that cannot run fails instead.
const SKIP_WORDS: &[&str] = &["skipped", "skipping", "not run"];

/// Prints in tests that say "skipped" and are not a test passing without
/// running: (file, text of the format string, reason).
const SKIP_PRINTS: &[(&str, &str, &str)] = &[
    (
        "tests/kguest-conformance/tests/it/go_judge.rs",
        "go judge: skipped by request",
        "the explicit local opt-out KGUEST_SKIP_GO_JUDGE=1 for machines without Go; unset, \
         a missing judge fails the test, and `cargo xtask test` always builds and runs it",
    ),
    (
        "tests/kguest-conformance/tests/it/no_panic.rs",
        "skipped: split message",
        "a count in the report: accepted inputs whose view tree is not compared with \
         prost-reflect's; every input is still run for panics and accept/reject agreement",
    ),
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask tidy (unknown argument `{arg}`)"
        ));
    }
    let root = paths::root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|err| format!("Cargo.toml: {err}"))?;
    let members = workspace_members(&manifest);
    let mut sources = Vec::new();
    for path in rust_files(&root)? {
        // Listed by git but deleted in the work tree.
        let Ok(text) = std::fs::read_to_string(root.join(&path)) else {
            continue;
        };
        sources.push((path, text));
    }
    let findings = check_all(&sources, &members, |p| root.join(p).is_file());
    if findings.is_empty() {
        println!(
            "tidy: {} Rust files, {} crates: ok",
            sources.len(),
            members.len()
        );
        return Ok(());
    }
    for finding in &findings {
        eprintln!("{finding}");
    }
    Err(format!("tidy: {} findings", findings.len()))
}

/// One problem, printed `path:line: what`.
#[derive(Debug, PartialEq, Eq)]
pub struct Finding {
    pub path: String,
    /// 1-based; 0 for the file as a whole.
    pub line: usize,
    pub what: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.path, self.what),
            n => write!(f, "{}:{n}: {}", self.path, self.what),
        }
    }
}

fn finding(path: &str, line: usize, what: impl Into<String>) -> Finding {
    Finding {
        path: path.to_string(),
        line,
        what: what.into(),
    }
}

/// Every check over `sources` (repository-relative path, contents);
/// `exists` says whether a repository-relative file exists.
pub fn check_all(
    sources: &[(String, String)],
    members: &[String],
    exists: impl Fn(&str) -> bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (path, text) in sources {
        let code = code_only(text);
        let reason = UNSAFE_FILES.iter().find(|(p, _)| p == path);
        out.extend(check_unsafe(path, &code, reason.is_some()));
        out.extend(check_ignore(path, &code));
        if is_test_file(path, members) {
            out.extend(check_skip_prints(path, text, &code));
        }
    }
    for (path, _) in UNSAFE_FILES {
        if !sources.iter().any(|(p, _)| p == path) {
            out.push(finding(
                path,
                0,
                "on the unsafe allow-list (UNSAFE_FILES in xtask/src/tidy.rs) but not in the \
                 tree: remove the entry",
            ));
        }
    }
    let generated: Vec<(&str, &str)> = sources
        .iter()
        .filter(|(p, _)| p.starts_with("generated/"))
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    out.extend(check_generated(&generated, HAND_WRITTEN));
    out.extend(check_readmes(members, exists));
    out
}

/// The workspace members, read from the `members = [...]` array of the
/// root `Cargo.toml`.
pub fn workspace_members(manifest: &str) -> Vec<String> {
    let Some((_, rest)) = manifest.split_once("\nmembers = [") else {
        return Vec::new();
    };
    let list = rest.split_once(']').map_or(rest, |(list, _)| list);
    list.split(',')
        .filter_map(|item| {
            let item = item.split('#').next().unwrap_or("").trim();
            let item = item.strip_prefix('"')?.strip_suffix('"')?;
            Some(item.to_string())
        })
        .collect()
}

/// The Rust files of the repository: tracked, or new and not ignored.
fn rust_files(root: &Path) -> Result<Vec<String>, String> {
    let output = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
            "--",
            "*.rs",
        ])
        .current_dir(root)
        .output()
        .map_err(|err| format!("running git ls-files: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "git ls-files failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let list = String::from_utf8(output.stdout).map_err(|err| format!("git ls-files: {err}"))?;
    let mut files: Vec<String> = list
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// `text` with every comment and every string and character literal
/// replaced by spaces, byte for byte (newlines kept), so offsets and line
/// numbers stay those of `text`.
pub fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut [u8], from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let end = if rest.starts_with(b"//") {
            rest.iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| i + n)
        } else if rest.starts_with(b"/*") {
            block_comment_end(bytes, i)
        } else if let Some(end) = raw_string_end(bytes, i) {
            end
        } else if rest[0] == b'"' {
            quoted_end(bytes, i + 1, b'"')
        } else if rest[0] == b'\'' {
            match char_literal_end(bytes, i) {
                Some(end) => end,
                // A lifetime or a label.
                None => {
                    i += 1;
                    continue;
                }
            }
        } else {
            // Skip an identifier whole, so `br` in `abr"` or the `b` of
            // `ab'` is not read as a literal's prefix.
            if is_ident_byte(rest[0]) {
                i += rest.iter().take_while(|&&b| is_ident_byte(b)).count();
            } else {
                i += 1;
            }
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    // Only ASCII bytes were replaced, and only whole literals and comments,
    // so the result is still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The end of the (nested) block comment starting at `start`.
fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if bytes[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The end of a literal whose body starts at `from` and ends at an
/// unescaped `close`.
fn quoted_end(bytes: &[u8], from: usize, close: u8) -> usize {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == close => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// `r"..."`, `r#"..."#`, `br"..."`, `cr"..."` at `start`: its end.
fn raw_string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let rest = &bytes[start..];
    let after_prefix = if rest.starts_with(b"br") || rest.starts_with(b"cr") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        // `b"..."` and `c"..."` are ordinary quoted strings.
        return (rest.starts_with(b"b\"") || rest.starts_with(b"c\""))
            .then(|| quoted_end(bytes, start + 2, b'"'));
    };
    let hashes = rest[after_prefix..]
        .iter()
        .take_while(|&&b| b == b'#')
        .count();
    if rest.get(after_prefix + hashes) != Some(&b'"') {
        return None;
    }
    let body = start + after_prefix + hashes + 1;
    let mut close = vec![b'"'];
    close.resize(hashes + 1, b'#');
    let end = bytes[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(bytes.len(), |n| body + n + close.len());
    Some(end)
}

/// A character literal at `start` (`'a'`, `'\n'`, `'\u{1F600}'`, `'é'`): its
/// end; `None` for a lifetime or label (`'a`, `'static`).
fn char_literal_end(bytes: &[u8], start: usize) -> Option<usize> {
    let rest = &bytes[start + 1..];
    if rest.first() == Some(&b'\\') {
        return Some(quoted_end(bytes, start + 1, b'\''));
    }
    // One character (of up to four UTF-8 bytes), then the closing quote.
    let text = std::str::from_utf8(&rest[..rest.len().min(5)])
        .or_else(|e| std::str::from_utf8(&rest[..e.valid_up_to()]))
        .ok()?;
    let c = text.chars().next()?;
    (rest.get(c.len_utf8()) == Some(&b'\'')).then_some(start + 1 + c.len_utf8() + 1)
}

/// The 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Offsets of `word` in `code` as a whole identifier.
fn word_offsets<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    code.match_indices(word).filter_map(move |(at, _)| {
        let before = code.as_bytes()[..at].last().copied();
        let after = code.as_bytes().get(at + word.len()).copied();
        let boundary = |b: Option<u8>| !b.is_some_and(is_ident_byte);
        (boundary(before) && boundary(after)).then_some(at)
    })
}

/// `unsafe` in the code of a file not on the allow-list; an allowed file
/// without any.
pub fn check_unsafe(path: &str, code: &str, allowed: bool) -> Vec<Finding> {
    let uses: Vec<usize> = word_offsets(code, "unsafe").collect();
    if allowed {
        if uses.is_empty() {
            return vec![finding(
                path,
                0,
                "on the unsafe allow-list (UNSAFE_FILES in xtask/src/tidy.rs) but has no \
                 `unsafe`: remove the entry",
            )];
        }
        return Vec::new();
    }
    uses.into_iter()
        .map(|at| {
            finding(
                path,
                line_of(code, at),
                "`unsafe` outside the audited files: move it into the crate's unsafe module, \
                 or list the file with its reason in UNSAFE_FILES (xtask/src/tidy.rs)",
            )
        })
        .collect()
}

/// `#[ignore]` without a reason.
pub fn check_ignore(path: &str, code: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("#[") {
        let inner = code[at + 2..].trim_start();
        let Some(rest) = inner.strip_prefix("ignore") else {
            continue;
        };
        if rest.trim_start().starts_with(']') {
            out.push(finding(
                path,
                line_of(code, at),
                "`#[ignore]` without a reason: assert the `Err`/`None` instead, or say why \
                 with `#[ignore = \"...\"]`",
            ));
        }
    }
    out
}

/// A print in a test whose format string says it skipped something.
pub fn check_skip_prints(path: &str, text: &str, code: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for name in ["print", "println", "eprint", "eprintln"] {
        for at in word_offsets(code, name) {
            let rest = &code[at + name.len()..];
            let Some(args) = rest.strip_prefix('!').map(str::trim_start) else {
                continue;
            };
            if !args.starts_with(['(', '[', '{']) {
                continue;
            }
            // The first argument, when it is a literal: `code` has it blanked
            // up to the next token, `text` has it.
            let open = code.len() - args.len() + 1;
            let start = open + (text[open..].len() - text[open..].trim_start().len());
            let end = start + (code[start..].len() - code[start..].trim_start().len());
            let literal = &text[start..end];
            let excepted = SKIP_PRINTS
                .iter()
                .any(|(p, what, _)| *p == path && literal.contains(what));
            let lower = literal.to_lowercase();
            if let Some(word) = SKIP_WORDS.iter().find(|w| lower.contains(*w))
                && !excepted
            {
                out.push(finding(
                    path,
                    line_of(text, at),
                    format!(
                        "a test prints {word:?}: a test that cannot run must fail, not pass \
                         with a note"
                    ),
                ));
            }
        }
    }
    out.sort_by_key(|f| f.line);
    out
}

/// A file under a workspace member's `tests/` folder.
fn is_test_file(path: &str, members: &[String]) -> bool {
    members.iter().any(|m| {
        path.strip_prefix(m.as_str())
            .is_some_and(|rest| rest.starts_with("/tests/"))
    })
}

/// Every Rust file under `generated/` (path, contents) is generated or
/// `listed` (in [`HAND_WRITTEN`]); every listed file is there
/// and not generated.
pub fn check_generated(files: &[(&str, &str)], listed: &[&str]) -> Vec<Finding> {
    let mut out = Vec::new();
    let is_listed = |p: &str| listed.contains(&p);
    for (path, text) in files {
        let generated = text.starts_with(GENERATED_MARKER);
        if generated && is_listed(path) {
            out.push(finding(
                path,
                1,
                "listed as hand-written (HAND_WRITTEN in xtask/src/tidy.rs) but \
                 carries the @generated header: remove the entry",
            ));
        } else if !generated && !is_listed(path) {
            out.push(finding(
                path,
                1,
                "hand-written Rust under generated/ (line 1 is not the `// @generated` \
                 header): put it in a hand-written crate, or make it a template in \
                 codegen/templates/ (xtask/src/regen.rs), or list it in HAND_WRITTEN \
                 (xtask/src/tidy.rs) with the reason",
            ));
        }
    }
    for path in listed {
        if !files.iter().any(|(p, _)| p == path) {
            out.push(finding(
                path,
                0,
                "listed in HAND_WRITTEN (xtask/src/tidy.rs) but not in the tree: \
                 remove the entry",
            ));
        }
    }
    out
}

/// Every workspace member has a README.md.
pub fn check_readmes(members: &[String], exists: impl Fn(&str) -> bool) -> Vec<Finding> {
    members
        .iter()
        .filter(|m| !exists(&format!("{m}/README.md")))
        .map(|m| {
            finding(
                &format!("{m}/README.md"),
                0,
                "missing: every crate says what it is for (and points to ARCHITECTURE.md)",
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(findings: &[Finding]) -> Vec<String> {
        findings.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn code_only_blanks_comments_and_literals() {
        let text = "let a = \"unsafe\"; // unsafe\n/* unsafe /* nested */ unsafe */ x\n\
                    r#\"un\"safe\"# 'u' b'\\'' 'a: loop {} &'static str é";
        let code = code_only(text);
        assert_eq!(code.len(), text.len());
        assert_eq!(code.lines().count(), text.lines().count());
        assert!(!code.contains("safe"), "{code}");
        assert!(code.contains("'a: loop"), "{code}");
        assert!(code.contains("&'static str é"), "{code}");
        assert!(code.trim_end().ends_with('é'));
    }

    #[test]
    fn code_only_keeps_identifiers_ending_like_prefixes() {
        // `br` of `abr` and `r` of `for` are not raw-string prefixes.
        let code = code_only("let abr = 1; for r in x {} let s = br\"unsafe\";");
        assert!(code.contains("let abr = 1; for r in x {}"), "{code}");
        assert!(!code.contains("unsafe"), "{code}");
    }

    #[test]
    fn unsafe_outside_the_allow_list_is_found_with_its_line() {
        let text = "fn f() {}\n// unsafe here is a comment\nfn g() { unsafe { h() } }\n";
        let found = check_unsafe("a/b.rs", &code_only(text), false);
        assert_eq!(
            lines(&found),
            [
                "a/b.rs:3: `unsafe` outside the audited files: move it into the crate's unsafe \
              module, or list the file with its reason in UNSAFE_FILES (xtask/src/tidy.rs)"
            ]
        );
        assert!(check_unsafe("a/b.rs", &code_only(text), true).is_empty());
    }

    #[test]
    fn unsafe_as_part_of_a_word_or_string_is_not_unsafe() {
        let text = "let unsafe_code = \"unsafe\"; #![deny(unsafe_code)]";
        assert!(check_unsafe("x.rs", &code_only(text), false).is_empty());
    }

    #[test]
    fn an_allow_list_entry_without_unsafe_is_stale() {
        let found = check_unsafe("x.rs", &code_only("// unsafe\nfn f() {}"), true);
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .to_string()
                .starts_with("x.rs: on the unsafe allow-list")
        );
    }

    #[test]
    fn ignore_needs_a_reason() {
        let text = "#[test]\n#[ignore]\nfn a() {}\n#[test]\n#[ignore = \"slow\"]\nfn b() {}\n\
                    #[ ignore ]\nfn c() {}\nconst S: &str = \"#[ignore]\";\n";
        let found = check_ignore("t.rs", &code_only(text));
        assert_eq!(
            found.iter().map(|f| f.line).collect::<Vec<_>>(),
            [2, 7],
            "{found:?}"
        );
    }

    #[test]
    fn a_test_printing_skipped_is_found() {
        let text = "fn a() {\n    println!(\"ok\");\n    eprintln!(\n        \"Skipped: no Go\"\n    );\n\
                    println!(\"{}\", \"skipped\");\n    let _ = \"skipping\";\n}\n";
        let found = check_skip_prints("t/tests/it/a.rs", text, &code_only(text));
        assert_eq!(
            lines(&found),
            [
                "t/tests/it/a.rs:3: a test prints \"skipped\": a test that cannot run must fail, \
              not pass with a note"
            ]
        );
    }

    #[test]
    fn a_test_printing_not_run_is_found() {
        let text =
            "fn a() {\n    eprintln!(\"judge: Not run (no Go)\");\n    let _ = \"not run\";\n}\n";
        let found = check_skip_prints("t/tests/it/a.rs", text, &code_only(text));
        assert_eq!(
            lines(&found),
            [
                "t/tests/it/a.rs:2: a test prints \"not run\": a test that cannot run must fail, \
              not pass with a note"
            ]
        );
    }

    #[test]
    fn a_listed_skip_print_is_not_a_finding() {
        let (path, what, _) = SKIP_PRINTS[0];
        let text = format!("println!(\"{what} (X=1)\");\nprintln!(\"skipped\");\n");
        let found = check_skip_prints(path, &text, &code_only(&text));
        assert_eq!(found.iter().map(|f| f.line).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn test_files_are_under_a_members_tests_folder() {
        let members = [
            "hosts/kguest-host".to_string(),
            "tests/kguest-bench".to_string(),
        ];
        assert!(is_test_file("hosts/kguest-host/tests/it/main.rs", &members));
        assert!(!is_test_file("hosts/kguest-host/src/lib.rs", &members));
        assert!(!is_test_file("tests/kguest-bench/src/lib.rs", &members));
        assert!(!is_test_file("hosts/kguest-hostile/tests/a.rs", &members));
    }

    #[test]
    fn generated_files_are_generated_or_listed() {
        let header = format!("{GENERATED_MARKER} by `cargo xtask regen`. Do not edit.\n");
        let listed = ["generated/a/src/lib.rs", "generated/a/src/extra.rs"];
        let mut files: Vec<(&str, &str)> =
            listed.iter().map(|p| (*p, "//! hand-written\n")).collect();
        files.push(("generated/a/src/api/core/v1.rs", &header));
        assert!(check_generated(&files, &listed).is_empty());

        files.retain(|(p, _)| *p != "generated/a/src/extra.rs");
        files.push(("generated/a/src/extra.rs", &header));
        files.push(("generated/a/src/new.rs", "//! hand-written\n"));
        let found = lines(&check_generated(&files, &listed));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("generated/a/src/extra.rs:1: listed"));
        assert!(found[1].starts_with("generated/a/src/new.rs:1: hand-written Rust"));

        files.retain(|(p, _)| *p != "generated/a/src/extra.rs");
        let found = lines(&check_generated(&files, &listed));
        assert!(
            found.contains(
                &"generated/a/src/extra.rs: listed in HAND_WRITTEN \
                  (xtask/src/tidy.rs) but not in the tree: remove the entry"
                    .to_string()
            ),
            "{found:?}"
        );
    }

    #[test]
    fn members_are_read_from_the_manifest() {
        let manifest = "[workspace]\nresolver = \"3\"\nmembers = [\n    \"a/b\",\n    \"c\", # note\n]\n\n\
                        [workspace.package]\nversion = \"0.1.0\"\n";
        assert_eq!(workspace_members(manifest), ["a/b", "c"]);
    }

    #[test]
    fn every_member_needs_a_readme() {
        let members = ["a".to_string(), "b/c".to_string()];
        let found = check_readmes(&members, |p| p == "a/README.md");
        assert_eq!(
            lines(&found),
            [
                "b/c/README.md: missing: every crate says what it is for (and points to \
              ARCHITECTURE.md)"
            ]
        );
    }
}
