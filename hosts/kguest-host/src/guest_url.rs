//! Reading a guest named by a URL, as kube-scheduler-wasm-extension's
//! `guestURL` names it: `file://PATH` (the rest of the URL is the path, so
//! `file://../plugin.wasm` is relative to the working directory),
//! `http://HOST[:PORT]/PATH` or `https://HOST[:PORT]/PATH`. Errors read as
//! KSW's do (`invalid URL: ..`, `unsupported URL scheme: ..`,
//! `parse "..": ..`, `received 404 status code from ".."`).
//!
//! The HTTP client is [ureq] over [rustls] with the `ring` crypto provider.
//! Redirects are followed here (up to 10, as Go's client does), gzip-encoded
//! bodies are decoded, each connect, read and write waits at most
//! [`TIMEOUT`] and the guest is at most [`MAX_BYTES`].
//!
//! **CA roots.** `https` trusts the platform's certificate store, read by
//! `rustls-native-certs` once per process on the first http(s) fetch: as Go
//! (and so KSW in kube-scheduler) trusts the system roots, a cluster's own
//! CA installed in the image works for both, and `SSL_CERT_FILE` /
//! `SSL_CERT_DIR` replace the store's locations as OpenSSL reads them (a
//! bundled Mozilla list, `webpki-roots`, would ignore both). A host adds
//! roots of its own with [`Fetcher::add_roots_pem`] (the tests add a CA they
//! generate).
//!
//! **Proxies** are chosen per request as Go's `http.ProxyFromEnvironment`
//! chooses them: `HTTPS_PROXY` for `https` URLs, `HTTP_PROXY` for `http`
//! (either spelling, upper case first; an address without a scheme is
//! `http://`; `http`, `https`, `socks5` and `socks5h` proxies), never for
//! `localhost` or a loopback address, and not for a host `NO_PROXY` names
//! (`*`; `example.com` for it and its subdomains; `.example.com` or
//! `*.example.com` for the subdomains only; an IP address or a CIDR range;
//! any of these with `:PORT`). Unlike Go, an `http` URL goes through an
//! HTTP proxy as a `CONNECT` tunnel (ureq's way), not as a proxied `GET`.

use std::fmt;
use std::io::{self, Read};
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

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
    /// Opening a `file://` path failed.
    Open { path: String, source: io::Error },
    /// Reading a `file://` path failed (e.g. it is a directory).
    Read { path: String, source: io::Error },
    /// The file or response is over [`MAX_BYTES`].
    TooLarge { url: String },
    /// Connecting (through a proxy, if any), the TLS handshake, sending or
    /// receiving failed.
    Http { url: String, source: io::Error },
    /// The server's answer is not what a GET expects (a bad gzip body, a
    /// redirect loop).
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

/// The bytes `url` names (see the module docs), with the platform's CA
/// roots and the proxies of the process environment.
pub fn fetch(url: &str) -> Result<Vec<u8>, FetchError> {
    Fetcher::new().fetch(url)
}

/// How guest URLs are read: the CA roots `https` trusts and the proxy
/// settings. [`fetch`] is `Fetcher::new().fetch(url)`.
#[derive(Clone, Debug)]
pub struct Fetcher {
    /// Trusted besides the platform's roots.
    extra_roots: Vec<Certificate<'static>>,
    proxies: ProxyVars,
}

impl Default for Fetcher {
    fn default() -> Self {
        Fetcher::new()
    }
}

impl Fetcher {
    /// The platform's CA roots; the proxy variables of the process
    /// environment as they are now.
    pub fn new() -> Fetcher {
        Fetcher {
            extra_roots: Vec::new(),
            proxies: ProxyVars::read(|name| std::env::var(name).ok()),
        }
    }

    /// Reads `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (and their lower
    /// case spellings) through `var` instead of the process environment.
    pub fn with_proxy_vars(mut self, var: impl Fn(&str) -> Option<String>) -> Fetcher {
        self.proxies = ProxyVars::read(var);
        self
    }

