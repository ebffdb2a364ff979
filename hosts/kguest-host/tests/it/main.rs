//! Integration tests for kguest-host. Guests are tiny inline WAT modules,
//! each exercising one behaviour.

mod abi;
mod hostile;
mod ksw;
mod load;
mod pool;
mod profile;
mod schedule;
mod snapshot;
mod util;
