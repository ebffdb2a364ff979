//! The scheduler handle: the event recorder and waiting pods, as the Go
//! SDK's `handle` and `handle/eventrecorder` packages offer them.
//!
//! * [`eventf`] records a Kubernetes event through
//!   `handle.eventrecorder.eventf`. The SDK writes the `EventMessage` JSON
//!   byte for byte as the Go SDK does (Go field names as keys, Go's string
//!   escaping), in a scratch buffer that grows as needed: no allocator.
//! * [`reject_waiting_pod`] and [`get_waiting_pod`] reach pods held by
//!   Permit (`handle.reject_waiting_pod`, `handle.get_waiting_pod`).
//!
//! ```
//! use kguest::handle::{self, ObjectRef};
//! use kguest::testing::{TestHost, proto::PodBuilder};
//!
//! let host = TestHost::new();
//! let pod = PodBuilder::new("web-1").namespace("default").build();
//! let view = kguest::k8s::api::core::v1::Pod::from_bytes(&pod);
//! assert!(handle::eventf(Some(&ObjectRef::pod(&view)), None, "Normal", "Scheduled", "Bind", ""));
//! assert!(host.events()[0].starts_with(r#"{"RegardingReference":{"Kind":"Pod","APIVersion":"v1","Name":"web-1""#));
//! ```

use kguest_k8s::api::core::v1::{Node, Pod};
use kguest_k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::go_string::Out;
use crate::sys;

/// What an event is about: the fields of the Go SDK's `ObjectReference`
/// (`Kind`, `APIVersion`, `Name`, `Namespace`, `UID`, `ResourceVersion`).
/// Empty strings stand for unset fields (as Go's zero values do). Fields are
/// kept as bytes, read with the views' `*_bytes` accessors (no UTF-8 check
/// linked in); bytes that are not UTF-8 reach the host as they are, and Go's
/// decoder reads them as U+FFFD, as if Go's encoder had escaped them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectRef<'a> {
    /// In Go's field order.
    fields: [&'a [u8]; 6],
}

impl<'a> ObjectRef<'a> {
    /// A reference with every field given.
    pub const fn with(
        kind: &'a str,
        api_version: &'a str,
        name: &'a str,
        namespace: &'a str,
        uid: &'a str,
        resource_version: &'a str,
    ) -> Self {
        ObjectRef {
            fields: [
                kind.as_bytes(),
                api_version.as_bytes(),
                name.as_bytes(),
                namespace.as_bytes(),
                uid.as_bytes(),
                resource_version.as_bytes(),
            ],
        }
    }

    /// A reference built from `kind`, `api_version` and an object's metadata
    /// (`name`, `namespace`, `uid`, `resourceVersion`).
    #[inline]
    pub fn new(kind: &'a str, api_version: &'a str, meta: Option<ObjectMeta<'a>>) -> Self {
        let mut r = ObjectRef::with(kind, api_version, "", "", "", "");
        let bytes = meta.map_or(&[][..], |m| m.as_bytes());
        // ObjectMeta's field numbers of name, namespace, uid and
        // resourceVersion, read in one pass (a test checks them against the
        // accessors): the metadata's labels and annotations are walked once.
        let mut found = [kguest_wire::rt::Slot::EMPTY; 4];
        kguest_wire::rt::scan(bytes, &[1, 3, 5, 6], &mut found);
        for (field, slot) in r.fields.iter_mut().skip(2).zip(&found) {
            *field = match slot.raw(bytes) {
                Some(raw) => raw.len_body().unwrap_or(&[]),
                None => &[],
            };
        }
        r
    }

    /// The Pod, as the Go SDK refers to it (`Pod`, `v1`).
    #[inline]
    pub fn pod(pod: &Pod<'a>) -> Self {
        ObjectRef::new("Pod", "v1", pod.metadata())
    }

    /// The Node, as the Go SDK refers to it (`Node`, `v1`).
    #[inline]
    pub fn node(node: &Node<'a>) -> Self {
        ObjectRef::new("Node", "v1", node.metadata())
    }

    pub const fn kind(&self) -> &'a [u8] {
        self.fields[0]
    }

    pub const fn api_version(&self) -> &'a [u8] {
        self.fields[1]
    }

    pub const fn name(&self) -> &'a [u8] {
        self.fields[2]
    }

    pub const fn namespace(&self) -> &'a [u8] {
        self.fields[3]
    }

    pub const fn uid(&self) -> &'a [u8] {
        self.fields[4]
    }

    pub const fn resource_version(&self) -> &'a [u8] {
        self.fields[5]
    }
}

