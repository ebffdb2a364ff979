//! The ResourceList side: checking what goes in and what comes out,
//! JSON to YAML, `--config`, and kustomize's legacy exec plugin protocol.

use std::io::Write;
use std::time::Duration;

use serde_json::Value;

use crate::error::RunError;
use crate::run::{Limits, one_line, run};

/// How the function is called.
#[derive(Clone, Debug)]
pub enum Mode {
    /// The KRM function protocol: a ResourceList in, a ResourceList out.
    /// `config` (YAML or JSON) replaces the input's `functionConfig`.
    Function { config: Option<Vec<u8>> },
    /// kustomize's legacy exec plugin protocol: the input is a YAML stream
    /// of resources, `config` the plugin's own config; the output is the
    /// transformed stream.
    Legacy { config: Vec<u8> },
}

/// What to do with a finished run.
#[derive(Debug)]
pub struct Response {
    /// What to write on standard output (the whole of it; empty when the
    /// output was unusable).
    pub stdout: Vec<u8>,
    /// Set when the run failed (the command exits non-zero): why, on one line.
    pub failure: Option<String>,
    /// Warnings for standard error (legacy mode: the function's non-error
    /// results, which have nowhere else to go).
    pub notes: Vec<String>,
    pub compile: Duration,
    pub run: Duration,
    /// Time spent reading and checking the input and the output.
    pub checks: Duration,
}

/// Why nothing useful came of a run.
#[derive(Debug)]
pub enum KrmError {
    /// The input (or config) is not what the protocol needs.
    Input(String),
    /// The function could not run to completion.
    Run(RunError),
    /// The function's output is not a ResourceList.
    Output(String),
}

impl std::fmt::Display for KrmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KrmError::Input(m) => write!(f, "{m}"),
            KrmError::Run(e) => write!(f, "{e}"),
            KrmError::Output(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for KrmError {}

/// Runs KRM function `wasm` on `input`.
pub fn execute(
    wasm: &[u8],
    input: &[u8],
    mode: &Mode,
    limits: &Limits,
    stderr: Box<dyn Write + Send>,
) -> Result<Response, KrmError> {
    let started = std::time::Instant::now();
    let list = match mode {
        Mode::Function { config } => function_input(input, config.as_deref())?,
        Mode::Legacy { config } => legacy_input(input, config)?,
    };
    let input_checks = started.elapsed();
    let outcome = run(wasm, list, limits, stderr).map_err(KrmError::Run)?;
    let output_started = std::time::Instant::now();
    let exited = (outcome.exit_code != 0)
        .then(|| format!("the function exited with code {}", outcome.exit_code));
    if outcome.stdout.iter().all(u8::is_ascii_whitespace) {
        return Err(KrmError::Output(match exited {
            Some(e) => format!("{e} and wrote no output"),
            None => "the function wrote no output (a ResourceList was expected)".into(),
        }));
    }
    let (summary, yaml) = match read_list(&outcome.stdout) {
        Ok(v) => v,
        Err(e) => {
            return Err(KrmError::Output(match exited {
                Some(x) => format!("{x}; its output is not a ResourceList: {e}"),
                None => format!("the function's output is not a ResourceList: {e}"),
            }));
        }
    };
    let Summary {
        errors,
        notes,
        value,
    } = summary;
    // Every error result, on the one line: a validator's findings are the
    // point of running it.
    let all = errors.join("; ");
    let failure = match (exited, errors.len()) {
        (Some(x), 0) => Some(x),
        (Some(x), n) => Some(format!("{x}; {n} error result(s): {all}")),
        (None, 0) => None,
        (None, n) => Some(format!("the function reported {n} error result(s): {all}")),
    };
    let stdout = match mode {
        Mode::Function { .. } => yaml,
        Mode::Legacy { .. } if failure.is_some() => Vec::new(),
        Mode::Legacy { .. } => legacy_output(&yaml, value.as_ref())?,
    };
    Ok(Response {
        stdout,
        failure,
        notes: if matches!(mode, Mode::Legacy { .. }) {
            notes
        } else {
            Vec::new()
        },
        compile: outcome.compile,
        run: outcome.run,
        checks: input_checks + output_started.elapsed(),
    })
}

/// Parses YAML or JSON into a value.
fn parse(bytes: &[u8]) -> Result<(Value, bool), String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let json = text.trim_start().starts_with('{');
    let value = if json {
        serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?
    } else {
        serde_norway::from_str(text)
            .map_err(|e| format!("invalid YAML: {}", one_line(&e.to_string())))?
    };
    Ok((value, json))
}

