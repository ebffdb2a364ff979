//! Tests of the vendor task on temporary dirs: locks, sync, check, strays,
//! arguments and URLs.

use super::*;

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use sha2::{Digest, Sha256};

use super::args::Options;
use super::fetch::{Source, download_source};
use super::files::{hex, list_files};
use super::lock::{Lock, parse_lock, render_lock};
use super::pin::{ksw_keys, kubernetes_keys, kubernetes_url};
use super::sync::describe_problems;
use super::update::build_lock;

/// A unique directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "kguest-vendor-{tag}-{}-{n}-{nanos}",
            std::process::id()
        ));
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const FILES: [(&str, &str); 3] = [
    (
        "proto/k8s.io/api/core/v1/generated.proto",
        "syntax = \"proto2\";\n",
    ),
    ("testdata/core.v1.Pod.json", "{\"kind\":\"Pod\"}\n"),
    ("testdata/core.v1.Pod.pb", "k8s\0binary"),
];

fn write(base: &Path, rel: &str, content: &str) {
    let path = base.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn sha(content: &str) -> String {
    hex(&Sha256::digest(content.as_bytes()))
}

/// A source dir holding `FILES`, and a lock pinning them.
fn fixture() -> (TempDir, Lock) {
    let source = TempDir::new("src");
    let mut text = String::from("# test lock\nkubernetes 1.36.3\ntag v0.36.3\n");
    for (rel, content) in FILES {
        write(source.path(), rel, content);
        text.push_str(&format!("{}  {rel}\n", sha(content)));
    }
    (source, parse_lock(&text, &KUBERNETES).unwrap())
}

fn dir_source(dir: &TempDir) -> Source {
    Source::Dir(dir.path().to_path_buf())
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn hex_of_known_digest() {
    assert_eq!(
        sha("abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn parses_sorts_and_renders_a_lock() {
    let a = sha("a");
    let b = sha("b");
    let text = format!(
        "# header one\n#\n# header two\n\nkubernetes 1.36.3\ntag v0.36.3\n\n\
         {b}  testdata/x.pb\n{a}  proto/k8s.io/api/core/v1/generated.proto\n"
    );
    let lock = parse_lock(&text, &KUBERNETES).unwrap();
    assert_eq!(lock.header, ["# header one", "#", "# header two"]);
    assert_eq!(lock.key("kubernetes"), "1.36.3");
    assert_eq!(lock.key("tag"), "v0.36.3");
    let paths: Vec<&str> = lock.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        ["proto/k8s.io/api/core/v1/generated.proto", "testdata/x.pb"]
    );
    assert_eq!(lock.entries[1].sha256, b);
    let rendered = render_lock(&lock);
    assert_eq!(parse_lock(&rendered, &KUBERNETES).unwrap(), lock);
    let again = parse_lock(&rendered, &KUBERNETES).unwrap();
    assert_eq!(render_lock(&again), rendered);
}

#[test]
fn rejects_bad_locks() {
    let a = sha("a");
    let keys = "kubernetes 1.36.3\ntag v0.36.3\n";
    let cases = [
        (keys.to_string(), "lists no files"),
        (format!("tag v0.36.3\n{a}  testdata/x"), "kubernetes"),
        (format!("kubernetes 1.36.3\n{a}  testdata/x"), "tag"),
        (format!("{keys}{a}  testdata/x\n{a}  testdata/x"), "twice"),
        (format!("{keys}{a}  testdata/../x"), "bad path"),
        (format!("{keys}{a}  /etc/passwd"), "bad path"),
        (format!("{keys}{a}  other/x"), "bad path"),
        (format!("{keys}{}  testdata/x", &a[..60]), "bad sha256"),
        (
            format!("{keys}{}  testdata/x", a.to_uppercase()),
            "bad sha256",
        ),
        (format!("{keys}{a}  testdata/x extra"), "two fields"),
        (format!("{keys}tag v0.1.0\n{a}  testdata/x"), "twice"),
    ];
    for (text, want) in cases {
        let err = parse_lock(&text, &KUBERNETES).unwrap_err();
        assert!(err.contains(want), "{text:?}: {err}");
    }
}

#[test]
fn copies_from_source_then_leaves_good_files_alone() {
    let (source, lock) = fixture();
    let vendor = TempDir::new("vendor");
    let summary = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
    assert_eq!((summary.verified, summary.copied), (3, 3));
    assert!(summary.changed());
    for (rel, content) in FILES {
        assert_eq!(
            fs::read_to_string(vendor.path().join(rel)).unwrap(),
            content
        );
    }
    assert_eq!(check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap(), 3);

    // Present and correct: nothing is read from the (now empty) source.
    fs::remove_dir_all(source.path().join("testdata")).unwrap();
    let again = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
    assert_eq!((again.verified, again.copied), (3, 0));
    assert!(!again.changed());
    assert_eq!(
        again.line("proto-vendor/"),
        "vendor: 3 files verified (0 copied, 0 downloaded) in proto-vendor/"
    );
}

#[test]
fn refuses_a_mismatched_source_file() {
    let (source, lock) = fixture();
    write(source.path(), "testdata/core.v1.Pod.pb", "tampered");
    let vendor = TempDir::new("vendor");
    let err = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap_err();
    assert!(err.contains("testdata/core.v1.Pod.pb"), "{err}");
    assert!(err.contains(&sha("k8s\0binary")), "{err}");
    assert!(err.contains(&sha("tampered")), "{err}");
    assert!(!err.contains('\n'), "{err}");
    let dir = vendor.path().join("testdata");
    assert!(!dir.join("core.v1.Pod.pb").exists());
    let leftovers = list_files(vendor.path(), "testdata").unwrap();
    assert!(
        leftovers.iter().all(|p| !p.contains(".tmp-")),
        "{leftovers:?}"
    );
}

#[test]
fn refuses_a_missing_source_file() {
    let (source, lock) = fixture();
    fs::remove_file(source.path().join("testdata/core.v1.Pod.json")).unwrap();
    let vendor = TempDir::new("vendor");
    let err = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap_err();
    assert!(err.contains("testdata/core.v1.Pod.json: missing"), "{err}");
}

#[test]
fn replaces_a_bad_vendored_file() {
    let (source, lock) = fixture();
    let vendor = TempDir::new("vendor");
    write(vendor.path(), "testdata/core.v1.Pod.json", "stale");
    let summary = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
    assert_eq!(summary.copied, 3);
    assert_eq!(summary.replaced.len(), 1);
    assert!(summary.replaced[0].contains("testdata/core.v1.Pod.json"));
    assert!(summary.replaced[0].contains(&sha("stale")));
    assert_eq!(check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap(), 3);
}

#[test]
fn removes_a_bad_vendored_file_even_when_the_source_is_bad_too() {
    let (source, lock) = fixture();
    let vendor = TempDir::new("vendor");
    write(vendor.path(), "testdata/core.v1.Pod.json", "stale");
    write(source.path(), "testdata/core.v1.Pod.json", "also wrong");
    assert!(sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).is_err());
    assert!(!vendor.path().join("testdata/core.v1.Pod.json").exists());
}

#[test]
fn check_reports_problems_and_changes_nothing() {
    let (source, lock) = fixture();
    let vendor = TempDir::new("vendor");
    sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
    fs::remove_file(vendor.path().join("testdata/core.v1.Pod.json")).unwrap();
    write(vendor.path(), "testdata/core.v1.Pod.pb", "corrupt");
    write(vendor.path(), "proto/extra.proto", "stray");

    let err = check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap_err();
    assert!(
        err.starts_with("vendor --check: 3 problem(s) in v/"),
        "{err}"
    );
    assert!(err.contains("testdata/core.v1.Pod.json: missing"), "{err}");
    assert!(
        err.contains("testdata/core.v1.Pod.pb: sha256 mismatch"),
        "{err}"
    );
    assert!(err.contains(&sha("corrupt")), "{err}");
    assert!(err.contains("proto/extra.proto: not in the lock"), "{err}");
    assert!(!vendor.path().join("testdata/core.v1.Pod.json").exists());
    assert!(vendor.path().join("proto/extra.proto").exists());
    let pb = vendor.path().join("testdata/core.v1.Pod.pb");
    assert_eq!(fs::read_to_string(pb).unwrap(), "corrupt");
}

#[test]
fn check_summarises_long_problem_lists() {
    let problems: Vec<String> = (0..8).map(|i| format!("p{i}")).collect();
    let text = describe_problems(&problems, "v/");
    assert!(text.contains("  p4\n  ... and 3 more"), "{text}");
    assert!(!text.contains("p5"), "{text}");
}

#[test]
fn removes_stray_files_and_empty_dirs() {
    let (source, lock) = fixture();
    let vendor = TempDir::new("vendor");
    write(
        vendor.path(),
        "proto/k8s.io/api/old/v1/generated.proto",
        "old",
    );
    write(vendor.path(), "testdata/.core.v1.Pod.pb.tmp-1", "partial");
    write(vendor.path(), "README.md", "not a vendored tree");
    let summary = sync(vendor.path(), &KUBERNETES, &lock, &dir_source(&source)).unwrap();
    assert_eq!(
        summary.removed,
        [
            "proto/k8s.io/api/old/v1/generated.proto",
            "testdata/.core.v1.Pod.pb.tmp-1"
        ]
    );
    assert!(!vendor.path().join("proto/k8s.io/api/old").exists());
    assert!(vendor.path().join("proto/k8s.io/api/core/v1").is_dir());
    assert!(vendor.path().join("README.md").exists());
    assert!(
        summary
            .line("v/")
            .ends_with("0 downloaded, 2 stray removed) in v/")
    );
    assert_eq!(check(vendor.path(), &KUBERNETES, &lock, "v/").unwrap(), 3);
}

#[test]
fn builds_a_lock_from_a_source_dir() {
    let (source, lock) = fixture();
    write(source.path(), "proto/k8s.io/api/core/v1/README.md", "skip");
    write(source.path(), "testdata/.DS_Store", "skip");
    let old = Lock {
        header: vec!["# kept".to_string()],
        ..lock.clone()
    };
    let built = build_lock(source.path(), &KUBERNETES, None, Some(&old)).unwrap();
    assert_eq!(built, old);

    let bumped = build_lock(source.path(), &KUBERNETES, Some("v1.37.0"), None).unwrap();
    assert_eq!(
        (bumped.key("kubernetes"), bumped.key("tag")),
        ("1.37.0", "v0.37.0")
    );
    assert_eq!(bumped.entries, lock.entries);
    assert_eq!(bumped.header[0], KUBERNETES.header.lines().next().unwrap());

    let err = build_lock(source.path(), &KUBERNETES, None, None).unwrap_err();
    assert!(err.starts_with("usage:"), "{err}");
    let missing = TempDir::new("empty");
    assert!(build_lock(missing.path(), &KUBERNETES, Some("1.36.3"), None).is_err());
}

#[test]
fn maps_versions_to_tags() {
    let tag = |v: &str| kubernetes_keys(v).map(|keys| keys[1].1.clone());
    assert_eq!(tag("1.36.3").unwrap(), "v0.36.3");
    assert_eq!(tag("1.37.0-rc.1").unwrap(), "v0.37.0-rc.1");
    for bad in ["2.0.0", "1.36", "1.x.3", "", "1.36.3.4"] {
        assert!(tag(bad).unwrap_err().starts_with("usage:"), "{bad}");
    }
}

#[test]
fn maps_lock_paths_to_upstream_urls() {
    let base = "https://raw.githubusercontent.com/kubernetes";
    let (_, lock) = fixture();
    let url = |p: &str| kubernetes_url(&lock, p).unwrap();
    assert_eq!(
        url("proto/k8s.io/api/core/v1/generated.proto"),
        format!("{base}/api/v0.36.3/core/v1/generated.proto")
    );
    assert_eq!(
        url("proto/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto"),
        format!("{base}/apimachinery/v0.36.3/pkg/apis/meta/v1/generated.proto")
    );
    assert_eq!(
        url("testdata/core.v1.Pod.pb"),
        format!("{base}/api/v0.36.3/testdata/HEAD/core.v1.Pod.pb")
    );
    assert!(kubernetes_url(&lock, "proto/other/x.proto").is_err());
}

#[test]
fn parses_arguments() {
    let opts = parse_args(&args(&["--from", "/k8s", "--update-lock"])).unwrap();
    assert_eq!(opts.from.as_deref(), Some(Path::new("/k8s")));
    assert!(opts.update_lock);
    let opts = parse_args(&args(&["--from=/k8s"])).unwrap();
    assert_eq!(opts.from.as_deref(), Some(Path::new("/k8s")));
    assert!(parse_args(&args(&["--check"])).unwrap().check);
    assert_eq!(parse_args(&[]).unwrap(), Options::default());
    // `--from` without a pin name means `kubernetes`; a name picks a pin.
    assert_eq!(opts.pin, Some(&KUBERNETES));
    assert_eq!(parse_args(&[]).unwrap().pin, None);
    let opts = parse_args(&args(&["ksw", "--from", "/ksw"])).unwrap();
    assert_eq!(opts.pin, Some(&KSW));
    let opts = parse_args(&args(&[
        "ksw",
        "--update-lock",
        "--from=/k",
        "--commit=abc1234",
    ]));
    assert_eq!(
        opts.unwrap().key_value,
        Some(("--commit".to_string(), "abc1234".to_string()))
    );
    let bad: [&[&str]; 11] = [
        &["--bogus"],
        &["--from"],
        &["--from="],
        &["--from", "--check"],
        &["--update-lock"],
        &["--check", "--update-lock", "--from", "/k8s"],
        &["--kubernetes", "1.36.3"],
        &["extra"],
        &[
            "ksw",
            "--update-lock",
            "--from",
            "/k",
            "--kubernetes",
            "1.36.3",
        ],
        &[
            "kubernetes",
            "--update-lock",
            "--from",
            "/k",
            "--commit",
            "abc1234",
        ],
        &["ksw", "--commit", "abc1234"],
    ];
    for list in bad {
        let err = parse_args(&args(list)).unwrap_err();
        assert!(err.starts_with("usage:"), "{list:?}: {err}");
    }
}

#[test]
fn source_prefers_from_over_download() {
    let (_source, lock) = fixture();
    let chosen = choose_source(&KUBERNETES, Some(PathBuf::from("/k8s")), &lock).unwrap();
    assert_eq!(chosen, Source::Dir(PathBuf::from("/k8s")));
}

/// A KSW source tree (files at the repository's own paths) and its lock.
fn ksw_fixture(commit: &str) -> (TempDir, Lock) {
    let source = TempDir::new("ksw");
    let files = [
        ("LICENSE", "Apache"),
        ("scheduler/test/testdata/test/all_noop.wasm", "\0asm"),
        ("guest/testdata/filter/main.go", "package main"),
    ];
    let mut text = format!(
        "# ksw\nrepository kubernetes-sigs/kube-scheduler-wasm-extension\ncommit {commit}\n"
    );
    for (rel, content) in files {
        write(source.path(), rel, content);
        text.push_str(&format!("{}  {rel}\n", sha(content)));
    }
    (source, parse_lock(&text, &KSW).unwrap())
}

#[test]
fn ksw_pin_owns_its_whole_dir() {
    let (source, lock) = ksw_fixture("9b2791f");
    assert_eq!(lock.key("commit"), "9b2791f");
    let vendor = TempDir::new("ksw-vendor");
    write(vendor.path(), "stale/old.go", "old");
    let summary = sync(vendor.path(), &KSW, &lock, &dir_source(&source)).unwrap();
    assert_eq!((summary.verified, summary.copied), (3, 3));
    assert_eq!(summary.removed, ["stale/old.go"]);
    assert!(!vendor.path().join("stale").exists());
    assert_eq!(check(vendor.path(), &KSW, &lock, "v/").unwrap(), 3);
    assert_eq!(
        fs::read_to_string(vendor.path().join("LICENSE")).unwrap(),
        "Apache"
    );

    let built = build_lock(source.path(), &KSW, Some("9b2791f"), None).unwrap();
    assert_eq!(built.entries, lock.entries);
    assert_eq!(
        built.keys,
        [
            (
                "repository".to_string(),
                "kubernetes-sigs/kube-scheduler-wasm-extension".to_string()
            ),
            ("commit".to_string(), "9b2791f".to_string())
        ]
    );
    for bad in ["9B2791F", "abc", "xyz1234", &"a".repeat(41)] {
        assert!(ksw_keys(bad).unwrap_err().starts_with("usage:"), "{bad}");
    }
}

#[test]
fn ksw_download_urls_follow_the_pinned_commit() {
    // An abbreviated hash goes through github.com's `raw` route, which
    // resolves it; the files' sha256 still decide what is accepted.
    let (_source, short) = ksw_fixture("9b2791f");
    let Source::Download(urls) = download_source(&KSW, &short).unwrap() else {
        panic!("expected a download source");
    };
    assert_eq!(
        urls["guest/testdata/filter/main.go"],
        "https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension/raw/9b2791f/\
         guest/testdata/filter/main.go"
    );

    let full = "0123456789abcdef0123456789abcdef01234567";
    let (_source, lock) = ksw_fixture(full);
    let Source::Download(urls) = download_source(&KSW, &lock).unwrap() else {
        panic!("expected a download source");
    };
    assert_eq!(
        urls["guest/testdata/filter/main.go"],
        format!(
            "https://raw.githubusercontent.com/kubernetes-sigs/kube-scheduler-wasm-extension/\
             {full}/guest/testdata/filter/main.go"
        )
    );
}

#[test]
fn ksw_lock_rejects_kubernetes_keys_and_escaping_paths() {
    let a = sha("a");
    let keys = "repository r\ncommit 9b2791f\n";
    let cases = [
        (format!("kubernetes 1.36.3\ntag v0\n{a}  x"), "unknown key"),
        (format!("commit 9b2791f\n{a}  x"), "repository"),
        (format!("{keys}{a}  ../x"), "bad path"),
        (format!("{keys}{a}  /x"), "bad path"),
    ];
    for (text, want) in cases {
        let err = parse_lock(&text, &KSW).unwrap_err();
        assert!(err.contains(want), "{text:?}: {err}");
    }
    let lock = parse_lock(&format!("{keys}{a}  LICENSE"), &KSW).unwrap();
    assert_eq!(lock.entries[0].path, "LICENSE");
}
