//! A 384-bit unsigned integer for the exact arithmetic of the parser.

/// A 384-bit unsigned integer, just enough for exact binary-suffix arithmetic.
#[derive(Clone, Copy)]
pub(super) struct Wide([u64; 6]);

impl Wide {
    pub(super) const ZERO: Wide = Wide([0; 6]);

    /// `self = self × m + a`; false if the result does not fit.
    #[inline]
    pub(super) fn mul_add(&mut self, m: u64, a: u64) -> bool {
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
    pub(super) fn mul_pow10(&mut self, mut n: u32) -> bool {
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
    pub(super) fn div_rem(&mut self, d: u64) -> u64 {
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
    pub(super) fn to_u128(self) -> Option<u128> {
        let [lo, hi, rest @ ..] = self.0;
        if rest.iter().any(|&l| l != 0) {
            return None;
        }
        Some(u128::from(lo) | (u128::from(hi) << 64))
    }
}
