//! Errors and the path they name (`spec.containers[0].name`), kept as the
//! encoder descends.

use alloc::format;
use alloc::string::{String, ToString};

use super::source::SourceEvent;
use super::{Encoder, Part};
use crate::JsonError;
use crate::text::Text;

impl Encoder {
    pub(super) fn render_path(&self) -> String {
        let mut out = String::new();
        for part in &self.path {
            match *part {
                Part::Name(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Part::Member(start, end) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(self.names.get(start as usize..end as usize).unwrap_or(""));
                }
                Part::Index(i) => out.push_str(&format!("[{i}]")),
                Part::Key(start, end) => {
                    let key = self.names.get(start as usize..end as usize).unwrap_or("");
                    out.push_str(&format!("[{key:?}]"));
                }
            }
        }
        if out.is_empty() { ".".into() } else { out }
    }

    pub(super) fn invalid(&self, reason: impl ToString) -> JsonError {
        JsonError::Invalid {
            path: self.render_path(),
            reason: reason.to_string(),
        }
    }

    pub(super) fn expected(&self, what: &str, found: &SourceEvent<'_>) -> JsonError {
        self.invalid(format!("expected {what}, found {}", found.describe()))
    }

    pub(super) fn push_name(&mut self, text: &Text<'_>, key: bool) {
        let start = self.names.len() as u32;
        if let Some(plain) = text.as_plain() {
            self.names.push_str(plain);
        } else {
            let mut buf = core::mem::take(&mut self.text);
            buf.clear();
            text.decode_into(&mut buf);
            self.names.push_str(&String::from_utf8_lossy(&buf));
            self.text = buf;
        }
        let end = self.names.len() as u32;
        self.path.push(if key {
            Part::Key(start, end)
        } else {
            Part::Member(start, end)
        });
    }

    pub(super) fn pop_name(&mut self) {
        if let Some(Part::Member(start, _) | Part::Key(start, _)) = self.path.pop() {
            self.names.truncate(start as usize);
        }
    }
}
