//! Text forms of protobuf `Timestamp` and `Duration` values, as Kubernetes
//! JSON spells them.
//!
//! - RFC 3339 times: `metav1.Time` prints whole seconds
//!   (`2008-01-01T01:01:01Z`), `metav1.MicroTime` six fraction digits
//!   (`2008-01-01T01:01:01.000002Z`). Both are UTC.
//! - Go durations (`metav1.Duration`): the text of Go's `time.Duration`, such
//!   as `1h1m1.5s` or `1.5µs`.
//!
//! RFC 3339 text covers the years 0001 through 9999 of the proleptic
//! Gregorian calendar, the range protobuf allows for a `Timestamp`. Go's
//! parser, which decides what Kubernetes accepts ([`parse_go_time`]), also
//! reads the year 0000 and offsets that carry a time into the years -1 and
//! 10000; [`format_rfc3339`] writes those as Go does. Nothing here
//! allocates, panics or uses `core::fmt`.

mod duration;
mod go_time;
mod rfc3339;
#[cfg(test)]
mod tests;

pub use duration::{format_go_duration, parse_go_duration};
pub use go_time::parse_go_time;
pub use rfc3339::{format_rfc3339, parse_rfc3339};

/// Seconds since the Unix epoch of 0001-01-01T00:00:00Z (Go's zero `time.Time`).
pub const MIN_SECONDS: i64 = -62_135_596_800;

/// Seconds since the Unix epoch of 9999-12-31T23:59:59Z.
pub const MAX_SECONDS: i64 = 253_402_300_799;

const SECONDS_PER_DAY: i64 = 86_400;

/// The largest zone offset Go's parser accepts: `±24:60`.
const GO_MAX_OFFSET: i64 = 24 * 3600 + 60 * 60;

/// Seconds since the Unix epoch of the earliest time Go's parser reads from
/// Kubernetes' layouts: `0000-01-01T00:00:00+24:60`.
pub const GO_MIN_SECONDS: i64 = -62_167_219_200 - GO_MAX_OFFSET;

/// ... and of the latest: `9999-12-31T23:59:59.999999999-24:60`.
pub const GO_MAX_SECONDS: i64 = MAX_SECONDS + GO_MAX_OFFSET;

/// Days from 0001-01-01 to 1970-01-01.
const EPOCH_DAYS: i64 = 719_162;

const NANOS_PER_SECOND: i32 = 1_000_000_000;

/// Days before the first of each month in a common year.
const DAYS_BEFORE_MONTH: [u16; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/// A UTC calendar date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Year, 1 through 9999.
    pub year: i32,
    /// Month, 1 through 12.
    pub month: u8,
    /// Day of the month, from 1.
    pub day: u8,
    /// Hour, 0 through 23.
    pub hour: u8,
    /// Minute, 0 through 59.
    pub minute: u8,
    /// Second, 0 through 59 (leap seconds are not represented).
    pub second: u8,
    /// Nanoseconds into the second, below 1_000_000_000.
    pub nanos: u32,
}

#[inline]
fn is_leap(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

#[inline]
fn days_in_month(year: i64, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days from 0001-01-01 to January 1st of `year`; callers keep `year` within
/// -1..=10001, so nothing overflows.
#[inline]
fn days_before_year(year: i64) -> i64 {
    let y = year - 1;
    365 * y + y.div_euclid(4) - y.div_euclid(100) + y.div_euclid(400)
}

/// Days since 1970-01-01 of a valid date with `year` in -1..=10000.
#[inline]
fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let before = DAYS_BEFORE_MONTH
        .get(usize::from(month.saturating_sub(1)))
        .copied()
        .unwrap_or(0);
    let leap_day = i64::from(month > 2 && is_leap(year));
    days_before_year(year) + i64::from(before) + leap_day + i64::from(day) - 1 - EPOCH_DAYS
}

/// The date `days` after 1970-01-01; callers keep it within years -1..=10000.
#[inline]
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let n = days + EPOCH_DAYS;
    // 146_097 days make 400 years: a close estimate, which the loops correct.
    let mut year = n * 400 / 146_097 + 1;
    while days_before_year(year + 1) <= n {
        year += 1;
    }
    while days_before_year(year) > n {
        year -= 1;
    }
    let mut left = n - days_before_year(year);
    let mut month = 1u8;
    while month < 12 {
        let len = i64::from(days_in_month(year, month));
        if left < len {
            break;
        }
        left -= len;
        month += 1;
    }
    // left < 31 here.
    (year, month, u8::try_from(left + 1).unwrap_or(1))
}

impl DateTime {
    /// The UTC date and time `seconds` + `nanos` after the Unix epoch; `None`
    /// outside [`GO_MIN_SECONDS`]`..=`[`GO_MAX_SECONDS`] (the years 0001 to
    /// 9999, and what Go's parser reaches beyond them) or when `nanos` is not
    /// in `0..1_000_000_000`.
    #[inline]
    pub fn from_unix(seconds: i64, nanos: i32) -> Option<DateTime> {
        if !(GO_MIN_SECONDS..=GO_MAX_SECONDS).contains(&seconds)
            || !(0..NANOS_PER_SECOND).contains(&nanos)
        {
            return None;
        }
        let days = seconds.div_euclid(SECONDS_PER_DAY);
        let secs = seconds.rem_euclid(SECONDS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        Some(DateTime {
            year: i32::try_from(year).ok()?,
            month,
            day,
            hour: u8::try_from(secs / 3600).ok()?,
            minute: u8::try_from(secs / 60 % 60).ok()?,
            second: u8::try_from(secs % 60).ok()?,
            nanos: u32::try_from(nanos).ok()?,
        })
    }

    /// Seconds and nanoseconds since the Unix epoch; `None` when a field is
    /// out of range (including a day the month does not have).
    #[inline]
    pub fn to_unix(&self) -> Option<(i64, i32)> {
        let year = i64::from(self.year);
        let valid = (1..=9999).contains(&year)
            && (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(year, self.month)
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
            && self.nanos < 1_000_000_000;
        if !valid {
            return None;
        }
        let days = days_from_civil(year, self.month, self.day);
        let seconds = days * SECONDS_PER_DAY
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second);
        Some((seconds, i32::try_from(self.nanos).ok()?))
    }
}
