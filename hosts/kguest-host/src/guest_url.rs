//! Reading a guest named by a URL, as kube-scheduler-wasm-extension's
//! `guestURL` names it: `file://PATH` (the rest of the URL is the path, so
//! `file://../plugin.wasm` is relative to the working directory) or
//! `http://HOST[:PORT]/PATH`. Errors read as KSW's do (`invalid URL: ..`,
//! `unsupported URL scheme: ..`, `received 404 status code from ".."`).
//!
//! The HTTP client is a small HTTP/1.1 GET over `std::net`: redirects are
//! followed (up to 10, as Go's client does), chunked and gzip-encoded bodies
//! are decoded, every wait is bounded by [`TIMEOUT`] and the body by
//! [`MAX_BYTES`]. `https://` URLs are parsed, then refused: kguest-host
//! links no TLS client (fetch the file yourself and use `file://`).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Connect, read and write timeout of each HTTP request.
pub const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest guest (or HTTP response) read: 256 MiB.
pub const MAX_BYTES: u64 = 256 << 20;
/// Redirects followed before giving up (Go's client stops after 10).
const MAX_REDIRECTS: usize = 10;

/// Why a guest URL could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum FetchError {
    /// No `scheme:` at all.
    NotUrl(String),
    /// A scheme other than `file`, `http` and `https`.
    UnsupportedScheme(String),
    /// An `http(s)` URL that does not parse, with what is wrong.
    Parse { url: String, why: String },
    /// An `https` URL: no TLS client is built in.
    Https(String),
    /// Opening a `file://` path failed.
    Open { path: String, source: io::Error },
    /// Reading a `file://` path failed (e.g. it is a directory).
    Read { path: String, source: io::Error },
    /// The file or response is over [`MAX_BYTES`].
    TooLarge { url: String },
    /// Connecting, sending or receiving failed.
    Http { url: String, source: io::Error },
    /// The server's answer is not HTTP/1.x as expected.
    BadResponse { url: String, why: String },
    /// The final response's status was not 200.
    Status { url: String, code: u16 },
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::NotUrl(url) => write!(f, "invalid URL: {url}"),
            FetchError::UnsupportedScheme(s) => write!(f, "unsupported URL scheme: {s}"),
            FetchError::Parse { url, why } => write!(f, "parse {url:?}: {why}"),
            FetchError::Https(url) => write!(
                f,
                "{url}: https guest URLs are not supported (kguest-host has no TLS client); \
                 download the guest and use a file:// URL"
            ),
            FetchError::Open { path, source } => write!(f, "open {path}: {source}"),
            FetchError::Read { path, source } => write!(f, "read {path}: {source}"),
            FetchError::TooLarge { url } => {
                write!(f, "{url}: the guest is larger than {MAX_BYTES} bytes")
            }
            FetchError::Http { url, source } => write!(f, "get {url:?}: {source}"),
            FetchError::BadResponse { url, why } => write!(f, "get {url:?}: {why}"),
            FetchError::Status { url, code } => {
                write!(f, "received {code} status code from {url:?}")
            }
        }
    }
}

impl std::error::Error for FetchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FetchError::Open { source, .. }
            | FetchError::Read { source, .. }
            | FetchError::Http { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The bytes `url` names (see the module docs).
pub fn fetch(url: &str) -> Result<Vec<u8>, FetchError> {
    let Some((scheme, _)) = url.split_once(':') else {
        return Err(FetchError::NotUrl(url.to_string()));
    };
    match scheme {
        "file" => read_file(url.get(7..).unwrap_or("")),
        "http" | "https" => http_get(url),
        other => Err(FetchError::UnsupportedScheme(other.to_string())),
    }
}

fn read_file(path: &str) -> Result<Vec<u8>, FetchError> {
    let file = std::fs::File::open(path).map_err(|source| FetchError::Open {
        path: path.to_string(),
        source,
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| FetchError::Read {
            path: path.to_string(),
            source,
        })?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(FetchError::TooLarge {
            url: format!("file://{path}"),
        });
    }
    Ok(bytes)
}

/// An `http(s)` URL split into what a request needs.
#[derive(Debug, PartialEq, Eq)]
struct HttpUrl<'a> {
    https: bool,
    /// `host` or `host:port` as written (the `Host` header).
    authority: &'a str,
    host: &'a str,
    port: u16,
    /// Path and query, `/` when empty.
    target: &'a str,
}

