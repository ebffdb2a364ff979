//! Status codes and statuses returned to the scheduler.

/// A scheduler framework status code, as it crosses the ABI (an integer).
///
/// The numbering is the one of `framework.Code` and of the Go guest SDK
/// (`kguest_abi::code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Code {
    /// The plugin ran and the pod may proceed.
    Success = kguest_abi::code::SUCCESS,
    /// Something went wrong inside the plugin.
    Error = kguest_abi::code::ERROR,
    /// The node does not fit now; preemption may help.
    Unschedulable = kguest_abi::code::UNSCHEDULABLE,
    /// The node does not fit and preemption cannot change that.
    UnschedulableAndUnresolvable = kguest_abi::code::UNSCHEDULABLE_AND_UNRESOLVABLE,
    /// Permit only: hold the pod until allowed, rejected or timed out.
    Wait = kguest_abi::code::WAIT,
    /// The plugin has nothing to do for this pod (PreFilter, PreScore, Bind).
    Skip = kguest_abi::code::SKIP,
}

/// A status code the SDK does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownCode(pub i64);

impl TryFrom<u32> for Code {
    type Error = UnknownCode;

    fn try_from(v: u32) -> Result<Code, UnknownCode> {
        use kguest_abi::code;
        Ok(match v {
            code::SUCCESS => Code::Success,
            code::ERROR => Code::Error,
            code::UNSCHEDULABLE => Code::Unschedulable,
            code::UNSCHEDULABLE_AND_UNRESOLVABLE => Code::UnschedulableAndUnresolvable,
            code::WAIT => Code::Wait,
            code::SKIP => Code::Skip,
            _ => return Err(UnknownCode(i64::from(v))),
        })
    }
}

impl TryFrom<i32> for Code {
    type Error = UnknownCode;

    fn try_from(v: i32) -> Result<Code, UnknownCode> {
        u32::try_from(v)
            .map_err(|_| UnknownCode(i64::from(v)))
            .and_then(Code::try_from)
    }
}

impl From<Code> for u32 {
    fn from(c: Code) -> u32 {
        c as u32
    }
}

/// A status: a code and a reason the scheduler shows for non-success codes.
///
/// The reason borrows: a `&'static str`, the plugin's own
/// [`ReasonBuf`](crate::ReasonBuf), or bytes of the current pod or node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status<'a> {
    pub code: Code,
    pub reason: &'a str,
}

impl<'a> Status<'a> {
    /// Success, no reason.
    pub const SUCCESS: Status<'static> = Status {
        code: Code::Success,
        reason: "",
    };

    #[inline(always)]
    pub const fn new(code: Code, reason: &'a str) -> Self {
        Status { code, reason }
    }

    #[inline(always)]
    pub const fn success() -> Self {
        Status {
            code: Code::Success,
            reason: "",
        }
    }

    #[inline(always)]
    pub const fn error(reason: &'a str) -> Self {
        Status::new(Code::Error, reason)
    }

    #[inline(always)]
    pub const fn unschedulable(reason: &'a str) -> Self {
        Status::new(Code::Unschedulable, reason)
    }

    #[inline(always)]
    pub const fn unresolvable(reason: &'a str) -> Self {
        Status::new(Code::UnschedulableAndUnresolvable, reason)
    }

    #[inline(always)]
    pub const fn skip() -> Self {
        Status::new(Code::Skip, "")
    }

    #[inline(always)]
    pub const fn is_success(&self) -> bool {
        matches!(self.code, Code::Success)
    }
}

impl Default for Status<'_> {
    fn default() -> Self {
        Status::success()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_values_are_rejected() {
        for v in 0u32..=5 {
            assert_eq!(u32::from(Code::try_from(v).unwrap()), v);
        }
        assert_eq!(Code::try_from(6u32), Err(UnknownCode(6)));
        assert_eq!(Code::try_from(u32::MAX), Err(UnknownCode(u32::MAX as i64)));
        assert_eq!(Code::try_from(-1i32), Err(UnknownCode(-1)));
        assert_eq!(Code::try_from(i32::MIN), Err(UnknownCode(i32::MIN as i64)));
        assert_eq!(Code::try_from(3i32), Ok(Code::UnschedulableAndUnresolvable));
    }

    #[test]
    fn constructors() {
        assert!(Status::success().is_success());
        assert!(!Status::error("x").is_success());
        assert_eq!(
            Status::unresolvable("r").code,
            Code::UnschedulableAndUnresolvable
        );
        assert_eq!(Status::skip().code, Code::Skip);
        assert_eq!(Status::default(), Status::SUCCESS);
    }
}
