//! A small deterministic generator for bounded randomized tests: the same
//! seed gives the same cases on every machine, so a failure names its seed.

/// Knuth's MMIX linear congruential generator; values come from the high
/// bits of the state.
#[derive(Clone, Debug)]
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        let mut lcg = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
        lcg.next_u32();
        lcg
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }

    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.next_u32() % 100 < percent
    }

    /// Up to `max_len` random bytes.
    pub fn bytes(&mut self, max_len: usize) -> Vec<u8> {
        let len = self.below(max_len + 1);
        (0..len).map(|_| self.next_u32() as u8).collect()
    }
}
