//! Walking every field of a view.
//!
//! Generated views implement [`Reflect`] when the generating crate turns on
//! its `reflect` feature. Tests use it to compare views with an independent
//! decoder field by field, and fuzzers to read every field of arbitrary
//! input. Guests never need it.
//!
//! Two walks report the same calls: [`Reflect::reflect`] reads each message
//! in one pass ([`crate::fields`]), [`Reflect::reflect_accessors`] calls
//! every accessor (one scan per field). Differential tests hold them equal
//! on any input.

use crate::schema::MessageSchema;

/// One value read by an accessor.
#[derive(Clone, Copy)]
pub enum Item<'a, 'r> {
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    Bool(bool),
    F32(f32),
    F64(f64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Message(&'r dyn Reflect<'a>),
}

/// Receives what [`Reflect::reflect`] reads, field by field in number order.
pub trait Visitor<'a> {
    /// A singular field: `None` when absent (or unreadable).
    fn field(&mut self, number: u32, item: Option<Item<'a, '_>>);
    /// One element of a repeated field.
    fn element(&mut self, number: u32, item: Item<'a, '_>);
    /// One entry of a map field.
    fn entry(&mut self, number: u32, key: Item<'a, '_>, value: Item<'a, '_>);
}

/// A view whose fields can be walked.
pub trait Reflect<'a> {
    /// The schema of the message.
    fn schema(&self) -> &'static MessageSchema;
    /// Calls `visitor` once per field (per element, per entry), reading the
    /// message in one pass.
    fn reflect(&self, visitor: &mut dyn Visitor<'a>);
    /// Makes the same calls as [`Reflect::reflect`], reading each field
    /// through its generated accessor.
    fn reflect_accessors(&self, visitor: &mut dyn Visitor<'a>);
}
