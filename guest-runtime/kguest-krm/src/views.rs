//! `Node::view`: a YAML node read through a kguest view. The node is
//! transcoded, guided by the view's static schema (field JSON names, kinds,
//! Kubernetes' JSON forms), into protobuf in the arena; the view then reads
//! that protobuf lazily as usual. Only the schemas reachable from the view
//! a function asks for are linked into it.

use kguest_wire::View;
use kguest_wire::schema::{FieldSchema, JsonForm, Kind as FieldKind, Label, MessageSchema};

use crate::node::{Kind, Node};
use crate::yaml::Style;

/// How deep messages may nest in a transcoded object.
const MAX_DEPTH: u32 = 100;

/// Why a node could not be read as a view: the problem and its byte
/// offset in the node's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewError {
    pub what: &'static str,
    pub at: u32,
}

type R = Result<(), ViewError>;

fn err(what: &'static str, n: &Node<'_>) -> ViewError {
    ViewError {
        what,
        at: n.span().0,
    }
}

impl<'a> Node<'a> {
    /// This node as the Kubernetes object `V` (e.g.
    /// `kguest_k8s::api::core::v1::ResourceRequirements`): Kubernetes JSON
    /// field names, quantities, int-or-strings, times. Keys the schema does
    /// not know (`apiVersion`, `kind`, custom fields) are skipped.
    pub fn view<V: View<'a>>(&self) -> Result<V, ViewError> {
        self.to_protobuf(V::SCHEMA).map(V::from_bytes)
    }

    /// This node as the protobuf encoding of message `schema` (see
    /// [`Node::view`]).
    pub fn to_protobuf(&self, schema: &'static MessageSchema) -> Result<&'a [u8], ViewError> {
        // Protobuf is never more than a few times longer than the YAML it
        // comes from (the longest case: `k: -1` map entries, 16 bytes for
        // 5), plus 5 bytes per open message. The buffer is taken up front
        // so that decoding scalars can use the arena meanwhile.
        let (a, b) = self.span();
        let cap = ((b - a) as usize).saturating_mul(8).saturating_add(4096);
        let data = self.arena.alloc(cap).ok_or(err("out of memory", self))?;
        let mut out = Buf { data, len: 0 };
        message(&mut out, *self, schema, 0)?;
        let Buf { data, len } = out;
        Ok(data.get(..len).unwrap_or(&[]))
    }
}

/// The protobuf being written.
struct Buf<'b> {
    data: &'b mut [u8],
    len: usize,
}

