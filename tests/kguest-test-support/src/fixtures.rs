//! Upstream's wire fixtures (`<vendor>/testdata/<group>.<version>.<Kind>`
//! with its `.pb`, the API server's enveloped protobuf, and its `.json`).
//! A missing tree is a test failure with instructions, never a silent skip.

use kguest_k8s::envelope;
use kguest_k8s_io::json::{schema_by_type_name, schema_for_api_version};
use kguest_wire::schema::MessageSchema;

use crate::vendor;

/// One upstream fixture: `<group>.<version>.<Kind>` with its encodings.
pub struct Fixture {
    pub name: String,
    pub pb: Vec<u8>,
    pub json: serde_json::Value,
}

impl Fixture {
    /// The message type: from the envelope, or, for the few objects whose
    /// envelope leaves the type empty (`WatchEvent`), from the file name.
    pub fn schema(&self) -> &'static MessageSchema {
        let env = envelope::unwrap(&self.pb).expect("fixture envelope");
        schema_for_api_version(env.api_version, env.kind)
            .or_else(|| schema_by_type_name(&self.name))
            .unwrap_or_else(|| panic!("{}: no schema", self.name))
    }
}

/// Every fixture that has both a `.pb` and a `.json`, sorted by name.
pub fn all() -> Vec<Fixture> {
    let dir = vendor::testdata_dir();
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

/// The text of the fixture file `<name>.<ext>`.
pub fn text(name: &str, ext: &str) -> String {
    let path = vendor::testdata_dir().join(format!("{name}.{ext}"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
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

/// The full protobuf name and raw message bytes of the enveloped fixture
/// `name` (`<group>.<version>.<Kind>`). The type comes from the envelope's
/// `apiVersion` and `kind`, or from the fixture name when the envelope has
/// none (upstream's `WatchEvent`); when both exist they must agree.
pub fn unwrap<'a>(name: &str, pb: &'a [u8]) -> Result<(&'static str, &'a [u8]), String> {
    let env = envelope::unwrap(pb).map_err(|e| e.as_str().to_string())?;
    let by_name =
        schema_by_type_name(name).ok_or_else(|| format!("no schema for the name {name}"))?;
    if env.kind.is_empty() && env.api_version.is_empty() {
        return Ok((by_name.name(), env.raw));
    }
    let schema = schema_for_api_version(env.api_version, env.kind)
        .ok_or_else(|| format!("no schema for {} {}", env.api_version, env.kind))?;
    if !std::ptr::eq(schema, by_name) {
        return Err(format!(
            "the envelope says {}, the name {}",
            schema.name(),
            by_name.name()
        ));
    }
    Ok((schema.name(), env.raw))
}

/// Every fixture as (fixture name, full type name, raw message bytes).
pub fn raw() -> Vec<(String, &'static str, Vec<u8>)> {
    all()
        .into_iter()
        .map(|f| {
            let (full_name, raw) = unwrap(&f.name, &f.pb)
                .unwrap_or_else(|e| panic!("fixture {} does not unwrap: {e}", f.name));
            let raw = raw.to_vec();
            (f.name, full_name, raw)
        })
        .collect()
}
