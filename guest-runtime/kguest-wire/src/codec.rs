//! How one field value is turned into a Rust value.
//!
//! Each protobuf scalar type has a zero-sized marker (`Int64`, `Str`, ...)
//! implementing [`Codec`]; [`Msg<V>`] reads an embedded message as the view
//! `V`. Generated accessors name the codec, and [`crate::Repeated`] and
//! [`crate::Map`] are generic over it.

use core::marker::PhantomData;

use crate::View;
use crate::wire::{Raw, Value, read_fixed32, read_fixed64, take_varint, zigzag32, zigzag64};

/// Reads values of one protobuf type.
pub trait Codec<'a> {
    /// The Rust value a field of this type reads as.
    type Item;

    /// Decodes one occurrence. `None` if the wire type does not fit.
    fn decode(value: Value<'a>) -> Option<Self::Item>;

    /// Decodes a located value; length-delimited types skip the general
    /// decoder, which keeps string and message accessors small.
    #[inline]
    fn decode_raw(raw: Raw<'a>) -> Option<Self::Item> {
        Self::decode(raw.value()?)
    }

    /// The last occurrence of field `number` in the message `bytes`,
    /// decoded: what a singular accessor returns (see [`crate::rt::get`]).
    /// The codecs here read only their own wire type, so they go through
    /// the shared [`crate::rt::get_wire`].
    #[doc(hidden)]
    #[inline(always)]
    fn get(bytes: &'a [u8], number: u32) -> Option<Self::Item> {
        crate::rt::last(bytes, number).and_then(Self::decode_raw)
    }

    /// Decodes the next element of a packed run, advancing `rest`.
    /// `None` for types that cannot be packed or on malformed input.
    #[inline]
    fn decode_packed(rest: &mut &'a [u8]) -> Option<Self::Item> {
        let _ = rest;
        None
    }

    /// The value of a field that is absent (used for map entries without a
    /// key or value, which protobuf reads as the default).
    fn default_item() -> Self::Item;
}

macro_rules! varint_codec {
    ($(#[$doc:meta])* $name:ident, $ty:ty, |$v:ident| $conv:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl<'a> Codec<'a> for $name {
            type Item = $ty;
            #[inline]
            fn decode(value: Value<'a>) -> Option<$ty> {
                match value {
                    Value::Varint($v) => Some($conv),
                    _ => None,
                }
            }
            #[inline]
            fn decode_packed(rest: &mut &'a [u8]) -> Option<$ty> {
                let $v = take_varint(rest)?;
                Some($conv)
            }
            #[inline(always)]
            fn get(bytes: &'a [u8], number: u32) -> Option<$ty> {
                let $v = take_varint(&mut crate::rt::get_wire(bytes, number, 0)?)?;
                Some($conv)
            }
            #[inline]
            fn default_item() -> $ty {
                Default::default()
            }
        }
    };
}

macro_rules! fixed_codec {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $variant:ident, $wire:literal, $read:ident, |$v:ident| $conv:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl<'a> Codec<'a> for $name {
            type Item = $ty;
            #[inline]
            fn decode(value: Value<'a>) -> Option<$ty> {
                match value {
                    Value::$variant($v) => Some($conv),
                    _ => None,
                }
            }
            #[inline]
            fn decode_packed(rest: &mut &'a [u8]) -> Option<$ty> {
                let $v = $read(rest).ok()?;
                Some($conv)
            }
            #[inline(always)]
            fn get(bytes: &'a [u8], number: u32) -> Option<$ty> {
                let $v = $read(&mut crate::rt::get_wire(bytes, number, $wire)?).ok()?;
                Some($conv)
            }
            #[inline]
            fn default_item() -> $ty {
                Default::default()
            }
        }
    };
}

