//! The extender as users run it: its own process on loopback, spoken to over
//! plain sockets (HTTP/1.1, with rustls for mTLS), with a fake API server
//! for the node cache's protobuf list and watch.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kguest_wire::encode::put_bytes;

pub fn plugin(name: &str) -> String {
    kguest_test_support::built::plugin(name)
        .display()
        .to_string()
}

/// A scratch directory for this test.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kguest-extender-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running `kguest-extender serve`.
pub struct Extender {
    child: Child,
    pub addr: String,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Extender {
    /// Starts `kguest-extender serve ARGS --listen 127.0.0.1:0 --log-format
    /// json` and waits for its address.
    pub fn start(args: &[&str]) -> Extender {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kguest-extender"))
            .arg("serve")
            .args(args)
            .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kguest-extender");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                    && let Some(a) = v["fields"]["address"].as_str()
                {
                    let _ = tx.send(a.to_string());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(a) => a,
            Err(_) => {
                let _ = child.kill();
                let status = child.wait().ok();
                panic!(
                    "kguest-extender did not start ({status:?}): {}",
                    log.lock().unwrap().join("\n")
                );
            }
        };
        Extender { child, addr, log }
    }

    pub fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// SIGTERM, then the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "no exit 30 s after SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if get(&self.addr, "/readyz").0 == 200 {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "not ready after 60 s: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Extender {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP response: status and body.
pub type Resp = (u16, String);

fn request_text(method: &str, path: &str, body: &[u8]) -> Vec<u8> {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: extender\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    req
}

fn parse_response(raw: &[u8]) -> Resp {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    (status, body.to_string())
}

pub fn send(addr: &str, method: &str, path: &str, body: &[u8]) -> Resp {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(&request_text(method, path, body)).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    parse_response(&raw)
}

pub fn get(addr: &str, path: &str) -> Resp {
    match TcpStream::connect(addr) {
        Ok(_) => send(addr, "GET", path, b""),
        Err(_) => (0, String::new()),
    }
}

pub fn post(addr: &str, path: &str, body: &serde_json::Value) -> (u16, serde_json::Value) {
    let (status, text) = send(addr, "POST", path, body.to_string().as_bytes());
    let value = serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
    (status, value)
}

pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
}

pub struct Ca {
    params: rcgen::CertificateParams,
    key: rcgen::KeyPair,
    pub pem: String,
}

pub fn ca(name: &str) -> Ca {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    let key = rcgen::KeyPair::generate().unwrap();
    let pem = params.self_signed(&key).unwrap().pem();
    Ca { params, key, pem }
}

pub fn issue(ca: &Ca, names: &[&str], client: bool) -> Issued {
    let mut params =
        rcgen::CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap();
    params.extended_key_usages = vec![if client {
        rcgen::ExtendedKeyUsagePurpose::ClientAuth
    } else {
        rcgen::ExtendedKeyUsagePurpose::ServerAuth
    }];
    let key = rcgen::KeyPair::generate().unwrap();
    let issuer = rcgen::Issuer::from_params(&ca.params, &ca.key);
    let cert = params.signed_by(&key, &issuer).unwrap();
    Issued {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    }
}

/// One HTTPS request with an optional client certificate; `Err` is the
/// TLS or I/O failure.
pub fn send_tls(
    addr: &str,
    server_ca_pem: &str,
    client: Option<&Issued>,
    method: &str,
    path: &str,
    body: &[u8],
) -> Result<Resp, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(server_ca_pem.as_bytes()).unwrap())
        .unwrap();
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match client {
        Some(c) => builder
            .with_client_auth_cert(
                vec![CertificateDer::from_pem_slice(c.cert_pem.as_bytes()).unwrap()],
                PrivateKeyDer::from_pem_slice(c.key_pem.as_bytes()).unwrap(),
            )
            .unwrap(),
        None => builder.with_no_client_auth(),
    };
    let conn =
        rustls::ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
            .unwrap();
    let sock = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let mut tls = rustls::StreamOwned::new(conn, sock);
    tls.write_all(&request_text(method, path, body))
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    match tls.read_to_end(&mut raw) {
        Ok(_) => {}
        // The server may close without close_notify after answering.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => {}
        Err(e) => return Err(e.to_string()),
    }
    if raw.is_empty() {
        return Err("connection closed without an answer".into());
    }
    Ok(parse_response(&raw))
}

/// A Node as JSON: name, optional `NoSchedule` taint key, optional images.
pub fn node(name: &str, taint: Option<&str>) -> serde_json::Value {
    let mut n = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "resourceVersion": "1", "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    });
    if let Some(key) = taint {
        n["spec"] = serde_json::json!({"taints": [{"key": key, "effect": "NoSchedule"}]});
    }
    n
}

pub fn pod(name: &str) -> serde_json::Value {
    serde_json::json!({
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    })
}

