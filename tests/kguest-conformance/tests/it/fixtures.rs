//! Finding the vendored upstream data. `.ci/run` vendors it first; on a
//! developer machine `cargo xtask vendor` does. A missing tree is a test
//! failure with instructions, never a silent skip.

use std::path::{Path, PathBuf};

/// The vendored tree: `$KGUEST_VENDOR_DIR` or `<workspace>/proto-vendor`.
pub fn vendor_dir() -> PathBuf {
    match std::env::var_os("KGUEST_VENDOR_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto-vendor"),
    }
}

fn existing(dir: PathBuf) -> PathBuf {
    assert!(
        dir.is_dir(),
        "{} is missing: run `cargo xtask vendor` (or `cargo xtask vendor --from DIR`) first",
        dir.display()
    );
    dir
}

pub fn testdata_dir() -> PathBuf {
    existing(vendor_dir().join("testdata"))
}

pub fn proto_dir() -> PathBuf {
    existing(vendor_dir().join("proto"))
}

/// One upstream fixture: `<group>.<version>.<Kind>` with its encodings.
pub struct Fixture {
    pub name: String,
    pub pb: Vec<u8>,
    pub json: serde_json::Value,
}

impl Fixture {
    /// The message type: from the envelope, or, for the few objects whose
    /// envelope leaves the type empty (`WatchEvent`), from the file name.
    pub fn schema(&self) -> &'static kguest_wire::schema::MessageSchema {
        let env = kguest_k8s::envelope::unwrap(&self.pb).expect("fixture envelope");
        kguest_k8s_io::json::schema_for_api_version(env.api_version, env.kind)
            .or_else(|| kguest_k8s_io::json::schema_by_type_name(&self.name))
            .unwrap_or_else(|| panic!("{}: no schema", self.name))
    }
}

/// Every fixture that has both a `.pb` and a `.json`, sorted by name.
pub fn all() -> Vec<Fixture> {
    let dir = testdata_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("read testdata")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".pb")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no fixtures in {}", dir.display());
    names
        .into_iter()
        .map(|name| {
            let pb = std::fs::read(dir.join(format!("{name}.pb"))).expect("read .pb");
            let json_text = std::fs::read(dir.join(format!("{name}.json"))).expect("read .json");
            let json = serde_json::from_slice(&json_text).expect("fixture .json parses");
            Fixture { name, pb, json }
        })
        .collect()
}

/// Runs `check` on every fixture, prints `<what>: N/N fixtures <outcome>`
/// and fails listing every fixture whose check failed.
pub fn check_every(what: &str, outcome: &str, check: impl Fn(&Fixture) -> Result<(), String>) {
    let fixtures = all();
    let failures: Vec<String> = fixtures
        .iter()
        .filter_map(|f| check(f).err().map(|err| format!("{}: {err}", f.name)))
        .collect();
    let passed = fixtures.len() - failures.len();
    println!("{what}: {passed}/{} fixtures {outcome}", fixtures.len());
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
