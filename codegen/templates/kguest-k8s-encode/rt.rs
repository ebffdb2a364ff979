//! The encoding runtime the generated impls call: the two-pass machinery
//! (sizes cached bottom-up, then written) over `kguest_wire::encode`'s
//! writers, and `Leaf`/`Message` for k8s-openapi's leaf types.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, MicroTime, Time};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kguest_wire::encode::{FIXED64, LEN, VARINT, put_key, put_varint, varint_len};

/// Go's zero `time.Time` as Unix seconds; written as an empty message.
const GO_ZERO_SECONDS: i64 = kguest_wire::timefmt::MIN_SECONDS;

/// Nested lengths (pre-order) and serialized blobs, computed by the first
/// pass and consumed in the same order by the second.
#[derive(Default, Debug)]
pub struct Sizes {
    lens: Vec<usize>,
    blobs: Vec<Vec<u8>>,
}

impl Sizes {
    fn clear(&mut self) {
        self.lens.clear();
        self.blobs.clear();
    }

    fn reserve(&mut self) -> usize {
        self.lens.push(0);
        self.lens.len() - 1
    }

    fn set(&mut self, slot: usize, len: usize) {
        if let Some(entry) = self.lens.get_mut(slot) {
            *entry = len;
        }
    }
}

/// The second pass: appends to `out`, reading lengths the first pass cached.
pub struct Writer<'a> {
    out: &'a mut Vec<u8>,
    lens: std::slice::Iter<'a, usize>,
    blobs: std::slice::Iter<'a, Vec<u8>>,
}

impl<'a> Writer<'a> {
    fn next_len(&mut self) -> usize {
        // The passes walk the same object in the same order.
        self.lens.next().copied().unwrap_or(0)
    }

    fn next_blob(&mut self) -> &'a [u8] {
        self.blobs.next().map(Vec::as_slice).unwrap_or_default()
    }
}

/// A type encoded as a protobuf message.
pub trait Message {
    /// The length of the message body; caches nested lengths in `sizes`.
    fn body_len(&self, sizes: &mut Sizes) -> usize;
    /// Writes the body, in the order `body_len` visited it.
    fn write_body(&self, w: &mut Writer<'_>);
}

/// Encoding a message to bytes.
pub trait Encode {
    /// The encoded length in bytes.
    fn encoded_len(&self) -> usize;
    /// Appends the encoding to `buf`.
    fn encode(&self, buf: &mut Vec<u8>);
    /// The encoding in a new vector.
    fn encode_to_vec(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.encoded_len());
        self.encode(&mut buf);
        buf
    }
    /// Writes the encoding into `buf`, returning its length.
    fn encode_to_slice(&self, buf: &mut [u8]) -> Result<usize, BufferTooSmall> {
        let bytes = self.encode_to_vec();
        let available = buf.len();
        let target = buf.get_mut(..bytes.len()).ok_or(BufferTooSmall {
            needed: bytes.len(),
            available,
        })?;
        target.copy_from_slice(&bytes);
        Ok(bytes.len())
    }
}

/// The caller's buffer cannot hold the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferTooSmall {
    pub needed: usize,
    pub available: usize,
}

impl std::fmt::Display for BufferTooSmall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the encoding needs {} bytes", self.needed)
    }
}

impl std::error::Error for BufferTooSmall {}

impl<M: Message> Encode for M {
    fn encoded_len(&self) -> usize {
        with_sizes(|sizes| self.body_len(sizes))
    }

    fn encode(&self, buf: &mut Vec<u8>) {
        // One size pass, then one write pass.
        with_sizes(|sizes| {
            let len = self.body_len(sizes);
            buf.reserve(len);
            let mut w = Writer {
                out: buf,
                lens: sizes.lens.iter(),
                blobs: sizes.blobs.iter(),
            };
            self.write_body(&mut w);
        });
    }

    fn encode_to_vec(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.encode(&mut buf);
        buf
    }
}

thread_local! {
    /// The size cache, reused across encodes on this thread (no allocation
    /// once it has grown to the largest object).
    static SIZES: std::cell::RefCell<Sizes> = std::cell::RefCell::new(Sizes::default());
}

