//! `kguest new`: writes a ready plugin crate: the chosen hooks with a small
//! working example each, native tests, sample objects, the size profile and
//! a one-word wasm build (`cargo wasm`).
//!
//! Hook lists follow the rule `kguest::export!` enforces at compile time
//! (`kguest_abi::hook_set_error`), so a crate `new` writes always builds.
//! `--krm` writes a KRM function crate instead (`new/krm.rs`).

mod krm;

use std::path::{Path, PathBuf};

use crate::Failure;

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

/// Where the generated README points for deployment.
const DEPLOY_DOC: &str = "https://github.com/kguest/kguest/blob/main/docs/deploy.md";

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

/// What one hook contributes to the crate.
struct HookCode {
    /// Items imported from `kguest`.
    imports: &'static [&'static str],
    /// A line for the crate docs.
    doc: &'static str,
    /// The trait impl (`PLUGIN` stands for the type name).
    code: &'static str,
    /// Tests (`PLUGIN` as above).
    tests: &'static str,
    /// Constants the code uses.
    consts: &'static [&'static str],
    /// Test-only imports.
    test_imports: &'static [&'static str],
}

const POD_ZONE_LABEL: &str = "\
/// The pod label naming the zone a pod must run in.
pub const POD_ZONE_LABEL: &str = \"example.kguest.dev/zone\";";
const NODE_ZONE_LABEL: &str = "\
/// The node label naming a node's zone.
pub const NODE_ZONE_LABEL: &str = \"topology.kubernetes.io/zone\";";
const HOLD_ANNOTATION: &str = "\
/// The pod annotation that holds a pod back.
pub const HOLD_ANNOTATION: &str = \"example.kguest.dev/hold\";";
const SCORE_ANNOTATION: &str = "\
/// The pod annotation that turns this plugin's scoring off.
pub const SCORE_ANNOTATION: &str = \"example.kguest.dev/score\";";
const GIB: &str = "\
/// One GiB, in bytes.
const GIB: i64 = 1 << 30;";

const CODE: &str = "kguest::Code";
const TEST_HOST: &str = "kguest::testing::TestHost";
const NODE_BUILDER: &str = "kguest::testing::proto::NodeBuilder";
const POD_BUILDER: &str = "kguest::testing::proto::PodBuilder";

