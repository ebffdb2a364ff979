//! One-pass reads: several fields of one message from one scan.
//!
//! Every accessor of a view scans its whole message (the last occurrence of a
//! field wins, so it cannot stop early). A plugin that reads k fields of a
//! message of n fields that way does k·n work. A generated view also has one
//! associated constant per field, a [`Field`]; handing a tuple of them to the
//! view's `read` method scans the message once and returns a tuple of exactly
//! what the accessors would return:
//!
//! ```text
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
//! links none of it. (A member of a oneof that is present also looks up the
//! other members' last occurrences, as its accessor does; Kubernetes has no
//! oneofs.)

use core::fmt;
use core::marker::PhantomData;

use crate::codec::{self, Codec};
use crate::rt::{self, FieldId, Slot};
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
    #[inline]
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
    #[inline]
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
    fn read(bytes: &'a [u8], field: FieldId, slot: &Slot) -> Self::Output;
}

macro_rules! read_singular {
    ($($codec:ident),*) => {$(
        impl<'a> Read<'a> for codec::$codec {
            type Output = Option<<codec::$codec as Codec<'a>>::Item>;

            #[inline(always)]
            fn read(bytes: &'a [u8], field: FieldId, slot: &Slot) -> Self::Output {
                rt::slot_raw(bytes, slot, field.siblings).and_then(Self::decode_raw)
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

    #[inline(always)]
    fn read(bytes: &'a [u8], field: FieldId, slot: &Slot) -> Option<V> {
        rt::slot_raw(bytes, slot, field.siblings).and_then(Self::decode_raw)
    }
}

impl<'a, C: Codec<'a>> Read<'a> for Repeated<'a, C> {
    type Output = Self;

    #[inline(always)]
    fn read(bytes: &'a [u8], field: FieldId, slot: &Slot) -> Self {
        Repeated::new(slot.range(bytes), field.number)
    }
}

impl<'a, K: Codec<'a>, V: Codec<'a>> Read<'a> for Map<'a, K, V> {
    type Output = Self;

    #[inline(always)]
    fn read(bytes: &'a [u8], field: FieldId, slot: &Slot) -> Self {
        Map::new(slot.range(bytes), field.number)
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
    ($($k:ident $i:tt $slot:ident),+) => {
        impl<'a, M, $($k: Read<'a>),+> FieldSet<'a, M> for ($(Field<M, $k>,)+) {
            type Output = ($($k::Output,)+);

            #[inline(always)]
            fn read_from(self, bytes: &'a [u8]) -> Self::Output {
                let mut slots = [Slot::EMPTY; [$($i),+].len()];
                rt::scan(bytes, &[$(self.$i.number()),+], &mut slots);
                let [$($slot),+] = &slots;
                ($($k::read(bytes, self.$i.id, $slot),)+)
            }
        }
    };
}

field_sets!(K0 0 s0);
field_sets!(K0 0 s0, K1 1 s1);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9, K10 10 s10);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9, K10 10 s10, K11 11 s11);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9, K10 10 s10, K11 11 s11, K12 12 s12);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9, K10 10 s10, K11 11 s11, K12 12 s12, K13 13 s13);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9, K10 10 s10, K11 11 s11, K12 12 s12, K13 13 s13, K14 14 s14);
field_sets!(K0 0 s0, K1 1 s1, K2 2 s2, K3 3 s3, K4 4 s4, K5 5 s5, K6 6 s6, K7 7 s7, K8 8 s8, K9 9 s9, K10 10 s10, K11 11 s11, K12 12 s12, K13 13 s13, K14 14 s14, K15 15 s15);
