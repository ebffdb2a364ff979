//! The node cache: every Node as the protobuf bytes guests read, kept by a
//! protobuf list and watch of `/api/v1/nodes` (adds, updates, deletes), and
//! the snapshot requests with `nodeCacheCapable: true` are answered from.
//!
//! The API server's protobuf is kept as it arrives: a list's items and a
//! watch event's object are handed to the host without decoding or
//! re-encoding. Ready once the first list is in; a failed watch lists again
//! (the cache stays ready and serves what it has, its age growing).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use kguest_host::{Snapshot, SnapshotNode};
use kguest_k8s::api::core::v1::NodeList;
use kguest_k8s::apimachinery::pkg::apis::meta::v1::{Status as MetaStatus, WatchEvent};
use kguest_k8s::envelope;

/// The Nodes the watch has seen, and the snapshot built from them.
#[derive(Default)]
pub struct NodeStore {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    nodes: BTreeMap<Arc<str>, SnapshotNode>,
    /// Built on first use after a change (requests share it).
    snapshot: Option<Arc<Snapshot>>,
    synced: bool,
    /// When the cache last heard from the API server (a list, an event or
    /// a bookmark).
    heard: Option<Instant>,
}

impl NodeStore {
    pub fn new() -> NodeStore {
        NodeStore::default()
    }

    /// Whether the first list is in.
    pub fn synced(&self) -> bool {
        self.lock().synced
    }

    /// Seconds since the cache last heard from the API server.
    pub fn age(&self) -> Option<Duration> {
        self.lock().heard.map(|t| t.elapsed())
    }

    /// Every cached Node, in name order (their node list and image states
    /// are over all of them, as the scheduler's are).
    pub fn snapshot(&self) -> Arc<Snapshot> {
        let mut inner = self.lock();
        if let Some(s) = &inner.snapshot {
            return s.clone();
        }
        let mut snapshot = Snapshot::new();
        for node in inner.nodes.values() {
            snapshot.insert(node.clone());
        }
        let snapshot = Arc::new(snapshot);
        inner.snapshot = Some(snapshot.clone());
        snapshot
    }

    /// Replaces every node (a list).
    pub fn replace(&self, nodes: Vec<SnapshotNode>) {
        let mut inner = self.lock();
        inner.nodes = nodes
            .into_iter()
            .map(|n| (Arc::from(n.name()), n))
            .collect();
        inner.snapshot = None;
        inner.synced = true;
        inner.heard = Some(Instant::now());
    }

    /// Adds or replaces one node.
    pub fn upsert(&self, node: SnapshotNode) {
        let mut inner = self.lock();
        inner.nodes.insert(Arc::from(node.name()), node);
        inner.snapshot = None;
        inner.heard = Some(Instant::now());
    }

    /// Removes one node.
    pub fn remove(&self, name: &str) {
        let mut inner = self.lock();
        inner.nodes.remove(name);
        inner.snapshot = None;
        inner.heard = Some(Instant::now());
    }

    fn touch(&self) {
        self.lock().heard = Some(Instant::now());
    }

    pub fn len(&self) -> usize {
        self.lock().nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every
        // update is one assignment).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
const PROTOBUF_WATCH: &str = "application/vnd.kubernetes.protobuf;stream=watch";
/// The API server ends a watch after this; the cache then watches again.
const WATCH_SECONDS: u32 = 300;
/// Pause after a failure before listing again.
const RETRY: Duration = Duration::from_secs(2);

/// Why a list or watch stopped.
#[derive(Debug)]
pub enum WatchError {
    Http(String),
    Status(u16, String),
    Decode(String),
    /// The watch's resource version is too old (410): list again.
    Expired,
}

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchError::Http(e) => write!(f, "request failed: {e}"),
            WatchError::Status(code, body) => write!(f, "API server answered {code}: {body}"),
            WatchError::Decode(e) => write!(f, "undecodable protobuf: {e}"),
            WatchError::Expired => f.write_str("resource version expired (410)"),
        }
    }
}