fn hook_code(hook: &str) -> HookCode {
    match hook {
        "prefilter" => HookCode {
            imports: &["Cycle", "PreFilter", "Status"],
            doc: "PreFilter: a pod annotated `example.kguest.dev/hold: \"true\"` waits.",
            consts: &[HOLD_ANNOTATION],
            code: r#"/// PreFilter, once per scheduling cycle: a pod annotated
/// `example.kguest.dev/hold: "true"` waits until the annotation goes.
impl PreFilter for PLUGIN {
    fn pre_filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let hold = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.annotations().get(HOLD_ANNOTATION));
        if hold == Some("true") {
            Status::unschedulable("pod is on hold (example.kguest.dev/hold)")
        } else {
            Status::success()
        }
    }
}
"#,
            test_imports: &[CODE, TEST_HOST, POD_BUILDER],
            tests: r#"    #[test]
    fn prefilter_holds_annotated_pods() {
        let host = TestHost::new();
        let pod = PodBuilder::new("web").annotation(HOLD_ANNOTATION, "true");
        host.set_pod(pod.build());
        let out = host.pre_filter(&mut PLUGIN::new());
        assert_eq!(out.code(), Ok(Code::Unschedulable));
        assert_eq!(out.reason(), "pod is on hold (example.kguest.dev/hold)");

        let host = TestHost::new();
        host.set_pod(PodBuilder::new("web").build());
        assert!(host.pre_filter(&mut PLUGIN::new()).is_success());
    }
"#,
        },
        "filter" => HookCode {
            imports: &["Cycle", "Filter", "Status"],
            doc: "Filter: a pod labelled `example.kguest.dev/zone: Z` fits only nodes labelled\n//!   `topology.kubernetes.io/zone: Z`; other pods fit every node.",
            consts: &[POD_ZONE_LABEL, NODE_ZONE_LABEL],
            code: r#"/// Filter, per node: a pod labelled `example.kguest.dev/zone: Z` fits only
/// nodes labelled `topology.kubernetes.io/zone: Z`; other pods fit anywhere.
impl Filter for PLUGIN {
    fn filter<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let wanted = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.labels().get(POD_ZONE_LABEL));
        let Some(wanted) = wanted else {
            return Status::success();
        };
        // The node is fetched from the host only when a hook asks for it.
        let Some(node) = cx.node() else {
            return Status::error("node not found");
        };
        let labels = node.metadata().map(|m| m.labels());
        let zone = labels.and_then(|l| l.get(NODE_ZONE_LABEL));
        if zone == Some(wanted) {
            Status::success()
        } else {
            Status::unresolvable("node(s) are not in the pod's zone")
        }
    }
}
"#,
            test_imports: &[CODE, TEST_HOST, NODE_BUILDER, POD_BUILDER],
            tests: r#"    /// A node labelled with `zone`.
    fn node_in(name: &str, zone: &str) -> Vec<u8> {
        NodeBuilder::new(name).label(NODE_ZONE_LABEL, zone).build()
    }

    #[test]
    fn filter_keeps_zoned_pods_in_their_zone() {
        let host = TestHost::new();
        host.add_node("a1", node_in("a1", "zone-a"));
        host.add_node("b1", node_in("b1", "zone-b"));
        host.add_node("bare", NodeBuilder::new("bare").build());
        let pod = PodBuilder::new("web").label(POD_ZONE_LABEL, "zone-a");
        host.set_pod(pod.build());
        let mut plugin = PLUGIN::new();
        assert!(host.filter_node(&mut plugin, "a1").is_success());
        let out = host.filter_node(&mut plugin, "b1");
        assert_eq!(out.code(), Ok(Code::UnschedulableAndUnresolvable));
        assert_eq!(out.reason(), "node(s) are not in the pod's zone");
        assert!(!host.filter_node(&mut plugin, "bare").is_success());
        let gone = host.filter_node(&mut plugin, "gone");
        assert_eq!(gone.code(), Ok(Code::Error));
    }

    #[test]
    fn filter_lets_other_pods_go_anywhere() {
        let host = TestHost::new();
        host.add_node("b1", node_in("b1", "zone-b"));
        host.set_pod(PodBuilder::new("web").build());
        assert!(host.filter_node(&mut PLUGIN::new(), "b1").is_success());
    }
