//! `scheduler/plugin/wasm_test.go`: reading the guest from its `guestURL`
//! (`kguest_host::guest_url::fetch`), against a local HTTP server.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Component, Path, PathBuf};

use kguest_host::guest_url::{FetchError, fetch};

use super::{ksw_dir, wat_test};

const F: &str = "wasm_test.go";

/// Why the https cases are left out.
const HTTPS: &str = "kguest-host links no TLS client: https guest URLs are parsed, then refused \
                     with an error saying so";

cases!(
    F,
    get_url_relative_file_valid = ported("Test_getURL", "relative file valid", relative_file_valid),
    get_url_file_valid = ported("Test_getURL", "file valid", file_valid),
    get_url_not_url = ported("Test_getURL", "not url", not_url),
    get_url_http_invalid = ported("Test_getURL", "http invalid", http_invalid),
    get_url_https_invalid = ported("Test_getURL", "https invalid", https_invalid),
    get_url_http = ported("Test_getURL", "http", http),
    get_url_unsupported_scheme = ported("Test_getURL", "unsupported scheme", unsupported_scheme),
    get_url_file_not_found = ported("Test_getURL", "file not found", file_not_found),
    get_url_relative_dir_not_file = ported(
        "Test_getURL",
        "relative dir not file",
        relative_dir_not_file
    ),
    get_url_dir_not_file = ported("Test_getURL", "dir not file", dir_not_file),
    http_get_http_plain_wasm_binary = ported("Test_httpGet", "http/plain wasm binary", http_plain),
    http_get_http_compressed_payload =
        ported("Test_httpGet", "http/compressed payload", http_compressed),
    http_get_http_http_error = ported("Test_httpGet", "http/http error", http_error),
    http_get_https_plain_wasm_binary = left_out("Test_httpGet", "https/plain wasm binary", HTTPS),
    http_get_https_compressed_payload = left_out("Test_httpGet", "https/compressed payload", HTTPS),
    http_get_https_http_error = left_out("Test_httpGet", "https/http error", HTTPS),
);

fn all_noop() -> PathBuf {
    ksw_dir().join(wat_test("all_noop"))
}

fn all_noop_bytes() -> Vec<u8> {
    std::fs::read(all_noop()).unwrap()
}

/// A fresh directory under the system's temp dir.
fn temp_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kguest-ksw-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `path` relative to the working directory, through `..` as needed.
fn relative_to_cwd(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
    let path = path.canonicalize().unwrap();
    let (cwd_parts, path_parts): (Vec<Component<'_>>, Vec<Component<'_>>) =
        (cwd.components().collect(), path.components().collect());
    let common = cwd_parts
        .iter()
        .zip(&path_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut rel = PathBuf::new();
    for _ in common..cwd_parts.len() {
        rel.push("..");
    }
    for part in &path_parts[common..] {
        rel.push(part);
    }
    rel
}

fn expect_error(url: &str, contains: &str) -> FetchError {
    let err = fetch(url).expect_err(url);
    assert!(
        err.to_string().contains(contains),
        "{url}: expected {err} to contain {contains}"
    );
    err
}

fn relative_file_valid() {
    let rel = relative_to_cwd(&all_noop());
    assert!(rel.is_relative());
    let url = format!("file://{}", rel.display());
    assert_eq!(fetch(&url).unwrap(), all_noop_bytes());
}

fn file_valid() {
    let dir = temp_dir("file");
    let file = dir.join("all_noop.wasm");
    std::fs::write(&file, all_noop_bytes()).unwrap();
    assert_eq!(
        fetch(&format!("file://{}", file.display())).unwrap(),
        all_noop_bytes()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn not_url() {
    expect_error("http", "invalid URL: http");
}

fn http_invalid() {
    expect_error(
        "http:// ",
        r#"parse "http:// ": invalid character " " in host name"#,
    );
}

fn https_invalid() {
    expect_error(
        "https:// ",
        r#"parse "https:// ": invalid character " " in host name"#,
    );
}

fn http() {
    let body = all_noop_bytes();
    let url = serve(move |_| ok(&body, &[]));
    assert_eq!(fetch(&url).unwrap(), all_noop_bytes());
}

fn unsupported_scheme() {
    expect_error("ldap://foo/bar.wasm", "unsupported URL scheme: ldap");
}

fn file_not_found() {
    expect_error("file://testduta", "open testduta: ");
}

fn relative_dir_not_file() {
    expect_error("file://.", "read .: ");
}

fn dir_not_file() {
    let dir = temp_dir("dir");
    expect_error(
        &format!("file://{}", dir.display()),
        &format!("read {}: ", dir.display()),
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// `wasmMagicNumber` plus four zero bytes, as upstream's test serves.
const SMALL_WASM: &[u8] = &[0x00, 0x61, 0x73, 0x6d, 0, 0, 0, 0];

fn http_plain() {
    let url = serve(|_| ok(SMALL_WASM, &[]));
    assert_eq!(fetch(&url).unwrap(), SMALL_WASM);
}

fn http_compressed() {
    use flate2::write::GzEncoder;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(SMALL_WASM).unwrap();
    let body = gz.finish().unwrap();
    let url = serve(move |_| {
        ok(
            &body,
            &[
                ("Content-Type", "application/json"),
                ("Content-Encoding", "gzip"),
            ],
        )
    });
    assert_eq!(fetch(&url).unwrap(), SMALL_WASM);
}

fn http_error() {
    let url =
        serve(|_| b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".to_vec());
    let err = expect_error(&url, "received 500 status code");
    assert!(matches!(err, FetchError::Status { code: 500, .. }));
}

/// A 200 response with `body` and extra headers.
pub fn ok(body: &[u8], headers: &[(&str, &str)]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

/// Serves `respond(request path)` on a local port until the test binary
/// exits (as `httptest.NewServer`); returns the server's URL.
pub fn serve(respond: impl Fn(&str) -> Vec<u8> + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            // The rest of the head, up to the blank line.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request_line.split(' ').nth(1).unwrap_or("/").to_string();
            let _ = stream.write_all(&respond(&path));
        }
    });
    url
}
