//! klog through the `k8s.io/klog` imports.
//!
//! Messages below the host's configured severity are dropped before any
//! host call (the threshold is asked once). Note the host's own quirk: its
//! `log` import drops messages whose severity is *above* the threshold, its
//! `logs` import those below; this module always gates on "below".

use crate::reason::copy;
use crate::sys;

/// klog severities as the host numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Severity {
    Info = 0,
    Warning = 1,
    Error = 2,
    Fatal = 3,
}

/// The host's threshold (`PluginConfig.LogSeverity`).
pub fn severity() -> i32 {
    sys::severity()
}

/// True when a message of `sev` would be printed.
pub fn enabled(sev: Severity) -> bool {
    sev as i32 >= severity()
}

/// Logs a plain message.
pub fn log(sev: Severity, msg: &str) {
    if enabled(sev) {
        sys::log(sev as i32, msg.as_bytes());
    }
}

/// Logs a structured message (klog `InfoS`/`ErrorS`) with key/value pairs.
/// Pairs that do not fit a 512-byte buffer are dropped; keys and values must
/// not contain NUL.
pub fn logs(sev: Severity, msg: &str, kvs: &[(&str, &str)]) {
    if !enabled(sev) {
        return;
    }
    let mut buf = [0u8; 512];
    let mut len = 0usize;
    // The buffer starts zeroed, so the NUL after each key and value is
    // already there.
    for (k, v) in kvs {
        let v_at = len.saturating_add(k.len()).saturating_add(1);
        let end = v_at.saturating_add(v.len()).saturating_add(1);
        if end > buf.len() {
            break;
        }
        if let Some(dst) = buf.get_mut(len..) {
            copy(dst, k.as_bytes());
        }
        if let Some(dst) = buf.get_mut(v_at..) {
            copy(dst, v.as_bytes());
        }
        len = end;
    }
    if len == 0 {
        sys::log(sev as i32, msg.as_bytes());
    } else {
        sys::logs(sev as i32, msg.as_bytes(), buf.get(..len).unwrap_or(&[]));
    }
}

/// `log(Severity::Info, msg)`.
pub fn info(msg: &str) {
    log(Severity::Info, msg);
}

/// `log(Severity::Error, msg)`.
pub fn error(msg: &str) {
    log(Severity::Error, msg);
}