"#,
        },
        "postfilter" => HookCode {
            imports: &["Cycle", "PostFilter", "PostFilterResult", "Status"],
            doc: "PostFilter: nominates no node (this plugin does not preempt).",
            consts: &[],
            code: r#"/// PostFilter, when no node passed Filter: a preempting plugin would nominate
/// a node here (`PostFilterResult::nominate`); this one does not preempt.
impl PostFilter for PLUGIN {
    fn post_filter<'a>(&'a mut self, _cx: &'a Cycle) -> PostFilterResult<'a> {
        PostFilterResult::status(Status::unschedulable("no preemption"))
    }
}
"#,
            test_imports: &[CODE, TEST_HOST],
            tests: r#"    #[test]
    fn postfilter_nominates_nothing() {
        let host = TestHost::new();
        let (out, mode, nominated) = host.post_filter(&mut PLUGIN::new());
        assert_eq!(out.code(), Ok(Code::Unschedulable));
        assert_eq!((mode, nominated), (0, None));
    }
"#,
        },
        "addpod" | "removepod" => HookCode {
            imports: &["Cycle", "PreFilterExtensions", "Status"],
            doc: "AddPod/RemovePod: keep no PreFilter state, so nothing changes.",
            consts: &[],
            code: r#"/// AddPod/RemovePod: during preemption the scheduler asks how adding or
/// removing another pod (`Cycle::target_pod`) changes what PreFilter
/// computed; this plugin keeps no such state.
impl PreFilterExtensions for PLUGIN {
    fn add_pod<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }

    fn remove_pod<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn pod_extensions_succeed() {
        let host = TestHost::new();
        assert!(host.add_pod(&mut PLUGIN::new()).is_success());
        assert!(host.remove_pod(&mut PLUGIN::new()).is_success());
    }
"#,
        },
        "prescore" => HookCode {
            imports: &["Cycle", "PreScore", "Status"],
            doc: "PreScore: a pod annotated `example.kguest.dev/score: \"off\"` skips Score.",
            consts: &[SCORE_ANNOTATION],
            code: r#"/// PreScore, once per cycle before Score: a pod annotated
/// `example.kguest.dev/score: "off"` skips this plugin's Score.
impl PreScore for PLUGIN {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let setting = cx
            .pod()
            .and_then(|p| p.metadata())
            .and_then(|m| m.annotations().get(SCORE_ANNOTATION));
        if setting == Some("off") {
            Status::skip()
        } else {
            Status::success()
        }
    }
}
"#,
            test_imports: &[CODE, TEST_HOST, POD_BUILDER],
            tests: r#"    #[test]
    fn prescore_skips_pods_that_opt_out() {
        let host = TestHost::new();
        let pod = PodBuilder::new("web").annotation(SCORE_ANNOTATION, "off");
        host.set_pod(pod.build());
        assert_eq!(host.pre_score(&mut PLUGIN::new()).code(), Ok(Code::Skip));

        let host = TestHost::new();
        host.set_pod(PodBuilder::new("web").build());
        assert!(host.pre_score(&mut PLUGIN::new()).is_success());
    }
"#,
        },
        "score" => HookCode {
            imports: &["Cycle", "Score", "Status", "k8s::quantity"],
            doc: "Score: one point per GiB of allocatable memory, at most 100.",
            consts: &[GIB],
            code: r#"/// Score, per feasible node: one point per GiB of allocatable memory, at
/// most 100.
impl Score for PLUGIN {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        let Some(node) = cx.node() else {
            return Err(Status::error("node not found"));
        };
        let memory = node
            .status()
            .and_then(|s| s.allocatable().get("memory"))
            .and_then(|q| q.string_bytes());
        // `quantity::scaled` reads "16Gi" as bytes (scale 0) without the
        // exact parser; `None` (not a quantity, or too large) counts as 0.
        let bytes = memory.and_then(|q| quantity::scaled(q, 0)).unwrap_or(0);
        let gib = bytes / GIB;
        Ok(if gib > 100 { 100 } else { gib.max(0) as i32 })
    }
}
"#,
            test_imports: &[CODE, TEST_HOST, NODE_BUILDER],
            tests: r#"    #[test]
    fn score_counts_gib_of_allocatable_memory() {
        let host = TestHost::new();
        let small = NodeBuilder::new("small").allocatable("memory", "16Gi");
        host.add_node("small", small.build());
        let huge = NodeBuilder::new("huge").allocatable("memory", "1Ti");
        host.add_node("huge", huge.build());
        host.add_node("bare", NodeBuilder::new("bare").build());
        let mut plugin = PLUGIN::new();
        assert_eq!(host.score_node(&mut plugin, "small").0, 16);
        assert_eq!(host.score_node(&mut plugin, "huge").0, 100);
        assert_eq!(host.score_node(&mut plugin, "bare").0, 0);
        let (_, out) = host.score_node(&mut plugin, "gone");
        assert_eq!(out.code(), Ok(Code::Error));
    }
