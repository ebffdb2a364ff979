//! The HTTP server: routes, limits, TLS, graceful shutdown.
//!
//! `POST …/filter` and `POST …/prioritize` (the last path segment names
//! the verb, so any `urlPrefix` path works); `GET /healthz` (the process
//! answers), `/readyz` (the node cache has synced, and the server is not
//! shutting down), `/metrics`.
//!
//! Errors: a body that is not JSON or not an `ExtenderArgs` is 400; over
//! the size limit 413; past the request deadline 503; anything else wrong
//! with a filter request (no Pod, an object that does not encode, node
//! names the cache does not know, cache not synced) is 200 with the
//! result's `Error` set, which kube-scheduler reports as the cycle's error;
//! for prioritize (whose answer has no error member) it is 400, or 503
//! without a synced cache.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use kguest_host::Profile;
use kguest_json::FieldValidation;
use tokio::net::TcpListener;

use crate::metrics::Metrics;
use crate::nodes::NodeStore;
use crate::request::{self, Context, RequestError, Verb};

/// Limits on each request.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// From the first byte of the body to the answer.
    pub request_timeout: Duration,
}

/// Everything a request handler shares.
pub struct Server {
    pub profile: Profile,
    pub nodes: Option<Arc<NodeStore>>,
    pub metrics: Metrics,
    pub limits: Limits,
    pub field_validation: FieldValidation,
    stopping: AtomicBool,
}

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Reply {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    if let Ok(v) = content_type.parse() {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    r
}

fn text(status: StatusCode, body: impl Into<String>) -> Reply {
    let mut body = body.into();
    body.push('\n');
    reply(status, "text/plain; charset=utf-8", body)
}

impl Server {
    pub fn new(
        profile: Profile,
        nodes: Option<Arc<NodeStore>>,
        limits: Limits,
        field_validation: FieldValidation,
    ) -> Server {
        Server {
            profile,
            nodes,
            metrics: Metrics::new(),
            limits,
            field_validation,
            stopping: AtomicBool::new(false),
        }
    }

    fn ready(&self) -> Result<(), &'static str> {
        if self.stopping.load(Ordering::Relaxed) {
            return Err("shutting down");
        }
        match &self.nodes {
            Some(n) if !n.synced() => Err("node cache not synced"),
            _ => Ok(()),
        }
    }

    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Reply {
        let path = req.uri().path().to_string();
        let verb = match path.rsplit('/').next() {
            Some("filter") => Some(Verb::Filter),
            Some("prioritize") => Some(Verb::Prioritize),
            _ => None,
        };
        match (req.method(), path.as_str(), verb) {
            (&Method::GET, "/healthz", _) => text(StatusCode::OK, "ok"),
            (&Method::GET, "/readyz", _) => match self.ready() {
                Ok(()) => text(StatusCode::OK, "ok"),
                Err(why) => text(StatusCode::SERVICE_UNAVAILABLE, why),
            },
            (&Method::GET, "/metrics", _) => {
                if let Some(n) = &self.nodes {
                    self.metrics
                        .cache_age
                        .set(n.age().map_or(-1.0, |a| a.as_secs_f64()));
                    self.metrics.cache_nodes.set(n.len() as i64);
                }
                reply(
                    StatusCode::OK,
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                    self.metrics.render(),
                )
            }
            (&Method::POST, _, Some(verb)) => {
                let start = Instant::now();
                let deadline = self.limits.request_timeout;
                let r = match tokio::time::timeout(deadline, self.clone().verb(verb, req, start))
                    .await
                {
                    Ok(r) => r,
                    Err(_) => {
                        tracing::warn!(verb = verb.name(), ?deadline, "request deadline exceeded");
                        text(
                            StatusCode::SERVICE_UNAVAILABLE,
                            format!("request deadline exceeded ({deadline:?})"),
                        )
                    }
                };
                let labels = vec![("verb", verb.name().to_string())];
                self.metrics
                    .latency
                    .get_or_create(&labels)
                    .observe(start.elapsed().as_secs_f64());
                let labels = vec![
                    ("verb", verb.name().to_string()),
                    ("code", r.status().as_u16().to_string()),
                ];
                self.metrics.requests.get_or_create(&labels).inc();
                r
            }
            (_, _, Some(_)) => text(StatusCode::METHOD_NOT_ALLOWED, "use POST"),
            _ => text(StatusCode::NOT_FOUND, format!("no route for {path}")),
        }
    }

    async fn verb(self: Arc<Self>, verb: Verb, req: Request<Incoming>, start: Instant) -> Reply {
        let too_large = || {
            text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("request body over {} bytes", self.limits.max_body),
            )
        };
        if req
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|n| n > self.limits.max_body as u64)
        {
            tracing::warn!(verb = verb.name(), "request body over the limit");
            return too_large();
        }
        let body = match Limited::new(req.into_body(), self.limits.max_body)
            .collect()
            .await
        {
            Ok(b) => b.to_bytes(),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                tracing::warn!(verb = verb.name(), "request body over the limit");
                return too_large();
            }
            Err(e) => return text(StatusCode::BAD_REQUEST, format!("reading the body: {e}")),
        };
        // Answered on this worker thread, which hands its other tasks to
        // another: a handoff to the blocking pool and back cost about 0.25
        // ms per request on a busy machine (docs/benchmarks.md). The
        // cycle's deadline bounds every guest call, so the request timeout
        // holds without a timer interrupting it.
        let cx = Context {
            profile: &self.profile,
            nodes: self.nodes.as_deref(),
            field_validation: self.field_validation,
            deadline: start + self.limits.request_timeout,
            timeout: self.limits.request_timeout,
        };
        let answered = tokio::task::block_in_place(|| request::answer(&cx, verb, &body));
        match answered {
            Ok(answer) => {
                self.record(&answer);
                reply(StatusCode::OK, "application/json", answer.body)
            }
            Err(err) => {
                tracing::warn!(verb = verb.name(), error = %err, "request refused");
                let message = err.to_string();
                match (&err, verb) {
                    (RequestError::Malformed(_), _) => text(StatusCode::BAD_REQUEST, message),
                    (RequestError::Deadline(_), _) => {
                        text(StatusCode::SERVICE_UNAVAILABLE, message)
                    }
                    (_, Verb::Filter) => reply(
                        StatusCode::OK,
                        "application/json",
                        request::filter_error(&message),
                    ),
                    (RequestError::NoCache(_), Verb::Prioritize) => {
                        text(StatusCode::SERVICE_UNAVAILABLE, message)
                    }
                    (_, Verb::Prioritize) => text(StatusCode::BAD_REQUEST, message),
                }
            }
        }
    }

    fn record(&self, answer: &request::Answer) {
        for (phase, time) in [("decode", answer.decode), ("plugins", answer.plugins)] {
            self.metrics
                .phases
                .get_or_create(&vec![("phase", phase.to_string())])
                .observe(time.as_secs_f64());
        }
        for (i, p) in self.profile.plugins().iter().enumerate() {
            let labels = vec![("plugin", p.name.clone())];
            if answer.calls.calls[i] > 0 {
                self.metrics
                    .guest_calls
                    .get_or_create(&labels)
                    .inc_by(answer.calls.calls[i]);
            }
            if answer.calls.failures[i] > 0 {
                self.metrics
                    .guest_failures
                    .get_or_create(&labels)
                    .inc_by(answer.calls.failures[i]);
            }
        }
        for line in &answer.calls.errors {
            tracing::warn!(error = %line, "plugin failed");
        }
        if !answer.warnings.is_empty() {
            self.metrics
                .unknown_fields
                .inc_by(answer.warnings.len() as u64);
            for w in &answer.warnings {
                tracing::warn!(field = %w, "unknown field dropped");
            }
        }
    }
}

