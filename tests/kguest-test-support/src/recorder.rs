//! A [`SchedulerHandle`] that records what guests send through it, for the
//! host's and the examples' tests.

use std::sync::{Arc, Mutex};

use kguest_host::{LogRecord, SchedulerHandle};

/// A klog line as a guest sent it: severity, message, key/value pairs.
pub type LogLine = (i32, String, Vec<(String, String)>);

/// The UID of the one waiting pod the [`Recorder`] knows.
pub const WAITING_POD_UID: &str = "known";
/// The protobuf bytes it hands out for that pod (not a real Pod: tests check
/// that the bytes arrive unchanged).
pub const WAITING_POD: &[u8] = b"WAITING-POD";

/// Records klog lines, events and rejected waiting pods; knows one waiting
/// pod ([`WAITING_POD_UID`]).
#[derive(Default)]
pub struct Recorder {
    pub logs: Mutex<Vec<LogLine>>,
    /// Each event's JSON as the guest sent it.
    pub events: Mutex<Vec<Vec<u8>>>,
    /// UIDs passed to `reject_waiting_pod`, known or not.
    pub rejected: Mutex<Vec<String>>,
}

impl Recorder {
    /// Takes what was recorded so far: events (as text) and log lines.
    pub fn take(&self) -> (Vec<String>, Vec<LogLine>) {
        let events = std::mem::take(&mut *self.events.lock().unwrap());
        let events = events
            .iter()
            .map(|json| String::from_utf8_lossy(json).into_owned())
            .collect();
        (events, std::mem::take(&mut *self.logs.lock().unwrap()))
    }
}

impl SchedulerHandle for Recorder {
    fn log(&self, record: &LogRecord<'_>) {
        let kvs = record
            .kvs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.logs
            .lock()
            .unwrap()
            .push((record.severity, record.message.to_string(), kvs));
    }

    fn event(&self, event_json: &[u8]) {
        self.events.lock().unwrap().push(event_json.to_vec());
    }

    fn reject_waiting_pod(&self, uid: &str) -> bool {
        self.rejected.lock().unwrap().push(uid.to_string());
        uid == WAITING_POD_UID
    }

    fn waiting_pod(&self, uid: &str) -> Option<Arc<[u8]>> {
        (uid == WAITING_POD_UID).then(|| WAITING_POD.into())
    }
}
