//! The Go SDK's guest API beyond the hooks: the node list, image states,
//! the event recorder and waiting pods, through the test host's stand-ins.

use kguest::handle::{self, ObjectRef, WaitingPodError};
use kguest::images::ImageState;
use kguest::testing::TestHost;
use kguest::testing::proto::{self, NodeBuilder, PodBuilder};
use kguest::*;

/// Scores a node by what the parity APIs report.
struct Reader;

impl Plugin for Reader {
    fn new() -> Self {
        Reader
    }
}

impl Score for Reader {
    fn score<'a>(&'a mut self, cx: &'a Cycle) -> Result<i32, Status<'a>> {
        match cx.pod().and_then(|p| p.metadata()).and_then(|m| m.name()) {
            Some("count") => Ok(cx.node_list().map_or(-1, |l| l.items().count() as i32)),
            Some("names") => {
                // The list's node names, as one score: n1 n2 n3 -> 123.
                let mut v = 0;
                for n in cx.node_list().into_iter().flat_map(|l| l.items()) {
                    let name = n.metadata().and_then(|m| m.name()).unwrap_or("");
                    v = v * 10 + i32::from(name.as_bytes().last().copied().unwrap_or(b'0') - b'0');
                }
                Ok(v)
            }
            Some("image") => match cx.image_states().get("app:v1") {
                Some(ImageState { size, num_nodes }) => Ok((size * 10 + num_nodes) as i32),
                None => Ok(0),
            },
            _ => Err(Status::error("unknown")),
        }
    }
}

fn cluster(host: &TestHost) {
    host.add_node(
        "n1",
        NodeBuilder::new("n1")
            .image(&["app:v1", "app@sha256:1"], 7)
            .build(),
    );
    host.add_node("n2", NodeBuilder::new("n2").image(&["app:v1"], 9).build());
    host.add_node("n3", NodeBuilder::new("n3").build());
}

#[test]
fn node_list_is_every_added_node_in_order_fetched_once_per_cycle() {
    let host = TestHost::new();
    cluster(&host);
    let mut p = Reader;
    host.set_pod(PodBuilder::new("names").build());
    host.new_cycle(&mut p);
    assert_eq!(host.score_node(&mut p, "n1").0, 123);
    assert_eq!(host.score_node(&mut p, "n2").0, 123);
    let calls = host.calls("nodeList");
    assert!(
        calls <= 2,
        "one fetch (and one retry after growing): {calls}"
    );
    host.set_pod(PodBuilder::new("count").build());
    host.new_cycle(&mut p);
    assert_eq!(host.score_node(&mut p, "n1").0, 3);
    assert!(host.calls("nodeList") > calls, "a new cycle refetches");
}

#[test]
fn node_list_can_be_set_and_can_be_absent() {
    let host = TestHost::new();
    let mut p = Reader;
    host.set_pod(PodBuilder::new("count").build());
    // No nodes added: a list with only its (empty) metadata.
    assert_eq!(host.score_node(&mut p, "n1").0, 0);
    let host = TestHost::new();
    host.set_pod(PodBuilder::new("count").build());
    host.set_node_list(Vec::new());
    assert_eq!(host.score_node(&mut p, "n1").0, -1);
    let host = TestHost::new();
    host.set_pod(PodBuilder::new("count").build());
    let two = proto::node_list([
        &NodeBuilder::new("a").build()[..],
        &NodeBuilder::new("b").build(),
    ]);
    host.set_node_list(two);
    assert_eq!(host.score_node(&mut p, "n1").0, 2);
}

#[test]
fn image_states_are_computed_as_the_scheduler_does() {
    let host = TestHost::new();
    cluster(&host);
    let mut p = Reader;
    host.set_pod(PodBuilder::new("image").build());
    // app:v1 on n1 and n2; the size of the first node listing it.
    assert_eq!(host.score_node(&mut p, "n1").0, 72);
    assert_eq!(host.score_node(&mut p, "n2").0, 72);
    assert_eq!(host.score_node(&mut p, "n3").0, 0);
    assert_eq!(
        host.calls("nodeImageStates"),
        4,
        "per node; n1's needed a retry"
    );
    // The JSON Go would write: keys sorted, "Nodes": null.
    let states = testing::image_states(&[
        (
            b"n1",
            &NodeBuilder::new("n1").image(&["b:1", "a:1"], 5).build(),
        ),
        (b"n2", &NodeBuilder::new("n2").image(&["a:1"], 6).build()),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&states[&b"n1"[..]]),
        r#"{"a:1":{"Size":5,"NumNodes":2,"Nodes":null},"b:1":{"Size":5,"NumNodes":1,"Nodes":null}}"#
    );
    assert_eq!(
        String::from_utf8_lossy(&states[&b"n2"[..]]),
        r#"{"a:1":{"Size":5,"NumNodes":2,"Nodes":null}}"#
    );
}

