//! Typed readings of the small apimachinery messages guests meet everywhere:
//! `IntOrString`, `Time`, `MicroTime`, `Quantity`. No allocation.

use crate::apimachinery::pkg::api::resource::Quantity;
use crate::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use crate::apimachinery::pkg::util::intstr::IntOrString;
use crate::quantity;

/// The value of an `IntOrString`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOrStr<'a> {
    Int(i32),
    Str(&'a str),
}

impl<'a> IntOrString<'a> {
    /// The number or the string, as the `type` field says (0 = int, 1 = string).
    /// `None` when the type is unknown or the string is not UTF-8.
    pub fn value(&self) -> Option<IntOrStr<'a>> {
        match self.type_().unwrap_or(0) {
            0 => Some(IntOrStr::Int(self.int_val().unwrap_or(0))),
            1 => Some(IntOrStr::Str(self.str_val().unwrap_or(""))),
            _ => None,
        }
    }
}

/// A point in time as Unix seconds and nanoseconds (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Timestamp {
    pub seconds: i64,
    pub nanos: i32,
}

impl Timestamp {
    /// Go's zero `time.Time` (0001-01-01T00:00:00Z), which Kubernetes writes
    /// for an unset time and shows as `null` in JSON.
    pub const GO_ZERO: Timestamp = Timestamp {
        seconds: kguest_wire::timefmt::MIN_SECONDS,
        nanos: 0,
    };

    /// True for Go's zero time.
    pub fn is_go_zero(&self) -> bool {
        *self == Self::GO_ZERO
    }
}

impl Time<'_> {
    /// The time as seconds and nanoseconds since the Unix epoch.
    pub fn timestamp(&self) -> Timestamp {
        Timestamp {
            seconds: self.seconds().unwrap_or(0),
            nanos: self.nanos().unwrap_or(0),
        }
    }
}

impl MicroTime<'_> {
    /// The time as seconds and nanoseconds since the Unix epoch.
    pub fn timestamp(&self) -> Timestamp {
        Timestamp {
            seconds: self.seconds().unwrap_or(0),
            nanos: self.nanos().unwrap_or(0),
        }
    }
}

impl Quantity<'_> {
    /// The quantity parsed to an exact value (see [`quantity`]).
    pub fn parse(&self) -> Result<quantity::Quantity, quantity::QuantityError> {
        quantity::parse(self.string_bytes().unwrap_or(b""))
    }
}
