use core::borrow::Borrow;
use core::fmt;
use core::marker::PhantomData;

use crate::codec::Codec;
use crate::rt::{self, Slot};

/// The entries of a map field, read lazily in wire order.
///
/// A missing key or value reads as its default, as protobuf specifies. When a
/// key occurs more than once, [`Map::get`] returns the last value, like a
/// decoder building a map would; iteration yields every entry.
pub struct Map<'a, K, V> {
    rest: &'a [u8],
    number: u32,
    codecs: PhantomData<fn() -> (K, V)>,
}

impl<K, V> Clone for Map<'_, K, V> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, V> Copy for Map<'_, K, V> {}

impl<'a, K: Codec<'a>, V: Codec<'a>> Map<'a, K, V> {
    /// The entries of map field `number` in the message `bytes`.
    pub const fn new(bytes: &'a [u8], number: u32) -> Self {
        Map {
            rest: bytes,
            number,
            codecs: PhantomData,
        }
    }

    /// The value for `key` (the last one if the key repeats).
    #[inline]
    pub fn get<Q>(&self, key: &Q) -> Option<V::Item>
    where
        Q: ?Sized + PartialEq,
        K::Item: Borrow<Q>,
    {
        let mut found = None;
        for (k, v) in *self {
            if k.borrow() == key {
                found = Some(v);
            }
        }
        found
    }

    /// True when some entry has `key`.
    #[inline]
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Q: ?Sized + PartialEq,
        K::Item: Borrow<Q>,
    {
        self.clone().any(|(k, _)| k.borrow() == key)
    }

    /// True when the map has no entry.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.clone().next().is_none()
    }
}

/// A map entry's key (field 1) or value (field 2) from its [`Slot`]; a
/// missing one reads as the default.
#[inline(always)]
fn entry_part<'a, C: Codec<'a>>(entry: &'a [u8], slot: &Slot) -> Option<C::Item> {
    match slot.raw(entry) {
        Some(raw) => C::decode_raw(raw),
        None => Some(C::default_item()),
    }
}

impl<'a, K: Codec<'a>, V: Codec<'a>> Iterator for Map<'a, K, V> {
    type Item = (K::Item, V::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let entry = rt::next_occurrence(&mut self.rest, self.number)?;
        // A malformed entry (bad wire format or types) ends iteration.
        let mut slots = [Slot::EMPTY; 2];
        let parts = match entry.len_body() {
            Some(entry) if rt::scan(entry, &[1, 2], &mut slots) => {
                let [key, value] = &slots;
                entry_part::<K>(entry, key).zip(entry_part::<V>(entry, value))
            }
            _ => None,
        };
        if parts.is_none() {
            self.rest = &[];
        }
        parts
    }
}

impl<K, V> fmt::Debug for Map<'_, K, V> {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map")
            .field("number", &self.number)
            .finish_non_exhaustive()
    }
}
