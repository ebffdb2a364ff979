//! Shared helpers: the test protos' config, temp dirs, inline protos.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use kguest_codegen::{Config, Error};

/// The test protos, in the order they are passed to the generator.
pub const PROTOS: &[&str] = &[
    "kt/scalars.proto",
    "kt/shapes.proto",
    "kt/ab.proto",
    "kt/ab/schema.proto",
    "kt/ab/c.proto",
];

/// A path below this package's directory.
pub fn manifest_path(rel: &str) -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join(rel)
}

/// The configuration the snapshots are generated with.
pub fn config() -> Config {
    config_with(PROTOS.iter().copied())
}

/// The snapshots' configuration, with `files` to generate.
pub fn config_with<'a>(files: impl IntoIterator<Item = &'a str>) -> Config {
    let mut config = Config::new();
    config
        .include(manifest_path("tests/protos"))
        .regen_command("UPDATE_EXPECT=1 cargo test -p kguest-codegen --test it")
        .registry(true)
        .reflect_feature("reflect");
    for file in files {
        config.file(file);
    }
    config
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "kguest-codegen-it-{}-{name}-{n}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `contents` to `rel`, creating parent directories.
    pub fn write(&self, rel: &str, contents: &str) {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Generates from protos given inline as `(path, source)`: every one is
/// also passed as a file to generate.
pub fn generate_inline(protos: &[(&str, &str)]) -> Result<BTreeMap<PathBuf, String>, Error> {
    generate_inline_with(protos, |_| {})
}

/// [`generate_inline`] with `tweak` applied to the configuration first.
pub fn generate_inline_with(
    protos: &[(&str, &str)],
    tweak: impl FnOnce(&mut Config),
) -> Result<BTreeMap<PathBuf, String>, Error> {
    let dir = TempDir::new("protos");
    let mut config = Config::new();
    config.include(dir.path());
    tweak(&mut config);
    for (path, source) in protos {
        dir.write(path, source);
        config.file(*path);
    }
    config.generate()
}
