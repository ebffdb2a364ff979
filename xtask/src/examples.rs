//! `cargo xtask examples`: builds every example plugin for wasm32 with the
//! size profile into `target/plugins/<name>.wasm`, where `kguest run`, the
//! end-to-end tests and the demo find them.

use std::path::PathBuf;

use crate::guests::WASM_TARGET;
use crate::paths;
use crate::test::cargo;

/// The example plugins (crate names under `examples/`).
pub const EXAMPLES: &[&str] = &[
    "nodename",
    "nodenumber",
    "wasm-runtime",
    "taints",
    "fit",
    "imagelocality",
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask examples (unknown argument `{arg}`)"
        ));
    }
    for (name, path) in build_all()? {
        let size = std::fs::metadata(&path)
            .map_err(|err| format!("{}: {err}", path.display()))?
            .len();
        println!("{name}: {size} bytes -> {}", path.display());
    }
    Ok(())
}

/// The folder the plugins are copied to.
pub fn plugin_dir() -> PathBuf {
    paths::target_dir().join("plugins")
}

/// Builds all examples in one cargo run and copies them to [`plugin_dir`].
pub fn build_all() -> Result<Vec<(&'static str, PathBuf)>, String> {
    let mut args = vec![
        "build",
        "--quiet",
        "--profile",
        "guest",
        "--target",
        WASM_TARGET,
    ];
    for name in EXAMPLES {
        args.extend(["-p", name]);
    }
    cargo(&args)?;
    let dir = plugin_dir();
    std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    EXAMPLES
        .iter()
        .map(|name| {
            let built = paths::target_dir()
                .join(WASM_TARGET)
                .join("guest")
                .join(format!("{}.wasm", name.replace('-', "_")));
            let copy = dir.join(format!("{name}.wasm"));
            std::fs::copy(&built, &copy).map_err(|err| format!("{}: {err}", built.display()))?;
            Ok((*name, copy))
        })
        .collect()
}