/// Checks that `v` is a ResourceList whose items all have apiVersion and kind.
pub fn check_list(v: &Value) -> Result<(), String> {
    let Some(map) = v.as_object() else {
        return Err("not a ResourceList: not a mapping".into());
    };
    match map.get("kind").and_then(Value::as_str) {
        Some("ResourceList") => {}
        Some(k) => return Err(format!("not a ResourceList: kind is `{k}`")),
        None => return Err("not a ResourceList: no kind".into()),
    }
    match map.get("apiVersion").and_then(Value::as_str) {
        Some(a) if a.starts_with("config.kubernetes.io/") => {}
        Some(a) => {
            return Err(format!(
                "not a ResourceList: apiVersion `{a}` is not config.kubernetes.io/*"
            ));
        }
        None => return Err("not a ResourceList: no apiVersion".into()),
    }
    let items = match map.get("items") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("`items` is not a sequence".into()),
    };
    for (i, item) in items.iter().enumerate() {
        check_resource(item).map_err(|e| format!("item {i} {e}"))?;
    }
    Ok(())
}

fn check_resource(item: &Value) -> Result<(), String> {
    let Some(obj) = item.as_object() else {
        return Err("is not a mapping".into());
    };
    for key in ["apiVersion", "kind"] {
        match obj.get(key).and_then(Value::as_str) {
            Some(s) if !s.is_empty() => {}
            _ => return Err(format!("has no {key}")),
        }
    }
    Ok(())
}

/// What the host needs from a checked ResourceList.
struct Summary {
    /// The error results, as `Kind/name: message`.
    errors: Vec<String>,
    notes: Vec<String>,
    /// The list as a value, when it was read with serde (JSON, or YAML the
    /// comment-keeping reader does not take).
    value: Option<Value>,
}

/// A ResourceList read back: its summary and YAML text (JSON becomes YAML).
/// YAML goes through kguest-krm's reader (a tape of byte ranges, ~20×
/// faster than building a value); what it refuses, serde_norway decides.
fn read_list(bytes: &[u8]) -> Result<(Summary, Vec<u8>), String> {
    if !looks_like_json(bytes)
        && let Some(summary) = fast_summary(bytes)
    {
        return Ok((summary, bytes.to_vec()));
    }
    let (value, json) = parse(bytes)?;
    check_list(&value)?;
    let yaml = if json {
        to_yaml(&value)?
    } else {
        bytes.to_vec()
    };
    let (errors, notes) = results(&value);
    Ok((
        Summary {
            errors,
            notes,
            value: Some(value),
        },
        yaml,
    ))
}

