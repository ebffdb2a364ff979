//! `cargo xtask examples`: builds every example plugin for wasm32 with the
//! size profile into `target/plugins/<name>.wasm`, where `kguest run`, the
//! end-to-end tests and the demo find them, and the KRM functions for
//! wasm32-wasip1 into `target/krm/<name>.wasm` (`kguest krm`'s tests).

use std::path::PathBuf;

use crate::cargo::cargo;
use crate::guests::{WASI_TARGET, WASM_TARGET};
use crate::paths;

/// The example plugins (crate names under `examples/`).
pub const EXAMPLES: &[&str] = &[
    "nodename",
    "nodenumber",
    "wasm-runtime",
    "taints",
    "fit",
    "imagelocality",
];

/// The KRM functions (crate under `examples/` or `tests/guests/`, name in
/// `target/krm/`); the last one is a test function written with Rust std.
pub const KRM_FUNCTIONS: &[(&str, &str)] = &[
    ("krm-set-namespace", "set-namespace"),
    ("krm-require-requests", "require-requests"),
    ("krm-wasm-smart", "wasm-smart"),
    ("krm-std-echo", "std-echo"),
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!(
            "usage: cargo xtask examples (unknown argument `{arg}`)"
        ));
    }
    let mut built = build_all()?;
    built.extend(
        KRM_FUNCTIONS
            .iter()
            .map(|(_, name)| (*name, krm_dir().join(format!("{name}.wasm")))),
    );
    for (name, path) in built {
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

/// The folder the KRM functions are copied to.
pub fn krm_dir() -> PathBuf {
    paths::target_dir().join("krm")
}

/// Builds the KRM functions for wasm32-wasip1 in one cargo run and copies
/// them to [`krm_dir`].
pub fn build_krm() -> Result<Vec<(&'static str, PathBuf)>, String> {
    let mut args = vec![
        "build",
        "--quiet",
        "--profile",
        "guest",
        "--target",
        WASI_TARGET,
    ];
    for (package, _) in KRM_FUNCTIONS {
        args.extend(["-p", package]);
    }
    cargo(&args)?;
    let dir = krm_dir();
    std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    KRM_FUNCTIONS
        .iter()
        .map(|(package, name)| {
            let out = paths::target_dir().join(WASI_TARGET).join("guest");
            // Libraries are named with underscores, binaries as the package.
            let lib = out.join(format!("{}.wasm", package.replace('-', "_")));
            let built = if lib.is_file() {
                lib
            } else {
                out.join(format!("{package}.wasm"))
            };
            let copy = dir.join(format!("{name}.wasm"));
            std::fs::copy(&built, &copy).map_err(|err| format!("{}: {err}", built.display()))?;
            Ok((*name, copy))
        })
        .collect()
}

/// Builds all examples in one cargo run and copies them to [`plugin_dir`]
/// (and the KRM functions to [`krm_dir`]).
pub fn build_all() -> Result<Vec<(&'static str, PathBuf)>, String> {
    build_krm()?;
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