"#,
        },
        "normalizescore" => HookCode {
            imports: &["Cycle", "NormalizeScore", "Status"],
            doc: "NormalizeScore: scores are already 0..=100, nothing is rescaled.",
            consts: &[],
            code: r#"/// NormalizeScore, once per cycle after Score: scores are already in
/// 0..=100, so no list is sent back and the scheduler keeps them (a
/// rescaling plugin reads `Cycle::node_score_list` and answers with
/// `Cycle::set_normalized_score_list`).
impl NormalizeScore for PLUGIN {
    fn normalize_score<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn normalizescore_keeps_the_scores() {
        let host = TestHost::new();
        host.set_node_score_list("{\"a1\":16,\"a2\":64}");
        assert!(host.normalize_score(&mut PLUGIN::new()).is_success());
        assert_eq!(host.normalized_score_list(), None);
    }
"#,
        },
        "reserve" => HookCode {
            imports: &["Cycle", "Reserve", "Status"],
            doc: "Reserve/Unreserve: nothing to claim on the chosen node.",
            consts: &[],
            code: r#"/// Reserve, on the chosen node: a plugin that tracks capacity claims it
/// here and gives it back in `unreserve` (left as the default, a no-op).
impl Reserve for PLUGIN {
    fn reserve<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn reserve_succeeds() {
        let host = TestHost::new();
        host.set_node_name("a1");
        let mut plugin = PLUGIN::new();
        assert!(host.reserve(&mut plugin).is_success());
        host.unreserve(&mut plugin);
    }
"#,
        },
        "permit" => HookCode {
            imports: &["Cycle", "Permit", "PermitResult"],
            doc: "Permit: lets every pod through at once.",
            consts: &[],
            code: r#"/// Permit, before binding: allow at once (`PermitResult::wait(ms)` would
/// hold the pod, `PermitResult::reject` turn it away).
impl Permit for PLUGIN {
    fn permit<'a>(&'a mut self, _cx: &'a Cycle) -> PermitResult<'a> {
        PermitResult::allow()
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn permit_allows_at_once() {
        let host = TestHost::new();
        let (out, timeout_ms) = host.permit(&mut PLUGIN::new());
        assert!(out.is_success());
        assert_eq!(timeout_ms, 0);
    }
"#,
        },
        "prebind" => HookCode {
            imports: &["Cycle", "PreBind", "Status"],
            doc: "PreBind: nothing to prepare on the node.",
            consts: &[],
            code: r#"/// PreBind: the place to prepare the node (volumes, network) before the
/// pod is bound; nothing to do here.
impl PreBind for PLUGIN {
    fn pre_bind<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::success()
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn prebind_succeeds() {
        let host = TestHost::new();
        assert!(host.pre_bind(&mut PLUGIN::new()).is_success());
    }
"#,
        },
        "bind" => HookCode {
            imports: &["Cycle", "Bind", "Status"],
            doc: "Bind: skips, so the default binder binds the pod.",
            consts: &[],
            code: r#"/// Bind: `Skip` hands the pod to the next bind plugin (the default binder).
impl Bind for PLUGIN {
    fn bind<'a>(&'a mut self, _cx: &'a Cycle) -> Status<'a> {
        Status::skip()
    }
}
"#,
            test_imports: &[CODE, TEST_HOST],
            tests: r#"    #[test]
    fn bind_leaves_binding_to_the_default_binder() {
        let host = TestHost::new();
        assert_eq!(host.bind(&mut PLUGIN::new()).code(), Ok(Code::Skip));
    }
"#,
        },
        "postbind" => HookCode {
            imports: &["Cycle", "PostBind", "log"],
            doc: "PostBind: logs the node the pod was bound to.",
            consts: &[],
            code: r#"/// PostBind, after a successful bind: tell klog where the pod went.
impl PostBind for PLUGIN {
    fn post_bind(&mut self, cx: &Cycle) {
        let node = cx.node_name();
        log::logs(log::Severity::Info, "pod bound", &[("node", node)]);
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn postbind_logs_the_node() {
        let host = TestHost::new();
        host.set_node_name("a1");
        host.post_bind(&mut PLUGIN::new());
        let logs = host.logs();
        assert_eq!(logs.len(), 1);
        assert_eq!(logs[0].msg, "pod bound");
        assert_eq!(logs[0].kvs, [("node".to_string(), "a1".to_string())]);
    }
"#,
        },
        // "enqueue"
        _ => HookCode {
            imports: &[
                "ActionType",
                "ClusterEvent",
                "EnqueueExtensions",
                "Resource",
            ],
            doc: "EnqueueExtensions: retries rejected pods when nodes are added or relabelled.",
            consts: &[],
            code: r#"/// EnqueueExtensions: the events after which pods this plugin turned away
/// are worth retrying: a node is added or its labels change.
impl EnqueueExtensions for PLUGIN {
    fn events(&mut self) -> &[ClusterEvent] {
        const EVENTS: &[ClusterEvent] = &[ClusterEvent::new(
            Resource::NODE,
            ActionType::ADD.or(ActionType::UPDATE_NODE_LABEL),
        )];
        EVENTS
    }
}
"#,
            test_imports: &[TEST_HOST],
            tests: r#"    #[test]
    fn enqueue_names_node_events() {
        let host = TestHost::new();
        // (resource, action): Node = 1; Add = 1, UpdateNodeLabel = 8.
        assert_eq!(host.enqueue(&mut PLUGIN::new()), Some(vec![(1, 1 | 8)]));
    }
"#,
        },
    }
}

/// A `use` item as rustfmt writes it (one line, or wrapped at 100 columns).
fn use_line(indent: &str, path: &str, items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => format!("{indent}use {path}::{one};\n"),
        many => {
            let line = format!("{indent}use {path}::{{{}}};\n", many.join(", "));
            if line.len() <= 101 {
                return line;
            }
            let mut out = format!("{indent}use {path}::{{\n");
            let inner = format!("{indent}    ");
            let mut current = inner.clone();
            for item in many {
                let piece = format!("{item},");
                let sep = if current.len() == inner.len() {
                    ""
                } else {
                    " "
                };
                if current.len() + sep.len() + piece.len() > 100 {
                    out.push_str(current.trim_end());
                    out.push('\n');
                    current = inner.clone();
                    current.push_str(&piece);
                } else {
                    current.push_str(sep);
                    current.push_str(&piece);
                }
            }
            out.push_str(current.trim_end());
            out.push_str(&format!("\n{indent}}};\n"));
            out
        }
    }
}

/// Sorts `use` list items as rustfmt does (2024 style: by version-sort,
/// which for these names is ASCII order with `self`-like lowercase modules
/// after types).
fn sort_items(items: &mut Vec<&str>) {
    items.sort_unstable();
    items.dedup();
}

struct Template<'a> {
    name: &'a str,
    hooks: &'a [&'static str],
}

impl Template<'_> {
    fn lib_name(&self) -> String {
        self.name.replace('-', "_")
    }

    fn files(&self, dependency: &Dependency) -> Vec<(&'static str, String)> {
        vec![
            ("Cargo.toml", self.cargo_toml(dependency)),
            (".cargo/config.toml", CARGO_CONFIG.to_string()),
            ("rust-toolchain.toml", TOOLCHAIN.to_string()),
            (".gitignore", "/target\n".to_string()),
            ("src/lib.rs", self.lib_rs()),
            ("pod.yaml", POD_YAML.to_string()),
            ("nodes.yaml", NODES_YAML.to_string()),
            ("README.md", self.readme()),
        ]
    }

    fn cargo_toml(&self, dependency: &Dependency) -> String {
        format!(
            r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
rust-version = "1.95"
publish = false

[lib]
# cdylib: the plugin (.wasm); rlib: lets `cargo test` link the native tests.
crate-type = ["cdylib", "rlib"]

[dependencies]
{dependency}

# Its own workspace, even when created inside another one.
[workspace]

# The plugin build: `cargo wasm` (an alias in .cargo/config.toml) runs
# `cargo build --profile guest --target wasm32-unknown-unknown`.
[profile.guest]
inherits = "release"
opt-level = "z"
lto = true
codegen-units = 1
panic = "abort"
strip = true
debug = false

# The Kubernetes views are a big crate; without debug info `cargo test`
# builds it much faster.
[profile.dev.package.kguest-k8s]
debug = false
"#,
            name = self.name,
            dependency = dependency.line(),
        )
    }

    fn lib_rs(&self) -> String {
        let ty = type_name(self.name);
        let codes: Vec<HookCode> = self
            .hooks
            .iter()
            .filter(|h| **h != "removepod" || !self.hooks.contains(&"addpod"))
            .map(|h| hook_code(h))
            .collect();

        let mut out = format!(
            "//! {}: a kube-scheduler-wasm-extension plugin written with kguest.\n//!\n",
            self.name
        );
        for code in &codes {
            out.push_str(&format!("//! - {}\n", code.doc));
        }
        out.push_str(&format!(
            "//!\n//! `cargo wasm` builds the plugin (target/wasm32-unknown-unknown/guest/{}.wasm);\n//! `cargo test` runs the tests below natively against kguest's `TestHost`.\n\n",
            self.lib_name()
        ));
        out.push_str("#![cfg_attr(target_arch = \"wasm32\", no_std)]\n\n");

        let mut imports: Vec<&str> = vec!["Plugin"];
        imports.extend(codes.iter().flat_map(|c| c.imports.iter().copied()));
        sort_items(&mut imports);
        out.push_str(&use_line("", "kguest", &imports));
        out.push('\n');

        let mut consts: Vec<&str> = codes
            .iter()
            .flat_map(|c| c.consts.iter().copied())
            .collect();
        consts.dedup();
        for c in &consts {
            out.push_str(c);
            out.push('\n');
        }
        if !consts.is_empty() {
            out.push('\n');
        }

        out.push_str(&format!(
            "pub struct {ty};\n\nimpl Plugin for {ty} {{\n    fn new() -> Self {{\n        {ty}\n    }}\n}}\n"
        ));
        for code in &codes {
            out.push('\n');
            out.push_str(&code.code.replace("PLUGIN", &ty));
        }
        out.push_str(&format!(
            "\nkguest::export!({ty} => [{}]);\n",
            self.hooks.join(", ")
        ));

        out.push_str("\n#[cfg(test)]\nmod tests {\n    use super::*;\n");
        let mut test_imports: Vec<&str> = codes
            .iter()
            .flat_map(|c| c.test_imports.iter().copied())
            .collect();
        sort_items(&mut test_imports);
        let mut grouped: Vec<(&str, Vec<&str>)> = Vec::new();
        for item in test_imports {
            let (path, name) = item.rsplit_once("::").unwrap_or(("", item));
            match grouped.iter_mut().find(|(p, _)| *p == path) {
                Some((_, names)) => names.push(name),
                None => grouped.push((path, vec![name])),
            }
        }
        for (path, names) in &grouped {
            out.push_str(&use_line("    ", path, names));
        }
        for code in &codes {
            out.push('\n');
            out.push_str(&code.tests.replace("PLUGIN", &ty));
        }
        out.push_str("}\n");
        out
    }

    fn readme(&self) -> String {
        let lib = self.lib_name();
        let wasm = format!("target/wasm32-unknown-unknown/guest/{lib}.wasm");
        let hooks = self.hooks.join(", ");
        format!(
            r#"# {name}

A [kube-scheduler-wasm-extension] plugin (hooks: {hooks}), written with
[kguest](https://github.com/kguest/kguest). `src/lib.rs` says what each hook
does; replace the examples with your own logic.

## Build and test

```sh
cargo test          # native tests against kguest::testing::TestHost
cargo wasm          # the plugin: {wasm}
```

`cargo wasm` is an alias (`.cargo/config.toml`) for
`cargo build --profile guest --target wasm32-unknown-unknown`; the `guest`
profile in `Cargo.toml` optimizes for size. `rust-toolchain.toml` makes
rustup install the wasm32 target on first use.

## Try it on objects

```sh
kguest run {wasm} --pod pod.yaml --nodes nodes.yaml
```

runs one scheduling cycle through kguest's wasmtime host, in the
scheduler's order (PreFilter, Filter per node, PreScore and Score on the
nodes that passed) and prints each node's outcome. `pod.yaml` and
`nodes.yaml` are samples; for your cluster's objects:

```sh
kubectl get pod NAME -o yaml > pod.yaml
kubectl get nodes -o yaml > nodes.yaml
```

`--config FILE` passes the plugin configuration (`guestConfig`), `--json`
prints JSON lines, `--timing` the time per call.

## Check it

```sh
kguest check {wasm}
CARGO_PROFILE_GUEST_STRIP=false cargo wasm && kguest check --strict {wasm}
```

`kguest check` reads the module's imports, exports and hook set against the
kube-scheduler-wasm-extension ABI and exits 1 on a violation. With the
`name` section kept (`strip = false`) it also lists panic and `core::fmt`
code and the functions that pull it in: a plugin that avoids them stays a
few KB (prefer byte scans and `get` to slicing, indexing and `unwrap`).

## Deploy

kube-scheduler-wasm-extension runs inside a kube-scheduler built with its
plugin. Put the `.wasm` where the scheduler can read it (a hostPath, a
ConfigMap: a few KB fit easily under its 1 MiB limit, or an https URL) and
enable it in the scheduler configuration:

```yaml
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {name}
  plugins:
    multiPoint:
      enabled:
      - name: {name}
  pluginConfig:
  - name: {name}
    args:
      guestURL: file:///etc/kubernetes/wasm/{lib}.wasm
      guestConfig: ""
```

The full walk-through: [docs/deploy.md]({deploy}).

[kube-scheduler-wasm-extension]: https://github.com/kubernetes-sigs/kube-scheduler-wasm-extension
"#,
            name = self.name,
            deploy = DEPLOY_DOC,
        )
    }
}

const CARGO_CONFIG: &str = r#"[alias]
# `cargo wasm`: the plugin, target/wasm32-unknown-unknown/guest/<name>.wasm.
wasm = "build --profile guest --target wasm32-unknown-unknown"
"#;

const TOOLCHAIN: &str = r#"# rustup installs the wasm target the plugin builds for on first use.
[toolchain]
channel = "stable"
targets = ["wasm32-unknown-unknown"]
"#;

const POD_YAML: &str = r#"# A sample pod: it asks for zone-a through the example.kguest.dev/zone label.
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: default
  labels:
    app: web
    example.kguest.dev/zone: zone-a
spec:
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests: {cpu: 250m, memory: 256Mi}
"#;

const NODES_YAML: &str = r#"# Three sample nodes in two zones, with different amounts of memory.
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a1
    labels: {kubernetes.io/hostname: node-a1, topology.kubernetes.io/zone: zone-a}
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a2
    labels: {kubernetes.io/hostname: node-a2, topology.kubernetes.io/zone: zone-a}
  status:
    allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-b1
    labels: {kubernetes.io/hostname: node-b1, topology.kubernetes.io/zone: zone-b}
  status:
    allocatable: {cpu: "32", memory: 128Gi, pods: "110"}
"#;

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

    #[test]
    fn use_lines_wrap_like_rustfmt() {
        assert_eq!(use_line("", "kguest", &["Plugin"]), "use kguest::Plugin;\n");
        assert_eq!(
            use_line("", "kguest", &["Cycle", "Plugin"]),
            "use kguest::{Cycle, Plugin};\n"
        );
        let long: Vec<&str> = hook_names().collect();
        let wrapped = use_line("", "kguest", &long);
        assert!(wrapped.starts_with("use kguest::{\n    enqueue, prefilter,"));
        assert!(wrapped.lines().all(|l| l.len() <= 100));
        assert!(wrapped.ends_with("postbind,\n};\n"));
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
