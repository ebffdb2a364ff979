//! `scheduler/plugin/wasm_test.go`: reading the guest from its `guestURL`
//! (`kguest_host::guest_url::fetch`), against a local HTTP server, and over
//! TLS against a local HTTPS server whose certificate a CA made here signs
//! (upstream's `https` subtests run the same handlers; the port serves them
//! over TLS and trusts that CA as `httptest`'s client trusts its server).
//! After the table, the proxy settings (`HTTP_PROXY`, `HTTPS_PROXY`,
//! `NO_PROXY`) against a small local CONNECT proxy.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use kguest_host::guest_url::{FetchError, Fetcher, fetch};

use super::{ksw_dir, wat_test};

const F: &str = "wasm_test.go";

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
    http_get_https_plain_wasm_binary =
        ported("Test_httpGet", "https/plain wasm binary", https_plain),
    http_get_https_compressed_payload =
        ported("Test_httpGet", "https/compressed payload", https_compressed),
    http_get_https_http_error = ported("Test_httpGet", "https/http error", https_error),
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

/// Upstream's handler of "plain wasm binary".
fn plain(_: &str) -> Vec<u8> {
    ok(SMALL_WASM, &[])
}

/// Upstream's handler of "compressed payload": gzip, named as such.
fn compressed() -> impl Fn(&str) -> Vec<u8> + Send + Sync + 'static {
    use flate2::write::GzEncoder;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(SMALL_WASM).unwrap();
    let body = gz.finish().unwrap();
    move |_| {
        ok(
            &body,
            &[
                ("Content-Type", "application/json"),
                ("Content-Encoding", "gzip"),
            ],
        )
    }
}

/// Upstream's handler of "http error".
fn server_error(_: &str) -> Vec<u8> {
    b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".to_vec()
}

fn expect_500(result: Result<Vec<u8>, FetchError>) {
    let err = result.expect_err("a 500 response");
    assert!(
        err.to_string().contains("received 500 status code"),
        "{err}"
    );
    assert!(
        matches!(err, FetchError::Status { code: 500, .. }),
        "{err:?}"
    );
}

fn http_plain() {
    assert_eq!(fetch(&serve(plain)).unwrap(), SMALL_WASM);
}

fn http_compressed() {
    assert_eq!(fetch(&serve(compressed())).unwrap(), SMALL_WASM);
}

fn http_error() {
    expect_500(fetch(&serve(server_error)));
}

fn https_plain() {
    let url = serve_tls(plain);
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    assert_eq!(trusting_test_ca().fetch(&url).unwrap(), SMALL_WASM);
}

fn https_compressed() {
    let url = serve_tls(compressed());
    assert_eq!(trusting_test_ca().fetch(&url).unwrap(), SMALL_WASM);
}

fn https_error() {
    expect_500(trusting_test_ca().fetch(&serve_tls(server_error)));
}

