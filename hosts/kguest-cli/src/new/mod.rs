//! `kguest new`: writes a ready plugin crate: the chosen hooks with a small
//! working example each, native tests, sample objects, the size profile and
//! a one-word wasm build (`cargo wasm`).
//!
//! Hook lists follow the rule `kguest::export!` enforces at compile time
//! (`kguest_abi::hook_set_error`), so a crate `new` writes always builds.
//! `template.rs` writes the plugin crate's files, `hooks.rs` what each hook
//! adds to them (from `snippets/`); `--krm` writes a KRM function crate
//! instead (`krm.rs`).

mod hooks;
mod krm;
mod template;

use std::path::{Path, PathBuf};

use crate::Failure;
use template::Template;

/// Create a scheduler plugin crate or, with --krm, a KRM function crate
///
/// Writes a new kube-scheduler-wasm-extension plugin crate in PATH (which must
/// not exist or be empty); its name is PATH's last component. The crate has
/// the chosen hooks, each with a small working example and native tests, sample
/// pod.yaml/nodes.yaml, and a README with the build, test, run, check and
/// deploy steps:
///
///   cargo test                  the native tests (kguest::testing::TestHost)
///   cargo wasm                  the plugin: target/wasm32-unknown-unknown/guest/NAME.wasm
///   kguest run target/wasm32-unknown-unknown/guest/NAME.wasm --pod pod.yaml --nodes nodes.yaml
///
/// With --krm, a KRM function crate instead, with its tests, a sample list,
/// a kustomization and a README.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The new crate's directory; its last component names the crate.
    #[arg(value_name = "PATH", value_hint = clap::ValueHint::DirPath)]
    path: String,
    #[arg(long, value_name = "LIST", help = hooks_help())]
    hooks: Option<String>,
    /// A KRM function (kustomize, kpt) instead: a wasm32-wasip1 crate built on
    /// kguest-krm that adds the labels its functionConfig names, with native
    /// tests, a sample list.yaml, a kustomization running it through
    /// `kubectl kustomize` and a README (`cargo wasm`, then
    /// `kguest krm target/wasm32-wasip1/guest/NAME.wasm < list.yaml`)
    #[arg(long, verbatim_doc_comment)]
    krm: bool,
    /// Depend on the kguest checkout in DIR (a path dependency) instead of
    /// the published crate
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath, verbatim_doc_comment)]
    kguest_path: Option<String>,
}

/// The help of `--hooks`, listing kguest_abi's hooks.
fn hooks_help() -> String {
    let names: Vec<&str> = hook_names().collect();
    let mut lines = vec![String::from(
        "Comma-separated hooks (default: filter,score), of:",
    )];
    let mut line = String::new();
    for (i, name) in names.iter().enumerate() {
        let item = match *name {
            "reserve" => "reserve (with unreserve)".to_string(),
            name => name.to_string(),
        };
        let item = if i + 1 < names.len() {
            format!("{item},")
        } else {
            format!("{item}.")
        };
        if !line.is_empty() && line.len() + 1 + item.len() > 66 {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&item);
    }
    lines.push(line);
    lines.push("The set must be one kube-scheduler-wasm-extension accepts, the".into());
    lines.push("rule `kguest::export!` checks.".into());
    lines.join("\n")
}

/// The hooks `--hooks` accepts, in the order the scheduler calls them:
/// `kguest_abi::HOOKS` but `unreserve`, which `reserve` brings.
fn hook_names() -> impl Iterator<Item = &'static str> {
    kguest_abi::HOOKS
        .iter()
        .filter(|h| h.bit != kguest_abi::bits::UNRESERVE)
        .map(|h| h.name)
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        path,
        hooks,
        krm,
        kguest_path,
    } = args;
    let (path, hooks, kguest_path) = (path.as_str(), hooks.as_deref(), kguest_path.as_deref());
    if krm && hooks.is_some() {
        return Err(Failure::Usage(
            "--hooks is for scheduler plugins; a KRM function (--krm) has none".into(),
        ));
    }
    let hooks = parse_hooks(hooks.unwrap_or("filter,score")).map_err(Failure::Usage)?;
    let dependency = match kguest_path {
        Some(dir) => Dependency::Path(checkout(dir).map_err(Failure::Input)?),
        None => Dependency::Version(env!("CARGO_PKG_VERSION")),
    };
    let dir = Path::new(path);
    let name = crate_name(dir).map_err(Failure::Input)?;
    ensure_empty(dir).map_err(Failure::Input)?;

    if krm {
        let function = krm::Template { name: &name };
        write_files(
            dir,
            &function.files(&dependency),
            &[function.plugin_path().as_str()],
        )?;
        let lib = name.replace('-', "_");
        let out = format!(
            "created KRM function `{name}` in {path}\n\n  cd {path}\n  cargo test\n  cargo wasm\n  kguest krm target/wasm32-wasip1/guest/{lib}.wasm < list.yaml\n"
        );
        return crate::write_stdout(out.as_bytes());
    }
    let plugin = Template {
        name: &name,
        hooks: &hooks,
    };
    write_files(dir, &plugin.files(&dependency), &[])?;
    let out = format!(
        "created plugin `{name}` ({}) in {path}\n\n  cd {path}\n  cargo test\n  cargo wasm\n  kguest run target/wasm32-unknown-unknown/guest/{}.wasm --pod pod.yaml --nodes nodes.yaml\n",
        hooks.join(", "),
        name.replace('-', "_")
    );
    crate::write_stdout(out.as_bytes())
}

