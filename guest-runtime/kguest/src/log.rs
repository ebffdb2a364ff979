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
#[inline]
pub fn severity() -> i32 {
    sys::severity()
}

/// True when a message of `sev` would be printed.
#[inline]
pub fn enabled(sev: Severity) -> bool {
    sev as i32 >= severity()
}

/// Logs a plain message.
#[inline]
pub fn log(sev: Severity, msg: &str) {
    if enabled(sev) {
        sys::log(sev as i32, msg.as_bytes());
    }
}

/// Logs a structured message (klog `InfoS`/`ErrorS`) with key/value pairs.
/// Pairs that do not fit a 512-byte buffer are dropped; keys and values must
/// not contain NUL.
#[inline]
pub fn logs(sev: Severity, msg: &str, kvs: &[(&str, &str)]) {
    if !enabled(sev) {
        return;
    }
    let mut out = Kvs::new();
    for (k, v) in kvs {
        out.pair(k, &[v.as_bytes()]);
    }
    out.send(sev, msg);
}

/// Like [`logs`], with each value given as the concatenation of byte parts
/// (no formatting, no UTF-8 check): `&[("pod", &kobj(ns, name))]`.
#[inline]
pub fn logs_parts(sev: Severity, msg: &str, kvs: &[(&str, &[&[u8]])]) {
    if !enabled(sev) {
        return;
    }
    let mut out = Kvs::new();
    for (k, parts) in kvs {
        out.pair(k, parts);
    }
    out.send(sev, msg);
}

/// klog's `KObj` value as parts for [`logs_parts`]: `namespace/name`, or
/// `name` alone when the namespace is empty (as the Go SDK writes it).
#[inline]
pub fn kobj<'a>(namespace: &'a [u8], name: &'a [u8]) -> [&'a [u8]; 3] {
    if namespace.is_empty() {
        [name, &[], &[]]
    } else {
        [namespace, b"/", name]
    }
}

/// The NUL-separated key/value buffer of the `logs` import.
struct Kvs {
    buf: [u8; 512],
    len: usize,
}

impl Kvs {
    #[inline]
    fn new() -> Kvs {
        // Starts zeroed, so the NUL after each key and value is already there.
        Kvs {
            buf: [0; 512],
            len: 0,
        }
    }

    /// Appends `key\0value\0`, or nothing when it does not fit.
    #[inline]
    fn pair(&mut self, key: &str, parts: &[&[u8]]) {
        let size = parts
            .iter()
            .fold(key.len() + 2, |n, p| n.saturating_add(p.len()));
        if self.len.saturating_add(size) > self.buf.len() {
            return;
        }
        let mut at = self.len;
        for (i, p) in core::iter::once(key.as_bytes())
            .chain(parts.iter().copied())
            .enumerate()
        {
            if let Some(dst) = self.buf.get_mut(at..) {
                copy(dst, p);
            }
            // The NUL after the key (and, below, after the value) is skipped.
            at += p.len() + usize::from(i == 0);
        }
        self.len = at + 1;
    }

    #[inline]
    fn send(&self, sev: Severity, msg: &str) {
        if self.len == 0 {
            sys::log(sev as i32, msg.as_bytes());
        } else {
            sys::logs(
                sev as i32,
                msg.as_bytes(),
                self.buf.get(..self.len).unwrap_or(&[]),
            );
        }
    }
}

/// `log(Severity::Info, msg)`.
#[inline]
pub fn info(msg: &str) {
    log(Severity::Info, msg);
}

/// `log(Severity::Error, msg)`.
#[inline]
pub fn error(msg: &str) {
    log(Severity::Error, msg);
}