/// Without the test CA, the server's certificate is not trusted: the
/// handshake fails and says why.
#[test]
fn https_checks_the_server_certificate() {
    let url = serve_tls(plain);
    let err = no_proxies().fetch(&url).unwrap_err();
    assert!(matches!(err, FetchError::Http { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&format!("get {url:?}: ")), "{text}");
    assert!(text.contains("certificate"), "{text}");
    // Trusting the CA is what makes the same URL work.
    assert_eq!(trusting_test_ca().fetch(&url).unwrap(), SMALL_WASM);
}

/// A redirect from http to https is followed, onto the new scheme.
#[test]
fn redirects_to_https_are_followed() {
    let target = serve_tls(plain);
    let from = serve(move |_| {
        format!("HTTP/1.1 302 Found\r\nLocation: {target}/g.wasm\r\nContent-Length: 0\r\n\r\n")
            .into_bytes()
    });
    assert_eq!(trusting_test_ca().fetch(&from).unwrap(), SMALL_WASM);
}

/// A fetcher that reads no proxy variables.
fn no_proxies() -> Fetcher {
    Fetcher::new().with_proxy_vars(|_| None)
}

/// [`no_proxies`], trusting the test CA too.
fn trusting_test_ca() -> Fetcher {
    let mut fetcher = no_proxies();
    assert_eq!(
        fetcher.add_roots_pem(test_pki().ca_pem.as_bytes()).unwrap(),
        1
    );
    fetcher
}

/// A host name that never resolves (RFC 6761's `.invalid`); the test proxy
/// connects it to 127.0.0.1.
const PROXIED_HOST: &str = "kguest.invalid";

/// `HTTP_PROXY` names the proxy: an `http` URL goes through it (the host
/// resolves nowhere else).
#[test]
fn http_proxy_carries_http_urls() {
    let proxy = Proxy::start();
    let url = on_proxied_host(&serve(plain));
    let vars = [("HTTP_PROXY", proxy.address.clone())];
    assert_eq!(with_vars(&vars).fetch(&url).unwrap(), SMALL_WASM);
    assert_eq!(proxy.tunnels(), [authority(&url)]);
    // `HTTPS_PROXY` is for https URLs only: this one goes direct, and its
    // host does not resolve.
    let vars = [("HTTPS_PROXY", proxy.address.clone())];
    let err = with_vars(&vars).fetch(&url).unwrap_err();
    assert!(matches!(err, FetchError::Http { .. }), "{err:?}");
    assert_eq!(proxy.tunnels().len(), 1);
}

/// `HTTPS_PROXY` (lower case here) tunnels an https URL; TLS runs end to
/// end through the tunnel, checked against the test CA.
#[test]
fn https_proxy_carries_https_urls() {
    let proxy = Proxy::start();
    let url = on_proxied_host(&serve_tls(plain));
    let vars = [("https_proxy", proxy.address.clone())];
    let mut fetcher = with_vars(&vars);
    fetcher.add_roots_pem(test_pki().ca_pem.as_bytes()).unwrap();
    assert_eq!(fetcher.fetch(&url).unwrap(), SMALL_WASM);
    assert_eq!(proxy.tunnels(), [authority(&url)]);
}

/// A host `NO_PROXY` names goes direct: here that fails (the host resolves
/// nowhere), and the proxy sees nothing. Loopback addresses always go
/// direct.
#[test]
fn no_proxy_hosts_bypass_the_proxy() {
    let proxy = Proxy::start();
    let direct = serve(plain);
    let url = on_proxied_host(&direct);
    for no_proxy in [PROXIED_HOST, ".invalid", "*", "127.0.0.1,kguest.invalid"] {
        let vars = [
            ("HTTP_PROXY", proxy.address.clone()),
            ("NO_PROXY", no_proxy.to_string()),
        ];
        let err = with_vars(&vars).fetch(&url).unwrap_err();
        assert!(
            matches!(err, FetchError::Http { .. }),
            "{no_proxy}: {err:?}"
        );
    }
    let vars = [
        ("HTTP_PROXY", proxy.address.clone()),
        ("NO_PROXY", "other.invalid".to_string()),
    ];
    assert_eq!(with_vars(&vars).fetch(&url).unwrap(), SMALL_WASM);
    assert_eq!(proxy.tunnels(), [authority(&url)]);
    let vars = [("HTTP_PROXY", proxy.address.clone())];
    assert_eq!(with_vars(&vars).fetch(&direct).unwrap(), SMALL_WASM);
    assert_eq!(proxy.tunnels().len(), 1);
}

/// A proxy address of a scheme Go's client does not take is an error.
#[test]
fn bad_proxy_addresses_are_errors() {
    let vars = [("HTTP_PROXY", "ftp://127.0.0.1:1".to_string())];
    let err = with_vars(&vars)
        .fetch("http://kguest.invalid/g.wasm")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"get "http://kguest.invalid/g.wasm": invalid proxy address "ftp://127.0.0.1:1": unsupported proxy scheme "ftp""#
    );
}