    /// Also trusts the `CERTIFICATE`s of the PEM text `pem` as CA roots;
    /// returns how many it added. An error when `pem` has none or one does
    /// not decode.
    pub fn add_roots_pem(&mut self, pem: &[u8]) -> io::Result<usize> {
        let mut added = 0;
        for item in ureq::tls::parse_pem(pem) {
            match item {
                Ok(PemItem::Certificate(cert)) => {
                    self.extra_roots.push(cert);
                    added += 1;
                }
                Ok(_) => {}
                Err(err) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("CA certificates: {err}"),
                    ));
                }
            }
        }
        if added == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "CA certificates: no CERTIFICATE block in the PEM text",
            ));
        }
        Ok(added)
    }

    /// The bytes `url` names (see the module docs).
    pub fn fetch(&self, url: &str) -> Result<Vec<u8>, FetchError> {
        let Some((scheme, _)) = url.split_once(':') else {
            return Err(FetchError::NotUrl(url.to_string()));
        };
        match scheme {
            "file" => read_file(url.get(7..).unwrap_or("")),
            "http" | "https" => self.http_get(url),
            other => Err(FetchError::UnsupportedScheme(other.to_string())),
        }
    }

    fn http_get(&self, url: &str) -> Result<Vec<u8>, FetchError> {
        let agent = self.agent();
        let mut current = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let parsed = parse_http(&current)?;
            let mut response = self.request(&agent, &current, &parsed)?;
            match response.status().as_u16() {
                200 => return read_body(&current, &mut response),
                code @ (301 | 302 | 303 | 307 | 308) => {
                    let location = response
                        .headers()
                        .get("location")
                        .and_then(|l| l.to_str().ok());
                    let Some(location) = location else {
                        return Err(FetchError::Status { url: current, code });
                    };
                    current = resolve(&parsed, location)?;
                }
                code => return Err(FetchError::Status { url: current, code }),
            }
        }
        Err(FetchError::BadResponse {
            url: url.to_string(),
            why: format!("stopped after {MAX_REDIRECTS} redirects"),
        })
    }

    /// An agent that follows no redirect and takes every status as a
    /// response: both are decided in [`Fetcher::http_get`].
    fn agent(&self) -> ureq::Agent {
        let platform = platform_roots();
        let roots = if self.extra_roots.is_empty() {
            platform.clone()
        } else {
            let mut all = Vec::clone(platform);
            all.extend(self.extra_roots.iter().cloned());
            Arc::new(all)
        };
        let tls = TlsConfig::builder()
            .root_certs(RootCerts::Specific(roots))
            .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .build();
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent("kguest-host")
            .accept_encoding("gzip")
            // Chosen per request (`ProxyVars::for_url`), not ureq's own.
            .proxy(None)
            .tls_config(tls)
            .timeout_connect(Some(TIMEOUT))
            .timeout_per_read(Some(TIMEOUT))
            .timeout_per_write(Some(TIMEOUT))
            .build()
            .new_agent()
    }

    fn request(
        &self,
        agent: &ureq::Agent,
        url: &str,
        target: &HttpUrl<'_>,
    ) -> Result<ureq::http::Response<ureq::Body>, FetchError> {
        let failed = |source: io::Error| FetchError::Http {
            url: url.to_string(),
            source,
        };
        if target.https && platform_roots().is_empty() && self.extra_roots.is_empty() {
            return Err(failed(io::Error::new(
                io::ErrorKind::NotFound,
                "no CA certificates to verify the server with: none found in the platform's \
                 store (SSL_CERT_FILE or SSL_CERT_DIR name others)",
            )));
        }
        let proxy = match self.proxies.for_url(target) {
            Some(address) => Some(proxy(address).map_err(failed)?),
            None => None,
        };
        // Without the userinfo (never sent) and the fragment.
        let scheme = if target.https { "https" } else { "http" };
        let request_url = format!("{scheme}://{}{}", target.authority, target.target);
        agent
            .get(&request_url)
            .config()
            .proxy(proxy)
            .build()
            .call()
            .map_err(|err| failed(io_error(err)))
    }
}

/// `err` as an `io::Error`: the underlying one when it is I/O.
fn io_error(err: ureq::Error) -> io::Error {
    match err {
        ureq::Error::Io(err) => err,
        ureq::Error::Timeout(_) => io::Error::new(io::ErrorKind::TimedOut, err.to_string()),
        other => io::Error::other(other.to_string()),
    }
}