/// Runs `f` with a cleared size cache: the thread's, or a fresh one if an
/// encode is already running on this thread (a `Message` impl that encodes).
fn with_sizes<R>(f: impl FnOnce(&mut Sizes) -> R) -> R {
    SIZES.with(|cell| match cell.try_borrow_mut() {
        Ok(mut sizes) => {
            sizes.clear();
            f(&mut sizes)
        }
        Err(_) => f(&mut Sizes::default()),
    })
}

fn key_len(number: u32) -> usize {
    varint_len(u64::from(number) << 3)
}

/// A value that can be one field (a singular field, a repeated element, a
/// map key or value).
pub trait Leaf {
    fn field_len(&self, number: u32, sizes: &mut Sizes) -> usize;
    fn write_field(&self, number: u32, w: &mut Writer<'_>);
}

impl<M: Message> Leaf for M {
    fn field_len(&self, number: u32, sizes: &mut Sizes) -> usize {
        let slot = sizes.reserve();
        let body = self.body_len(sizes);
        sizes.set(slot, body);
        key_len(number) + varint_len(body as u64) + body
    }

    fn write_field(&self, number: u32, w: &mut Writer<'_>) {
        let body = w.next_len();
        write_len_header(number, body, w);
        self.write_body(w);
    }
}

fn bytes_field_len(number: u32, len: usize) -> usize {
    key_len(number) + varint_len(len as u64) + len
}

#[inline]
fn write_bytes_field(number: u32, bytes: &[u8], w: &mut Writer<'_>) {
    write_len_header(number, bytes.len(), w);
    w.out.extend_from_slice(bytes);
}

/// The key and length of a length-delimited field, appended at once.
#[inline]
fn write_len_header(number: u32, len: usize, w: &mut Writer<'_>) {
    let key = (u64::from(number) << 3) | u64::from(LEN);
    // Most keys and lengths fit one byte each: a fixed two-byte append
    // compiles to a store, not a memmove call.
    if key < 0x80 && len < 0x80 {
        w.out.extend_from_slice(&[key as u8, len as u8]);
        return;
    }
    let mut header = [0u8; 20];
    let mut n = 0;
    for mut v in [(u64::from(number) << 3) | u64::from(LEN), len as u64] {
        while v >= 0x80 {
            header[n] = (v as u8) | 0x80;
            v >>= 7;
            n += 1;
        }
        header[n] = v as u8;
        n += 1;
    }
    w.out.extend_from_slice(&header[..n]);
}

impl Leaf for String {
    fn field_len(&self, number: u32, _: &mut Sizes) -> usize {
        bytes_field_len(number, self.len())
    }
    fn write_field(&self, number: u32, w: &mut Writer<'_>) {
        write_bytes_field(number, self.as_bytes(), w);
    }
}

impl Leaf for ByteString {
    fn field_len(&self, number: u32, _: &mut Sizes) -> usize {
        bytes_field_len(number, self.0.len())
    }
    fn write_field(&self, number: u32, w: &mut Writer<'_>) {
        write_bytes_field(number, &self.0, w);
    }
}

macro_rules! varint_leaf {
    ($($ty:ty => |$v:ident| $conv:expr),* $(,)?) => {$(
        impl Leaf for $ty {
            fn field_len(&self, number: u32, _: &mut Sizes) -> usize {
                let $v = *self;
                key_len(number) + varint_len($conv)
            }
            fn write_field(&self, number: u32, w: &mut Writer<'_>) {
                let $v = *self;
                put_key(w.out, number, VARINT);
                put_varint(w.out, $conv);
            }
        }
    )*};
}

varint_leaf!(
    i32 => |v| i64::from(v) as u64,
    i64 => |v| v as u64,
    bool => |v| u64::from(v),
);

impl Leaf for f64 {
    fn field_len(&self, number: u32, _: &mut Sizes) -> usize {
        key_len(number) + 8
    }
    fn write_field(&self, number: u32, w: &mut Writer<'_>) {
        put_key(w.out, number, FIXED64);
        w.out.extend_from_slice(&self.to_le_bytes());
    }
}

// ---- Kubernetes' special messages ----------------------------------------

fn timestamp_body_len(seconds: i64, nanos: i32) -> usize {
    if seconds == GO_ZERO_SECONDS && nanos == 0 {
        return 0;
    }
    key_len(1) + varint_len(seconds as u64) + key_len(2) + varint_len(i64::from(nanos) as u64)
}

fn write_timestamp_body(seconds: i64, nanos: i32, w: &mut Writer<'_>) {
    if seconds == GO_ZERO_SECONDS && nanos == 0 {
        return;
    }
    put_key(w.out, 1, VARINT);
    put_varint(w.out, seconds as u64);
    put_key(w.out, 2, VARINT);
    put_varint(w.out, i64::from(nanos) as u64);
}

/// `metav1.Time` keeps whole seconds on the wire.
impl Message for Time {
    fn body_len(&self, _: &mut Sizes) -> usize {
        timestamp_body_len(self.0.as_second(), 0)
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        write_timestamp_body(self.0.as_second(), 0, w);
    }
}

/// `metav1.MicroTime` keeps the nanoseconds Go holds (microseconds from JSON).
impl Message for MicroTime {
    fn body_len(&self, _: &mut Sizes) -> usize {
        timestamp_body_len(self.0.as_second(), self.0.subsec_nanosecond())
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        write_timestamp_body(self.0.as_second(), self.0.subsec_nanosecond(), w);
    }
}

/// The string Go writes for a quantity: its canonical form. A string that is
/// not a quantity (Go could not hold one) is written unchanged, not lost.
fn quantity_text<'b>(q: &'b Quantity, buf: &'b mut [u8; 64]) -> &'b [u8] {
    if q.0.is_empty() {
        return b"0";
    }
    match kguest_wire::quantity::reserialize(q.0.as_bytes(), buf) {
        Ok(text) => text.as_bytes(),
        Err(_) => q.0.as_bytes(),
    }
}

impl Message for Quantity {
    fn body_len(&self, _: &mut Sizes) -> usize {
        bytes_field_len(1, quantity_text(self, &mut [0; 64]).len())
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        let mut buf = [0; 64];
        write_bytes_field(1, quantity_text(self, &mut buf), w);
    }
}

impl Message for IntOrString {
    fn body_len(&self, sizes: &mut Sizes) -> usize {
        let (kind, int, text) = int_or_string_parts(self);
        kind.field_len(1, sizes) + int.field_len(2, sizes) + bytes_field_len(3, text.len())
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        let (kind, int, text) = int_or_string_parts(self);
        kind.write_field(1, w);
        int.write_field(2, w);
        write_bytes_field(3, text.as_bytes(), w);
    }
}

fn int_or_string_parts(value: &IntOrString) -> (i64, i32, &str) {
    match value {
        IntOrString::Int(n) => (0, *n, ""),
        IntOrString::String(s) => (1, 0, s.as_str()),
    }
}

/// Embedded JSON (`RawExtension`, `FieldsV1`): field 1 holds the compact
/// JSON text; `null` is Go's nil and writes nothing.
fn raw_json_len(value: &serde_json::Value, sizes: &mut Sizes) -> usize {
    if value.is_null() {
        return 0;
    }
    let text = serde_json::to_vec(value).unwrap_or_default();
    let len = bytes_field_len(1, text.len());
    sizes.blobs.push(text);
    len
}

fn write_raw_json(value: &serde_json::Value, w: &mut Writer<'_>) {
    if value.is_null() {
        return;
    }
    let blob = w.next_blob();
    write_bytes_field(1, blob, w);
}

impl Message for RawExtension {
    fn body_len(&self, sizes: &mut Sizes) -> usize {
        raw_json_len(&self.0, sizes)
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        write_raw_json(&self.0, w);
    }
}

impl Message for FieldsV1 {
    fn body_len(&self, sizes: &mut Sizes) -> usize {
        raw_json_len(&self.0, sizes)
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        write_raw_json(&self.0, w);
    }
}

/// `ExtraValue`/`Verbs`: a list of strings that Kubernetes wraps in a message.
impl Message for Vec<String> {
    fn body_len(&self, sizes: &mut Sizes) -> usize {
        self.iter().map(|s| s.field_len(1, sizes)).sum()
    }
    fn write_body(&self, w: &mut Writer<'_>) {
        for s in self {
            s.write_field(1, w);
        }
    }
}

// ---- field shapes the generated code calls -----------------------------------

/// The zero values of Go's non-pointer fields, for absent `Option`s.
pub mod zero {
    use super::*;