/// `ExtenderArgs` with full Nodes.
pub fn args_with_nodes(pod: &serde_json::Value, nodes: &[serde_json::Value]) -> serde_json::Value {
    serde_json::json!({"Pod": pod, "Nodes": {"metadata": {}, "items": nodes}})
}

/// `ExtenderArgs` with node names.
pub fn args_with_names(pod: &serde_json::Value, names: &[&str]) -> serde_json::Value {
    serde_json::json!({"Pod": pod, "NodeNames": names})
}

/// The protobuf a Node's JSON encodes to, in the API server's envelope.
pub fn node_pb(node: &serde_json::Value) -> Vec<u8> {
    kguest_k8s_io::json::object_from_json(node)
        .unwrap()
        .enveloped()
}

fn unwrapped(node: &serde_json::Value) -> Vec<u8> {
    kguest_k8s_io::json::object_from_json(node).unwrap().raw
}

/// A fake API server: `GET /api/v1/nodes` answers a protobuf NodeList of
/// `nodes` (once `release_list` is called, if `hold_list`), and the watch
/// streams what `events` sends.
pub struct FakeApi {
    pub addr: String,
    events: mpsc::Sender<(String, serde_json::Value)>,
    release: mpsc::Sender<()>,
}

impl FakeApi {
    pub fn start(nodes: Vec<serde_json::Value>, hold_list: bool) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let (events, event_rx) = mpsc::channel::<(String, serde_json::Value)>();
        let (release, release_rx) = mpsc::channel::<()>();
        let event_rx = Arc::new(Mutex::new(event_rx));
        let release_rx = Arc::new(Mutex::new(release_rx));
        let held = Arc::new(Mutex::new(hold_list));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let nodes = nodes.clone();
                let event_rx = event_rx.clone();
                let release_rx = release_rx.clone();
                let held = held.clone();
                std::thread::spawn(move || {
                    serve_api(stream, &nodes, &event_rx, &release_rx, &held)
                });
            }
        });
        FakeApi {
            addr,
            events,
            release,
        }
    }

    pub fn release_list(&self) {
        let _ = self.release.send(());
    }

    pub fn event(&self, kind: &str, node: serde_json::Value) {
        self.events.send((kind.to_string(), node)).unwrap();
    }

    /// A kubeconfig for this server, written to `dir`.
    pub fn kubeconfig(&self, dir: &std::path::Path) -> String {
        let path = dir.join("kubeconfig");
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: http://{}\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: c\n  context:\n    cluster: fake\n    user: u\ncurrent-context: c\n",
                self.addr
            ),
        )
        .unwrap();
        path.display().to_string()
    }
}

fn serve_api(
    mut stream: TcpStream,
    nodes: &[serde_json::Value],
    events: &Mutex<mpsc::Receiver<(String, serde_json::Value)>>,
    release: &Mutex<mpsc::Receiver<()>>,
    held: &Mutex<bool>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                break;
            }
        }
        if path.contains("watch=1") {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.kubernetes.protobuf;stream=watch\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            let rx = events.lock().unwrap();
            while let Ok((kind, node)) = rx.recv() {
                let frame = watch_frame(&kind, &node);
                let chunk = [
                    format!("{:x}\r\n", frame.len()).into_bytes(),
                    frame,
                    b"\r\n".to_vec(),
                ]
                .concat();
                if stream.write_all(&chunk).is_err() {
                    return;
                }
            }
            return;
        }
        if path.starts_with("/api/v1/nodes") {
            let hold = std::mem::replace(&mut *held.lock().unwrap(), false);
            if hold {
                let _ = release.lock().unwrap().recv();
            }
            let body = node_list(nodes, "10");
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.kubernetes.protobuf\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            if stream.write_all(head.as_bytes()).is_err() || stream.write_all(&body).is_err() {
                return;
            }
            continue;
        }
        let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    }
}

fn node_list(nodes: &[serde_json::Value], version: &str) -> Vec<u8> {
    let mut meta = Vec::new();
    put_bytes(&mut meta, 2, version.as_bytes());
    let mut list = Vec::new();
    put_bytes(&mut list, 1, &meta);
    for n in nodes {
        put_bytes(&mut list, 2, &unwrapped(n));
    }
    kguest_k8s::envelope::wrap("v1", "NodeList", &list)
}

fn watch_frame(kind: &str, node: &serde_json::Value) -> Vec<u8> {
    let mut raw_ext = Vec::new();
    put_bytes(&mut raw_ext, 1, &node_pb(node));
    let mut event = Vec::new();
    put_bytes(&mut event, 1, kind.as_bytes());
    put_bytes(&mut event, 2, &raw_ext);
    // A bare WatchEvent after the length, as kube-apiserver writes it (its
    // object keeps the `k8s\0` envelope); tests/extender-e2e checks this
    // against a real one.
    let mut out = (event.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&event);
    out
}