/// Writes the crate's files below `dir`; those named in `executable` get
/// mode 0755 (scripts).
fn write_files<P: AsRef<str>>(
    dir: &Path,
    files: &[(P, String)],
    executable: &[&str],
) -> Result<(), Failure> {
    for (file, contents) in files {
        let file = file.as_ref();
        let target = dir.join(file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|err| Failure::Input(format!("{}: {err}", parent.display())))?;
        }
        std::fs::write(&target, contents)
            .map_err(|err| Failure::Input(format!("{}: {err}", target.display())))?;
        #[cfg(unix)]
        if executable.contains(&file) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                .map_err(|err| Failure::Input(format!("{}: {err}", target.display())))?;
        }
    }
    Ok(())
}

/// Parses `--hooks` and checks the set with the rule `export!` applies.
fn parse_hooks(list: &str) -> Result<Vec<&'static str>, String> {
    let mut hooks = Vec::new();
    let mut bits = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let Some(hook) = hook_names().find(|h| *h == name) else {
            let hint = if name == "unreserve" {
                " (`reserve` brings unreserve)"
            } else {
                ""
            };
            return Err(format!(
                "--hooks: unknown hook `{name}`{hint}; choose from {}",
                hook_names().collect::<Vec<_>>().join(", ")
            ));
        };
        let bit = kguest_abi::find_hook(hook).map_or(0, |h| h.bit);
        hooks.push(hook);
        bits.push(bit);
    }
    if let Some(err) = kguest_abi::hook_set_error(&bits) {
        return Err(format!("--hooks {list}: {}", err.as_str()));
    }
    // Scheduler order, whatever order they were given in.
    hooks.sort_by_key(|h| hook_names().position(|n| n == *h));
    Ok(hooks)
}

/// The crate name: PATH's last component, if cargo accepts it.
fn crate_name(dir: &Path) -> Result<String, String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: PATH must end in a crate name", dir.display()))?;
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(format!(
            "`{name}` is not a crate name (ASCII letters, digits, `-` and `_`, starting with a letter)"
        ));
    }
    const RESERVED: &[&str] = &[
        "kguest",
        "core",
        "std",
        "alloc",
        "test",
        "proc_macro",
        "self",
        "super",
        "crate",
        "Self",
        "fn",
        "mod",
        "struct",
        "enum",
        "type",
        "impl",
        "trait",
        "use",
        "pub",
        "let",
        "match",
        "if",
        "else",
        "loop",
        "while",
        "for",
        "in",
        "return",
        "break",
        "continue",
        "as",
        "const",
        "static",
        "extern",
        "ref",
        "mut",
        "move",
        "unsafe",
        "where",
        "true",
        "false",
        "dyn",
        "async",
        "await",
        "gen",
        "abstract",
        "become",
        "box",
        "do",
        "final",
        "macro",
        "override",
        "priv",
        "typeof",
        "unsized",
        "virtual",
        "yield",
        "try",
    ];
    if RESERVED.contains(&name) {
        return Err(format!(
            "`{name}` cannot name a plugin crate (a Rust keyword or a crate it depends on)"
        ));
    }
    Ok(name.to_string())
}