fn read_body(
    url: &str,
    response: &mut ureq::http::Response<ureq::Body>,
) -> Result<Vec<u8>, FetchError> {
    let gzip = response
        .headers()
        .get("content-encoding")
        .and_then(|e| e.to_str().ok())
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("gzip"));
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_BYTES)
        .read_to_vec()
        .map_err(|err| match err {
            ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                url: url.to_string(),
            },
            err => FetchError::Http {
                url: url.to_string(),
                source: io_error(err),
            },
        })?;
    if gzip { gunzip(url, &body) } else { Ok(body) }
}

fn gunzip(url: &str, body: &[u8]) -> Result<Vec<u8>, FetchError> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
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

/// The platform's CA roots, read once (see the module docs); unreadable
/// entries are skipped.
fn platform_roots() -> &'static Arc<Vec<Certificate<'static>>> {
    static ROOTS: OnceLock<Arc<Vec<Certificate<'static>>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        Arc::new(
            found
                .certs
                .iter()
                .map(|der| Certificate::from_der(der.as_ref()).to_owned())
                .collect(),
        )
    })
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
    /// `host` or `host:port` as written, without userinfo.
    authority: &'a str,
    /// Without the brackets of an IPv6 address.
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

/// A redirect's `Location`: absolute (an `http(s)` URL), scheme-relative
/// (`//host/..`), or relative to the request's URL.
fn resolve(from: &HttpUrl<'_>, location: &str) -> Result<String, FetchError> {
    let scheme = if from.https { "https" } else { "http" };
    if let Some((s, rest)) = location.split_once(':').filter(|(s, _)| is_scheme(s)) {
        let s = s.to_ascii_lowercase();
        return match s.as_str() {
            "http" | "https" => Ok(format!("{s}:{rest}")),
            _ => Err(FetchError::UnsupportedScheme(s)),
        };
    }
    let path = from.target.split('?').next().unwrap_or("/");
    Ok(if location.starts_with("//") {
        format!("{scheme}:{location}")
    } else if location.starts_with('/') {
        format!("{scheme}://{}{location}", from.authority)
    } else if location.starts_with('?') {
        format!("{scheme}://{}{path}{location}", from.authority)
    } else {
        let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        format!("{scheme}://{}{dir}/{location}", from.authority)
    })
}

/// RFC 3986's `scheme`: a letter, then letters, digits, `+`, `-`, `.`.
fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// The proxy settings of the environment, as Go's `httpproxy.FromEnvironment`
/// reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ProxyVars {
    http: Option<String>,
    https: Option<String>,
    no_proxy: String,
}

impl ProxyVars {
    fn read(var: impl Fn(&str) -> Option<String>) -> ProxyVars {
        // The first set and non-empty of the spellings.
        let any = |names: [&str; 2]| {
            names
                .into_iter()
                .find_map(|name| var(name).filter(|v| !v.is_empty()))
        };
        ProxyVars {
            http: any(["HTTP_PROXY", "http_proxy"]),
            https: any(["HTTPS_PROXY", "https_proxy"]),
            no_proxy: any(["NO_PROXY", "no_proxy"]).unwrap_or_default(),
        }
    }

    /// The proxy address for a request to `url`; `None` to connect directly.
    fn for_url(&self, url: &HttpUrl<'_>) -> Option<&str> {
        let proxy = if url.https { &self.https } else { &self.http };
        let proxy = proxy.as_deref()?;
        (!bypasses(&self.no_proxy, url.host, url.port)).then_some(proxy)
    }
}

/// The proxy a `*_PROXY` value names: `http://` when it has no scheme.
fn proxy(address: &str) -> io::Result<ureq::Proxy> {
    let invalid = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid proxy address {address:?}: {why}"),
        )
    };
    let with_scheme = if address.contains("://") {
        address.to_string()
    } else {
        format!("http://{address}")
    };
    let scheme = with_scheme.split_once("://").map_or("", |(s, _)| s);
    if !matches!(
        scheme.to_ascii_lowercase().as_str(),
        "http" | "https" | "socks5" | "socks5h"
    ) {
        return Err(invalid(&format!("unsupported proxy scheme {scheme:?}")));
    }
    ureq::Proxy::new(&with_scheme).map_err(|err| invalid(&err.to_string()))
}

