//! RFC 3339 text: [`format_rfc3339`] and [`parse_rfc3339`], with the fixed-width
//! digit reader the Go-time parser shares.

use super::go_time::zone_offset;
use super::{DateTime, MAX_SECONDS, MIN_SECONDS, SECONDS_PER_DAY, days_from_civil, days_in_month};

/// Appends ASCII to a fixed buffer; bytes past its end are dropped.
struct Writer<'b> {
    buf: &'b mut [u8; 40],
    len: usize,
}

impl<'b> Writer<'b> {
    #[inline]
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// Writes the low `width` decimal digits of `v`, zero-padded.
    #[inline]
    fn push_digits(&mut self, v: u32, width: u32) {
        for i in (0..width).rev() {
            let d = v.checked_div(10u32.saturating_pow(i)).unwrap_or(0) % 10;
            // d < 10
            self.push(b'0' + d as u8);
        }
    }

    #[inline]
    fn finish(self) -> &'b str {
        let Writer { buf, len } = self;
        let buf: &'b [u8; 40] = buf;
        crate::utf8::to_str(buf.get(..len).unwrap_or(&[])).unwrap_or("")
    }
}

/// Writes `seconds` + `nanos` after the Unix epoch as an RFC 3339 UTC time
/// with exactly `frac_digits` fraction digits (0 to 9), truncating the rest:
/// 0 gives `metav1.Time`'s form, 6 gives `metav1.MicroTime`'s. `None` when
/// `frac_digits` exceeds 9 or the time is out of [`DateTime::from_unix`]'s range.
/// Years outside 0000..=9999 are written as Go's `Time.Format` writes them
/// (`-0001`, `10000`).
#[inline]
pub fn format_rfc3339(
    seconds: i64,
    nanos: i32,
    frac_digits: u8,
    buf: &mut [u8; 40],
) -> Option<&str> {
    if frac_digits > 9 {
        return None;
    }
    let t = DateTime::from_unix(seconds, nanos)?;
    let mut w = Writer { buf, len: 0 };
    if t.year < 0 {
        w.push(b'-');
    }
    let year = t.year.unsigned_abs();
    w.push_digits(year, if year > 9999 { 5 } else { 4 });
    w.push(b'-');
    w.push_digits(u32::from(t.month), 2);
    w.push(b'-');
    w.push_digits(u32::from(t.day), 2);
    w.push(b'T');
    w.push_digits(u32::from(t.hour), 2);
    w.push(b':');
    w.push_digits(u32::from(t.minute), 2);
    w.push(b':');
    w.push_digits(u32::from(t.second), 2);
    if frac_digits > 0 {
        w.push(b'.');
        let digits = u32::from(frac_digits);
        let dropped = 10u32.pow(9u32.saturating_sub(digits));
        w.push_digits(t.nanos.checked_div(dropped).unwrap_or(0), digits);
    }
    w.push(b'Z');
    Some(w.finish())
}

/// Reads `s[at..at + len]` as decimal digits.
#[inline]
pub(super) fn fixed_digits(s: &[u8], at: usize, len: usize) -> Option<u32> {
    let field = s.get(at..at.checked_add(len)?)?;
    field.iter().try_fold(0u32, |v, &c| {
        c.is_ascii_digit().then(|| v * 10 + u32::from(c - b'0'))
    })
}

/// Parses an RFC 3339 time such as `2008-01-01T01:01:01Z`,
/// `2008-01-01t02:01:01.5+01:00` or `2008-01-01T01:01:01.000002Z` into UTC
/// seconds and nanoseconds since the Unix epoch.
///
/// The separator may be `T` or `t`; the zone is `Z` (or `z`) or `±hh:mm`; the
/// optional fraction has 1 to 9 digits. `None` for anything else, and for
/// times outside years 0001..=9999 once converted to UTC.
#[inline]
pub fn parse_rfc3339(s: &[u8]) -> Option<(i64, i32)> {
    let punctuation = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if !punctuation.iter().all(|&(at, c)| s.get(at) == Some(&c)) {
        return None;
    }
    if !matches!(s.get(10), Some(b'T' | b't')) {
        return None;
    }
    let year = fixed_digits(s, 0, 4)?;
    let month = u8::try_from(fixed_digits(s, 5, 2)?).ok()?;
    let day = u8::try_from(fixed_digits(s, 8, 2)?).ok()?;
    let hour = fixed_digits(s, 11, 2)?;
    let minute = fixed_digits(s, 14, 2)?;
    let second = fixed_digits(s, 17, 2)?;
    let year = i64::from(year);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut rest = s.get(19..)?;
    let mut nanos = 0u32;
    if let Some((b'.', after)) = rest.split_first() {
        let n = after.iter().take_while(|c| c.is_ascii_digit()).count();
        if !(1..=9).contains(&n) {
            return None;
        }
        let (digits, tail) = after.split_at_checked(n)?;
        let value = digits
            .iter()
            .fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
        // n <= 9, so both factors stay below 10^9.
        nanos = value * 10u32.pow(9 - u32::try_from(n).ok()?);
        rest = tail;
    }
    let offset = match rest {
        b"z" => 0,
        _ => zone_offset(rest, 23, 59)?,
    };
    let seconds = days_from_civil(year, month, day) * SECONDS_PER_DAY
        + i64::from(hour * 3600 + minute * 60 + second)
        - offset;
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&seconds) {
        return None;
    }
    Some((seconds, i32::try_from(nanos).ok()?))
}