impl Buf<'_> {
    fn push(&mut self, b: u8) -> bool {
        match self.data.get_mut(self.len) {
            Some(slot) => {
                *slot = b;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    fn extend(&mut self, b: &[u8]) -> bool {
        match self.data.get_mut(self.len..self.len + b.len()) {
            Some(dst) => {
                crate::bytes::copy(dst, b);
                self.len += b.len();
                true
            }
            None => false,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        self.data.get_mut(..self.len).unwrap_or(&mut [])
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

fn oom(n: &Node<'_>) -> ViewError {
    err("out of memory", n)
}

fn push(out: &mut Buf<'_>, b: u8, n: &Node<'_>) -> R {
    if out.push(b) { Ok(()) } else { Err(oom(n)) }
}

fn varint(out: &mut Buf<'_>, mut v: u64, n: &Node<'_>) -> R {
    while v >= 0x80 {
        push(out, (v as u8) | 0x80, n)?;
        v >>= 7;
    }
    push(out, v as u8, n)
}

fn tag(out: &mut Buf<'_>, field: u32, wire: u8, n: &Node<'_>) -> R {
    varint(out, (u64::from(field) << 3) | u64::from(wire), n)
}

fn bytes_field(out: &mut Buf<'_>, field: u32, b: &[u8], n: &Node<'_>) -> R {
    tag(out, field, 2, n)?;
    varint(out, b.len() as u64, n)?;
    if out.extend(b) { Ok(()) } else { Err(oom(n)) }
}

/// Writes field `field` as a length-delimited value produced by `f`.
fn nested(out: &mut Buf<'_>, field: u32, n: &Node<'_>, f: impl FnOnce(&mut Buf<'_>) -> R) -> R {
    tag(out, field, 2, n)?;
    // Room for the longest length varint; moved down once the length is known.
    for _ in 0..5 {
        push(out, 0, n)?;
    }
    let start = out.len();
    f(out)?;
    let len = out.len() - start;
    let mut prefix = [0u8; 5];
    let mut k = 0;
    let mut v = len;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if let Some(slot) = prefix.get_mut(k) {
            *slot = if v > 0 { b | 0x80 } else { b };
        }
        k += 1;
        if v == 0 || k == 5 {
            break;
        }
    }
    let gap = 5 - k;
    let bytes = out.as_mut_slice();
    let base = start - 5;
    for (i, &b) in prefix.iter().take(k).enumerate() {
        if let Some(slot) = bytes.get_mut(base + i) {
            *slot = b;
        }
    }
    if gap > 0 {
        for i in start..start + len {
            if let Some(&b) = bytes.get(i)
                && let Some(slot) = bytes.get_mut(i - gap)
            {
                *slot = b;
            }
        }
        out.truncate(start + len - gap);
    }
    Ok(())
}

/// The fields of message `schema` from mapping (or JSON form) `node`.
fn message(out: &mut Buf<'_>, node: Node<'_>, schema: &'static MessageSchema, depth: u32) -> R {
    if depth > MAX_DEPTH {
        return Err(err("nesting too deep", &node));
    }
    if node.is_null() {
        return Ok(());
    }
    match schema.json {
        JsonForm::Object => object(out, node, schema, depth),
        JsonForm::EmbeddedString | JsonForm::Quantity => {
            let s = scalar(&node)?;
            bytes_field(out, 1, s.as_bytes(), &node)
        }
        #[cfg(feature = "views-all")]
        JsonForm::Timestamp { .. } => {
            let s = scalar(&node)?;
            let (secs, nanos) = kguest_wire::timefmt::parse_rfc3339(s.as_bytes())
                .ok_or(err("not an RFC 3339 time", &node))?;
            if secs != 0 {
                tag(out, 1, 0, &node)?;
                varint(out, secs as u64, &node)?;
            }
            if nanos != 0 {
                tag(out, 2, 0, &node)?;
                varint(out, i64::from(nanos) as u64, &node)?;
            }
            Ok(())
        }
        #[cfg(feature = "views-all")]
        JsonForm::Duration => {
            let s = scalar(&node)?;
            let nanos = kguest_wire::timefmt::parse_go_duration(s.as_bytes())
                .ok_or(err("not a duration", &node))?;
            tag(out, 1, 0, &node)?;
            varint(out, nanos as u64, &node)
        }
        JsonForm::IntOrString => {
            let s = scalar(&node)?;
            match (node.style(), crate::node::parse_i64(s.as_bytes())) {
                (Style::Plain, Some(v)) => {
                    tag(out, 1, 0, &node)?;
                    varint(out, 0, &node)?;
                    tag(out, 2, 0, &node)?;
                    varint(out, v as u64, &node)
                }
                _ => {
                    tag(out, 1, 0, &node)?;
                    varint(out, 1, &node)?;
                    bytes_field(out, 3, s.as_bytes(), &node)
                }
            }
        }
        #[cfg(feature = "views-all")]
        JsonForm::RawJson => nested(out, 1, &node, |out| to_json(out, node, depth)),
        #[cfg(not(feature = "views-all"))]
        JsonForm::Timestamp { .. } | JsonForm::Duration | JsonForm::RawJson => Err(err(
            "times, durations and raw JSON need kguest-krm's `views-all` feature",
            &node,
        )),
        JsonForm::BareArray => match schema.field(1) {
            Some(f) => field(out, node, f, depth),
            None => Ok(()),
        },
    }
}

fn scalar<'a>(node: &Node<'a>) -> Result<&'a str, ViewError> {
    if node.kind() != Kind::Scalar {
        return Err(err("expected a scalar", node));
    }
    node.as_str().ok_or(err("unreadable scalar", node))
}

fn object(out: &mut Buf<'_>, node: Node<'_>, schema: &'static MessageSchema, depth: u32) -> R {
    if !node.is_map() {
        return Err(err("expected a mapping", &node));
    }
    for (key, value) in node.entries() {
        let Some(name) = key.as_str() else {
            continue;
        };
        if let Some(f) = schema
            .fields
            .iter()
            .find(|f| !f.inline && f.json_name() == name)
        {
            field(out, value, f, depth)?;
        }
    }
    // Inlined members: keys of the inlined message, written into it.
    for f in schema.fields.iter().filter(|f| f.inline) {
        let FieldKind::Message(inner) = f.kind else {
            continue;
        };
        let known = |name: &str| inner.fields.iter().any(|g| g.json_name() == name);
        if node.entries().any(|(k, _)| k.as_str().is_some_and(known)) {
            nested(out, f.number, &node, |out| {
                object(out, node, inner, depth + 1)
            })?;
        }
    }
    Ok(())
}

/// One field (all its values) from `value`.
fn field(out: &mut Buf<'_>, value: Node<'_>, f: &'static FieldSchema, depth: u32) -> R {
    if value.is_null() {
        return Ok(());
    }
    match f.label {
        Label::Singular => one(out, value, f, depth),
        Label::Repeated => {
            if !value.is_seq() {
                return Err(err("expected a sequence", &value));
            }
            for v in value.iter() {
                one(out, v, f, depth)?;
            }
            Ok(())
        }
        Label::Map => {
            let FieldKind::Message(entry) = f.kind else {
                return Ok(());
            };
            if !value.is_map() {
                return Err(err("expected a mapping", &value));
            }
            let (Some(kf), Some(vf)) = (entry.field(1), entry.field(2)) else {
                return Ok(());
            };
            for (k, v) in value.entries() {
                nested(out, f.number, &k, |out| {
                    one(out, k, kf, depth + 1)?;
                    if v.is_null() {
                        Ok(())
                    } else {
                        one(out, v, vf, depth + 1)
                    }
                })?;
            }
            Ok(())
        }
    }
}

/// One value of field `f`.
fn one(out: &mut Buf<'_>, v: Node<'_>, f: &'static FieldSchema, depth: u32) -> R {
    let number = f.number;
    let int = || v.as_i64().ok_or(err("expected an integer", &v));
    // (wire type, value) of the scalar kinds.
    let (wire, value) = match f.kind {
        FieldKind::Message(schema) => {
            return nested(out, number, &v, |out| message(out, v, schema, depth + 1));
        }
        FieldKind::String => return bytes_field(out, number, scalar(&v)?.as_bytes(), &v),
        FieldKind::Bytes => {
            let s = scalar(&v)?;
            return nested(out, number, &v, |out| {
                if base64(s.as_bytes(), out) {
                    Ok(())
                } else {
                    Err(err("not base64", &v))
                }
            });
        }
        FieldKind::Bool => (
            0,
            u64::from(v.as_bool().ok_or(err("expected true or false", &v))?),
        ),
        FieldKind::Int32
        | FieldKind::Int64
        | FieldKind::Uint32
        | FieldKind::Uint64
        | FieldKind::Enum => (0, int()? as u64),
        FieldKind::Sint32 | FieldKind::Sint64 => {
            let i = int()?;
            (0, ((i << 1) ^ (i >> 63)) as u64)
        }
        FieldKind::Fixed32 | FieldKind::Sfixed32 => (5, u64::from(int()? as u32)),
        FieldKind::Fixed64 | FieldKind::Sfixed64 => (1, int()? as u64),
        FieldKind::Float | FieldKind::Double => {
            return Err(err("floating-point fields are not supported", &v));
        }
    };
    tag(out, number, wire, &v)?;
    let le = value.to_le_bytes();
    let ok = match wire {
        0 => return varint(out, value, &v),
        5 => le.get(..4).is_some_and(|b| out.extend(b)),
        _ => out.extend(&le),
    };
    if ok { Ok(()) } else { Err(oom(&v)) }
}

/// Standard or URL-safe base64, padding optional.
fn base64(s: &[u8], out: &mut Buf<'_>) -> bool {
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in s {
        let d = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b'\n' | b'\r' | b' ' => continue,
            _ => return false,
        };
        acc = (acc << 6) | u32::from(d);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            if !out.push((acc >> bits) as u8) {
                return false;
            }
        }
    }
    true
}

/// The node as JSON text (for `RawExtension`-like fields).
#[cfg(feature = "views-all")]
fn to_json(out: &mut Buf<'_>, node: Node<'_>, depth: u32) -> R {
    if depth > MAX_DEPTH {
        return Err(err("nesting too deep", &node));
    }
    let ok = match node.kind() {
        Kind::Null => out.extend(b"null"),
        Kind::Alias => return Err(err("aliases are not supported", &node)),
        Kind::Scalar => {
            let s = scalar(&node)?;
            if node.style() == Style::Plain && json_literal(s) {
                out.extend(s.as_bytes())
            } else {
                json_string(out, s)
            }
        }
        Kind::Seq => {
            let mut ok = out.push(b'[');
            for (i, v) in node.iter().enumerate() {
                ok = ok && (i == 0 || out.push(b','));
                to_json(out, v, depth + 1)?;
            }
            ok && out.push(b']')
        }
        Kind::Map => {
            let mut ok = out.push(b'{');
            for (i, (k, v)) in node.entries().enumerate() {
                ok = ok && (i == 0 || out.push(b','));
                ok = ok && json_string(out, scalar(&k)?) && out.push(b':');
                to_json(out, v, depth + 1)?;
            }
            ok && out.push(b'}')
        }
    };
    if ok { Ok(()) } else { Err(oom(&node)) }
}

#[cfg(feature = "views-all")]
fn json_string(out: &mut Buf<'_>, s: &str) -> bool {
    let mut ok = out.push(b'"');
    for &c in s.as_bytes() {
        ok &= match c {
            b'"' => out.extend(b"\\\""),
            b'\\' => out.extend(b"\\\\"),
            b'\n' => out.extend(b"\\n"),
            0..=0x1f => {
                let hex = b"0123456789abcdef";
                out.extend(b"\\u00")
                    && out.push(hex.get(usize::from(c >> 4)).copied().unwrap_or(b'0'))
                    && out.push(hex.get(usize::from(c & 15)).copied().unwrap_or(b'0'))
            }
            _ => out.push(c),
        };
    }
    ok && out.push(b'"')
}

/// `true`, `false`, or a JSON number.
#[cfg(feature = "views-all")]
fn json_literal(s: &str) -> bool {
    if s == "true" || s == "false" {
        return true;
    }
    let b = s.as_bytes();
    let digits = if b.first() == Some(&b'-') {
        b.get(1..).unwrap_or(b)
    } else {
        b
    };
    let Some(&first) = digits.first() else {
        return false;
    };
    first.is_ascii_digit()
        && (first != b'0' || digits.len() == 1 || matches!(digits.get(1), Some(b'.' | b'e' | b'E')))
        && digits
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
}
