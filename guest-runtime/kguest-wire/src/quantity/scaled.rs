//! [`scaled`]: the `u64` fast path from a quantity string to a scaled value.

use core::num::NonZeroU64;

/// The value of the quantity string `s` in units of `10^scale`, rounded away
/// from zero like Kubernetes' `ScaledValue` (`scale` 0 is `Value`, -3 is
/// `MilliValue`), computed without building a [`Quantity`](super::Quantity).
///
/// A small fast path for guests that only sum requests: plain `u64`
/// arithmetic, a fraction of the code of [`parse`](fn@super::parse). Whenever it returns a
/// value, that value equals `parse(s)?.scaled_value(scale)`; it returns
/// `None` for strings that are not quantities, for quantities whose value
/// does not fit, for scales below nano (`-9`), and for the degenerate
/// digit-less forms (`"k"`, `"."`) that Kubernetes reads as zero.
#[inline]
pub fn scaled(s: &[u8], scale: i32) -> Option<i64> {
    // Kubernetes rounds finer than a nano at parse time; below that scale
    // the exact value here would differ, so leave it to the full parser.
    if scale < -9 {
        return None;
    }
    let (negative, rest) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    let mut mantissa: u64 = 0;
    let mut digits = 0u32;
    let mut frac_digits = 0i32;
    let mut seen_point = false;
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        match c {
            b'0'..=b'9' => {
                // Overflow checks by comparison: a `checked_mul` on u64 costs a
                // 128-bit multiply in wasm.
                if mantissa > (u64::MAX - 9) / 10 {
                    return None;
                }
                mantissa = mantissa * 10 + u64::from(c - b'0');
                digits += 1;
                if seen_point {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    // Suffixes by table position: `n u m _ k M G T P E` are 10^(3(p-3)),
    // `K M G T P E` + `i` are 1024^(p+1).
    let (exp10, binary): (i32, u32) = match rest.get(i..)? {
        [] => (0, 0),
        [b'e' | b'E', exp @ ..] => (small_int(exp)?, 0),
        [c, b'i'] => (0, b"KMGTPE".iter().position(|x| x == c)? as u32 + 1),
        [c] if *c != b'_' => (
            (b"num_kMGTPE".iter().position(|x| x == c)? as i32 - 3) * 3,
            0,
        ),
        _ => return None,
    };
    for _ in 0..binary {
        if mantissa >> 54 != 0 {
            return None;
        }
        mantissa <<= 10;
    }
    // Kubernetes caps binary-suffixed values at 2^63 - 1; leave those to
    // the full parser.
    if binary > 0 && div_ceil(mantissa, pow10_u64(frac_digits.unsigned_abs())?) > i64::MAX as u64 {
        return None;
    }
    let shift = exp10.checked_sub(frac_digits)?.checked_sub(scale)?;
    let magnitude = if shift >= 0 {
        // 10^shift must fit (as the full parser's arithmetic requires).
        pow10_u64(shift.unsigned_abs())?;
        // Times ten at a time: `mantissa > u64::MAX / p` for a variable `p`
        // becomes a 128-bit multiply (`__multi3`) in wasm.
        for _ in 0..shift {
            if mantissa > u64::MAX / 10 {
                return None;
            }
            mantissa *= 10;
        }
        mantissa
    } else {
        match pow10_u64(shift.unsigned_abs()) {
            Some(p) => div_ceil(mantissa, p),
            // The divisor exceeds any mantissa: a non-zero value rounds to 1.
            None => u64::from(mantissa != 0),
        }
    };
    let magnitude = i64::try_from(magnitude).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// `a / b` rounded up, for a divisor that is never zero (a power of ten).
/// Through `NonZeroU64`, so no division-by-zero panic path is linked.
#[inline]
fn div_ceil(a: u64, b: NonZeroU64) -> u64 {
    a / b + u64::from(a % b != 0)
}

/// `10^n`, if it fits a `u64`.
#[inline]
fn pow10_u64(n: u32) -> Option<NonZeroU64> {
    let mut out: u64 = 1;
    for _ in 0..n {
        if out > u64::MAX / 10 {
            return None;
        }
        out *= 10;
    }
    NonZeroU64::new(out)
}

/// A signed decimal exponent of at most a few digits.
#[inline]
fn small_int(s: &[u8]) -> Option<i32> {
    let (negative, digits) = match s.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > 4 {
        return None;
    }
    let mut value = 0i32;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i32::from(c - b'0');
    }
    Some(if negative { -value } else { value })
}