/// Whether a request to `host:port` goes direct: `localhost`, a loopback
/// address, or a host `no_proxy` names (Go's `useProxy`, negated).
fn bypasses(no_proxy: &str, host: &str, port: u16) -> bool {
    let host = host.to_ascii_lowercase();
    let ip: Option<IpAddr> = host.parse().ok();
    if host == "localhost" || ip.is_some_and(|ip| ip.to_canonical().is_loopback()) {
        return true;
    }
    let port = port.to_string();
    no_proxy.split(',').any(|entry| {
        let entry = entry.trim().to_ascii_lowercase();
        if entry.is_empty() {
            return false;
        }
        if entry == "*" {
            return true;
        }
        if let Some(range) = Cidr::parse(&entry) {
            return ip.is_some_and(|ip| range.contains(ip));
        }
        let (entry_host, entry_port) = split_entry(&entry);
        if entry_host.is_empty() {
            return false;
        }
        let port_matches = entry_port.is_none_or(|p| p == port);
        if let Ok(entry_ip) = entry_host.parse::<IpAddr>() {
            return ip == Some(entry_ip) && port_matches;
        }
        // `example.com` matches it and its subdomains; `.example.com` and
        // `*.example.com` the subdomains only.
        let (suffix, or_itself) = match entry_host.strip_prefix('*') {
            Some(rest) if rest.starts_with('.') => (rest.to_string(), false),
            _ if entry_host.starts_with('.') => (entry_host.to_string(), false),
            _ => (format!(".{entry_host}"), true),
        };
        (host.ends_with(&suffix) || (or_itself && host == suffix[1..])) && port_matches
    })
}

/// A `NO_PROXY` entry's host and port: `host:port`, `[v6]:port`, or a host
/// (an IPv6 address without brackets has no port).
fn split_entry(entry: &str) -> (&str, Option<&str>) {
    if let Some(v6) = entry.strip_prefix('[') {
        return match v6.split_once("]:") {
            Some((host, port)) => (host, Some(port)),
            None => (v6.strip_suffix(']').unwrap_or(v6), None),
        };
    }
    match entry.split_once(':') {
        Some((host, port)) if !port.contains(':') => (host, Some(port)),
        _ => (entry, None),
    }
}

/// An address range, `ADDRESS/BITS`.
struct Cidr {
    net: IpAddr,
    bits: u32,
}

impl Cidr {
    fn parse(entry: &str) -> Option<Cidr> {
        let (net, bits) = entry.split_once('/')?;
        let net: IpAddr = net.parse().ok()?;
        let bits: u32 = bits.parse().ok()?;
        let width = if net.is_ipv4() { 32 } else { 128 };
        (bits <= width).then_some(Cidr { net, bits })
    }

    fn contains(&self, ip: IpAddr) -> bool {
        let (net, ip, width) = match (self.net, ip) {
            (IpAddr::V4(n), IpAddr::V4(i)) => {
                (u128::from(u32::from(n)), u128::from(u32::from(i)), 32)
            }
            (IpAddr::V6(n), IpAddr::V6(i)) => (u128::from(n), u128::from(i), 128),
            _ => return false,
        };
        let shift = width - self.bits;
        shift >= width || (net >> shift) == (ip >> shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_urls() {
        let u = parse_http("http://user@example.com:8080/a/b.wasm?x=1#frag").unwrap();
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
    fn refuses_other_schemes_with_reasons() {
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
        let from = parse_http("http://h:1/dir/a.wasm?v=1").unwrap();
        let to = |l: &str| resolve(&from, l).unwrap();
        assert_eq!(to("/b.wasm"), "http://h:1/b.wasm");
        assert_eq!(to("c.wasm"), "http://h:1/dir/c.wasm");
        assert_eq!(to("?v=2"), "http://h:1/dir/a.wasm?v=2");
        assert_eq!(to("http://o/d"), "http://o/d");
        assert_eq!(to("HTTPS://o/d"), "https://o/d");
        assert_eq!(to("//o:2/e"), "http://o:2/e");
        let from = parse_http("https://s/x/y").unwrap();
        assert_eq!(resolve(&from, "z").unwrap(), "https://s/x/z");
        assert_eq!(resolve(&from, "//t/u").unwrap(), "https://t/u");
        assert_eq!(
            resolve(&from, "ftp://t/u").unwrap_err().to_string(),
            "unsupported URL scheme: ftp"
        );
    }

    #[test]
    fn reads_proxy_variables_as_go_does() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            ProxyVars::read(move |name| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            })
        };
        let vars = env(&[
            ("HTTP_PROXY", ""),
            ("http_proxy", "lower:1"),
            ("HTTPS_PROXY", "upper:2"),
            ("https_proxy", "lower:2"),
            ("no_proxy", "skip.me"),
        ]);
        assert_eq!(
            vars,
            ProxyVars {
                http: Some("lower:1".into()),
                https: Some("upper:2".into()),
                no_proxy: "skip.me".into(),
            }
        );
        let url = |u: &'static str| parse_http(u).unwrap();
        assert_eq!(vars.for_url(&url("http://a.b/x")), Some("lower:1"));
        assert_eq!(vars.for_url(&url("https://a.b/x")), Some("upper:2"));
        assert_eq!(vars.for_url(&url("https://x.skip.me/x")), None);
        assert_eq!(vars.for_url(&url("http://127.0.0.1:9/x")), None);
        assert_eq!(vars.for_url(&url("http://LocalHost/x")), None);
        assert_eq!(vars.for_url(&url("http://[::1]:9/x")), None);
        assert_eq!(env(&[]).for_url(&url("https://a.b/x")), None);
    }

