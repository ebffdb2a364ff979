//! One-pass reads: several fields of one message from one scan.
//!
//! Every accessor of a view scans its whole message (the last occurrence of a
//! field wins, so it cannot stop early). A plugin that reads k fields of a
//! message of n fields that way does k·n work. A generated view also has one
//! associated constant per field, a [`Field`]; handing a tuple of them to the
//! view's `read` method scans the message once and returns a tuple of exactly
//! what the accessors would return:
//!
//! ```ignore
//! use kguest_k8s::api::core::v1::PodSpec;
//!
//! let (containers, init_containers, overhead) =
//!     spec.read((PodSpec::CONTAINERS, PodSpec::INIT_CONTAINERS, PodSpec::OVERHEAD));
//! ```
//!
//! Singular fields read as `Option<T>` (the last occurrence; `None` when
//! absent or the message is malformed; a oneof member only when no other
//! member follows it), repeated fields as [`Repeated`] and maps as [`Map`],
//! iterating what the accessors' iterators iterate. Tuples of 1 to 16 fields
//! are accepted. The scan is one non-generic loop filling a small table on
//! the stack (one slot per requested field); a guest that never calls `read`
//! links none of it.

use core::fmt;
use core::marker::PhantomData;

use crate::codec::{self, Codec};
use crate::rt::{FieldId, Scan, Slot};
use crate::{Map, Repeated, View};

/// Field `number` of the message `M`, read as `K`: a [`codec`] type for a
/// singular field (reads `Option<item>`), [`Repeated`] or [`Map`].
///
/// Generated views have one per field (`PodSpec::NODE_NAME`,
/// `PodSpec::CONTAINERS`); pass a tuple of them to the view's `read`.
pub struct Field<M, K> {
    id: FieldId,
    marker: PhantomData<fn() -> (M, K)>,
}

impl<M, K> Clone for Field<M, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, K> Copy for Field<M, K> {}

impl<M, K> Field<M, K> {
    /// An ordinary field (generated code).
    #[doc(hidden)]
    pub const fn new(number: u32) -> Self {
        Self::in_oneof(number, &[])
    }

    /// A member of a oneof whose other members are `siblings` (generated
    /// code).
    #[doc(hidden)]
    pub const fn in_oneof(number: u32, siblings: &'static [u32]) -> Self {
        Field {
            id: FieldId { number, siblings },
            marker: PhantomData,
        }
    }

    /// The field number.
    pub const fn number(self) -> u32 {
        self.id.number
    }

    #[doc(hidden)]
    pub const fn id(self) -> FieldId {
        self.id
    }
}

impl<M> Field<M, codec::Str> {
    /// The same string field read as raw bytes, not checked for UTF-8 (what
    /// the view's `..._bytes` accessor returns).
    pub const fn bytes(self) -> Field<M, codec::Bytes> {
        Field::in_oneof(self.id.number, self.id.siblings)
    }
}

impl<M, K> fmt::Debug for Field<M, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Field")
            .field("number", &self.id.number)
            .finish_non_exhaustive()
    }
}

/// How a [`Field`] reads: a codec (singular), [`Repeated`] or [`Map`].
pub trait Read<'a> {
    /// What the field reads as: what its accessor returns.
    type Output;

    #[doc(hidden)]
    fn read(bytes: &'a [u8], number: u32, slot: &Slot) -> Self::Output;
}

macro_rules! read_singular {
    ($($codec:ident),*) => {$(
        impl<'a> Read<'a> for codec::$codec {
            type Output = Option<<codec::$codec as Codec<'a>>::Item>;

            #[inline]
            fn read(bytes: &'a [u8], _: u32, slot: &Slot) -> Self::Output {
                slot.raw(bytes).and_then(Self::decode_raw)
            }
        }
    )*};
}

read_singular!(
    Int32, Int64, Uint32, Uint64, Sint32, Sint64, Bool, Enum, Fixed32, Sfixed32, Float, Fixed64,
    Sfixed64, Double, Bytes, Str
);

impl<'a, V: View<'a>> Read<'a> for codec::Msg<V> {
    type Output = Option<V>;

    #[inline]
    fn read(bytes: &'a [u8], _: u32, slot: &Slot) -> Option<V> {
        slot.raw(bytes).and_then(Self::decode_raw)
    }
}

impl<'a, C: Codec<'a>> Read<'a> for Repeated<'a, C> {
    type Output = Self;

    #[inline]
    fn read(bytes: &'a [u8], number: u32, slot: &Slot) -> Self {
        Repeated::new(slot.range(bytes), number)
    }
}

impl<'a, K: Codec<'a>, V: Codec<'a>> Read<'a> for Map<'a, K, V> {
    type Output = Self;

    #[inline]
    fn read(bytes: &'a [u8], number: u32, slot: &Slot) -> Self {
        Map::new(slot.range(bytes), number)
    }
}

/// A tuple of [`Field`]s of the message `M`, read together in one pass by
/// the view's `read` method. Implemented for tuples of 1 to 16 fields.
pub trait FieldSet<'a, M> {
    /// The tuple of what each field reads as.
    type Output;

    /// Scans the encoded message `bytes` once and reads every field.
    fn read_from(self, bytes: &'a [u8]) -> Self::Output;
}

macro_rules! field_sets {
    ($($k:ident $i:tt),+) => {
        impl<'a, M, $($k: Read<'a>),+> FieldSet<'a, M> for ($(Field<M, $k>,)+) {
            type Output = ($($k::Output,)+);

            #[inline]
            fn read_from(self, bytes: &'a [u8]) -> Self::Output {
                let scan = Scan::new(bytes, &[$(self.$i.id),+]);
                ($(scan.get($i, self.$i),)+)
            }
        }
    };
}

field_sets!(K0 0);
field_sets!(K0 0, K1 1);
field_sets!(K0 0, K1 1, K2 2);
field_sets!(K0 0, K1 1, K2 2, K3 3);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9, K10 10);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9, K10 10, K11 11);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9, K10 10, K11 11, K12 12);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9, K10 10, K11 11, K12 12, K13 13);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9, K10 10, K11 11, K12 12, K13 13, K14 14);
field_sets!(K0 0, K1 1, K2 2, K3 3, K4 4, K5 5, K6 6, K7 7, K8 8, K9 9, K10 10, K11 11, K12 12, K13 13, K14 14, K15 15);