static EMPTY: ObjectRef<'static> = ObjectRef::with("", "", "", "", "", "");

/// Records an event (Go: `eventrecorder.Get().Eventf(regarding, related,
/// eventtype, reason, action, note)`); `None` references are sent empty, as
/// the Go SDK sends a nil object. Returns false when the guest's memory could
/// not grow to hold the message (nothing is sent).
#[inline]
pub fn eventf(
    regarding: Option<&ObjectRef<'_>>,
    related: Option<&ObjectRef<'_>>,
    eventtype: &str,
    reason: &str,
    action: &str,
    note: &str,
) -> bool {
    let parts: [&[&[u8]]; 3] = [
        &regarding.unwrap_or(&EMPTY).fields,
        &related.unwrap_or(&EMPTY).fields,
        &[
            eventtype.as_bytes(),
            reason.as_bytes(),
            action.as_bytes(),
            note.as_bytes(),
        ],
    ];
    // One pass into the scratch buffer as it is; only a message larger than
    // the buffer is written again, after growing it to the measured size.
    let mut needed = 1;
    for _ in 0..2 {
        match sys::with_scratch(needed, |buf| send(buf, &parts)) {
            Some(Ok(())) => return true,
            Some(Err(len)) => needed = len,
            None => return false,
        }
    }
    false
}

/// What precedes each value of an `EventMessage`, in Go's field order.
const KEYS: [&[u8]; 16] = [
    b"{\"RegardingReference\":{\"Kind\":",
    b",\"APIVersion\":",
    b",\"Name\":",
    b",\"Namespace\":",
    b",\"UID\":",
    b",\"ResourceVersion\":",
    b"},\"RelatedReference\":{\"Kind\":",
    b",\"APIVersion\":",
    b",\"Name\":",
    b",\"Namespace\":",
    b",\"UID\":",
    b",\"ResourceVersion\":",
    b"},\"Eventtype\":",
    b",\"Reason\":",
    b",\"Action\":",
    b",\"Note\":",
];

/// Writes the JSON into `buf` and sends it; `Err(needed)` when it did not
/// fit (nothing sent).
#[inline]
fn send(buf: &mut [u8], parts: &[&[&[u8]]; 3]) -> Result<(), usize> {
    let mut out = Out { buf, len: 0 };
    let mut keys = KEYS.iter();
    for part in parts {
        for value in *part {
            out.raw(keys.next().copied().unwrap_or(&[]));
            out.string(value);
        }
    }
    out.raw(b"}");
    let len = out.len;
    match out.buf.get(..len) {
        Some(json) => {
            sys::send_event(json);
            Ok(())
        }
        None => Err(len),
    }
}

/// Rejects the pod with this UID if it waits on Permit
/// (`handle.reject_waiting_pod`); true when one was rejected.
#[inline]
pub fn reject_waiting_pod(uid: &str) -> bool {
    sys::reject_waiting_pod(uid.as_bytes())
}

/// Why [`get_waiting_pod`] has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitingPodError {
    /// The buffer is under 8 bytes, or the pod did not fit in it (the host
    /// does not say how large it is; try a larger buffer).
    BufferTooSmall,
}

impl WaitingPodError {
    pub const fn as_str(self) -> &'static str {
        match self {
            WaitingPodError::BufferTooSmall => "buffer too small for the waiting pod",
        }
    }
}

/// The pod with this UID waiting on Permit, read into `buf`
/// (`handle.get_waiting_pod`); `Ok(None)` when there is none.
///
/// The host writes the Pod's bytes only when they fit and returns no
/// length, so the SDK marks `buf` before the call (it is overwritten) and
/// finds the end of the Pod by walking its top-level fields. `buf` needs at
/// least 8 bytes: the host writes an 8-byte zero for "none" whatever the
/// limit.
#[inline]
pub fn get_waiting_pod<'b>(
    uid: &str,
    buf: &'b mut [u8],
) -> Result<Option<Pod<'b>>, WaitingPodError> {
    if buf.len() < 8 {
        return Err(WaitingPodError::BufferTooSmall);
    }
    buf.fill(0);
    // A Pod starts with a field key (0x0a), never 0x00 or 0xFF: 0x00 after
    // the call means "none", 0xFF means nothing was written.
    if let Some(first) = buf.first_mut() {
        *first = 0xFF;
    }
    sys::get_waiting_pod(uid.as_bytes(), buf);
    let buf: &'b [u8] = buf;
    match buf.first() {
        Some(0) => Ok(None),
        Some(0xFF) | None => Err(WaitingPodError::BufferTooSmall),
        Some(_) => Ok(Some(Pod::from_bytes(message_prefix(buf)))),
    }
}