/// How long open connections get to finish after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(10);
/// Longest TLS handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// Serves on `listener` until `shutdown` resolves, then drains.
pub async fn serve(
    server: Arc<Server>,
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: impl Future<Output = ()>,
) {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let server = server.clone();
        let watcher = graceful.watcher();
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            match acceptor {
                Some(acceptor) => {
                    let tls = match tokio::time::timeout(HANDSHAKE, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => tls,
                        Ok(Err(e)) => {
                            tracing::warn!(%peer, error = %e, "TLS handshake refused");
                            return;
                        }
                        Err(_) => {
                            tracing::warn!(%peer, "TLS handshake timed out");
                            return;
                        }
                    };
                    connection(server, TokioIo::new(tls), watcher, peer).await;
                }
                None => connection(server, TokioIo::new(stream), watcher, peer).await,
            }
        });
    }
    server.stopping.store(true, Ordering::Relaxed);
    tracing::info!("shutting down: draining connections");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(DRAIN) => tracing::warn!("connections still open after {DRAIN:?}; exiting"),
    }
}

async fn connection<I>(
    server: Arc<Server>,
    io: I,
    watcher: hyper_util::server::graceful::Watcher,
    peer: SocketAddr,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |req| {
        let server = server.clone();
        async move { Ok::<_, std::convert::Infallible>(server.handle(req).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HANDSHAKE)
        .serve_connection(io, service);
    if let Err(e) = watcher.watch(conn).await {
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
}