fn parse_http(url: &str) -> Result<HttpUrl<'_>, FetchError> {
    let bad = |why: String| FetchError::Parse {
        url: url.to_string(),
        why,
    };
    let (https, rest) = if let Some(rest) = url.strip_prefix("http://") {
        (false, rest)
    } else if let Some(rest) = url.strip_prefix("https://") {
        (true, rest)
    } else {
        return Err(bad("missing \"//\" after the scheme".into()));
    };
    // The fragment never goes to the server.
    let rest = rest.split('#').next().unwrap_or("");
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, target) = rest.split_at(end);
    let target = match target {
        "" => "/",
        t if t.starts_with('?') => return Err(bad("a query needs a path".into())),
        t => t,
    };
    // Userinfo is not sent (no credentials in guest URLs).
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if let Some(c) = authority.chars().find(|&c| !valid_host_char(c)) {
        return Err(bad(format!(
            "invalid character {:?} in host name",
            c.to_string()
        )));
    }
    let (host, port) = split_port(authority).ok_or_else(|| bad("invalid port".into()))?;
    if host.is_empty() {
        return Err(bad("empty host".into()));
    }
    let port = match port {
        Some(p) => p,
        None if https => 443,
        None => 80,
    };
    Ok(HttpUrl {
        https,
        authority,
        host,
        port,
        target,
    })
}

/// Characters RFC 3986 allows in a host and port (as Go's `url.Parse`
/// checks them).
fn valid_host_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:[]%".contains(c)
}

/// `host[:port]` or `[v6][:port]`; `None` for a bad port.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        match after {
            "" => (host, None),
            p => (host, Some(p.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    match port {
        None | Some("") => Some((host, None)),
        Some(p) => Some((host, Some(p.parse().ok()?))),
    }
}

fn http_get(url: &str) -> Result<Vec<u8>, FetchError> {
    let mut current = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        let parsed = parse_http(&current)?;
        if parsed.https {
            return Err(FetchError::Https(current));
        }
        let response = request(&current, &parsed)?;
        match response.code {
            200 => return decode_body(&current, response),
            301 | 302 | 303 | 307 | 308 => {
                let Some(location) = response.header("location") else {
                    return Err(FetchError::Status {
                        url: current,
                        code: response.code,
                    });
                };
                current = resolve(&parsed, location);
            }
            code => return Err(FetchError::Status { url: current, code }),
        }
    }
    Err(FetchError::BadResponse {
        url: url.to_string(),
        why: format!("stopped after {MAX_REDIRECTS} redirects"),
    })
}

/// A redirect's `Location`, absolute or relative to the request's origin.
fn resolve(from: &HttpUrl<'_>, location: &str) -> String {
    if location.contains("://") {
        location.to_string()
    } else if location.starts_with('/') {
        format!("http://{}{location}", from.authority)
    } else {
        let dir = from.target.rsplit_once('/').map_or("", |(dir, _)| dir);
        format!("http://{}{dir}/{location}", from.authority)
    }
}

struct Response {
    code: u16,
    /// Lower-cased names.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn request(url: &str, target: &HttpUrl<'_>) -> Result<Response, FetchError> {
    let io = |source: io::Error| FetchError::Http {
        url: url.to_string(),
        source,
    };
    let addrs = (target.host.trim_matches(['[', ']']), target.port)
        .to_socket_addrs()
        .map_err(io)?;
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address for the host");
    let mut stream = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(err) => last = err,
        }
    }
    let mut stream = stream.ok_or_else(|| io(last))?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    let head = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: kguest-host\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        target.target, target.authority
    );
    stream.write_all(head.as_bytes()).map_err(io)?;
    // `Connection: close`: the response ends where the stream does.
    let mut raw = Vec::new();
    stream
        .take(MAX_BYTES + 64 * 1024)
        .read_to_end(&mut raw)
        .map_err(io)?;
    if raw.len() as u64 > MAX_BYTES + 64 * 1024 - 1 {
        return Err(FetchError::TooLarge {
            url: url.to_string(),
        });
    }
    parse_response(url, raw)
}

