//! `write_files` and `stale_files` against a real directory.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use kguest_codegen::{GENERATED_MARKER, WriteReport, stale_files, write_files};

use crate::util::{TempDir, config};

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

fn generated(body: &str) -> String {
    format!("{GENERATED_MARKER} by a test. Do not edit.\n\n{body}\n")
}

fn files(list: &[(&str, &str)]) -> BTreeMap<PathBuf, String> {
    list.iter()
        .map(|(path, body)| (PathBuf::from(path), generated(body)))
        .collect()
}

fn read(dir: &Path, rel: &str) -> String {
    fs::read_to_string(dir.join(rel)).unwrap()
}

/// Sets a file's mtime far in the past, so a rewrite would show.
fn age(dir: &Path, rel: &str) -> SystemTime {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    fs::File::options()
        .write(true)
        .open(dir.join(rel))
        .unwrap()
        .set_modified(old)
        .unwrap();
    old
}

fn mtime(dir: &Path, rel: &str) -> SystemTime {
    fs::metadata(dir.join(rel)).unwrap().modified().unwrap()
}

#[test]
fn writes_the_generated_tree_then_nothing() {
    let tmp = TempDir::new("tree");
    let out = tmp.path().join("src"); // does not exist yet
    let generated = config().generate().unwrap();
    assert_eq!(
        stale_files(&out, &generated).unwrap(),
        generated.keys().cloned().collect::<Vec<_>>()
    );

    let report = write_files(&out, &generated).unwrap();
    assert_eq!(
        report,
        WriteReport {
            written: generated.keys().cloned().collect(),
            removed: vec![],
            unchanged: 0
        }
    );
    for (path, contents) in &generated {
        assert_eq!(&fs::read_to_string(out.join(path)).unwrap(), contents);
    }
    assert_eq!(
        stale_files(&out, &generated).unwrap(),
        Vec::<PathBuf>::new()
    );

    let report = write_files(&out, &generated).unwrap();
    assert_eq!(
        report,
        WriteReport {
            written: vec![],
            removed: vec![],
            unchanged: generated.len()
        }
    );
}

#[test]
fn only_changed_files_are_rewritten() {
    let tmp = TempDir::new("changed");
    let dir = tmp.path();
    let mut map = files(&[("a.rs", "a"), ("sub/b.rs", "b"), ("sub/c.rs", "c")]);
    write_files(dir, &map).unwrap();
    let old_a = age(dir, "a.rs");
    let old_c = age(dir, "sub/c.rs");
    age(dir, "sub/b.rs");

    map.insert("sub/b.rs".into(), generated("b2"));
    assert_eq!(stale_files(dir, &map).unwrap(), paths(&["sub/b.rs"]));
    let report = write_files(dir, &map).unwrap();
    assert_eq!(
        report,
        WriteReport {
            written: paths(&["sub/b.rs"]),
            removed: vec![],
            unchanged: 2
        }
    );
    assert_eq!(read(dir, "sub/b.rs"), generated("b2"));
    assert_eq!(
        mtime(dir, "a.rs"),
        old_a,
        "an unchanged file must not be rewritten"
    );
    assert_eq!(mtime(dir, "sub/c.rs"), old_c);
    assert!(mtime(dir, "sub/b.rs") > old_a);

    // A file edited by hand is restored, and counts as stale until then.
    fs::write(dir.join("a.rs"), "edited").unwrap();
    assert_eq!(stale_files(dir, &map).unwrap(), paths(&["a.rs"]));
    let report = write_files(dir, &map).unwrap();
    assert_eq!(report.written, paths(&["a.rs"]));
    assert_eq!(read(dir, "a.rs"), generated("a"));
}

#[test]
fn stale_generated_files_are_removed_hand_written_ones_kept() {
    let tmp = TempDir::new("stale");
    let dir = tmp.path();
    let before = files(&[
        ("lib_gen.rs", "x"),
        ("old/gone.rs", "g"),
        ("pkg/keep.rs", "k"),
        ("pkg/drop.rs", "d"),
    ]);
    write_files(dir, &before).unwrap();
    // Hand-written: no marker, or not on line 1, or not a `.rs` file.
    tmp.write("lib.rs", "//! The hand-written crate root.\npub mod pkg;\n");
    tmp.write("pkg/helpers.rs", "pub fn help() {}\n");
    tmp.write(
        "old/notes.rs",
        &format!("\n{GENERATED_MARKER} but not on line 1\n"),
    );
    tmp.write("pkg/data.txt", &generated("not rust"));
    tmp.write("pkg/lowercase.rs", "// @GENERATED? not quite\n");

    let after = files(&[("lib_gen.rs", "x"), ("pkg/keep.rs", "k")]);
    assert_eq!(
        stale_files(dir, &after).unwrap(),
        paths(&["old/gone.rs", "pkg/drop.rs"])
    );
    let report = write_files(dir, &after).unwrap();
    assert_eq!(
        report,
        WriteReport {
            written: vec![],
            removed: paths(&["old/gone.rs", "pkg/drop.rs"]),
            unchanged: 2
        }
    );
    assert!(!dir.join("old/gone.rs").exists());
    assert!(!dir.join("pkg/drop.rs").exists());
    for kept in [
        "lib.rs",
        "pkg/helpers.rs",
        "old/notes.rs",
        "pkg/data.txt",
        "pkg/lowercase.rs",
        "pkg/keep.rs",
    ] {
        assert!(dir.join(kept).exists(), "{kept} was removed");
    }
    assert_eq!(
        read(dir, "lib.rs"),
        "//! The hand-written crate root.\npub mod pkg;\n"
    );
    assert_eq!(stale_files(dir, &after).unwrap(), Vec::<PathBuf>::new());
}

#[test]
fn directories_emptied_by_removal_are_removed() {
    let tmp = TempDir::new("dirs");
    let dir = tmp.path();
    write_files(
        dir,
        &files(&[("a/b/c.rs", "c"), ("a/b/d/e.rs", "e"), ("a/f.rs", "f")]),
    )
    .unwrap();
    let report = write_files(dir, &files(&[("a/f.rs", "f")])).unwrap();
    assert_eq!(report.removed, paths(&["a/b/c.rs", "a/b/d/e.rs"]));
    assert!(!dir.join("a/b").exists());
    assert!(dir.join("a/f.rs").exists());

    // Nothing left at all: the output directory itself stays.
    let report = write_files(dir, &BTreeMap::new()).unwrap();
    assert_eq!(report.removed, paths(&["a/f.rs"]));
    assert!(dir.exists());
    assert!(!dir.join("a").exists());
}

#[test]

fn hand_made_empty_directories_are_kept() {
    let tmp = TempDir::new("emptydir");
    let dir = tmp.path();
    fs::create_dir_all(dir.join("assets/icons")).unwrap();
    write_files(dir, &files(&[("a.rs", "a")])).unwrap();
    assert!(dir.join("assets/icons").is_dir());
}

#[test]

fn nothing_to_write_into_a_missing_directory() {
    let tmp = TempDir::new("missing");
    let out = tmp.path().join("not-there");
    assert_eq!(
        stale_files(&out, &BTreeMap::new()).unwrap(),
        Vec::<PathBuf>::new()
    );
    assert_eq!(
        write_files(&out, &BTreeMap::new()).unwrap(),
        WriteReport::default()
    );
}
