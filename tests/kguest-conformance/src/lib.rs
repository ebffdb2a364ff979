//! Tests only: see `tests/it`.