varint_codec!(
    /// `int32`: the varint's low 32 bits.
    Int32, i32, |v| v as i32
);
varint_codec!(
    /// `int64`.
    Int64, i64, |v| v as i64
);
varint_codec!(
    /// `uint32`: the varint's low 32 bits.
    Uint32, u32, |v| v as u32
);
varint_codec!(
    /// `uint64`.
    Uint64, u64, |v| v
);
varint_codec!(
    /// `sint32` (zigzag).
    Sint32, i32, |v| zigzag32(v)
);
varint_codec!(
    /// `sint64` (zigzag).
    Sint64, i64, |v| zigzag64(v)
);
varint_codec!(
    /// `bool`: any non-zero varint is `true`.
    Bool, bool, |v| v != 0
);
varint_codec!(
    /// An enum, kept open: unknown numbers survive as the raw `i32`.
    Enum, i32, |v| v as i32
);
fixed_codec!(
    /// `fixed32`.
    Fixed32, u32, Fixed32, 5, read_fixed32, |v| v
);
fixed_codec!(
    /// `sfixed32`.
    Sfixed32, i32, Fixed32, 5, read_fixed32, |v| v as i32
);
fixed_codec!(
    /// `float`.
    Float, f32, Fixed32, 5, read_fixed32, |v| f32::from_bits(v)
);
fixed_codec!(
    /// `fixed64`.
    Fixed64, u64, Fixed64, 1, read_fixed64, |v| v
);
fixed_codec!(
    /// `sfixed64`.
    Sfixed64, i64, Fixed64, 1, read_fixed64, |v| v as i64
);
fixed_codec!(
    /// `double`.
    Double, f64, Fixed64, 1, read_fixed64, |v| f64::from_bits(v)
);

/// `bytes`, borrowed from the buffer.
#[derive(Clone, Copy, Debug)]
pub struct Bytes;

impl<'a> Codec<'a> for Bytes {
    type Item = &'a [u8];
    #[inline]
    fn decode(value: Value<'a>) -> Option<&'a [u8]> {
        match value {
            Value::Len(bytes) => Some(bytes),
            _ => None,
        }
    }
    #[inline]
    fn decode_raw(raw: Raw<'a>) -> Option<&'a [u8]> {
        raw.len_body()
    }
    #[inline(always)]
    fn get(bytes: &'a [u8], number: u32) -> Option<&'a [u8]> {
        crate::rt::get_wire(bytes, number, 2)
    }
    #[inline]
    fn default_item() -> &'a [u8] {
        &[]
    }
}

/// `string`, borrowed from the buffer; `None` if it is not UTF-8.
#[derive(Clone, Copy, Debug)]
pub struct Str;

impl<'a> Codec<'a> for Str {
    type Item = &'a str;
    #[inline]
    fn decode(value: Value<'a>) -> Option<&'a str> {
        match value {
            Value::Len(bytes) => crate::utf8::to_str(bytes),
            _ => None,
        }
    }
    #[inline]
    fn decode_raw(raw: Raw<'a>) -> Option<&'a str> {
        crate::utf8::to_str(raw.len_body()?)
    }
    #[inline(always)]
    fn get(bytes: &'a [u8], number: u32) -> Option<&'a str> {
        crate::utf8::to_str(crate::rt::get_wire(bytes, number, 2)?)
    }
    #[inline]
    fn default_item() -> &'a str {
        ""
    }
}

/// An embedded message, read as the view `V`.
pub struct Msg<V>(PhantomData<V>);

impl<'a, V: View<'a>> Codec<'a> for Msg<V> {
    type Item = V;
    #[inline]
    fn decode(value: Value<'a>) -> Option<V> {
        match value {
            Value::Len(bytes) => Some(V::from_bytes(bytes)),
            _ => None,
        }
    }
    #[inline]
    fn decode_raw(raw: Raw<'a>) -> Option<V> {
        raw.len_body().map(V::from_bytes)
    }
    #[inline(always)]
    fn get(bytes: &'a [u8], number: u32) -> Option<V> {
        crate::rt::get_wire(bytes, number, 2).map(V::from_bytes)
    }
    #[inline]
    fn default_item() -> V {
        V::from_bytes(&[])
    }
}
