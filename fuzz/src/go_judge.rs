//! Kubernetes' Go marshallers as an oracle: the Go judge (`tests/go-judge`,
//! its `judge` command) kept running for the whole fuzzing session, asked
//! one object at a time over its stdin and stdout (a JSON request and a JSON
//! answer per line).
//!
//! The judge's path is `KGUEST_GO_JUDGE`; `cargo xtask fuzz` builds it and
//! sets it. Without it the target fails at its first input: a fuzz run
//! that cannot ask Go must not look like one that found nothing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

/// What Go made of one input.
#[derive(Debug)]
pub enum GoAnswer {
    /// Go decoded it: the object's own message bytes (`raw`, what the API
    /// server stores, without the envelope; `pb`, with it) and the API
    /// server's JSON text of the object Go decoded.
    Decoded {
        raw: Vec<u8>,
        pb: Vec<u8>,
        json: String,
    },
    /// Go's decoder refused it, with Go's message.
    Refused(String),
    /// Go decoded it but could not write (or read back) its own forms of
    /// it, so it has no answer to compare with (e.g. a time in the year -1,
    /// which Go writes but cannot read).
    NoAnswer(String),
}

struct Judge {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn judge() -> &'static Mutex<Judge> {
    static JUDGE: OnceLock<Mutex<Judge>> = OnceLock::new();
    JUDGE.get_or_init(|| {
        let path = std::env::var_os("KGUEST_GO_JUDGE").unwrap_or_else(|| {
            panic!(
                "KGUEST_GO_JUDGE is not set: run this target through `cargo xtask fuzz`, \
                 which builds the Go judge (tests/go-judge) and sets it"
            )
        });
        let mut child = Command::new(&path)
            .arg("judge")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|err| panic!("starting the Go judge {}: {err}", path.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Mutex::new(Judge {
            _child: child,
            stdin,
            stdout,
        })
    })
}

/// Asks Go to decode `data` as the API server's universal deserializer does
/// (`format`: `json`, `yaml` or `pb`; `strict` as `fieldValidation=Strict`).
pub fn ask(format: &str, data: &[u8], strict: bool) -> GoAnswer {
    let request = serde_json::json!({
        "id": "fuzz",
        "format": format,
        "data": kguest_json::base64(data),
        "strict": strict,
    });
    let mut judge = judge().lock().unwrap_or_else(|poison| poison.into_inner());
    let mut line = request.to_string();
    line.push('\n');
    judge
        .stdin
        .write_all(line.as_bytes())
        .and_then(|()| judge.stdin.flush())
        .unwrap_or_else(|err| panic!("writing to the Go judge: {err}"));
    let mut answer = String::new();
    match judge.stdout.read_line(&mut answer) {
        Ok(0) => panic!("the Go judge exited (see its stderr above)"),
        Ok(_) => {}
        Err(err) => panic!("reading the Go judge: {err}"),
    }
    let answer: Value = serde_json::from_str(&answer)
        .unwrap_or_else(|err| panic!("the Go judge's answer is not JSON ({err}): {answer}"));
    if let Some(error) = answer.get("error").and_then(Value::as_str) {
        return match answer.get("stage").and_then(Value::as_str) {
            Some("decode") => GoAnswer::Refused(error.to_string()),
            _ => GoAnswer::NoAnswer(error.to_string()),
        };
    }
    let bytes = |name: &str| {
        answer
            .get(name)
            .and_then(Value::as_str)
            .map_or(Some(Vec::new()), kguest_json::base64_decode)
            .unwrap_or_else(|| panic!("the Go judge's `{name}` is not base64: {answer}"))
    };
    let (raw, pb) = (bytes("raw"), bytes("pb"));
    let json = answer
        .get("json")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("the Go judge answered without `json`: {answer}"))
        .to_string();
    GoAnswer::Decoded { raw, pb, json }
}