    pub fn string_len(number: u32) -> usize {
        bytes_field_len(number, 0)
    }
    pub fn write_string(number: u32, w: &mut Writer<'_>) {
        write_bytes_field(number, b"", w);
    }
    pub fn varint_len(number: u32) -> usize {
        key_len(number) + 1
    }
    pub fn write_varint(number: u32, w: &mut Writer<'_>) {
        put_key(w.out, number, VARINT);
        put_varint(w.out, 0);
    }
    /// The zero `Time`/`MicroTime`: an empty message.
    pub fn time() -> Time {
        Time(k8s_openapi::jiff::Timestamp::from_second(GO_ZERO_SECONDS).unwrap_or_default())
    }
    pub fn micro_time() -> MicroTime {
        MicroTime(time().0)
    }
}

/// `Option<L>` of a Go pointer field: written only when set.
pub fn opt_len<L: Leaf>(value: &Option<L>, number: u32, sizes: &mut Sizes) -> usize {
    value.as_ref().map_or(0, |v| v.field_len(number, sizes))
}

pub fn write_opt<L: Leaf>(value: &Option<L>, number: u32, w: &mut Writer<'_>) {
    if let Some(v) = value {
        v.write_field(number, w);
    }
}

/// A repeated field (`Vec<L>` or `Option<Vec<L>>`).
pub fn repeated_len<'v, L: Leaf + 'v>(
    values: impl IntoIterator<Item = &'v L>,
    number: u32,
    sizes: &mut Sizes,
) -> usize {
    values.into_iter().map(|v| v.field_len(number, sizes)).sum()
}

pub fn write_repeated<'v, L: Leaf + 'v>(
    values: impl IntoIterator<Item = &'v L>,
    number: u32,
    w: &mut Writer<'_>,
) {
    for v in values {
        v.write_field(number, w);
    }
}

/// A map field: entries in key order (a `BTreeMap` iterates as Go sorts),
/// each a message with the key (1) and the value (2), both always written.
pub fn map_len<L: Leaf>(
    map: Option<&BTreeMap<String, L>>,
    number: u32,
    sizes: &mut Sizes,
) -> usize {
    let Some(map) = map else { return 0 };
    let mut total = 0;
    for (key, value) in map {
        let slot = sizes.reserve();
        let body = key.field_len(1, sizes) + value.field_len(2, sizes);
        sizes.set(slot, body);
        total += key_len(number) + varint_len(body as u64) + body;
    }
    total
}

pub fn write_map<L: Leaf>(map: Option<&BTreeMap<String, L>>, number: u32, w: &mut Writer<'_>) {
    let Some(map) = map else { return };
    for (key, value) in map {
        let body = w.next_len();
        write_len_header(number, body, w);
        key.write_field(1, w);
        value.write_field(2, w);
    }
}

/// An inlined message (a Go embedded struct): its body comes from fields of
/// the enclosing k8s-openapi struct, computed by `body`.
pub fn inline_len(number: u32, sizes: &mut Sizes, body: impl FnOnce(&mut Sizes) -> usize) -> usize {
    let slot = sizes.reserve();
    let len = body(sizes);
    sizes.set(slot, len);
    key_len(number) + varint_len(len as u64) + len
}

pub fn write_inline(number: u32, w: &mut Writer<'_>, body: impl FnOnce(&mut Writer<'_>)) {
    let len = w.next_len();
    write_len_header(number, len, w);
    body(w);
}
