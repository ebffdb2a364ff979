//! Helpers of the fuzz targets that only they need: the schema-guided JSON
//! generator and the Go judge kept running as an oracle. What they share
//! with the tests (walking views, the prost-reflect oracle and its trees,
//! the wire predicates of the documented deviations, JSON comparisons,
//! byte differences) is `kguest-test-support`, used by path since this is
//! its own workspace.

pub mod generate;
pub mod go_judge;