#[test]
fn explicit_image_states_win() {
    let host = TestHost::new();
    cluster(&host);
    host.set_image_states("n3", r#"{"app:v1":{"Size":4,"NumNodes":5}}"#);
    host.set_pod(PodBuilder::new("image").build());
    assert_eq!(host.score_node(&mut Reader, "n3").0, 45);
    assert_eq!(host.score_node(&mut Reader, "n1").0, 72);
}

/// Records events the way upstream's nodenumber does.
struct Recorder;

impl Plugin for Recorder {
    fn new() -> Self {
        Recorder
    }
}

impl PreScore for Recorder {
    fn pre_score<'a>(&'a mut self, cx: &'a Cycle) -> Status<'a> {
        let Some(pod) = cx.pod() else {
            return Status::error("no pod");
        };
        let node = cx.node();
        let regarding = ObjectRef::pod(&pod);
        let related = node.as_ref().map(ObjectRef::node);
        if handle::eventf(
            Some(&regarding),
            related.as_ref(),
            "PreScore",
            "match lastNumber",
            "Continue",
            "a <note> & \"more\"",
        ) {
            Status::success()
        } else {
            Status::error("not sent")
        }
    }
}

impl Score for Recorder {
    fn score<'a>(&'a mut self, _cx: &'a Cycle) -> Result<i32, Status<'a>> {
        Ok(0)
    }
}

#[test]
fn events_are_the_go_sdks_json() {
    let host = TestHost::new();
    host.set_pod(
        PodBuilder::new("web-1")
            .namespace("prod")
            .uid("u-1")
            .build(),
    );
    assert!(host.pre_score(&mut Recorder).is_success());
    let empty =
        r#"{"Kind":"","APIVersion":"","Name":"","Namespace":"","UID":"","ResourceVersion":""}"#;
    assert_eq!(
        host.events(),
        [format!(
            r#"{{"RegardingReference":{{"Kind":"Pod","APIVersion":"v1","Name":"web-1","Namespace":"prod","UID":"u-1","ResourceVersion":""}},"RelatedReference":{empty},"Eventtype":"PreScore","Reason":"match lastNumber","Action":"Continue","Note":"a \u003cnote\u003e \u0026 \"more\""}}"#
        )]
    );
    // With a node as the related object.
    host.add_node("n1", NodeBuilder::new("n1").build());
    host.set_node_name("n1");
    assert!(host.pre_score(&mut Recorder).is_success());
    let last = host.events().pop().unwrap();
    assert!(
        last.contains(r#""RelatedReference":{"Kind":"Node","APIVersion":"v1","Name":"n1","#),
        "{last}"
    );
}

#[test]
fn long_events_grow_the_scratch_buffer() {
    let host = TestHost::new();
    let note = "<".repeat(40_000);
    assert!(handle::eventf(None, None, "Normal", "r", "a", &note));
    let ev = host.events().pop().unwrap();
    assert!(ev.len() > 40_000 * 6, "every < escaped");
    let v: serde_json::Value = serde_json::from_str(&ev).unwrap();
    assert_eq!(v["Note"].as_str().unwrap(), note);
    assert_eq!(v["RegardingReference"]["Kind"], "");
}

#[test]
fn waiting_pods() {
    let host = TestHost::new();
    let waiting = PodBuilder::new("held").uid("u-9").build();
    host.add_waiting_pod("u-9", waiting.clone());
    let mut buf = [0u8; 256];
    let pod = handle::get_waiting_pod("u-9", &mut buf).unwrap().unwrap();
    assert_eq!(pod.as_bytes(), &waiting[..]);
    assert_eq!(pod.metadata().and_then(|m| m.name()), Some("held"));
    assert!(matches!(
        handle::get_waiting_pod("other", &mut buf),
        Ok(None)
    ));
    // Too small for the pod: the host writes nothing.
    let mut small = [0u8; 8];
    assert_eq!(
        handle::get_waiting_pod("u-9", &mut small).err(),
        Some(WaitingPodError::BufferTooSmall)
    );
    let mut tiny = [0u8; 7];
    assert_eq!(
        handle::get_waiting_pod("u-9", &mut tiny).err(),
        Some(WaitingPodError::BufferTooSmall)
    );
    // Stale bytes from an earlier, longer pod do not leak into a shorter one.
    let long = PodBuilder::new("a-much-longer-name").uid("u-2").build();
    host.add_waiting_pod("u-2", long);
    let mut buf = [0u8; 256];
    handle::get_waiting_pod("u-2", &mut buf).unwrap();
    let pod = handle::get_waiting_pod("u-9", &mut buf).unwrap().unwrap();
    assert_eq!(pod.as_bytes(), &waiting[..]);

    assert!(handle::reject_waiting_pod("u-9"));
    assert!(!handle::reject_waiting_pod("nobody"));
    assert_eq!(host.rejected_waiting_pods(), ["u-9", "nobody"]);
}

#[test]
fn structured_logs_with_parts_and_kobj() {
    let host = TestHost::new();
    log::logs_parts(
        log::Severity::Info,
        "execute",
        &[
            ("pod", &log::kobj(b"ns", b"web-1")),
            ("node", &log::kobj(b"", b"n1")),
        ],
    );
    let long = vec![b'x'; 600];
    log::logs_parts(
        log::Severity::Info,
        "dropped pair",
        &[("a", &[b"1"]), ("b", &[&long])],
    );
    let logs = host.logs();
    assert_eq!(
        logs[0].kvs,
        vec![
            ("pod".to_string(), "ns/web-1".to_string()),
            ("node".to_string(), "n1".to_string())
        ]
    );
    assert_eq!(logs[1].kvs, vec![("a".to_string(), "1".to_string())]);
    let host = TestHost::new();
    host.set_log_severity(1);
    log::logs_parts(
        log::Severity::Info,
        "below the threshold",
        &[("k", &[b"v"])],
    );
    assert!(host.logs().is_empty());
}