fn parse_response(url: &str, raw: Vec<u8>) -> Result<Response, FetchError> {
    let bad = |why: &str| FetchError::BadResponse {
        url: url.to_string(),
        why: why.to_string(),
    };
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("the response ends inside its headers"))?;
    let head = std::str::from_utf8(&raw[..head_end]).map_err(|_| bad("headers are not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or("");
    let code = status
        .strip_prefix("HTTP/1.")
        .and_then(|s| s.get(2..5))
        .and_then(|c| c.parse::<u16>().ok())
        .ok_or_else(|| bad("not an HTTP/1.x status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_ascii_lowercase(), value.trim().to_string()))
        })
        .collect();
    let mut response = Response {
        code,
        headers,
        body: Vec::new(),
    };
    let body = &raw[head_end + 4..];
    let chunked = response
        .header("transfer-encoding")
        .is_some_and(|te| te.eq_ignore_ascii_case("chunked"));
    response.body = if chunked {
        dechunk(body).ok_or_else(|| bad("malformed chunked body"))?
    } else if let Some(len) = response.header("content-length") {
        let len: usize = len.parse().map_err(|_| bad("bad Content-Length"))?;
        body.get(..len)
            .ok_or_else(|| bad("the body is shorter than its Content-Length"))?
            .to_vec()
    } else {
        body.to_vec()
    };
    Ok(response)
}

fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size_text = size_text.split(';').next()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size..)?.strip_prefix(b"\r\n")?;
    }
}

fn decode_body(url: &str, response: Response) -> Result<Vec<u8>, FetchError> {
    let gzip = response
        .header("content-encoding")
        .is_some_and(|e| e.eq_ignore_ascii_case("gzip"));
    if !gzip {
        return Ok(response.body);
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&response.body[..])
        .take(MAX_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|err| FetchError::BadResponse {
            url: url.to_string(),
            why: format!("gzip body: {err}"),
        })?;
    if out.len() as u64 > MAX_BYTES {
        return Err(FetchError::TooLarge {
            url: url.to_string(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_urls() {
        let u = parse_http("http://example.com:8080/a/b.wasm?x=1#frag").unwrap();
        assert_eq!(
            u,
            HttpUrl {
                https: false,
                authority: "example.com:8080",
                host: "example.com",
                port: 8080,
                target: "/a/b.wasm?x=1",
            }
        );
        let u = parse_http("https://[::1]/g.wasm").unwrap();
        assert_eq!((u.host, u.port, u.https), ("::1", 443, true));
        assert_eq!(parse_http("http://h").unwrap().target, "/");
        assert_eq!(
            parse_http("http:// ").unwrap_err().to_string(),
            r#"parse "http:// ": invalid character " " in host name"#
        );
        for bad in ["http://h:99999/", "http://h:x/", "http:///p", "http:h"] {
            assert!(parse_http(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn reads_chunked_and_sized_responses() {
        let r = parse_response(
            "u",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"
                .to_vec(),
        )
        .unwrap();
        assert_eq!((r.code, &r.body[..]), (200, &b"abcde"[..]));
        let r = parse_response(
            "u",
            b"HTTP/1.0 404 Not Found\r\ncontent-length: 2\r\n\r\nnot".to_vec(),
        )
        .unwrap();
        assert_eq!((r.code, &r.body[..]), (404, &b"no"[..]));
        for bad in [
            &b"HTTP/1.1 200 OK\r\n"[..],
            b"SPDY 200\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ] {
            assert!(parse_response("u", bad.to_vec()).is_err());
        }
    }

    #[test]
    fn refuses_https_and_other_schemes_with_reasons() {
        let err = fetch("https://example.com/p.wasm").unwrap_err();
        assert!(matches!(err, FetchError::Https(_)), "{err:?}");
        assert!(err.to_string().contains("use a file:// URL"), "{err}");
        assert_eq!(
            fetch("oci://ghcr.io/x").unwrap_err().to_string(),
            "unsupported URL scheme: oci"
        );
        assert_eq!(
            fetch("plugin.wasm").unwrap_err().to_string(),
            "invalid URL: plugin.wasm"
        );
    }

    #[test]
    fn resolves_redirects() {
        let from = parse_http("http://h:1/dir/a.wasm").unwrap();
        assert_eq!(resolve(&from, "/b.wasm"), "http://h:1/b.wasm");
        assert_eq!(resolve(&from, "c.wasm"), "http://h:1/dir/c.wasm");
        assert_eq!(resolve(&from, "http://o/d"), "http://o/d");
    }
}
