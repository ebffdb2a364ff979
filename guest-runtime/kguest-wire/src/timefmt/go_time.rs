//! Times read as Go's `time.Parse` reads Kubernetes' layouts ([`parse_go_time`]),
//! and the zone offset both time parsers read.

use super::rfc3339::fixed_digits;
use super::{SECONDS_PER_DAY, days_from_civil, days_in_month};

/// Parses a time as Go's `time.Parse` does with the layout Kubernetes
/// decodes the field with: `time.RFC3339` for `metav1.Time` (`frac_digits`
/// 0) and `RFC3339Micro` for `metav1.MicroTime` (6). Returns UTC seconds and
/// nanoseconds since the Unix epoch.
///
/// Go's reading differs from [`parse_rfc3339`](super::parse_rfc3339), and Kubernetes accepts what
/// Go accepts: the separator is `T` and the zone `Z` or `±hh:mm` (upper case
/// only); the hour may have one digit; the fraction may follow `.` or `,`.
/// Under `time.RFC3339` the fraction is optional, of any length (digits past
/// the ninth are dropped); under a layout with digits it must have exactly
/// that many. Offsets go up to `±24:60`, and the year 0000 is read, so the
/// result may fall in the years -1 or 10000.
#[inline]
pub fn parse_go_time(s: &[u8], frac_digits: u8) -> Option<(i64, i32)> {
    #[inline]
    fn literal(s: &[u8], c: u8) -> Option<&[u8]> {
        s.strip_prefix(&[c])
    }
    #[inline]
    fn two(s: &[u8]) -> Option<(u32, &[u8])> {
        Some((fixed_digits(s, 0, 2)?, s.get(2..)?))
    }
    let year = i64::from(fixed_digits(s, 0, 4)?);
    let (month, rest) = two(literal(s.get(4..)?, b'-')?)?;
    let (day, rest) = two(literal(rest, b'-')?)?;
    let rest = literal(rest, b'T')?;
    // Go reads the hour with one or two digits.
    let (hour, rest) = match two(rest) {
        Some(found) => found,
        None => (fixed_digits(rest, 0, 1)?, rest.get(1..)?),
    };
    let (minute, rest) = two(literal(rest, b':')?)?;
    let (second, mut rest) = two(literal(rest, b':')?)?;
    let month = u8::try_from(month).ok()?;
    let day = u8::try_from(day).ok()?;
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let fraction = |digits: &[u8]| {
        let kept = digits.get(..digits.len().min(9)).unwrap_or(&[]);
        let value = kept.iter().fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
        // kept.len() <= 9, so both factors stay below 10^9.
        value * 10u32.pow(9 - kept.len() as u32)
    };
    let mut nanos = 0;
    let comma_or_period = |c: &u8| matches!(c, b'.' | b',');
    if frac_digits == 0 {
        if rest.first().is_some_and(comma_or_period) && rest.get(1).is_some_and(u8::is_ascii_digit)
        {
            let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            nanos = fraction(&rest[1..=n]);
            rest = &rest[1 + n..];
        }
    } else {
        let n = usize::from(frac_digits);
        let digits = rest.get(1..=n)?;
        if !rest.first().is_some_and(comma_or_period) || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        nanos = fraction(digits);
        rest = &rest[1 + n..];
    }
    // Go's range test allows an offset of 24 hours or 60 minutes.
    let offset = zone_offset(rest, 24, 60)?;
    let seconds = days_from_civil(year, month, day) * SECONDS_PER_DAY
        + i64::from(hour * 3600 + minute * 60 + second)
        - offset;
    Some((seconds, i32::try_from(nanos).ok()?))
}

/// The zone at the end of a time, in seconds east of UTC: `Z`, or `±hh:mm`
/// with `hh <= max_hh` and `mm <= max_mm`; `None` for anything else.
#[inline]
pub(super) fn zone_offset(zone: &[u8], max_hh: i64, max_mm: i64) -> Option<i64> {
    match zone {
        b"Z" => Some(0),
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let hh = i64::from(fixed_digits(zone, 1, 2)?);
            let mm = i64::from(fixed_digits(zone, 4, 2)?);
            if hh > max_hh || mm > max_mm {
                return None;
            }
            let offset = hh * 3600 + mm * 60;
            Some(if *sign == b'-' { -offset } else { offset })
        }
        _ => None,
    }
}