    #[test]
    fn no_proxy_entries_match_as_go_matches_them() {
        let direct = |no_proxy: &str, host: &str, port: u16| bypasses(no_proxy, host, port);
        // A domain matches itself and its subdomains.
        assert!(direct("example.com", "example.com", 80));
        assert!(direct(" Example.COM ", "a.b.example.com", 80));
        assert!(!direct("example.com", "badexample.com", 80));
        // A leading `.` or `*.`: the subdomains only.
        for entry in [".example.com", "*.example.com"] {
            assert!(direct(entry, "a.example.com", 80), "{entry}");
            assert!(!direct(entry, "example.com", 80), "{entry}");
        }
        // Ports.
        assert!(direct("example.com:8080", "example.com", 8080));
        assert!(!direct("example.com:8080", "example.com", 80));
        assert!(direct("10.1.2.3:443", "10.1.2.3", 443));
        assert!(!direct("10.1.2.3:443", "10.1.2.3", 80));
        assert!(direct("[2001:db8::1]:443", "2001:db8::1", 443));
        assert!(direct("2001:db8::1", "2001:db8::1", 80));
        // Addresses and ranges.
        assert!(direct("10.0.0.0/8", "10.200.0.1", 80));
        assert!(!direct("10.0.0.0/8", "11.0.0.1", 80));
        assert!(direct("2001:db8::/32", "2001:db8:1::5", 80));
        assert!(!direct("2001:db8::/32", "10.0.0.1", 80));
        assert!(direct("0.0.0.0/0", "192.0.2.7", 80));
        // Lists, `*`, empty entries, and what is never proxied.
        assert!(direct("a.test,,b.test", "b.test", 80));
        assert!(direct("*", "anything", 80));
        assert!(!direct("", "example.com", 80));
        assert!(!direct(":80", "example.com", 80));
        assert!(direct("", "localhost", 80));
        assert!(direct("", "127.9.9.9", 80));
        assert!(direct("", "::ffff:127.0.0.1", 80));
    }

    #[test]
    fn proxy_addresses() {
        assert_eq!(proxy("proxy:3128").unwrap().host(), "proxy");
        assert_eq!(proxy("proxy:3128").unwrap().port(), 3128);
        assert_eq!(
            proxy("socks5://s:1080").unwrap().protocol(),
            ureq::ProxyProtocol::Socks5
        );
        assert_eq!(
            proxy("ftp://p:21").unwrap_err().to_string(),
            r#"invalid proxy address "ftp://p:21": unsupported proxy scheme "ftp""#
        );
    }

    #[test]
    fn added_roots_must_be_certificates() {
        let mut fetcher = Fetcher::new();
        let err = fetcher.add_roots_pem(b"not pem").unwrap_err();
        assert_eq!(
            err.to_string(),
            "CA certificates: no CERTIFICATE block in the PEM text"
        );
    }
}
