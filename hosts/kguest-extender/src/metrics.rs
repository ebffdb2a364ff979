//! Prometheus metrics (`/metrics`, OpenMetrics text).

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

type Labels = Vec<(&'static str, String)>;

pub struct Metrics {
    registry: Registry,
    /// Seconds per request, by verb.
    pub latency: Family<Labels, Histogram>,
    /// Seconds per answered request by phase: `decode` (JSON to protobuf,
    /// the snapshot) and `plugins` (the guests' hooks).
    pub phases: Family<Labels, Histogram>,
    /// Requests by verb and HTTP status code.
    pub requests: Family<Labels, Counter>,
    /// Hook calls by plugin.
    pub guest_calls: Family<Labels, Counter>,
    /// Failed hook calls by plugin: traps, deadlines, memory limits, Error
    /// statuses, scores out of range.
    pub guest_failures: Family<Labels, Counter>,
    /// Unknown JSON fields dropped from requests (`--field-validation warn`).
    pub unknown_fields: Counter,
    /// Seconds since the node cache last heard from the API server.
    pub cache_age: Gauge<f64, AtomicU64>,
    /// Nodes in the node cache.
    pub cache_nodes: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("kguest_extender");
        let latency = Family::<Labels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0005, 2.0, 16))
        });
        registry.register(
            "request_duration_seconds",
            "Time to answer a filter or prioritize request",
            latency.clone(),
        );
        let phases = Family::<Labels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0001, 2.0, 18))
        });
        registry.register(
            "request_phase_seconds",
            "Time per answered request in decoding its JSON and in the plugins",
            phases.clone(),
        );
        let requests = Family::default();
        registry.register(
            "requests",
            "Requests by verb and HTTP status",
            requests.clone(),
        );
        let guest_calls = Family::default();
        registry.register("guest_calls", "Plugin hook calls", guest_calls.clone());
        let guest_failures = Family::default();
        registry.register(
            "guest_failures",
            "Plugin hook calls that trapped, ran out of time or memory, or returned Error",
            guest_failures.clone(),
        );
        let unknown_fields = Counter::default();
        registry.register(
            "unknown_fields",
            "Unknown JSON fields dropped from requests",
            unknown_fields.clone(),
        );
        let cache_age = Gauge::default();
        registry.register(
            "node_cache_age_seconds",
            "Seconds since the node cache last heard from the API server",
            cache_age.clone(),
        );
        let cache_nodes = Gauge::default();
        registry.register(
            "node_cache_nodes",
            "Nodes in the node cache",
            cache_nodes.clone(),
        );
        Metrics {
            registry,
            latency,
            phases,
            requests,
            guest_calls,
            guest_failures,
            unknown_fields,
            cache_age,
            cache_nodes,
        }
    }

    /// The metrics as OpenMetrics text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}
