//! Kubernetes `resource.Quantity`, parsed and printed exactly.
//!
//! A quantity is a decimal number with an optional suffix: an SI letter
//! (`n u m k M G T P E`), a binary multiple (`Ki Mi Gi Ti Pi Ei`) or a decimal
//! exponent (`e3`, `E-6`). [`parse`] accepts the same strings the Kubernetes API
//! server accepts and keeps the value the server keeps: finer than one nano it
//! rounds away from zero to the next nano, and a binary-suffixed value is capped
//! at 2^63-1 in magnitude. [`Quantity::canonical`] prints the string the server
//! would print for that value.
//!
//! Everything here works on the stack: no allocation, no panics, no `unsafe`,
//! and no `core::fmt` machinery outside the tests.

use core::cmp::Ordering;

mod canonical;
mod parse;
mod scaled;
#[cfg(test)]
mod tests;
mod wide;

pub use canonical::reserialize;
pub use parse::parse;
pub use scaled::scaled;

use parse::build;

/// The suffix family a quantity is printed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Powers of ten named by SI letters: `n u m k M G T P E`, or no suffix.
    DecimalSI,
    /// Powers of 1024: `Ki Mi Gi Ti Pi Ei`.
    BinarySI,
    /// Powers of ten written as an exponent: `e3`, `E-6`.
    DecimalExponent,
}

/// Why a string is not a quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantityError {
    /// The string is empty.
    Empty,
    /// The string is not a sign, a number and a suffix, in that order.
    Syntax,
    /// The suffix is not one Kubernetes knows.
    Suffix,
    /// The number has no digits in a form where Kubernetes needs some (`Pi`, `e-10`).
    Numeric,
    /// The value is well formed but its mantissa does not fit an `i128`
    /// (about 38 significant digits).
    OutOfRange,
}

/// An exact quantity: `mantissa × 10^exponent` with an `i128` mantissa and an
/// `i32` exponent, plus the format it prints with.
///
/// Equality and ordering compare the numeric value only, so `1Ki == 1024`.
#[derive(Debug, Clone, Copy)]
pub struct Quantity {
    /// Signed mantissa with no trailing zeros (unless `exp` is `i32::MAX`);
    /// zero is stored as `0 × 10^0`. Never `i128::MIN`.
    mant: i128,
    exp: i32,
    format: Format,
}

/// The decimal SI suffixes, from nano (`10^-9`) to exa (`10^18`) in steps of 1000.
const SI_SUFFIXES: [&[u8]; 10] = [b"n", b"u", b"m", b"", b"k", b"M", b"G", b"T", b"P", b"E"];

/// Binary suffixes by power of 1024, starting at 1024^1.
const BINARY_SUFFIXES: [&[u8]; 6] = [b"Ki", b"Mi", b"Gi", b"Ti", b"Pi", b"Ei"];

#[inline]
fn pow10(n: u32) -> Option<u128> {
    10u128.checked_pow(n)
}

/// Number of decimal digits of a non-zero value (1 for zero).
#[inline]
fn digit_count(v: u128) -> u32 {
    v.checked_ilog10().map_or(1, |l| l.saturating_add(1))
}