fn looks_like_json(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

fn arena_for(len: usize) -> kguest_krm::Arena {
    kguest_krm::Arena::with_capacity(len.saturating_mul(48).saturating_add(1 << 20))
}

/// The summary of a YAML ResourceList the SDK's reader accepts (it checks
/// kind, apiVersion and every item's apiVersion and kind).
fn fast_summary(bytes: &[u8]) -> Option<Summary> {
    let arena = arena_for(bytes.len());
    let list = kguest_krm::ResourceList::parse(&arena, bytes).ok()?;
    let mut summary = Summary {
        errors: Vec::new(),
        notes: Vec::new(),
        value: None,
    };
    let results = list.root().get("results");
    for r in results.iter().flat_map(|r| r.iter()) {
        let text = |path: &[&str]| r.path(path).and_then(|n| n.as_str()).map(str::to_string);
        let message = text(&["message"]).unwrap_or_else(|| "(no message)".into());
        let severity = text(&["severity"]).unwrap_or_else(|| "error".into());
        let subject = match r.get("resourceRef") {
            Some(_) => format!(
                "{}/{}: ",
                text(&["resourceRef", "kind"]).unwrap_or_else(|| "?".into()),
                text(&["resourceRef", "name"]).unwrap_or_else(|| "?".into())
            ),
            None => String::new(),
        };
        note(&mut summary, &severity, subject, &message);
    }
    Some(summary)
}

fn note(summary: &mut Summary, severity: &str, subject: String, message: &str) {
    if severity == "error" {
        summary.errors.push(format!("{subject}{message}"));
    } else {
        summary
            .notes
            .push(format!("{severity}: {subject}{message}"));
    }
}

fn to_yaml(v: &Value) -> Result<Vec<u8>, String> {
    serde_norway::to_string(v)
        .map(String::into_bytes)
        .map_err(|e| format!("cannot write YAML: {e}"))
}

/// The error results (a result without severity is an error) and the
/// other results as notes.
fn results(v: &Value) -> (Vec<String>, Vec<String>) {
    let mut summary = Summary {
        errors: Vec::new(),
        notes: Vec::new(),
        value: None,
    };
    for r in v
        .get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let message = r
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)");
        let severity = r.get("severity").and_then(Value::as_str).unwrap_or("error");
        let subject = r
            .get("resourceRef")
            .map(|rr| {
                format!(
                    "{}/{}: ",
                    rr.get("kind").and_then(Value::as_str).unwrap_or("?"),
                    rr.get("name").and_then(Value::as_str).unwrap_or("?")
                )
            })
            .unwrap_or_default();
        note(&mut summary, severity, subject, message);
    }
    (summary.errors, summary.notes)
}

/// The input for the function protocol: checked, JSON turned into YAML,
/// `functionConfig` replaced by `config` (comments of the rest kept).
pub fn function_input(input: &[u8], config: Option<&[u8]>) -> Result<Vec<u8>, KrmError> {
    let fast = !looks_like_json(input) && fast_summary(input).is_some();
    let (mut value, text) = if fast {
        (None, input.to_vec())
    } else {
        let (value, json) = parse(input).map_err(|e| KrmError::Input(format!("input: {e}")))?;
        check_list(&value).map_err(|e| KrmError::Input(format!("input: {e}")))?;
        let text = if json {
            to_yaml(&value).map_err(KrmError::Input)?
        } else {
            input.to_vec()
        };
        (Some(value), text)
    };
    let Some(config) = config else {
        return Ok(text);
    };
    let (cfg, cfg_text) = config_text(config)?;
    let arena = arena_for(text.len() + cfg_text.len());
    match kguest_krm::set_in_text(
        &arena,
        &text,
        &["functionConfig"],
        kguest_krm::Value::Yaml(&cfg_text),
    ) {
        Ok(edited) => Ok(edited.to_vec()),
        Err(_) => {
            // Text the comment-keeping editor does not handle: write the
            // whole list again (comments are lost, content is not).
            let mut value = match value.take() {
                Some(v) => v,
                None => {
                    parse(&text)
                        .map_err(|e| KrmError::Input(format!("input: {e}")))?
                        .0
                }
            };
            if let Some(map) = value.as_object_mut() {
                map.insert("functionConfig".into(), cfg);
            }
            to_yaml(&value).map_err(KrmError::Input)
        }
    }
}

