//! External tools and built material a test needs, named by environment
//! variables that `cargo xtask test` sets after building them.
//!
//! Missing, the test fails with one line naming the tool, unless
//! `KGUEST_SKIP_TOOLS=1` (local runs; CI never sets it): then the helper
//! prints why the test did not run and returns `None`.

use std::path::PathBuf;
use std::process::Command;

use crate::env_path;

fn skip_tools() -> bool {
    std::env::var("KGUEST_SKIP_TOOLS").as_deref() == Ok("1")
}

/// A tool: `$var` when set, else `default` looked up on `PATH`; it must
/// answer `probe` successfully.
pub fn need(what: &str, var: &str, default: Option<&str>, probe: &[&str]) -> Option<PathBuf> {
    let path = env_path(var).or_else(|| default.map(PathBuf::from));
    let problem = match &path {
        None => format!("{var} is not set"),
        Some(p) => match Command::new(p).args(probe).output() {
            Ok(o) if o.status.success() => return path,
            Ok(o) => format!(
                "`{} {}` failed ({})",
                p.display(),
                probe.join(" "),
                o.status
            ),
            Err(e) => format!("`{}` does not run: {e}", p.display()),
        },
    };
    if skip_tools() {
        println!("not run: {what} is missing ({problem}; KGUEST_SKIP_TOOLS=1)");
        return None;
    }
    panic!(
        "{what} is missing: {problem}; `cargo xtask test` builds and sets it \
         (KGUEST_SKIP_TOOLS=1 lets local runs go without)"
    );
}

/// `kubectl` (`$KGUEST_KUBECTL`, else on `PATH`), which must print its
/// client version.
pub fn kubectl() -> Option<PathBuf> {
    need(
        "kubectl",
        "KGUEST_KUBECTL",
        Some("kubectl"),
        &["version", "--client"],
    )
}

/// A folder `$var` holding every one of `files` (see [`need`]).
pub fn need_dir(what: &str, var: &str, files: &[&str]) -> Option<PathBuf> {
    let dir = env_path(var);
    let problem = match &dir {
        None => format!("{var} is not set"),
        Some(d) => match files.iter().find(|f| !d.join(f).is_file()) {
            None => return dir,
            Some(f) => format!("{} is missing", d.join(f).display()),
        },
    };
    if skip_tools() {
        println!("not run: {what} are missing ({problem}; KGUEST_SKIP_TOOLS=1)");
        return None;
    }
    panic!(
        "{what} are missing: {problem}; `cargo xtask test` builds them and sets {var} \
         (KGUEST_SKIP_TOOLS=1 lets local runs go without)"
    );
}
