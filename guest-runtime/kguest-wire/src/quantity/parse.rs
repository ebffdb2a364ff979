//! Reading quantity strings: splitting them as Kubernetes scans them, the
//! suffix, and the exact value with its nano rounding and binary cap.

use super::wide::Wide;
use super::{BINARY_SUFFIXES, Format, Quantity, QuantityError, SI_SUFFIXES, len_i64, pow10};

/// The largest value a binary-suffixed quantity keeps, in nano units: (2^63-1) × 10^9.
const BINARY_CAP_NANOS: u128 = 9_223_372_036_854_775_807_000_000_000;

/// A quantity string taken apart; `int` keeps any leading zeros.
struct Parts<'a> {
    negative: bool,
    int: &'a [u8],
    frac: &'a [u8],
    suffix: &'a [u8],
}

/// What a suffix means.
#[derive(Clone, Copy)]
enum Suffix {
    /// Multiply by `10^exp`.
    Decimal { exp: i64, format: Format },
    /// Multiply by `1024^power`, `power` in `1..=6`.
    Binary { power: u32 },
}

#[inline]
fn digit_run(s: &[u8]) -> usize {
    s.iter().take_while(|c| c.is_ascii_digit()).count()
}

#[inline]
fn split_at(s: &[u8], at: usize) -> (&[u8], &[u8]) {
    s.split_at_checked(at).unwrap_or((s, &[]))
}

/// Splits `s` the way Kubernetes scans it: `[+-]? digits* (. digits*)?`, then a
/// suffix made of `[eEinumkKMGTP]*`, an optional sign and digits.
#[inline]
fn split(s: &[u8]) -> Result<Parts<'_>, QuantityError> {
    let (negative, rest) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    let (int, rest) = split_at(rest, digit_run(rest));
    let (frac, suffix) = match rest.split_first() {
        Some((b'.', after)) => split_at(after, digit_run(after)),
        _ => (&[][..], rest),
    };
    let letters = suffix
        .iter()
        .take_while(|c| b"eEinumkKMGTP".contains(c))
        .count();
    let (_, tail) = split_at(suffix, letters);
    let tail = match tail.split_first() {
        Some((b'+' | b'-', after)) => after,
        _ => tail,
    };
    if !tail.iter().all(u8::is_ascii_digit) {
        return Err(QuantityError::Syntax);
    }
    Ok(Parts {
        negative,
        int,
        frac,
        suffix,
    })
}

/// Reads a decimal exponent `[+-]?digits`, limited to ±(2^31-1) as Kubernetes does.
#[inline]
fn parse_exponent(s: &[u8]) -> Option<i64> {
    let (negative, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        let d = i64::from(c.wrapping_sub(b'0'));
        v = v.saturating_mul(10).saturating_add(d);
    }
    if v > i64::from(i32::MAX) {
        return None;
    }
    Some(if negative { -v } else { v })
}

#[inline]
fn interpret(suffix: &[u8]) -> Result<Suffix, QuantityError> {
    if let Some(pos) = SI_SUFFIXES.iter().position(|s| *s == suffix) {
        // pos <= 9, so this is -9..=18 in steps of 3.
        let exp = len_i64(pos).saturating_sub(3).saturating_mul(3);
        return Ok(Suffix::Decimal {
            exp,
            format: Format::DecimalSI,
        });
    }
    if let Some(pos) = BINARY_SUFFIXES.iter().position(|s| *s == suffix) {
        let power = u32::try_from(pos).unwrap_or(0).saturating_add(1);
        return Ok(Suffix::Binary { power });
    }
    match suffix.split_first() {
        Some((b'e' | b'E', rest)) if !rest.is_empty() => match parse_exponent(rest) {
            Some(exp) => Ok(Suffix::Decimal {
                exp,
                format: Format::DecimalExponent,
            }),
            None => Err(QuantityError::Suffix),
        },
        _ => Err(QuantityError::Suffix),
    }
}