/// A config file as a value and as block YAML text at column 0.
fn config_text(config: &[u8]) -> Result<(Value, String), KrmError> {
    let (cfg, json) = parse(config).map_err(|e| KrmError::Input(format!("config: {e}")))?;
    if !cfg.is_object() {
        return Err(KrmError::Input("config: not a mapping".into()));
    }
    let text = if json {
        String::from_utf8(to_yaml(&cfg).map_err(KrmError::Input)?).unwrap_or_default()
    } else {
        let text = String::from_utf8_lossy(config).into_owned();
        // A `---` before the content would end up inside the list.
        let mut seen_content = false;
        text.lines()
            .filter(|l| {
                let marker = l.trim_end() == "---" || l.starts_with("--- ");
                let keep = seen_content || !marker;
                seen_content |= !(l.trim().is_empty() || l.trim_start().starts_with('#'));
                keep
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    Ok((cfg, text))
}

/// kustomize's legacy input (a YAML stream of resources) and the plugin's
/// config, as a ResourceList. The documents are moved in as text, so every
/// byte of each (the `kustomize.config.k8s.io/id` annotation included)
/// reaches the function unchanged.
pub fn legacy_input(stream: &[u8], config: &[u8]) -> Result<Vec<u8>, KrmError> {
    let text =
        std::str::from_utf8(stream).map_err(|_| KrmError::Input("input: not UTF-8".into()))?;
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    let mut count = 0;
    for (n, doc) in documents(text).into_iter().enumerate() {
        if doc
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            continue;
        }
        let value: Value = serde_norway::from_str(&doc).map_err(|e| {
            KrmError::Input(format!(
                "input document {}: invalid YAML: {}",
                n + 1,
                one_line(&e.to_string())
            ))
        })?;
        check_resource(&value)
            .map_err(|e| KrmError::Input(format!("input document {}: {e}", n + 1)))?;
        indent_into(&mut out, &doc, "- ");
        count += 1;
    }
    if count == 0 {
        out.truncate(out.len() - 1);
        out.push_str(" []\n");
    }
    let (_, cfg_text) = config_text(config)?;
    out.push_str("functionConfig:\n");
    indent_into(&mut out, &cfg_text, "  ");
    // The text was assembled from parts: make sure it reads back.
    let (value, _) = parse(out.as_bytes()).map_err(|e| KrmError::Input(format!("input: {e}")))?;
    check_list(&value).map_err(|e| KrmError::Input(format!("input: {e}")))?;
    Ok(out.into_bytes())
}

/// Appends `doc` with `first` before its first line and two spaces before
/// the others.
fn indent_into(out: &mut String, doc: &str, first: &str) {
    for (i, line) in doc.trim_end_matches('\n').split('\n').enumerate() {
        if i == 0 {
            out.push_str(first);
        } else if !line.trim().is_empty() {
            out.push_str("  ");
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// The documents of a YAML stream (split at `---` lines; `...` ends one).
fn documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.split_inclusive('\n') {
        let marker = |m: &str| {
            line.starts_with(m) && line[3..].chars().next().is_none_or(|c| c.is_whitespace())
        };
        if marker("---") {
            docs.push(String::new());
            let rest = line[3..].trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                let last = docs.len() - 1;
                docs[last].push_str(rest);
                docs[last].push('\n');
            }
        } else if marker("...") {
            docs.push(String::new());
        } else if let Some(last) = docs.last_mut() {
            last.push_str(line);
        }
    }
    docs
}

/// The items of the function's ResourceList as a YAML stream: each item's
/// text as the function wrote it, moved to column 0 (kustomize compares
/// what a validator returns with what it sent, styles included). Output
/// the comment-keeping reader cannot place is written again from `list`.
fn legacy_output(text: &[u8], list: Option<&Value>) -> Result<Vec<u8>, KrmError> {
    if let Some(stream) = items_as_text(text) {
        return Ok(stream.into_bytes());
    }
    let parsed;
    let list = match list {
        Some(v) => v,
        None => {
            parsed = parse(text).map_err(KrmError::Output)?.0;
            &parsed
        }
    };
    let mut out = String::new();
    for item in list
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if !out.is_empty() {
            out.push_str("---\n");
        }
        out.push_str(
            &serde_norway::to_string(item)
                .map_err(|e| KrmError::Output(format!("cannot write YAML: {e}")))?,
        );
    }
    Ok(out.into_bytes())
}

fn items_as_text(text: &[u8]) -> Option<String> {
    let arena = arena_for(text.len());
    let doc = kguest_krm::yaml::parse(&arena, text, 0).ok()?;
    let items = doc.root(&arena).get("items")?;
    if items.style() == kguest_krm::Style::FlowSeq {
        return None;
    }
    let text = std::str::from_utf8(text).ok()?;
    let mut out = String::new();
    for item in items.iter() {
        let (start, end) = item.span();
        let end = text[end as usize..]
            .find('\n')
            .map_or(text.len(), |i| end as usize + i);
        let body = text.get(start as usize..end)?;
        let col = item.column() as usize;
        if !out.is_empty() {
            out.push_str("---\n");
        }
        for (i, line) in body.split('\n').enumerate() {
            let line = if i == 0 {
                line
            } else {
                let spaces = line.len() - line.trim_start_matches(' ').len();
                &line[spaces.min(col)..]
            };
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(out)
}
