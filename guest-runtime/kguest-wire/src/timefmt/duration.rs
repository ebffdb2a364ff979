//! Go `time.Duration` text: [`format_go_duration`] and [`parse_go_duration`].

/// Builds text right to left at the end of a fixed buffer.
struct Backwards<'b> {
    buf: &'b mut [u8; 40],
    start: usize,
}

impl<'b> Backwards<'b> {
    #[inline]
    fn put(&mut self, b: u8) {
        if let Some(i) = self.start.checked_sub(1)
            && let Some(slot) = self.buf.get_mut(i)
        {
            *slot = b;
            self.start = i;
        }
    }

    #[inline]
    fn put_str(&mut self, s: &[u8]) {
        for &b in s.iter().rev() {
            self.put(b);
        }
    }

    /// Writes `v` in decimal, at least one digit.
    #[inline]
    fn put_int(&mut self, mut v: u64) {
        loop {
            // v % 10 < 10
            self.put(b'0' + (v % 10) as u8);
            v /= 10;
            if v == 0 {
                break;
            }
        }
    }

    /// Writes the low `prec` digits of `v` as a fraction (`.5`), without
    /// trailing zeros and without the point when they are all zero; returns
    /// `v` with those digits removed.
    #[inline]
    fn put_fraction(&mut self, mut v: u64, prec: u32) -> u64 {
        let mut printing = false;
        for _ in 0..prec {
            let digit = v % 10;
            printing |= digit != 0;
            if printing {
                // digit < 10
                self.put(b'0' + digit as u8);
            }
            v /= 10;
        }
        if printing {
            self.put(b'.');
        }
        v
    }

    #[inline]
    fn finish(self) -> &'b str {
        let Backwards { buf, start } = self;
        let buf: &'b [u8; 40] = buf;
        crate::utf8::to_str(buf.get(start..).unwrap_or(&[])).unwrap_or("")
    }
}

/// Writes a duration of `nanos` nanoseconds as Go's `time.Duration.String()`
/// does: `0s`, `1.5µs`, `1ms`, `1m30s`, `1h1m1.5s`, `-2562047h47m16.854775808s`.
///
/// Below one second a single unit (`ns`, `µs` as U+00B5, `ms`) carries a
/// decimal fraction; from one second up the text is `[[h]m]s` with hours not
/// folded into days.
#[inline]
pub fn format_go_duration(nanos: i64, buf: &mut [u8; 40]) -> &str {
    let mut w = Backwards { buf, start: 40 };
    let mut u = nanos.unsigned_abs();
    if u == 0 {
        w.put_str(b"0s");
        return w.finish();
    }
    if u < 1_000_000_000 {
        let (prec, unit): (u32, &[u8]) = if u < 1_000 {
            (0, b"ns")
        } else if u < 1_000_000 {
            (3, "µs".as_bytes())
        } else {
            (6, b"ms")
        };
        w.put_str(unit);
        u = w.put_fraction(u, prec);
        w.put_int(u);
    } else {
        w.put(b's');
        u = w.put_fraction(u, 9);
        w.put_int(u % 60);
        u /= 60;
        if u > 0 {
            w.put(b'm');
            w.put_int(u % 60);
            u /= 60;
            if u > 0 {
                w.put(b'h');
                w.put_int(u);
            }
        }
    }
    if nanos < 0 {
        w.put(b'-');
    }
    w.finish()
}

/// Nanoseconds per duration unit, as Go's `time.ParseDuration` names them.
#[inline]
fn duration_unit(unit: &[u8]) -> Option<u64> {
    Some(match unit {
        b"ns" => 1,
        // "us", then micro sign U+00B5 and Greek mu U+03BC before the "s".
        b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        _ => return None,
    })
}

const TWO_POW_63: u64 = 1 << 63;

/// Parses a Go duration string as `time.ParseDuration` does: an optional
/// sign, then one or more numbers (with optional fraction) each followed by a
/// unit among `ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`, as in `300ms`,
/// `-1.5h` or `2h45m`; a lone `0` needs no unit. Returns nanoseconds, or
/// `None` for malformed input or a total outside `i64`.
///
/// Fractions are converted the way Go converts them, through a 64-bit float,
/// so that results agree with Go to the nanosecond.
#[inline]
pub fn parse_go_duration(s: &[u8]) -> Option<i64> {
    let (negative, mut s) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !matches!(s.first(), Some(c) if *c == b'.' || c.is_ascii_digit()) {
            return None;
        }
        // Whole part: overflow is an error.
        let int_len = s.iter().take_while(|c| c.is_ascii_digit()).count();
        let (int_digits, rest) = s.split_at_checked(int_len)?;
        let mut whole: u64 = 0;
        for &c in int_digits {
            if whole > TWO_POW_63 / 10 {
                return None;
            }
            // Guarded above: at most 2^63 + 9, so this never saturates.
            whole = whole
                .saturating_mul(10)
                .saturating_add(u64::from(c.wrapping_sub(b'0')));
            if whole > TWO_POW_63 {
                return None;
            }
        }
        s = rest;
        // Fraction: digits past what fits are ignored, as in Go.
        let mut frac: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut frac_len = 0;
        if let Some((b'.', after)) = s.split_first() {
            frac_len = after.iter().take_while(|c| c.is_ascii_digit()).count();
            let (frac_digits, rest) = after.split_at_checked(frac_len)?;
            let mut overflow = false;
            for &c in frac_digits {
                if overflow || frac > (TWO_POW_63 - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let next = frac
                    .saturating_mul(10)
                    .saturating_add(u64::from(c.wrapping_sub(b'0')));
                if next > TWO_POW_63 {
                    overflow = true;
                    continue;
                }
                frac = next;
                scale *= 10.0;
            }
            s = rest;
        }
        if int_len == 0 && frac_len == 0 {
            return None;
        }
        let unit_len = s
            .iter()
            .take_while(|&&c| c != b'.' && !c.is_ascii_digit())
            .count();
        let (unit, rest) = s.split_at_checked(unit_len)?;
        let unit = duration_unit(unit)?;
        s = rest;
        // unit >= 1, so the division is safe.
        if whole > TWO_POW_63 / unit {
            return None;
        }
        let mut v = whole.saturating_mul(unit);
        if frac > 0 {
            // Go computes this in float64; the product is at most 3.6e12.
            let part = (frac as f64) * (unit as f64 / scale);
            v = v.saturating_add(part as u64);
            if v > TWO_POW_63 {
                return None;
            }
        }
        total = total.checked_add(v)?;
        if total > TWO_POW_63 {
            return None;
        }
    }
    if negative {
        // total <= 2^63, so its negation fits.
        Some(0i64.wrapping_sub_unsigned(total))
    } else {
        i64::try_from(total).ok()
    }
}