/// Lists and watches Nodes into `store` until the process ends.
pub async fn run(client: kube_client::Client, store: Arc<NodeStore>) {
    loop {
        match list(&client, &store).await {
            Ok(version) => {
                tracing::info!(nodes = store.len(), resource_version = %version, "node cache listed");
                let mut version = version;
                loop {
                    match watch(&client, &store, &mut version).await {
                        Ok(()) => continue,
                        Err(WatchError::Expired) => {
                            tracing::info!("node watch expired; listing again");
                            break;
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "node watch failed; listing again");
                            tokio::time::sleep(RETRY).await;
                            break;
                        }
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "listing nodes failed");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

fn request(uri: &str, accept: &str) -> Result<http::Request<Vec<u8>>, WatchError> {
    http::Request::get(uri)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .map_err(|e| WatchError::Http(e.to_string()))
}

async fn send(
    client: &kube_client::Client,
    req: http::Request<Vec<u8>>,
) -> Result<http::Response<kube_client::client::Body>, WatchError> {
    let resp = client
        .send(req.map(kube_client::client::Body::from))
        .await
        .map_err(|e| WatchError::Http(e.to_string()))?;
    let status = resp.status();
    if status == http::StatusCode::GONE {
        return Err(WatchError::Expired);
    }
    if !status.is_success() {
        let body = resp
            .into_body()
            .collect()
            .await
            .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
            .unwrap_or_default();
        return Err(WatchError::Status(status.as_u16(), body));
    }
    Ok(resp)
}

/// One list: every Node into the store; returns the list's resource version.
async fn list(client: &kube_client::Client, store: &NodeStore) -> Result<String, WatchError> {
    let resp = send(client, request("/api/v1/nodes", PROTOBUF)?).await?;
    let body = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| WatchError::Http(e.to_string()))?
        .to_bytes();
    let (nodes, version) = decode_list(&body)?;
    store.replace(nodes);
    Ok(version)
}

/// A `NodeList` in the API server's envelope: its Nodes and resource version.
pub fn decode_list(body: &[u8]) -> Result<(Vec<SnapshotNode>, String), WatchError> {
    let raw = unwrap(body, "NodeList")?;
    let list = NodeList::from_bytes(raw);
    let version = list
        .metadata()
        .and_then(|m| m.resource_version())
        .unwrap_or("")
        .to_string();
    let mut nodes = Vec::new();
    for node in list.items() {
        let node = SnapshotNode::from_node(Arc::from(node.as_bytes()))
            .map_err(|e| WatchError::Decode(format!("a listed Node: {e}")))?;
        nodes.push(node);
    }
    Ok((nodes, version))
}

fn unwrap<'b>(body: &'b [u8], kind: &str) -> Result<&'b [u8], WatchError> {
    let e = envelope::unwrap(body).map_err(|e| WatchError::Decode(format!("{kind}: {e:?}")))?;
    if e.kind != kind {
        return Err(WatchError::Decode(format!(
            "expected a {kind}, got a {}",
            e.kind
        )));
    }
    Ok(e.raw)
}

/// One watch from `version`, applying events until the server ends it.
async fn watch(
    client: &kube_client::Client,
    store: &NodeStore,
    version: &mut String,
) -> Result<(), WatchError> {
    let uri = format!(
        "/api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds={WATCH_SECONDS}&resourceVersion={version}"
    );
    let resp = send(client, request(&uri, PROTOBUF_WATCH)?).await?;
    let mut body = resp.into_body();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| WatchError::Http(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buf.extend_from_slice(&data);
        // Each event: a 4-byte big-endian length, then the WatchEvent.
        let mut at = 0;
        while buf.len() - at >= 4 {
            let len = u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]) as usize;
            if buf.len() - at - 4 < len {
                break;
            }
            apply(store, &buf[at + 4..at + 4 + len], version)?;
            at += 4 + len;
        }
        buf.drain(..at);
    }
    Ok(())
}

