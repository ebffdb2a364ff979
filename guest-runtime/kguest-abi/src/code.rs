//! Scheduler status codes as they cross the ABI (`framework.Code`): a
//! hook's `i32` result, or its half of a packed `i64`.

/// The plugin accepts the pod / node.
pub const SUCCESS: u32 = 0;
/// An internal plugin error.
pub const ERROR: u32 = 1;
/// The pod does not fit; preemption may help.
pub const UNSCHEDULABLE: u32 = 2;
/// The pod does not fit and preemption will not help.
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: u32 = 3;
/// Permit: wait for the returned timeout.
pub const WAIT: u32 = 4;
/// The plugin opts out of this extension point for this pod.
pub const SKIP: u32 = 5;

/// The framework's name of each code, indexed by code.
pub const NAMES: [&str; 6] = [
    "Success",
    "Error",
    "Unschedulable",
    "UnschedulableAndUnresolvable",
    "Wait",
    "Skip",
];

/// The framework's name of `code`, if it is one of the six.
pub const fn name(code: i64) -> Option<&'static str> {
    if code >= 0 && code < NAMES.len() as i64 {
        Some(NAMES[code as usize])
    } else {
        None
    }
}
