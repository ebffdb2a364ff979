//! `kguest-extender`: serve a profile of wasm plugins to kube-scheduler as
//! a scheduler extender, or print what it would answer.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use kguest_extender::nodes::{self, NodeStore};
use kguest_extender::predict;
use kguest_extender::profile::{self, ProfileSource};
use kguest_extender::server::{self, Limits, Server};
use kguest_extender::tls::{self, TlsFiles};
use kguest_host::{LogRecord, PluginConfig, Runtime, RuntimeConfig, SchedulerHandle};
use kguest_json::FieldValidation;

/// A kube-scheduler extender serving kube-scheduler-wasm-extension plugins
#[derive(Parser)]
#[command(name = "kguest-extender", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the filter and prioritize verbs
    Serve(Serve),
    /// Print what the extender would answer for a Pod and Nodes (JSON)
    Predict(Predict),
}

#[derive(clap::Args)]
struct Plugins {
    /// A KubeSchedulerConfiguration whose profile's wasm plugins to serve
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    /// With --config: the profile whose schedulerName is NAME (default: the first)
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// NAME=PLUGIN.wasm[,weight=N][,config=FILE]: one plugin (repeatable)
    #[arg(long = "plugin", value_name = "SPEC")]
    plugins: Vec<String>,
    /// Deadline of each hook call (e.g. 500ms, 2s)
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = duration)]
    call_timeout: Duration,
    /// Linear memory limit of each guest instance, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    guest_memory_limit: usize,
}

#[derive(clap::Args)]
struct Serve {
    #[command(flatten)]
    plugins: Plugins,
    /// Address to listen on
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8443")]
    listen: String,
    /// Server certificate (PEM); with --tls-key and --client-ca
    #[arg(long, value_name = "FILE", requires_all = ["tls_key", "client_ca"])]
    tls_cert: Option<String>,
    /// Server private key (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<String>,
    /// CA whose client certificates are let in (PEM); every client needs one
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    client_ca: Option<String>,
    /// Serve plain HTTP (no --tls-cert): loopback or a sidecar only
    #[arg(long, conflicts_with = "tls_cert")]
    insecure_http: bool,
    /// Without a node cache: only requests that carry Nodes
    /// (nodeCacheCapable: false) are answered
    #[arg(long)]
    no_node_cache: bool,
    /// kubeconfig for the node cache (default: $KUBECONFIG, ~/.kube/config
    /// or the in-cluster service account)
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<String>,
    /// Largest request body
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    max_body_bytes: usize,
    /// Deadline of each request, from its body to its answer
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = duration)]
    request_timeout: Duration,
    /// Unknown fields in a request's Pod or Nodes: strict (refuse the
    /// request), warn (drop, log and count them) or ignore
    #[arg(long, value_name = "MODE", default_value = "warn", value_parser = field_validation)]
    field_validation: FieldValidation,
    /// Log lines as JSON or text
    #[arg(long, value_name = "FORMAT", default_value = "json", value_parser = ["json", "text"])]
    log_format: String,
}

#[derive(clap::Args)]
struct Predict {
    #[command(flatten)]
    plugins: Plugins,
    /// The Pod (YAML or JSON)
    #[arg(long, value_name = "FILE")]
    pod: String,
    /// The Nodes (YAML or JSON; documents or a List)
    #[arg(long, value_name = "FILE")]
    nodes: String,
}

