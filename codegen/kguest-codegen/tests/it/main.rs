//! Integration tests of kguest-codegen, in one test binary.

mod snapshots;
mod util;