/// The longest prefix of `buf` made of whole protobuf fields; the zeros
/// after the message end it (field number 0 is invalid).
#[inline]
fn message_prefix(buf: &[u8]) -> &[u8] {
    let (mut end, mut pos, mut start) = (0, 0, 0);
    while end < buf.len() && kguest_wire::wire::field_at(buf, &mut pos, &mut start) != 0 {
        end = pos;
    }
    buf.get(..end).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go_string::json_string;

    #[test]
    fn go_string_escaping() {
        assert_eq!(json_string("plain é 中"), "\"plain é 中\"");
        assert_eq!(
            json_string("q\"b\\<a>&\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}"),
            "\"q\\\"b\\\\\\u003ca\\u003e\\u0026\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\""
        );
        assert_eq!(
            json_string("a\u{2028}b\u{2029}c\u{2027}"),
            "\"a\\u2028b\\u2029c\u{2027}\""
        );
        assert_eq!(json_string(""), "\"\"");
    }

    #[test]
    fn measuring_counts_exactly_what_writing_writes() {
        let cases: [&[u8]; 6] = [
            b"",
            b"checkout-7d9f8b6c5d-x2k4q",
            b"<&>\"\\\n\x01",
            "a\u{2028}\u{2029}\u{2027}z".as_bytes(),
            b"ends in \xE2",
            b"\xE2\x80",
        ];
        for case in cases {
            let mut measure = Out {
                buf: &mut [],
                len: 0,
            };
            measure.string(case);
            let mut buf = std::vec![0u8; measure.len];
            let mut write = Out {
                buf: &mut buf,
                len: 0,
            };
            write.string(case);
            assert_eq!(write.len, measure.len, "{case:?}");
            // A byte short: counted the same, nothing written past the end.
            let mut short = std::vec![0u8; measure.len - 1];
            let mut out = Out {
                buf: &mut short,
                len: 0,
            };
            out.string(case);
            assert_eq!(out.len, measure.len);
        }
        let mut buf = [0u8; 16];
        let mut out = Out {
            buf: &mut buf,
            len: 0,
        };
        out.string(b"\xE2\x80");
        let len = out.len;
        assert_eq!(&buf[..len], b"\"\xE2\x80\"");
    }

    #[test]
    fn object_refs_read_the_metadata_fields() {
        use kguest_k8s::api::core::v1::Pod;
        let bytes = crate::testing::proto::PodBuilder::new("n")
            .namespace("ns")
            .uid("u")
            .build();
        let pod = Pod::from_bytes(&bytes);
        let meta = pod.metadata().unwrap();
        let r = ObjectRef::pod(&pod);
        assert_eq!(
            [
                r.kind(),
                r.api_version(),
                r.name(),
                r.namespace(),
                r.uid(),
                r.resource_version()
            ],
            [
                &b"Pod"[..],
                b"v1",
                meta.name_bytes().unwrap(),
                meta.namespace_bytes().unwrap(),
                meta.uid_bytes().unwrap(),
                b""
            ]
        );
        assert_eq!(
            ObjectRef::new("K", "v", None),
            ObjectRef::with("K", "v", "", "", "", "")
        );
    }

    #[test]
    fn prefix_stops_at_the_zero_padding() {
        let msg = [0x0a, 0x01, b'x', 0x12, 0x00, 0, 0, 0];
        assert_eq!(message_prefix(&msg), &msg[..5]);
        assert_eq!(message_prefix(&msg[..5]), &msg[..5]);
        assert_eq!(message_prefix(&[0, 0]), &[] as &[u8]);
        // A truncated length stops before the broken field.
        assert_eq!(message_prefix(&[0x0a, 0x05, b'x']), &[] as &[u8]);
    }
}