/// A fetcher whose proxy variables are `vars`.
fn with_vars(vars: &[(&'static str, String)]) -> Fetcher {
    let vars = vars.to_vec();
    Fetcher::new().with_proxy_vars(move |name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    })
}

/// `url` (on 127.0.0.1) with [`PROXIED_HOST`] for its host.
fn on_proxied_host(url: &str) -> String {
    url.replace("127.0.0.1", PROXIED_HOST)
}

/// `HOST:PORT` of `scheme://HOST:PORT/..`.
fn authority(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    rest.split('/').next().unwrap().to_string()
}

/// A CONNECT proxy on a local port that tunnels to 127.0.0.1 whatever the
/// host asked for, and records each `CONNECT` target.
struct Proxy {
    /// `http://127.0.0.1:PORT`.
    address: String,
    tunnels: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let tunnels = Arc::new(Mutex::new(Vec::new()));
        let seen = tunnels.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let seen = seen.clone();
                std::thread::spawn(move || tunnel(client, &seen));
            }
        });
        Proxy { address, tunnels }
    }

    fn tunnels(&self) -> Vec<String> {
        self.tunnels.lock().unwrap().clone()
    }
}

fn tunnel(client: TcpStream, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let Some((request_line, _)) = read_head(&mut reader) else {
        return;
    };
    let mut client = client;
    let target = match request_line.split(' ').collect::<Vec<_>>()[..] {
        ["CONNECT", target, _] => target.to_string(),
        _ => {
            let _ =
                client.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
            return;
        }
    };
    seen.lock().unwrap().push(target.clone());
    let port = target.rsplit_once(':').map_or("80", |(_, p)| p);
    let Ok(mut upstream) = TcpStream::connect(format!("127.0.0.1:{port}")) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    // Both directions; `reader` first gives what it buffered past the head.
    let (mut up_read, mut client_write) =
        (upstream.try_clone().unwrap(), client.try_clone().unwrap());
    let back = std::thread::spawn(move || {
        let _ = std::io::copy(&mut up_read, &mut client_write);
        let _ = client_write.shutdown(std::net::Shutdown::Write);
    });
    let _ = std::io::copy(&mut reader, &mut upstream);
    let _ = upstream.shutdown(std::net::Shutdown::Write);
    let _ = back.join();
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
pub fn serve(respond: impl Fn(&str) -> Vec<u8> + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            answer(stream, &respond);
        }
    });
    url
}

/// [`serve`] over TLS (as `httptest.NewTLSServer`), with a certificate for
/// 127.0.0.1, `localhost` and [`PROXIED_HOST`] that the test CA signs.
pub fn serve_tls(respond: impl Fn(&str) -> Vec<u8> + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    let config = test_pki().server.clone();
    let respond = Arc::new(respond);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
                continue;
            };
            let respond = respond.clone();
            // Its own thread: a client that rejects the certificate leaves
            // the handshake half done.
            std::thread::spawn(move || {
                answer(rustls::StreamOwned::new(conn, stream), &*respond);
            });
        }
    });
    url
}

/// Reads one request's head from `stream` and writes `respond(path)`.
fn answer<S: Read + Write>(stream: S, respond: &dyn Fn(&str) -> Vec<u8>) {
    let mut reader = BufReader::new(stream);
    let Some((request_line, _)) = read_head(&mut reader) else {
        return;
    };
    let path = request_line.split(' ').nth(1).unwrap_or("/").to_string();
    let stream = reader.get_mut();
    let _ = stream.write_all(&respond(&path));
    let _ = stream.flush();
}

/// A request's first line and its other header lines, up to the blank line.
fn read_head(reader: &mut impl BufRead) -> Option<(String, Vec<String>)> {
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? <= 2 {
            break;
        }
        headers.push(line.trim_end().to_string());
    }
    Some((request_line.trim_end().to_string(), headers))
}

/// A CA made for this test run, and a server configuration whose
/// certificate it signs.
struct TestPki {
    ca_pem: String,
    server: Arc<rustls::ServerConfig>,
}

fn test_pki() -> &'static TestPki {
    static PKI: OnceLock<TestPki> = OnceLock::new();
    PKI.get_or_init(|| {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
        };
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "kguest-host test CA");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca, ca_key);
        let names = ["127.0.0.1", "localhost", PROXIED_HOST].map(String::from);
        let leaf = CertificateParams::new(names.to_vec()).unwrap();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
        let server = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf_cert.der().clone()], key)
        .unwrap();
        TestPki {
            ca_pem: ca_cert.pem(),
            server: Arc::new(server),
        }
    })
}