/// Refuses an existing file or non-empty directory.
fn ensure_empty(dir: &Path) -> Result<(), String> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(format!(
                    "{}: exists and is not empty; choose a new directory",
                    dir.display()
                ))
            } else {
                Ok(())
            }
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if dir.exists() => Err(format!("{}: exists and is not a directory", dir.display())),
        Err(err) => Err(format!("{}: {err}", dir.display())),
    }
}

/// `--kguest-path DIR`, checked and made absolute.
fn checkout(dir: &str) -> Result<PathBuf, String> {
    let sdk = Path::new(dir).join("guest-runtime/kguest/Cargo.toml");
    if !sdk.is_file() {
        return Err(format!(
            "--kguest-path {dir}: not a kguest checkout (no guest-runtime/kguest/Cargo.toml)"
        ));
    }
    std::fs::canonicalize(dir).map_err(|err| format!("--kguest-path {dir}: {err}"))
}

/// How the plugin depends on kguest.
enum Dependency {
    Path(PathBuf),
    Version(&'static str),
}

impl Dependency {
    fn line(&self) -> String {
        match self {
            Dependency::Path(root) => {
                let sdk = root.join("guest-runtime/kguest");
                format!(
                    "kguest = {{ path = {} }}",
                    toml_string(&sdk.to_string_lossy())
                )
            }
            Dependency::Version(v) => format!("kguest = \"{v}\""),
        }
    }

    /// The `kguest-krm` line of a KRM function: the SDK without its
    /// default views (which bring the Kubernetes types), with the panic
    /// handler a `no_std` wasm binary needs.
    fn krm_line(&self) -> String {
        let features = "default-features = false, features = [\"panic-handler\"]";
        match self {
            Dependency::Path(root) => {
                let sdk = root.join("guest-runtime/kguest-krm");
                format!(
                    "kguest-krm = {{ path = {}, {features} }}",
                    toml_string(&sdk.to_string_lossy())
                )
            }
            Dependency::Version(v) => format!("kguest-krm = {{ version = \"{v}\", {features} }}"),
        }
    }
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `my-zone_plugin` → `MyZonePlugin`.
fn type_name(crate_name: &str) -> String {
    crate_name
        .split(['-', '_'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_lists_follow_the_export_rule() {
        assert_eq!(parse_hooks("score, filter").unwrap(), ["filter", "score"]);
        assert_eq!(
            parse_hooks("filter,prescore").unwrap_err(),
            "--hooks filter,prescore: prescore and normalizescore need score"
        );
        assert_eq!(
            parse_hooks("reserve,permit").unwrap_err(),
            "--hooks reserve,permit: kube-scheduler-wasm-extension rejects this combination of filter/score/reserve/permit/bind"
        );
        assert_eq!(
            parse_hooks("filter,filter").unwrap_err(),
            "--hooks filter,filter: a hook is listed twice"
        );
        assert!(
            parse_hooks("")
                .unwrap_err()
                .contains("at least one of filter")
        );
        let err = parse_hooks("filter,unreserve").unwrap_err();
        assert!(err.starts_with("--hooks: unknown hook `unreserve` (`reserve` brings unreserve)"));
        assert!(
            parse_hooks("filtr")
                .unwrap_err()
                .contains("choose from enqueue, prefilter")
        );
    }

    #[test]
    fn crate_names_are_checked() {
        assert_eq!(
            crate_name(Path::new("/tmp/x/zone-fit")).unwrap(),
            "zone-fit"
        );
        assert!(crate_name(Path::new("/tmp/x/1plugin")).is_err());
        assert!(crate_name(Path::new("/tmp/x/my plugin")).is_err());
        assert!(crate_name(Path::new("/tmp/x/kguest")).is_err());
        assert!(crate_name(Path::new("/tmp/x/fn")).is_err());
        assert!(crate_name(Path::new("/")).is_err());
        assert_eq!(type_name("zone-fit_v2"), "ZoneFitV2");
    }

    /// The help of `--hooks` lists every hook of the ABI.
    #[test]
    fn hooks_help_lists_every_hook_of_the_abi() {
        let help = hooks_help();
        let words: Vec<&str> = help
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        for hook in kguest_abi::HOOKS {
            assert!(words.contains(&hook.name), "{} missing: {help}", hook.name);
        }
        assert!(help.lines().all(|l| l.len() <= 70), "{help}");
    }

    #[test]
    fn toml_strings_escape() {
        assert_eq!(toml_string(r#"C:\a "b""#), r#""C:\\a \"b\"""#);
    }
}
