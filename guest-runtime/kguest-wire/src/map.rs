use core::borrow::Borrow;
use core::fmt;
use core::marker::PhantomData;

use crate::codec::Codec;
use crate::rt::last;
use crate::wire::{Value, next_field};

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
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Q: ?Sized + PartialEq,
        K::Item: Borrow<Q>,
    {
        self.clone().any(|(k, _)| k.borrow() == key)
    }

    /// True when the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.clone().next().is_none()
    }
}

fn entry_part<'a, C: Codec<'a>>(entry: &'a [u8], number: u32) -> Option<C::Item> {
    match last(entry, number) {
        Some(raw) => C::decode_raw(raw),
        None => Some(C::default_item()),
    }
}

impl<'a, K: Codec<'a>, V: Codec<'a>> Iterator for Map<'a, K, V> {
    type Item = (K::Item, V::Item);

    fn next(&mut self) -> Option<Self::Item> {
        while let Ok(Some((number, value))) = next_field(&mut self.rest) {
            if number != self.number {
                continue;
            }
            let Value::Len(entry) = value else { break };
            // A malformed entry (bad wire format or types) ends iteration.
            if !wire_ok(entry) {
                break;
            }
            let (Some(k), Some(v)) = (entry_part::<K>(entry, 1), entry_part::<V>(entry, 2)) else {
                break;
            };
            return Some((k, v));
        }
        self.rest = &[];
        None
    }
}

fn wire_ok(mut bytes: &[u8]) -> bool {
    loop {
        match next_field(&mut bytes) {
            Ok(Some(_)) => {}
            Ok(None) => return true,
            Err(_) => return false,
        }
    }
}

impl<K, V> fmt::Debug for Map<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map")
            .field("number", &self.number)
            .finish_non_exhaustive()
    }
}