#[inline]
fn len_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Quantity {
    /// The quantity `value` (a whole number) in the given format, like
    /// Kubernetes' `NewQuantity`.
    #[inline]
    pub fn from_i64(value: i64, format: Format) -> Quantity {
        Self::from_parts(value, 0, format)
    }

    /// The quantity `value / 1000` in the given format, like Kubernetes'
    /// `NewMilliQuantity`.
    #[inline]
    pub fn from_milli(value: i64, format: Format) -> Quantity {
        Self::from_parts(value, -3, format)
    }

    #[inline]
    fn from_parts(value: i64, exp: i64, format: Format) -> Quantity {
        match build(value < 0, u128::from(value.unsigned_abs()), exp, format) {
            Ok(q) => q,
            // Unreachable: an i64 always fits.
            Err(_) => Quantity {
                mant: 0,
                exp: 0,
                format,
            },
        }
    }

    /// The format the quantity prints with: the suffix family it was parsed
    /// with, except that a binary value strictly between -1 and 1 becomes
    /// [`Format::DecimalSI`].
    #[inline]
    pub fn format(&self) -> Format {
        self.format
    }

    /// The signed mantissa `m` in `value = m × 10^exponent`.
    #[inline]
    pub fn mantissa(&self) -> i128 {
        self.mant
    }

    /// The exponent `e` in `value = mantissa × 10^e`.
    #[inline]
    pub fn exponent(&self) -> i32 {
        self.exp
    }

    /// True when the value is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.mant == 0
    }

    /// -1, 0 or 1 as the value is negative, zero or positive.
    #[inline]
    pub fn sign(&self) -> i8 {
        match self.mant.cmp(&0) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }
    }

    /// The value divided by `10^scale`, rounded away from zero to a whole
    /// number, like Kubernetes' `ScaledValue`; `None` when that does not fit
    /// an `i64`.
    #[inline]
    pub fn scaled_value(&self, scale: i32) -> Option<i64> {
        if self.mant == 0 {
            return Some(0);
        }
        let mag = self.mant.unsigned_abs();
        let shift = i64::from(self.exp).saturating_sub(i64::from(scale));
        let out = if shift >= 0 {
            let p = pow10(u32::try_from(shift).ok()?)?;
            mag.checked_mul(p)?
        } else {
            match u32::try_from(shift.unsigned_abs()).ok().and_then(pow10) {
                Some(p) => {
                    let q = mag.checked_div(p).unwrap_or(0);
                    if mag.is_multiple_of(p) {
                        q
                    } else {
                        q.saturating_add(1)
                    }
                }
                // 10^shift exceeds any u128: the quotient is below one.
                None => 1,
            }
        };
        let out = i128::try_from(out).ok()?;
        i64::try_from(if self.mant < 0 { -out } else { out }).ok()
    }

    /// The value rounded away from zero to a whole number, like Kubernetes'
    /// `Value`; `None` when it does not fit an `i64`.
    #[inline]
    pub fn value(&self) -> Option<i64> {
        self.scaled_value(0)
    }

    /// The value in thousandths, rounded away from zero, like Kubernetes'
    /// `MilliValue`; `None` when it does not fit an `i64`.
    #[inline]
    pub fn milli_value(&self) -> Option<i64> {
        self.scaled_value(-3)
    }

    /// Compares the numeric values exactly, whatever their formats.
    #[inline]
    pub fn cmp_exact(&self, other: &Quantity) -> Ordering {
        let (a, b) = (self.mant, other.mant);
        match a.signum().cmp(&b.signum()) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        if a == 0 {
            return Ordering::Equal;
        }
        let by_magnitude = cmp_magnitude(a.unsigned_abs(), self.exp, b.unsigned_abs(), other.exp);
        if a < 0 {
            by_magnitude.reverse()
        } else {
            by_magnitude
        }
    }
}

#[inline]
fn cmp_magnitude(m1: u128, e1: i32, m2: u128, e2: i32) -> Ordering {
    let order1 = i64::from(digit_count(m1)).saturating_add(i64::from(e1));
    let order2 = i64::from(digit_count(m2)).saturating_add(i64::from(e2));
    if order1 != order2 {
        return order1.cmp(&order2);
    }
    // Same leading position, so the exponents differ by at most 38.
    let gap = i64::from(e1).saturating_sub(i64::from(e2));
    let gap_abs = u32::try_from(gap.unsigned_abs()).unwrap_or(u32::MAX);
    let scaled = pow10(gap_abs);
    if gap >= 0 {
        match scaled.and_then(|p| m1.checked_mul(p)) {
            Some(x) => x.cmp(&m2),
            None => Ordering::Greater,
        }
    } else {
        match scaled.and_then(|p| m2.checked_mul(p)) {
            Some(y) => m1.cmp(&y),
            None => Ordering::Less,
        }
    }
}

impl PartialEq for Quantity {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.cmp_exact(other) == Ordering::Equal
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_exact(other)
    }
}

impl QuantityError {
    /// A short lowercase description.
    pub const fn as_str(self) -> &'static str {
        match self {
            QuantityError::Empty => "empty quantity",
            QuantityError::Syntax => "not a number with an optional suffix",
            QuantityError::Suffix => "unknown suffix",
            QuantityError::Numeric => "no digits",
            QuantityError::OutOfRange => "value out of range",
        }
    }
}
