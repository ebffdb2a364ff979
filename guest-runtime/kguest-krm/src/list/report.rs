//! Results a function reports: [`Report`] and [`Severity`], and each result
//! as the list keeps it until it is written.

use super::ResourceList;
use super::item::Item;
use crate::edit::EditError;

/// Result severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A result to report: a message, its severity, and optionally the item
/// and field it is about.
#[derive(Clone, Copy, Debug)]
pub struct Report<'s> {
    pub severity: Severity,
    pub message: &'s str,
    /// The item (its index); gives the result's `resourceRef` and `file`.
    pub item: Option<usize>,
    /// `field.path`, e.g. `spec.containers[0].resources.requests.cpu`.
    pub field: Option<&'s str>,
}

impl<'s> Report<'s> {
    pub fn error(message: &'s str) -> Self {
        Self::new(Severity::Error, message)
    }

    pub fn warning(message: &'s str) -> Self {
        Self::new(Severity::Warning, message)
    }

    pub fn info(message: &'s str) -> Self {
        Self::new(Severity::Info, message)
    }

    pub fn new(severity: Severity, message: &'s str) -> Self {
        Report {
            severity,
            message,
            item: None,
            field: None,
        }
    }

    /// About item `index`.
    pub fn on(mut self, index: usize) -> Self {
        self.item = Some(index);
        self
    }

    /// About the field at `path`, dotted: `spec.containers[0].image`
    /// ([`field_path`](crate::field_path) and [`Path::field`](crate::Path::field)
    /// write it from segments).
    pub fn field(mut self, path: &'s str) -> Self {
        self.field = Some(path);
        self
    }
}

#[derive(Clone, Copy)]
pub(super) struct Rec<'a> {
    pub(super) severity: Severity,
    pub(super) message: &'a str,
    pub(super) field: Option<&'a str>,
    pub(super) item: Option<Ref<'a>>,
}

/// The item a result is about, read when it was reported (reading later
/// could decode into the arena while the output writer grows a buffer).
#[derive(Clone, Copy)]
pub(super) struct Ref<'a> {
    pub(super) api_version: &'a str,
    pub(super) kind: &'a str,
    pub(super) name: Option<&'a str>,
    pub(super) namespace: Option<&'a str>,
    pub(super) file: Option<&'a str>,
    pub(super) index: Option<i64>,
}

impl<'a> ResourceList<'a> {
    /// Adds a result to the output's `results`.
    pub fn report(&mut self, r: Report<'_>) -> Result<(), EditError> {
        let arena = self.arena;
        let message = arena.copy_str(r.message).ok_or(EditError::OutOfMemory)?;
        let field = match r.field {
            Some(f) => Some(arena.copy_str(f).ok_or(EditError::OutOfMemory)?),
            None => None,
        };
        let item = r.item.and_then(|i| self.item(i)).map(|it| Ref {
            api_version: it.api_version(),
            kind: it.kind(),
            name: it.name(),
            namespace: it.namespace(),
            file: file_path(&it),
            index: file_index(&it),
        });
        if r.severity == Severity::Error {
            self.errors += 1;
        }
        let rec = Rec {
            severity: r.severity,
            message,
            field,
            item,
        };
        if self.results.push(arena, rec) {
            Ok(())
        } else {
            Err(EditError::OutOfMemory)
        }
    }

    /// Shorthand: an error result about item `index`.
    pub fn error(&mut self, index: usize, message: &str) -> Result<(), EditError> {
        self.report(Report::error(message).on(index))
    }

    /// Number of error results reported so far.
    pub fn error_count(&self) -> u32 {
        self.errors
    }
}

fn file_path<'a>(it: &Item<'a>) -> Option<&'a str> {
    it.annotation("internal.config.kubernetes.io/path")
        .or_else(|| it.annotation("config.kubernetes.io/path"))
}

fn file_index(it: &Item<'_>) -> Option<i64> {
    let s = it
        .annotation("internal.config.kubernetes.io/index")
        .or_else(|| it.annotation("config.kubernetes.io/index"))?;
    crate::node::parse_i64(s.as_bytes())
}