/// Parses a Kubernetes quantity such as `500m`, `1.5Gi`, `-2e3` or `.5`.
///
/// Surrounding whitespace is not accepted (Kubernetes trims it before parsing
/// JSON, so trim first when reading JSON strings).
#[inline]
pub fn parse(s: &[u8]) -> Result<Quantity, QuantityError> {
    if s.is_empty() {
        return Err(QuantityError::Empty);
    }
    let parts = split(s)?;
    let suffix = interpret(parts.suffix)?;
    let has_digits = !parts.int.is_empty() || !parts.frac.is_empty();
    match suffix {
        Suffix::Decimal { exp, format } => {
            // Kubernetes takes a digit-less number ("", ".", "-") as zero only on
            // its integer fast path, which needs the exponent to be at least -9.
            if !has_digits && exp < -9 {
                return Err(QuantityError::Numeric);
            }
            decimal_value(&parts, exp, format)
        }
        Suffix::Binary { power } => {
            // Likewise its fast path for binary suffixes stops at Ti.
            if !has_digits && power >= 5 {
                return Err(QuantityError::Numeric);
            }
            binary_value(&parts, power)
        }
    }
}

/// Value of `digits × 10^exp`, rounded away from zero to a multiple of 10^-9.
#[inline]
fn decimal_value(p: &Parts<'_>, exp: i64, format: Format) -> Result<Quantity, QuantityError> {
    let int_len = len_i64(p.int.len());
    // The digit at index j (over int then frac) weighs 10^(top - j).
    let top = exp.saturating_add(int_len).saturating_sub(1);
    // Digits weighing less than 10^-9 only matter as "something was there".
    let last_kept = top.saturating_add(9);
    // Digits go into a wide integer so that a value which only fits once
    // rounded (`...999.9n`) is still accepted; zeros wait in `zeros` until a
    // non-zero digit follows, so long runs of them cost nothing.
    let mut w = Wide::ZERO;
    let mut started = false;
    let mut fits = true;
    let mut zeros: u32 = 0;
    let mut low = 0i64;
    let mut sticky = false;
    for (j, &c) in p.int.iter().chain(p.frac.iter()).enumerate() {
        let j = len_i64(j);
        let d = c.wrapping_sub(b'0');
        if j > last_kept {
            if d != 0 {
                sticky = true;
                break;
            }
        } else if d == 0 {
            if started {
                zeros = zeros.saturating_add(1);
            }
        } else {
            fits &=
                w.mul_pow10(zeros.saturating_add(u32::from(started))) && w.mul_add(1, u64::from(d));
            if !fits {
                return Err(QuantityError::OutOfRange);
            }
            started = true;
            zeros = 0;
            low = top.saturating_sub(j);
        }
    }
    if sticky {
        // Add one nano to the magnitude; every kept digit weighs at least 10^-9.
        if started {
            let shift =
                u32::try_from(low.saturating_add(9)).map_err(|_| QuantityError::OutOfRange)?;
            fits &= w.mul_pow10(shift);
        }
        fits &= w.mul_add(1, 1);
        low = -9;
        // Rounding up may carry into trailing zeros (384 bits hold < 116 digits).
        for _ in 0..116 {
            let mut t = w;
            if !fits || t.div_rem(10) != 0 {
                break;
            }
            w = t;
            low = low.saturating_add(1);
        }
    }
    let mag = match w.to_u128() {
        Some(m) if fits => m,
        _ => return Err(QuantityError::OutOfRange),
    };
    build(p.negative, mag, low, format)
}

