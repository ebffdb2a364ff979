use core::fmt;
use core::marker::PhantomData;

use crate::codec::Codec;
use crate::rt;

/// The elements of a repeated field, read lazily in order.
///
/// `Copy`: iterating a copy leaves the original at its position. Scalars are
/// accepted packed and unpacked, mixed. Iteration stops at malformed input.
pub struct Repeated<'a, C> {
    rest: &'a [u8],
    packed: &'a [u8],
    number: u32,
    codec: PhantomData<fn() -> C>,
}

impl<C> Clone for Repeated<'_, C> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Repeated<'_, C> {}

impl<'a, C: Codec<'a>> Repeated<'a, C> {
    /// The occurrences of field `number` in the message `bytes`.
    pub const fn new(bytes: &'a [u8], number: u32) -> Self {
        Repeated {
            rest: bytes,
            packed: &[],
            number,
            codec: PhantomData,
        }
    }

    /// True when no element remains.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.clone().next().is_none()
    }

    #[inline]
    fn stop(&mut self) -> Option<C::Item> {
        self.rest = &[];
        self.packed = &[];
        None
    }
}

impl<'a, C: Codec<'a>> Iterator for Repeated<'a, C> {
    type Item = C::Item;

    #[inline]
    fn next(&mut self) -> Option<C::Item> {
        if self.packed.is_empty() {
            loop {
                let raw = rt::next_occurrence(&mut self.rest, self.number)?;
                if let Some(item) = C::decode_raw(raw) {
                    return Some(item);
                }
                // A length-delimited occurrence of a scalar field is a
                // packed run; another wire type ends iteration.
                match raw.len_body() {
                    Some([]) => {}
                    Some(run) => {
                        self.packed = run;
                        break;
                    }
                    None => return self.stop(),
                }
            }
        }
        match C::decode_packed(&mut self.packed) {
            Some(item) => Some(item),
            None => self.stop(),
        }
    }
}

impl<C> fmt::Debug for Repeated<'_, C> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Repeated")
            .field("number", &self.number)
            .finish_non_exhaustive()
    }
}