/// Applies one watch event to the store, moving `version` on. The frame is
/// a bare `WatchEvent` (the API server's watch stream encodes events
/// without the `k8s\0` envelope; the object inside has one), as a real
/// kube-apiserver sends it (tests/extender-e2e).
pub fn apply(store: &NodeStore, frame: &[u8], version: &mut String) -> Result<(), WatchError> {
    let event = WatchEvent::from_bytes(frame);
    let kind = event.type_().unwrap_or("");
    let object = event
        .object()
        .and_then(|o| o.raw())
        .ok_or_else(|| WatchError::Decode("a watch event without an object".into()))?;
    if kind == "ERROR" {
        let status = MetaStatus::from_bytes(unwrap(object, "Status")?);
        if status.code() == Some(410) {
            return Err(WatchError::Expired);
        }
        return Err(WatchError::Status(
            status.code().unwrap_or(0) as u16,
            status.message().unwrap_or("").to_string(),
        ));
    }
    if kind == "BOOKMARK" {
        // Only metadata.resourceVersion is set.
        let node = kguest_k8s::api::core::v1::Node::from_bytes(unwrap(object, "Node")?);
        if let Some(v) = node.metadata().and_then(|m| m.resource_version()) {
            *version = v.to_string();
        }
        store.touch();
        return Ok(());
    }
    let node = SnapshotNode::from_node(Arc::from(object))
        .map_err(|e| WatchError::Decode(format!("a watched Node: {e}")))?;
    if !node.resource_version().is_empty() {
        *version = node.resource_version().to_string();
    }
    match kind {
        "ADDED" | "MODIFIED" => store.upsert(node),
        "DELETED" => store.remove(node.name()),
        other => {
            return Err(WatchError::Decode(format!(
                "unknown watch event type {other:?}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kguest_wire::encode::put_bytes;

    fn frame(kind: &str, object: &[u8]) -> Vec<u8> {
        let mut raw = Vec::new();
        put_bytes(&mut raw, 1, object);
        let mut event = Vec::new();
        put_bytes(&mut event, 1, kind.as_bytes());
        put_bytes(&mut event, 2, &raw);
        event
    }

    fn node(name: &str, version: &str) -> Vec<u8> {
        let mut meta = Vec::new();
        if !name.is_empty() {
            put_bytes(&mut meta, 1, name.as_bytes());
        }
        put_bytes(&mut meta, 6, version.as_bytes());
        let mut node = Vec::new();
        put_bytes(&mut node, 1, &meta);
        envelope::wrap("v1", "Node", &node)
    }

    #[test]
    fn events_add_change_delete_and_bookmarks_move_the_version() {
        let store = NodeStore::new();
        let mut version = "1".to_string();
        apply(&store, &frame("ADDED", &node("a", "2")), &mut version).unwrap();
        apply(&store, &frame("ADDED", &node("b", "3")), &mut version).unwrap();
        assert_eq!((store.len(), version.as_str()), (2, "3"));
        apply(&store, &frame("MODIFIED", &node("a", "4")), &mut version).unwrap();
        assert_eq!(store.snapshot().get("a").unwrap().resource_version(), "4");
        apply(&store, &frame("DELETED", &node("b", "5")), &mut version).unwrap();
        assert_eq!(store.len(), 1);
        apply(&store, &frame("BOOKMARK", &node("", "9")), &mut version).unwrap();
        assert_eq!((store.len(), version.as_str()), (1, "9"));
    }

    #[test]
    fn an_expired_watch_asks_for_a_new_list() {
        let mut status = Vec::new();
        put_bytes(&mut status, 2, b"Failure");
        put_bytes(&mut status, 3, b"too old resource version");
        status.extend_from_slice(&[6 << 3, 0x9a, 0x03]); // code = 410
        let frame = frame("ERROR", &envelope::wrap("v1", "Status", &status));
        let mut version = "1".to_string();
        let err = apply(&NodeStore::new(), &frame, &mut version).unwrap_err();
        assert!(matches!(err, WatchError::Expired), "{err}");
        let err = apply(&NodeStore::new(), b"not protobuf", &mut version).unwrap_err();
        assert!(matches!(err, WatchError::Decode(_)), "{err}");
    }
}