/// Value of `digits × 1024^power`, rounded away from zero to a multiple of
/// 10^-9 and capped at 2^63-1 in magnitude, as Kubernetes does.
#[inline]
fn binary_value(p: &Parts<'_>, power: u32) -> Result<Quantity, QuantityError> {
    let bits = power.saturating_mul(10);
    let leading = p.int.iter().take_while(|&&c| c == b'0').count();
    let (_, int) = split_at(p.int, leading);
    let nanos = if int.len() > 19 {
        // At least 10^19 × 1024: far past the cap.
        BINARY_CAP_NANOS
    } else {
        // With value = x × 2^bits, fraction digits past 10^-(9+bits) cannot
        // move the result across a nano boundary, only off it: keep them as a
        // sticky flag.
        let keep = usize::try_from(bits.saturating_add(9)).unwrap_or(usize::MAX);
        let (kept, dropped) = split_at(p.frac, keep.min(p.frac.len()));
        let mut inexact = dropped.iter().any(|&c| c != b'0');
        let mut w = Wide::ZERO;
        let mut fits = true;
        for &c in int.iter().chain(kept.iter()) {
            fits &= w.mul_add(10, u64::from(c.wrapping_sub(b'0')));
        }
        fits &= w.mul_add(1u64 << bits.min(63), 0);
        let frac_len = u32::try_from(kept.len()).unwrap_or(u32::MAX);
        if frac_len <= 9 {
            fits &= w.mul_add(10u64.pow(9u32.saturating_sub(frac_len)), 0);
        } else {
            let mut left = frac_len.saturating_sub(9);
            while left > 0 {
                let step = left.min(19);
                if w.div_rem(10u64.pow(step)) != 0 {
                    inexact = true;
                }
                left = left.saturating_sub(step);
            }
        }
        if !fits {
            return Err(QuantityError::OutOfRange);
        }
        let floor = w.to_u128().unwrap_or(u128::MAX);
        let n = if inexact {
            floor.saturating_add(1)
        } else {
            floor
        };
        n.min(BINARY_CAP_NANOS)
    };
    // A binary value strictly between 0 and 1 switches to decimal, as in Kubernetes.
    let format = if nanos > 0 && nanos < 1_000_000_000 {
        Format::DecimalSI
    } else {
        Format::BinarySI
    };
    build(p.negative, nanos, -9, format)
}

/// Normalises `±mag × 10^exp` into a [`Quantity`].
#[inline]
pub(super) fn build(
    negative: bool,
    mut mag: u128,
    mut exp: i64,
    format: Format,
) -> Result<Quantity, QuantityError> {
    if mag == 0 {
        return Ok(Quantity {
            mant: 0,
            exp: 0,
            format,
        });
    }
    let max = i64::from(i32::MAX);
    while mag.is_multiple_of(10) && exp < max {
        mag /= 10;
        exp = exp.saturating_add(1);
    }
    if exp > max {
        let up = u32::try_from(exp.saturating_sub(max)).map_err(|_| QuantityError::OutOfRange)?;
        mag = pow10(up)
            .and_then(|p| mag.checked_mul(p))
            .ok_or(QuantityError::OutOfRange)?;
        exp = max;
    }
    let exp = i32::try_from(exp).map_err(|_| QuantityError::OutOfRange)?;
    let m = i128::try_from(mag).map_err(|_| QuantityError::OutOfRange)?;
    Ok(Quantity {
        mant: if negative { -m } else { m },
        exp,
        format,
    })
}

/// Tells whether Kubernetes, having parsed `s`, keeps `s` itself as its string
/// form. Its parser does so when a cheap test says the input already looks
/// canonical; that test lets through spellings such as `+1`, `01`, `5.` or `1E3`.
#[inline]
pub(super) fn spelling_kept(s: &[u8]) -> bool {
    if s == b"0" {
        return true;
    }
    let Ok(p) = split(s) else {
        return false;
    };
    let Ok(suffix) = interpret(p.suffix) else {
        return false;
    };
    let leading = p.int.iter().take_while(|&&c| c == b'0').count();
    let (_, num) = split_at(p.int, leading);
    // Kubernetes stands "0" in for an empty integer part.
    let num_len = len_i64(num.len().max(1));
    let frac_len = len_i64(p.frac.len());
    match suffix {
        Suffix::Decimal { exp, .. } => {
            let scale = exp.saturating_sub(frac_len);
            let fast = num_len.saturating_add(frac_len) <= 18 && scale >= -9;
            let trailing_zeros = {
                let in_frac = p.frac.iter().rev().take_while(|&&c| c == b'0').count();
                if in_frac == p.frac.len() {
                    in_frac.saturating_add(num.iter().rev().take_while(|&&c| c == b'0').count())
                } else {
                    in_frac
                }
            };
            fast && scale % 3 == 0 && !num.is_empty() && trailing_zeros < 3
        }
        Suffix::Binary { power } => {
            let precision = 15i64
                .saturating_sub(num_len)
                .saturating_sub(i64::from(power.saturating_mul(3)))
                .saturating_sub(1);
            if !p.frac.is_empty() || precision < 0 {
                return false;
            }
            // At most 13 digits here, so this cannot overflow.
            let value = num.iter().fold(0u64, |v, &c| {
                v.saturating_mul(10)
                    .saturating_add(u64::from(c.wrapping_sub(b'0')))
            });
            value & 7 != 0
        }
    }
}
