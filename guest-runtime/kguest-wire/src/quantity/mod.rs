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
use core::num::NonZeroU64;

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

/// The largest value a binary-suffixed quantity keeps, in nano units: (2^63-1) × 10^9.
const BINARY_CAP_NANOS: u128 = 9_223_372_036_854_775_807_000_000_000;

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
fn build(
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
fn spelling_kept(s: &[u8]) -> bool {
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
fn already_canonical(s: &[u8]) -> bool {
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

/// A 384-bit unsigned integer, just enough for exact binary-suffix arithmetic.
#[derive(Clone, Copy)]
struct Wide([u64; 6]);

impl Wide {
    const ZERO: Wide = Wide([0; 6]);

    /// `self = self × m + a`; false if the result does not fit.
    #[inline]
    fn mul_add(&mut self, m: u64, a: u64) -> bool {
        let mut carry = u128::from(a);
        for limb in self.0.iter_mut() {
            // (2^64-1)^2 + (2^64-1) < 2^128: cannot overflow.
            let t = u128::from(*limb) * u128::from(m) + carry;
            *limb = t as u64;
            carry = t >> 64;
        }
        carry == 0
    }

    /// `self = self × 10^n`; false if the result does not fit.
    #[inline]
    fn mul_pow10(&mut self, mut n: u32) -> bool {
        while n > 0 {
            let step = n.min(19);
            if !self.mul_add(10u64.pow(step), 0) {
                return false;
            }
            n = n.saturating_sub(step);
        }
        true
    }

    /// `self = self / d`, returning the remainder; `d` must not be zero.
    #[inline]
    fn div_rem(&mut self, d: u64) -> u64 {
        let d = u128::from(d);
        let mut rem = 0u128;
        for limb in self.0.iter_mut().rev() {
            // rem < d <= 2^64 - 1, so the shift keeps every bit.
            let cur = (rem << 64) | u128::from(*limb);
            *limb = cur.checked_div(d).unwrap_or(0) as u64;
            rem = cur.checked_rem(d).unwrap_or(0);
        }
        rem as u64
    }

    #[inline]
    fn to_u128(self) -> Option<u128> {
        let [lo, hi, rest @ ..] = self.0;
        if rest.iter().any(|&l| l != 0) {
            return None;
        }
        Some(u128::from(lo) | (u128::from(hi) << 64))
    }
}

/// The value of the quantity string `s` in units of `10^scale`, rounded away
/// from zero like Kubernetes' `ScaledValue` (`scale` 0 is `Value`, -3 is
/// `MilliValue`), computed without building a [`Quantity`].
///
/// A small fast path for guests that only sum requests: plain `u64`
/// arithmetic, a fraction of the code of [`parse`]. Whenever it returns a
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

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::String;
    use std::vec::Vec;

    fn q(s: &str) -> Quantity {
        match parse(s.as_bytes()) {
            Ok(q) => q,
            Err(e) => panic!("{s:?} failed to parse: {e:?}"),
        }
    }

    fn canon(s: &str) -> String {
        let mut buf = [0u8; 64];
        String::from(q(s).canonical(&mut buf))
    }

    fn canon_of(v: Quantity) -> String {
        let mut buf = [0u8; 64];
        String::from(v.canonical(&mut buf))
    }

    /// Builds the exact value m × 10^e for comparisons.
    fn exact(m: i128, e: i32) -> (i128, i32) {
        let v = match build(m < 0, m.unsigned_abs(), i64::from(e), Format::DecimalSI) {
            Ok(v) => v,
            Err(err) => panic!("{m}e{e}: {err:?}"),
        };
        (v.mant, v.exp)
    }

    #[test]
    fn parse_values_and_formats() {
        use Format::*;
        let table: &[(&str, i128, i32, Format)] = &[
            ("0", 0, 0, DecimalSI),
            ("0n", 0, 0, DecimalSI),
            ("0u", 0, 0, DecimalSI),
            ("0m", 0, 0, DecimalSI),
            ("0Ki", 0, 0, BinarySI),
            ("0k", 0, 0, DecimalSI),
            ("0Mi", 0, 0, BinarySI),
            ("0M", 0, 0, DecimalSI),
            ("0Gi", 0, 0, BinarySI),
            ("0G", 0, 0, DecimalSI),
            ("0Ti", 0, 0, BinarySI),
            ("0T", 0, 0, DecimalSI),
            ("0Pi", 0, 0, BinarySI),
            ("0e3", 0, 0, DecimalExponent),
            ("-0", 0, 0, DecimalSI),
            ("1", 1, 0, DecimalSI),
            ("1Ki", 1024, 0, BinarySI),
            ("8Ki", 8 * 1024, 0, BinarySI),
            ("7Mi", 7 << 20, 0, BinarySI),
            ("6Gi", 6 << 30, 0, BinarySI),
            ("5Ti", 5 << 40, 0, BinarySI),
            ("4Pi", 4 << 50, 0, BinarySI),
            ("3Ei", 3 << 60, 0, BinarySI),
            ("10Ti", 10 << 40, 0, BinarySI),
            ("100Ti", 100 << 40, 0, BinarySI),
            ("5n", 5, -9, DecimalSI),
            ("4u", 4, -6, DecimalSI),
            ("3m", 3, -3, DecimalSI),
            ("9", 9, 0, DecimalSI),
            ("8k", 8, 3, DecimalSI),
            ("50k", 5, 4, DecimalSI),
            ("7M", 7, 6, DecimalSI),
            ("6G", 6, 9, DecimalSI),
            ("5T", 5, 12, DecimalSI),
            ("40T", 4, 13, DecimalSI),
            ("300T", 3, 14, DecimalSI),
            ("2P", 2, 15, DecimalSI),
            ("1E", 1, 18, DecimalSI),
            ("1E-3", 1, -3, DecimalExponent),
            ("1e3", 1, 3, DecimalExponent),
            ("1E6", 1, 6, DecimalExponent),
            ("1e9", 1, 9, DecimalExponent),
            ("1E12", 1, 12, DecimalExponent),
            ("1e15", 1, 15, DecimalExponent),
            ("1E18", 1, 18, DecimalExponent),
            ("1e14", 1, 14, DecimalExponent),
            ("1e13", 1, 13, DecimalExponent),
            ("100.035k", 100035, 0, DecimalSI),
            ("0.001", 1, -3, DecimalSI),
            ("0.0005k", 5, -1, DecimalSI),
            ("0.005", 5, -3, DecimalSI),
            ("0.05", 5, -2, DecimalSI),
            ("0.5", 5, -1, DecimalSI),
            ("0.00050k", 5, -1, DecimalSI),
            ("0.00500", 5, -3, DecimalSI),
            ("0.05000", 5, -2, DecimalSI),
            ("0.50000", 5, -1, DecimalSI),
            ("0.5e0", 5, -1, DecimalExponent),
            ("0.5e-1", 5, -2, DecimalExponent),
            ("0.5e-2", 5, -3, DecimalExponent),
            ("10.035M", 10035, 3, DecimalSI),
            ("1.2e3", 12, 2, DecimalExponent),
            ("1.3E+6", 13, 5, DecimalExponent),
            ("1.40e9", 14, 8, DecimalExponent),
            ("1.53E12", 153, 10, DecimalExponent),
            ("1.6e15", 16, 14, DecimalExponent),
            ("1.7E18", 17, 17, DecimalExponent),
            ("9.01", 901, -2, DecimalSI),
            ("8.1k", 81, 2, DecimalSI),
            ("7.123456M", 7123456, 0, DecimalSI),
            ("6.987654321G", 6987654321, 0, DecimalSI),
            ("5.444T", 5444, 9, DecimalSI),
            ("40.1T", 401, 11, DecimalSI),
            ("300.2T", 3002, 11, DecimalSI),
            ("2.5P", 25, 14, DecimalSI),
            ("1.01E", 101, 16, DecimalSI),
            // Finer than a nano: rounded away from zero.
            ("3.001n", 4, -9, DecimalSI),
            ("1.1E-9", 2, -9, DecimalExponent),
            ("0.0000000001", 1, -9, DecimalSI),
            ("0.0000000005", 1, -9, DecimalSI),
            ("0.00000000050", 1, -9, DecimalSI),
            ("0.5e-9", 1, -9, DecimalExponent),
            ("0.9n", 1, -9, DecimalSI),
            ("0.00000012345", 124, -9, DecimalSI),
            ("0.00000012354", 124, -9, DecimalSI),
            ("-0.00000012345", -124, -9, DecimalSI),
            ("1e-2147483647", 1, -9, DecimalExponent),
            (
                "0.000000000000000000000000000000000000000000000000001",
                1,
                -9,
                DecimalSI,
            ),
            // Binary values are capped at 2^63-1.
            ("9Ei", i64::MAX as i128, 0, BinarySI),
            ("8Ei", i64::MAX as i128, 0, BinarySI),
            ("-8Ei", -(i64::MAX as i128), 0, BinarySI),
            ("9223372036854775807Ki", i64::MAX as i128, 0, BinarySI),
            (
                "123456789012345678901234567890Ei",
                i64::MAX as i128,
                0,
                BinarySI,
            ),
            ("7.99999999999999999999Ei", i64::MAX as i128, 0, BinarySI),
            ("12E", 12, 18, DecimalSI),
            // Decimal values are not capped.
            ("18446744073709551616", 18446744073709551616, 0, DecimalSI),
            ("1e2147483647", 1, 2147483647, DecimalExponent),
            ("100e2147483647", 100, 2147483647, DecimalExponent),
            // Fractional binary values stay exact.
            ("100.035Ki", 10243584, -2, BinarySI),
            ("0.5Mi", 524288, 0, BinarySI),
            ("0.05Gi", 536870912, -1, BinarySI),
            ("0.025Ti", 274877906944, -1, BinarySI),
            ("1.5Ki", 1536, 0, BinarySI),
            ("-1.5Gi", -1610612736, 0, BinarySI),
            (".5Ki", 512, 0, BinarySI),
            ("0.0009765625Ki", 1, 0, BinarySI),
            ("-0.0009765625Ki", -1, 0, BinarySI),
            // Below one, binary turns into decimal SI.
            ("0.000000000001Ki", 2, -9, DecimalSI),
            ("0.0001Ki", 1024, -4, DecimalSI),
            ("-0.0001Ki", -1024, -4, DecimalSI),
            (
                "0.0000000000000000000000000000000000000001Ei",
                1,
                -9,
                DecimalSI,
            ),
            ("0.000000000000000000000000001Ei", 2, -9, DecimalSI),
            (".001", 1, -3, DecimalSI),
            (".0001k", 1, -1, DecimalSI),
            ("1.", 1, 0, DecimalSI),
            ("5.", 5, 0, DecimalSI),
            ("1.G", 1, 9, DecimalSI),
            ("+1", 1, 0, DecimalSI),
            ("01", 1, 0, DecimalSI),
            ("-1.1m", -11, -4, DecimalSI),
            // Numbers without digits are zero where Kubernetes takes them.
            (".", 0, 0, DecimalSI),
            ("-.", 0, 0, DecimalSI),
            ("+", 0, 0, DecimalSI),
            ("-", 0, 0, DecimalSI),
            ("k", 0, 0, DecimalSI),
            ("-n", 0, 0, DecimalSI),
            ("Ki", 0, 0, BinarySI),
            (".Ti", 0, 0, BinarySI),
            ("e5", 0, 0, DecimalExponent),
            ("E", 0, 0, DecimalSI),
            ("e-9", 0, 0, DecimalExponent),
            // Long digit strings whose value still fits.
            (
                "1000000000000000000000000000000000000000000000000000",
                1,
                51,
                DecimalSI,
            ),
            (
                "0.00000000000000000000000000000000000000000000001e50",
                1,
                3,
                DecimalExponent,
            ),
            (
                "1.0000000000000000000000000000000000000000001",
                1000000001,
                -9,
                DecimalSI,
            ),
            // Too wide until rounding carries into trailing zeros.
            (
                "999999999999999999999999999999999999999.1n",
                1,
                30,
                DecimalSI,
            ),
            (
                "-9999999999999999999999999999999999999999.9999999999",
                -1,
                40,
                DecimalSI,
            ),
        ];
        for &(input, m, e, format) in table {
            let got = q(input);
            assert_eq!((got.mant, got.exp), exact(m, e), "{input}");
            assert_eq!(got.format(), format, "{input}");
            // The same with an explicit sign.
            if !input.starts_with(['-', '+']) {
                let neg = q(&std::format!("-{input}"));
                let pos = q(&std::format!("+{input}"));
                assert_eq!((neg.mant, neg.exp), exact(-m, e), "-{input}");
                assert_eq!(neg.format(), format, "-{input}");
                assert_eq!((pos.mant, pos.exp), exact(m, e), "+{input}");
                assert_eq!(pos.format(), format, "+{input}");
            }
        }
    }

    #[test]
    fn parse_rejects() {
        use QuantityError::*;
        let table: &[(&str, QuantityError)] = &[
            ("", Empty),
            ("1.1.M", Syntax),
            ("1+1.0M", Syntax),
            ("0.1mi", Suffix),
            ("0.1am", Syntax),
            ("aoeu", Syntax),
            (".5i", Suffix),
            ("1i", Suffix),
            ("-3.01i", Suffix),
            ("-3.01e-", Suffix),
            ("1e4294967297", Suffix),
            ("1e2147483648", Suffix),
            ("1e-2147483648", Suffix),
            ("1e99999999999999999999999", Suffix),
            (" 1", Syntax),
            ("1 ", Syntax),
            ("1\t", Syntax),
            ("1K", Suffix),
            ("1ki", Suffix),
            ("1KI", Syntax),
            ("1k5", Suffix),
            ("1Ki5", Suffix),
            ("1e", Suffix),
            ("1e+", Suffix),
            ("1ee5", Suffix),
            ("1eK", Suffix),
            ("1mm", Suffix),
            ("--1", Suffix),
            ("+-1", Suffix),
            ("1-5", Suffix),
            ("1..", Syntax),
            ("..1", Syntax),
            ("1,5", Syntax),
            ("1_000", Syntax),
            ("0x10", Syntax),
            ("1µ", Syntax),
            ("1 Ki", Syntax),
            ("Ki1", Suffix),
            ("1e5m", Syntax),
            ("Pi", Numeric),
            ("-Ei", Numeric),
            (".Pi", Numeric),
            ("e-10", Numeric),
            ("-.E-12", Numeric),
            ("1234567890123456789012345678901234567891", OutOfRange),
            ("1234567890123456789012345678901234567891e-5", OutOfRange),
            (
                "1000000000000000000000000000000000000000.0000000001",
                OutOfRange,
            ),
            (
                "1000000000000000000000000000000000000000000000001e2147483647",
                OutOfRange,
            ),
        ];
        for &(input, want) in table {
            assert_eq!(parse(input.as_bytes()).err(), Some(want), "{input:?}");
        }
    }

    #[test]
    fn canonical_forms() {
        let table: &[(&str, &str)] = &[
            ("0", "0"),
            ("00", "0"),
            ("-0", "0"),
            ("0Ki", "0"),
            ("0e5", "0"),
            ("0.000m", "0"),
            ("1", "1"),
            ("1000m", "1"),
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("1.5Gi", "1536Mi"),
            ("100M", "100M"),
            ("1e3", "1e3"),
            ("1536", "1536"),
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("300Mi", "300Mi"),
            ("307200Ki", "300Mi"),
            ("6Ki", "6Ki"),
            ("1001Gi", "1001Gi"),
            ("1025024Mi", "1001Gi"),
            ("1024Gi", "1Ti"),
            ("1000M", "1G"),
            ("0.001T", "1G"),
            ("1000000k", "1G"),
            ("1000000000", "1G"),
            ("1000u", "1m"),
            ("80m", "80m"),
            ("1.08", "1080m"),
            ("1080000000n", "1080m"),
            ("300M", "300M"),
            ("1T", "1T"),
            ("1E", "1E"),
            ("12E", "12E"),
            // Go drops the exponent past E (the Go judge's answers).
            ("1000E", "1"),
            ("5000E", "5"),
            ("1000000E", "1"),
            ("1200E", "1200E"),
            ("-5000E", "-5"),
            ("5000000000000000000000.", "5"),
            ("1234567M", "1234567M"),
            ("3k", "3k"),
            ("1e9", "1e9"),
            (".001e12", "1e9"),
            ("1e-3", "1e-3"),
            ("0.001e0", "1e-3"),
            ("1e-9", "1e-9"),
            ("1000e-12", "1e-9"),
            ("80e-3", "80e-3"),
            ("300e6", "300e6"),
            ("1e12", "1e12"),
            ("3e3", "3e3"),
            ("1E3", "1e3"),
            ("10e0", "10"),
            ("1e0", "1"),
            ("1.2e3", "1200"),
            ("1.3E+6", "1300e3"),
            ("1e+21", "1e21"),
            ("1n", "1n"),
            ("80n", "80n"),
            ("1080n", "1080n"),
            ("1.08u", "1080n"),
            ("1u", "1u"),
            ("80u", "80u"),
            ("1080u", "1080u"),
            ("1.2345", "1234500u"),
            ("100.035k", "100035"),
            ("10.035M", "10035k"),
            ("5.444T", "5444G"),
            ("40.1T", "40100G"),
            ("2.5P", "2500T"),
            ("1.01E", "1010P"),
            ("50k", "50k"),
            ("0.0005k", "500m"),
            (".0001k", "100m"),
            ("1.", "1"),
            ("1.G", "1G"),
            ("+1", "1"),
            ("01", "1"),
            ("5.", "5"),
            (".5", "500m"),
            ("18446744073709551616", "18446744073709551616"),
            ("-9.01", "-9010m"),
            // Finer than a nano: rounded up to the next nano.
            ("3.001n", "4n"),
            ("0.9n", "1n"),
            ("1.1E-9", "2e-9"),
            ("0.00000012345", "124n"),
            // Binary values.
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
            ("-.001Ki", "-1024m"),
            ("1Ki", "1Ki"),
            ("1Mi", "1Mi"),
            ("0.5Mi", "512Ki"),
            ("0.5Ki", "512"),
            ("1023", "1023"),
            ("1023Ki", "1023Ki"),
            ("1025Ki", "1025Ki"),
            ("1.5Ki", "1536"),
            ("1.25Ki", "1280"),
            ("100.035Ki", "102435840m"),
            ("0.05Gi", "53687091200m"),
            ("0.025Ti", "27487790694400m"),
            ("2000Ki", "2000Ki"),
            ("1Ei", "1Ei"),
            ("4Pi", "4Pi"),
            ("8Ei", "9223372036854775807"),
            ("-8Ei", "-9223372036854775807"),
            ("1024Ei", "9223372036854775807"),
            ("1048576Ki", "1Gi"),
            ("1.0Ki", "1Ki"),
            ("0.0009765625Ki", "1"),
            ("-1.5Gi", "-1536Mi"),
            // Exponents at the rails keep a spelling that parses back.
            ("1e2147483647", "10e2147483646"),
            ("100e2147483647", "1000e2147483646"),
            ("1e-2147483647", "1e-9"),
            (
                "123456789012345678901234567890123456789",
                "123456789012345678901234567890123456789",
            ),
        ];
        for &(input, want) in table {
            assert_eq!(canon(input), want, "{input}");
            // Negative values print with a leading minus.
            let negated = canon(&std::format!("-{}", input.trim_start_matches(['-', '+'])));
            let v = q(input);
            if !v.is_zero() && v.sign() > 0 {
                assert_eq!(negated, std::format!("-{want}"), "-{input}");
            }
        }
    }

    #[test]
    fn canonical_of_constructed_values() {
        use Format::*;
        let table: &[(Quantity, &str)] = &[
            (Quantity::from_i64(1 << 30, BinarySI), "1Gi"),
            (Quantity::from_i64(5, BinarySI), "5"),
            (Quantity::from_i64(1025, BinarySI), "1025"),
            (Quantity::from_i64(2000, BinarySI), "2000"),
            (Quantity::from_i64(-2000, BinarySI), "-2000"),
            (Quantity::from_i64(i64::MIN, BinarySI), "-8Ei"),
            (
                Quantity::from_i64(i64::MAX, DecimalSI),
                "9223372036854775807",
            ),
            (
                Quantity::from_i64(i64::MIN, DecimalExponent),
                "-9223372036854775808",
            ),
            (Quantity::from_milli(500, BinarySI), "500m"),
            (Quantity::from_milli(1234567, BinarySI), "1234567m"),
            (Quantity::from_milli(1500, DecimalSI), "1500m"),
            (Quantity::from_milli(1000, DecimalSI), "1"),
            (Quantity::from_milli(80, DecimalExponent), "80e-3"),
            (Quantity::from_i64(0, BinarySI), "0"),
            (Quantity::from_i64(3000, DecimalExponent), "3e3"),
        ];
        for (v, want) in table {
            assert_eq!(canon_of(*v), *want, "{v:?}");
        }
        // Below nano there is no SI suffix: an exponent is used instead.
        let tiny = Quantity {
            mant: 1,
            exp: -12,
            format: DecimalSI,
        };
        assert_eq!(canon_of(tiny), "1e-12");
        let tiny = Quantity {
            mant: 1,
            exp: -10,
            format: DecimalSI,
        };
        assert_eq!(canon_of(tiny), "100e-12");
        // Past Ei there is no binary suffix.
        let huge = Quantity {
            mant: 1,
            exp: 70,
            format: BinarySI,
        };
        assert_eq!(canon_of(huge), "10e69");
        let two70 = Quantity {
            mant: 1 << 70,
            exp: 0,
            format: BinarySI,
        };
        assert_eq!(canon_of(two70), "1180591620717411303424");
        let widest = Quantity {
            mant: -i128::MAX,
            exp: i32::MIN,
            format: DecimalSI,
        };
        let mut buf = [0u8; 64];
        let s = widest.canonical(&mut buf);
        assert!(s.ends_with("e-2147483648"), "{s}");
        let widest = Quantity {
            mant: -i128::MAX,
            exp: i32::MAX,
            format: DecimalSI,
        };
        let s = widest.canonical(&mut buf);
        // DecimalSI past E: Go writes no suffix (see write_canonical).
        assert_eq!(s, "-1701411834604692317316873037158841057270");
    }

    #[test]
    fn reserialize_keeps_spellings_kubernetes_keeps() {
        let table: &[(&str, &str)] = &[
            ("0", "0"),
            ("1", "1"),
            ("+1", "+1"),
            ("01", "01"),
            ("5.", "5."),
            ("1E3", "1E3"),
            ("1e+21", "1e+21"),
            ("100m", "100m"),
            ("1Ki", "1Ki"),
            ("+1Ki", "+1Ki"),
            ("1023Ki", "1023Ki"),
            ("12E", "12E"),
            ("1.5k", "1500"),
            (".5", "500m"),
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1000", "1k"),
            ("8Ki", "8Ki"),
            ("1024Ki", "1Mi"),
            ("1.5Gi", "1536Mi"),
            ("0Ki", "0"),
            ("00", "0"),
            ("10e0", "10e0"),
            ("1000e0", "1e3"),
            ("1.0", "1"),
            ("1.1E-9", "2e-9"),
            ("1234567890123456789", "1234567890123456789"),
        ];
        for &(input, want) in table {
            let mut buf = [0u8; 64];
            assert_eq!(reserialize(input.as_bytes(), &mut buf), Ok(want), "{input}");
        }
        let mut buf = [0u8; 64];
        assert_eq!(reserialize(b"1x", &mut buf), Err(QuantityError::Syntax));
    }

    #[test]
    fn value_and_milli_value_round_away_from_zero() {
        let table: &[(&str, Option<i64>, Option<i64>)] = &[
            ("0", Some(0), Some(0)),
            ("1", Some(1), Some(1000)),
            ("1.1m", Some(1), Some(2)),
            ("-1.1m", Some(-1), Some(-2)),
            ("1m", Some(1), Some(1)),
            ("-1m", Some(-1), Some(-1)),
            ("999m", Some(1), Some(999)),
            ("1001m", Some(2), Some(1001)),
            ("-1001m", Some(-2), Some(-1001)),
            ("1.5", Some(2), Some(1500)),
            ("-1.5", Some(-2), Some(-1500)),
            ("0.5", Some(1), Some(500)),
            ("-0.499", Some(-1), Some(-499)),
            ("1n", Some(1), Some(1)),
            ("-1n", Some(-1), Some(-1)),
            ("100m", Some(1), Some(100)),
            ("1Ki", Some(1024), Some(1024000)),
            ("1.5Gi", Some(1610612736), Some(1610612736000)),
            ("-0.0001Ki", Some(-1), Some(-103)),
            ("9223372036854775807", Some(i64::MAX), None),
            ("9223372036854775808", None, None),
            ("-9223372036854775808", Some(i64::MIN), None),
            ("-9223372036854775809", None, None),
            (
                "9223372036854775.807",
                Some(9223372036854776),
                Some(i64::MAX),
            ),
            ("9223372036854775.808", Some(9223372036854776), None),
            (
                "-9223372036854775.808",
                Some(-9223372036854776),
                Some(i64::MIN),
            ),
            ("8Ei", Some(i64::MAX), None),
            ("1e18", Some(1_000_000_000_000_000_000), None),
            ("1e19", None, None),
            ("1e2147483647", None, None),
            ("1e-2147483647", Some(1), Some(1)),
            ("123456789012345678901234567890123456789n", None, None),
            (
                "1234567890123456789012345678n",
                Some(1234567890123456790),
                None,
            ),
        ];
        for &(input, value, milli) in table {
            let v = q(input);
            assert_eq!(v.value(), value, "value {input}");
            assert_eq!(v.milli_value(), milli, "milli {input}");
        }
        let v = q("1");
        assert_eq!(v.scaled_value(-9), Some(1_000_000_000));
        assert_eq!(v.scaled_value(3), Some(1));
        assert_eq!(v.scaled_value(i32::MAX), Some(1));
        assert_eq!(v.scaled_value(i32::MIN), None);
        assert_eq!(q("-1").scaled_value(i32::MAX), Some(-1));
        assert_eq!(q("1.5k").scaled_value(3), Some(2));
        assert_eq!(q("1.5k").scaled_value(2), Some(15));
        assert_eq!(q("-9.01").scaled_value(-1), Some(-91));
        assert_eq!(q("9.01").scaled_value(2), Some(1));
    }

    #[test]
    fn comparisons_across_formats() {
        use Ordering::*;
        let table: &[(&str, &str, Ordering)] = &[
            ("0", "0", Equal),
            ("0", "0Ki", Equal),
            ("0", "-0e5", Equal),
            ("100m", "50m", Greater),
            ("50m", "100m", Less),
            ("10000T", "100Gi", Greater),
            ("1Ki", "1024", Equal),
            ("1Ki", "1.024k", Equal),
            ("1Mi", "1048576", Equal),
            ("1Gi", "1073741824", Equal),
            ("1Gi", "1G", Greater),
            ("1k", "1e3", Equal),
            ("1000m", "1", Equal),
            ("0.5", "500m", Equal),
            ("1.5Gi", "1536Mi", Equal),
            ("1e-9", "1n", Equal),
            ("1n", "0", Greater),
            ("-1n", "0", Less),
            ("-1", "-2", Greater),
            ("-1Ki", "-1000", Less),
            ("-1E", "1n", Less),
            ("1E", "999999999999999999999m", Greater),
            ("1E", "1000000000000000000000m", Equal),
            ("1E", "1000000000000000000001m", Less),
            ("1e2147483647", "1e2147483646", Greater),
            ("-1e2147483647", "-1e2147483646", Less),
            ("100e2147483647", "1e2147483647", Greater),
            ("8Ei", "9223372036854775807", Equal),
            ("901e-2", "9.01", Equal),
            ("90e-1", "9.01", Less),
            ("800m", "790m", Greater),
            (
                "123456789012345678901234567890123456789",
                "123456789012345678901234567890123456788",
                Greater,
            ),
            (
                "170141183460469231731687303715884105727",
                "17014118346046923173168730371588410572.7e1",
                Equal,
            ),
            ("1e38", "99999999999999999999999999999999999999", Greater),
            ("99999999999999999999999999999999999999e1", "1e39", Less),
        ];
        for &(a, b, want) in table {
            let (x, y) = (q(a), q(b));
            assert_eq!(x.cmp_exact(&y), want, "{a} vs {b}");
            assert_eq!(y.cmp_exact(&x), want.reverse(), "{b} vs {a}");
            assert_eq!(x == y, want == Equal, "{a} == {b}");
            assert_eq!(x.partial_cmp(&y), Some(want));
        }
        assert_eq!(q("1Ki"), q("1024"));
        assert!(q("1Gi") > q("1G"));
        assert_eq!(q("1.5").sign(), 1);
        assert_eq!(q("-1.5").sign(), -1);
        assert_eq!(q("-0").sign(), 0);
        assert!(q("0m").is_zero());
        assert!(!q("1n").is_zero());
        assert_eq!(q("1.5k").mantissa(), 15);
        assert_eq!(q("1.5k").exponent(), 2);
    }

    /// A small deterministic generator, so the tests need no extra crates.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len() as u64) as usize]
        }
    }

    fn random_quantity(rng: &mut Lcg) -> String {
        let mut s = String::new();
        s.push_str(rng.pick(&["", "", "", "-", "+"]));
        let digits = |rng: &mut Lcg, s: &mut String| {
            let n = rng
                .pick(&["0", "1", "2", "3", "5", "9", "19", "25", "40"])
                .parse::<u64>()
                .unwrap();
            let n = rng.below(n + 1);
            for _ in 0..n {
                let d = if rng.below(3) == 0 { 0 } else { rng.below(10) };
                s.push(char::from(b'0' + d as u8));
            }
        };
        digits(rng, &mut s);
        if rng.below(2) == 0 {
            s.push('.');
            digits(rng, &mut s);
        }
        match rng.below(4) {
            0 => {
                s.push_str(rng.pick(&["", "n", "u", "m", "k", "M", "G", "T", "P", "E"]));
            }
            1 => {
                s.push_str(rng.pick(&["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]));
            }
            2 => {
                s.push_str(rng.pick(&["e", "E"]));
                s.push_str(rng.pick(&["", "-", "+"]));
                s.push_str(rng.pick(&[
                    "0",
                    "3",
                    "9",
                    "12",
                    "18",
                    "21",
                    "40",
                    "99",
                    "2147483647",
                    "2147483600",
                ]));
            }
            _ => {
                // Noise from the characters the scanner cares about.
                let alphabet = b"0123456789.+-eEinumkKMGTP xi\xc2\xb5";
                for _ in 0..rng.below(4) {
                    s.push(char::from(
                        alphabet[rng.below(alphabet.len() as u64) as usize],
                    ));
                }
            }
        }
        s
    }

    #[test]
    fn generated_strings_round_trip_through_canonical() {
        let mut rng = Lcg(0x5eed_1234_abcd_0001);
        let mut parsed = 0;
        for _ in 0..20000 {
            let input = random_quantity(&mut rng);
            let Ok(v) = parse(input.as_bytes()) else {
                continue;
            };
            parsed += 1;
            let mut buf = [0u8; 64];
            let text = String::from(v.canonical(&mut buf));
            let back = match parse(text.as_bytes()) {
                Ok(b) => b,
                Err(e) => panic!("{input:?} -> {text:?} does not parse: {e:?}"),
            };
            // Equal, except DecimalSI past E, where Go's form drops the
            // exponent (see write_canonical).
            let past_e = v.format() == Format::DecimalSI && v.exponent().div_euclid(3) * 3 > 18;
            assert!(back == v || past_e, "{input:?} -> {text:?}");
            // Canonical text is a fixed point.
            let mut buf2 = [0u8; 64];
            assert_eq!(back.canonical(&mut buf2), text, "{input:?}");
            assert!(!text.starts_with('+') && !text.contains('.'), "{text}");
            // Accessors never panic and agree on sign.
            let _ = v.value();
            let _ = v.milli_value();
            let _ = v.scaled_value(-9);
            let mut buf3 = [0u8; 64];
            assert!(reserialize(input.as_bytes(), &mut buf3).is_ok());
            assert_eq!(text.starts_with('-'), v.sign() < 0, "{input:?}");
        }
        assert!(parsed > 8000, "only {parsed} generated strings parsed");
    }

    #[test]
    fn the_canonical_shortcut_agrees_with_the_full_path() {
        let mut rng = Lcg(0x0ca7_0000_0000_0001);
        let mut taken = 0;
        for _ in 0..50_000 {
            let text = random_quantity(&mut rng);
            if already_canonical(text.as_bytes()) {
                taken += 1;
                let q = parse(text.as_bytes()).expect("the shortcut only takes quantities");
                let mut buf = [0; 64];
                let full = if spelling_kept(text.as_bytes()) {
                    text.as_str()
                } else {
                    q.canonical(&mut buf)
                };
                assert_eq!(full, text, "not its own canonical form");
            }
        }
        assert!(taken > 1_000, "the shortcut was taken only {taken} times");
        for text in [
            "0", "1", "250m", "-5", "128Mi", "1500m", "3Gi", "100M", "7E",
        ] {
            assert!(already_canonical(text.as_bytes()), "{text}");
        }
        for text in [
            "00", "1000m", "1024Mi", "01", "1.5", "+1", "8Ei", "1e3", "0m", "-0",
        ] {
            assert!(!already_canonical(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn scaled_agrees_with_the_full_parser() {
        let mut rng = Lcg(0x5ca1_ed00_0000_0003);
        let mut agreed = 0;
        for _ in 0..20_000 {
            let text = random_quantity(&mut rng);
            for scale in [0, -3, -9, 3] {
                if let Some(fast) = scaled(text.as_bytes(), scale) {
                    let full = parse(text.as_bytes())
                        .ok()
                        .and_then(|q| q.scaled_value(scale));
                    assert_eq!(Some(fast), full, "{text} at scale {scale}");
                    agreed += 1;
                }
            }
        }
        assert!(
            agreed > 20_000,
            "the fast path answered only {agreed} times"
        );
        for (text, milli, value) in [
            ("100m", 100, 1),
            ("1.5", 1500, 2),
            ("2", 2000, 2),
            ("1Ki", 1_024_000, 1024),
            ("0.5Gi", 536_870_912_000, 536_870_912),
            ("1e3", 1_000_000, 1000),
            ("-1.1m", -2, -1),
            ("250m", 250, 1),
        ] {
            assert_eq!(scaled(text.as_bytes(), -3), Some(milli), "{text}");
            assert_eq!(scaled(text.as_bytes(), 0), Some(value), "{text}");
        }
        for bad in ["", "k", ".", "1.2.3", "1x", "1e", "1e12345", "--1"] {
            assert_eq!(scaled(bad.as_bytes(), 0), None, "{bad}");
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = Lcg(42);
        let mut bytes = Vec::new();
        for _ in 0..20000 {
            bytes.clear();
            let n = rng.below(24);
            for _ in 0..n {
                let b = if rng.below(4) == 0 {
                    rng.below(256) as u8
                } else {
                    b"0123456789.+-eEinumkKMGTP"[rng.below(25) as usize]
                };
                bytes.push(b);
            }
            if let Ok(v) = parse(&bytes) {
                let mut buf = [0u8; 64];
                let text = v.canonical(&mut buf);
                assert_eq!(parse(text.as_bytes()), Ok(v));
            }
            let mut buf = [0u8; 64];
            let _ = reserialize(&bytes, &mut buf);
        }
        // Very long inputs.
        let long_zeros: Vec<u8> = core::iter::once(b'1')
            .chain(core::iter::repeat_n(b'0', 5000))
            .collect();
        let v = parse(&long_zeros).unwrap();
        assert_eq!(v.exponent(), 5000);
        let mut long_frac = b"0.".to_vec();
        long_frac.extend(core::iter::repeat_n(b'7', 5000));
        long_frac.extend_from_slice(b"Ei");
        let v = parse(&long_frac).unwrap();
        assert_eq!(v.format(), Format::BinarySI);
        // Just under 7/9 × 2^60, rounded up to the next nano.
        let mut buf = [0u8; 64];
        assert_eq!(v.canonical(&mut buf), "896716725805325425777777778n");
    }
}