fn duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = text
        .find(|c: char| !c.is_ascii_digit())
        .map_or((text, ""), |at| text.split_at(at));
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}`: expected a number and ms or s (500ms, 2s)"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        _ => Err(format!(
            "`{text}`: expected a number and ms or s (500ms, 2s)"
        )),
    }
}

fn field_validation(text: &str) -> Result<FieldValidation, String> {
    FieldValidation::parse(text).ok_or_else(|| format!("`{text}`: strict, warn or ignore"))
}

/// Guest klog lines as log events.
struct TracingHandle;

impl SchedulerHandle for TracingHandle {
    fn log(&self, record: &LogRecord<'_>) {
        let line = record.to_line();
        match record.severity {
            0 => tracing::info!(target: "guest", "{line}"),
            1 => tracing::warn!(target: "guest", "{line}"),
            _ => tracing::error!(target: "guest", "{line}"),
        }
    }
}

fn load_profile(p: &Plugins) -> Result<kguest_host::Profile, String> {
    let runtime = Runtime::new(RuntimeConfig::default()).map_err(|e| format!("wasmtime: {e}"))?;
    let base = PluginConfig {
        call_timeout: p.call_timeout,
        memory_limit: p.guest_memory_limit,
        handle: Arc::new(TracingHandle),
        ..PluginConfig::default()
    };
    let source = ProfileSource {
        config: p.config.clone(),
        profile: p.profile.clone(),
        plugins: p.plugins.clone(),
    };
    profile::load(&runtime, &source, &base)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(s) => serve(s),
        Command::Predict(p) => run_predict(p),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kguest-extender: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_predict(p: Predict) -> Result<(), String> {
    let profile = load_profile(&p.plugins)?;
    let pod = predict::load_objects(&p.pod, "Pod")?;
    let [pod] = <[Vec<u8>; 1]>::try_from(pod)
        .map_err(|found| format!("{}: expected one Pod, found {}", p.pod, found.len()))?;
    let nodes = predict::load_objects(&p.nodes, "Node")?;
    let value = predict::predict(&profile, pod, nodes)?;
    // A closed stdout (`| head`) is an error, not a panic.
    use std::io::Write;
    writeln!(std::io::stdout().lock(), "{value:#}").map_err(|e| format!("writing to stdout: {e}"))
}

fn serve(s: Serve) -> Result<(), String> {
    let builder = tracing_subscriber::fmt().with_writer(std::io::stderr);
    if s.log_format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
    let tls = match (&s.tls_cert, &s.tls_key, &s.client_ca) {
        (Some(cert), Some(key), Some(ca)) => Some(tls::server_config(&TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
            client_ca: ca.clone(),
        })?),
        _ if s.insecure_http => None,
        _ => {
            return Err(
                "give --tls-cert, --tls-key and --client-ca (mTLS), or --insecure-http".into(),
            );
        }
    };
    let profile = load_profile(&s.plugins)?;
    let names: Vec<&str> = profile.plugins().iter().map(|p| p.name.as_str()).collect();
    tracing::info!(plugins = ?names, "profile loaded");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio: {e}"))?;
    runtime.block_on(async move {
        let store = if s.no_node_cache {
            None
        } else {
            let client = kube_client(s.kubeconfig.as_deref()).await?;
            let store = Arc::new(NodeStore::new());
            tokio::spawn(nodes::run(client, store.clone()));
            Some(store)
        };
        let limits = Limits {
            max_body: s.max_body_bytes,
            request_timeout: s.request_timeout,
        };
        let server = Arc::new(Server::new(profile, store, limits, s.field_validation));
        let listener = tokio::net::TcpListener::bind(&s.listen)
            .await
            .map_err(|e| format!("listening on {}: {e}", s.listen))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        tracing::info!(address = %local, tls = tls.is_some(), "listening");
        server::serve(server, listener, tls, shutdown_signal()).await;
        Ok(())
    })
}

async fn kube_client(kubeconfig: Option<&str>) -> Result<kube_client::Client, String> {
    use kube_client::config::{KubeConfigOptions, Kubeconfig};
    let config = match kubeconfig {
        Some(path) => {
            let kc = Kubeconfig::read_from(path).map_err(|e| format!("{path}: {e}"))?;
            kube_client::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
                .await
                .map_err(|e| format!("{path}: {e}"))?
        }
        None => kube_client::Config::infer()
            .await
            .map_err(|e| format!("Kubernetes client configuration: {e}"))?,
    };
    kube_client::Client::try_from(config).map_err(|e| format!("Kubernetes client: {e}"))
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
    tracing::info!("shutdown signal received");
}
