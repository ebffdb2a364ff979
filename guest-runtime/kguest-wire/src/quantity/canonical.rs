//! Printing quantities: the canonical form, the string Kubernetes serves
//! after parsing ([`reserialize`]) and the small writer both use.

use super::parse::spelling_kept;
use super::{BINARY_SUFFIXES, Format, Quantity, QuantityError, SI_SUFFIXES, parse, pow10};

/// Returns the string Kubernetes stores and serves after it parses `s`: either
/// `s` itself (its parser keeps spellings that look canonical to a quick check,
/// see the notes on [`Quantity::canonical`]) or the canonical form of its value.
#[inline]
pub fn reserialize<'b>(s: &'b [u8], buf: &'b mut [u8; 64]) -> Result<&'b str, QuantityError> {
    if already_canonical(s) {
        // Checked ASCII.
        return Ok(crate::utf8::to_str(s).unwrap_or(""));
    }
    let q = parse(s)?;
    if spelling_kept(s) {
        // A string that parsed is ASCII.
        return Ok(crate::utf8::to_str(s).unwrap_or(""));
    }
    Ok(q.canonical(buf))
}

/// True for the spellings almost every real object uses that are their own
/// canonical form, decided without parsing: an optional `-`, a whole number
/// without leading zeros (at most 15 digits), and then nothing, an SI suffix
/// when the digits do not end in `000` (which would move to the next
/// suffix), or a binary suffix when the number is not a multiple of 1024
/// and stays below Kubernetes' 2^63 cap. [`reserialize`] returns these
/// unchanged; everything else takes the full path.
#[inline]
pub(super) fn already_canonical(s: &[u8]) -> bool {
    let unsigned = s.strip_prefix(b"-").unwrap_or(s);
    let digits = unsigned.iter().take_while(|c| c.is_ascii_digit()).count();
    let (number, suffix) = unsigned.split_at(digits);
    if number == b"0" {
        return suffix.is_empty() && s.len() == 1;
    }
    if !(1..=15).contains(&digits) || number.first() == Some(&b'0') {
        return false;
    }
    let value = number
        .iter()
        .fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
    match suffix {
        [] | [b'n' | b'u' | b'm' | b'k' | b'M' | b'G' | b'T' | b'P' | b'E'] => {
            !number.ends_with(b"000")
        }
        [unit, b'i'] => match b"KMGTPE".iter().position(|u| u == unit) {
            Some(power) => {
                let shift = 10 * (power as u32 + 1);
                value % 1024 != 0
                    && value
                        .checked_shl(shift)
                        .is_some_and(|v| v >> shift == value && v < 1 << 63)
            }
            None => false,
        },
        _ => false,
    }
}

impl Quantity {
    /// Writes the canonical string Kubernetes prints for this value and format
    /// into `buf` and returns it.
    ///
    /// The mantissa is a whole number and the suffix is as large as possible:
    /// `1000m` → `1`, `0.5` → `500m`, `1.5Gi` → `1536Mi`, `1e3` → `1e3`. A
    /// binary value below 1024 in magnitude, or not a whole number, prints in
    /// decimal SI; a decimal SI value beyond `E` (or below `n`) prints with an
    /// exponent instead, so that no magnitude is lost.
    ///
    /// Kubernetes' parser keeps the input string as the printed form when it
    /// already looks canonical to a quick check, so a served object can echo a
    /// non-canonical spelling such as `+1`; [`reserialize`] reproduces that.
    #[inline]
    pub fn canonical<'b>(&self, buf: &'b mut [u8; 64]) -> &'b str {
        let mut out = Out { buf, len: 0 };
        self.write_canonical(&mut out);
        out.finish()
    }

    #[inline]
    fn write_canonical(&self, out: &mut Out<'_>) {
        if self.mant == 0 {
            out.push(b'0');
            return;
        }
        let mag = self.mant.unsigned_abs();
        let mut format = self.format;
        if format == Format::BinarySI {
            // A negative exponent means a fraction: the mantissa has no trailing zeros.
            let whole = match u32::try_from(self.exp) {
                Ok(e) => pow10(e).and_then(|p| mag.checked_mul(p)),
                Err(_) => None,
            };
            match whole {
                Some(v) if v >= 1024 => {
                    let mut v = v;
                    let mut power = 0usize;
                    while v.is_multiple_of(1024) {
                        v /= 1024;
                        power = power.saturating_add(1);
                    }
                    let suffix = match power.checked_sub(1) {
                        None => Some(&b""[..]),
                        Some(i) => BINARY_SUFFIXES.get(i).copied(),
                    };
                    if let Some(suffix) = suffix {
                        if self.mant < 0 {
                            out.push(b'-');
                        }
                        out.push_u128(v);
                        out.push_all(suffix);
                        return;
                    }
                    // Past Ei there is no binary suffix: print an exact exponent form.
                    format = Format::DecimalExponent;
                }
                Some(_) => format = Format::DecimalSI,
                None if self.exp < 0 => format = Format::DecimalSI,
                None => format = Format::DecimalExponent,
            }
        }
        // Lower the exponent to a multiple of three, padding the mantissa.
        let exp3 = self.exp.div_euclid(3).saturating_mul(3);
        let pad = self.exp.saturating_sub(exp3);
        if self.mant < 0 {
            out.push(b'-');
        }
        out.push_u128(mag);
        for _ in 0..pad {
            out.push(b'0');
        }
        let si = if format == Format::DecimalSI {
            usize::try_from(exp3.saturating_add(9) / 3)
                .ok()
                .filter(|_| exp3 >= -9)
                .and_then(|i| SI_SUFFIXES.get(i))
        } else {
            None
        };
        match si {
            Some(suffix) => out.push_all(suffix),
            // Past `E` there is no SI suffix, and Go's canonical form then
            // writes none at all (its suffix lookup fails and the failure is
            // ignored): `5000E` is written `5`. The value changes; the API
            // server stores that text, so kguest writes it too.
            None if format == Format::DecimalSI && exp3 > 18 => {}
            None if exp3 != 0 => {
                out.push(b'e');
                out.push_i64(i64::from(exp3));
            }
            None => {}
        }
    }
}

/// A small ASCII writer over a fixed buffer; bytes past the end are dropped.
struct Out<'b> {
    buf: &'b mut [u8; 64],
    len: usize,
}

impl<'b> Out<'b> {
    #[inline]
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len = self.len.saturating_add(1);
        }
    }

    #[inline]
    fn push_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    #[inline]
    fn push_u128(&mut self, mut v: u128) {
        let mut digits = [0u8; 40];
        let mut n = 0usize;
        loop {
            if let Some(slot) = digits.get_mut(n) {
                // v % 10 < 10
                *slot = b'0'.wrapping_add((v % 10) as u8);
                n = n.saturating_add(1);
            }
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for &d in digits.get(..n).unwrap_or(&[]).iter().rev() {
            self.push(d);
        }
    }

    #[inline]
    fn push_i64(&mut self, v: i64) {
        if v < 0 {
            self.push(b'-');
        }
        self.push_u128(u128::from(v.unsigned_abs()));
    }

    #[inline]
    fn finish(self) -> &'b str {
        let Out { buf, len } = self;
        let buf: &'b [u8; 64] = buf;
        crate::utf8::to_str(buf.get(..len).unwrap_or(&[])).unwrap_or("")
    }
}
