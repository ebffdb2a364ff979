//! The store's resource limiter.

use std::fmt;

use wasmtime::ResourceLimiter;

/// Most table elements a guest may grow a table to.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

/// Limits one store: one instance with one memory of at most
/// `memory_limit` bytes, a few tables of bounded size. Growing the memory
/// past the limit traps with [`MemoryLimitExceeded`] instead of making
/// `memory.grow` return -1, so a runaway guest is reported precisely.
#[derive(Debug, Clone, Copy)]
pub struct Limiter {
    pub memory_limit: usize,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            return Err(MemoryLimitExceeded {
                requested: desired,
                limit: self.memory_limit,
            }
            .into());
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        1
    }

    fn memories(&self) -> usize {
        1
    }

    fn tables(&self) -> usize {
        4
    }
}

/// The trap's error when a guest grows its memory past the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLimitExceeded {
    pub requested: usize,
    pub limit: usize,
}

impl fmt::Display for MemoryLimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "memory growth to {} bytes exceeds the limit of {} bytes",
            self.requested, self.limit
        )
    }
}

impl std::error::Error for MemoryLimitExceeded {}
