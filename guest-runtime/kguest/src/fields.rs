//! Stepping over a protobuf message's fields quickly, for plugins that
//! walk big messages (a `PodSpec`, a `NodeStatus`) for a few fields.
//!
//! [`next`] reads exactly what the views' wire reader
//! (`kguest_wire::wire::field_at`) reads, field by field, with the usual
//! fields read in place: a one- or two-byte tag (field numbers up to 2047)
//! and a varint value of up to nine bytes or a length of up to two bytes.
//! Anything else goes through the wire reader itself. [`Each`] iterates a
//! repeated message field as the views' `Repeated` does.
//!
//! ```
//! use kguest::fields::Each;
//! use kguest::k8s::api::core::v1::{Container, PodSpec};
//! # let bytes: &[u8] = &[0x12, 0x03, 0x0a, 0x01, b'a', 0x12, 0x03, 0x0a, 0x01, b'b'];
//! let spec = PodSpec::from_bytes(bytes);
//! // As `spec.containers()`: field 2.
//! let names: Vec<_> = Each::new(spec.as_bytes(), 2)
//!     .map(Container::from_bytes)
//!     .map(|c| c.name())
//!     .collect();
//! assert_eq!(names, [Some("a"), Some("b")]);
//! ```

use kguest_wire::wire::field_at;
#[cfg(test)]
use kguest_wire::wire::{Value, next_field};

/// The varint at the front of `s` when it has one or two bytes: its value
/// and length.
#[inline(always)]
fn short_varint(s: &[u8]) -> Option<(usize, usize)> {
    match *s {
        [a @ 0..0x80, ..] => Some((usize::from(a), 1)),
        [a @ 0x80..=0xff, b @ 0..0x80, ..] => {
            Some((usize::from(a & 0x7f) | usize::from(b) << 7, 2))
        }
        _ => None,
    }
}

/// The next field of `rest` as (field number, wire type, body), advancing
/// `rest` past it; the body is the value of a length-delimited field (wire
/// type 2) and empty otherwise. `None` at the end and where the wire reader
/// fails (the rest is then malformed).
///
/// `#[inline]` for where it is compiled (in the plugin's crate, so LTO
/// may specialise it), not for inlining: at `opt-level = "z"` it stays one
/// function for every caller.
#[inline]
pub fn next<'a>(rest: &mut &'a [u8]) -> Option<(u32, u8, &'a [u8])> {
    if let Some((key, n)) = short_varint(rest)
        && key >= 8
        && let Some(after) = rest.get(n..)
    {
        let wire = (key & 7) as u8;
        let number = (key >> 3) as u32;
        match wire {
            0 => {
                // A varint of at most nine bytes: no overflow to check.
                let len = after.iter().take(9).position(|&b| b < 0x80);
                if let Some(len) = len
                    && let Some(tail) = after.get(len + 1..)
                {
                    *rest = tail;
                    return Some((number, 0, &[]));
                }
            }
            2 => {
                if let Some((len, m)) = short_varint(after)
                    && let Some(tail) = after.get(m..)
                    && let Some((body, tail)) = tail.split_at_checked(len)
                {
                    *rest = tail;
                    return Some((number, 2, body));
                }
            }
            _ => {}
        }
    }
    // The views' own field walker for everything else.
    let (mut pos, mut start) = (0, 0);
    let key = field_at(rest, &mut pos, &mut start);
    if key == 0 {
        return None;
    }
    let wire = (key & 7) as u8;
    let body = match wire {
        2 => rest.get(start..pos)?,
        _ => &[][..],
    };
    *rest = rest.get(pos..)?;
    Some((key >> 3, wire, body))
}

/// The body of the last occurrence of field `number` in the message
/// `bytes` when every field reads and that occurrence is length-delimited:
/// what a view's message, string-bytes or bytes accessor reads (e.g.
/// `container.resources()` is `last_len(container.as_bytes(), 8)` as a
/// `ResourceRequirements`). `None` otherwise.
#[inline]
pub fn last_len(bytes: &[u8], number: u32) -> Option<&[u8]> {
    let mut rest = bytes;
    let mut found = None;
    while !rest.is_empty() {
        let (n, wire, body) = next(&mut rest)?;
        if n == number {
            found = Some((wire, body));
        }
    }
    match found {
        Some((2, body)) => Some(body),
        _ => None,
    }
}

/// The occurrences of the message field `number` of a message, as the
/// views' `Repeated` iterates them: in wire order, ending at a malformed
/// field or an occurrence that is not length-delimited.
#[derive(Debug, Clone)]
pub struct Each<'a> {
    rest: &'a [u8],
    number: u32,
}

impl<'a> Each<'a> {
    /// The occurrences of field `number` in the message `bytes`.
    pub const fn new(bytes: &'a [u8], number: u32) -> Self {
        Each {
            rest: bytes,
            number,
        }
    }
}

impl<'a> Iterator for Each<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        while let Some((number, wire, body)) = next(&mut self.rest) {
            if number != self.number {
                continue;
            }
            if wire == 2 {
                return Some(body);
            }
            break;
        }
        self.rest = &[];
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::proto::{ContainerBuilder as C, PodBuilder};
    use kguest_k8s::api::core::v1::{Container, Pod};
    use std::vec::Vec;

    /// Every field the wire reader reads, as [`next`] would give it.
    fn by_wire(mut s: &[u8]) -> Vec<(u32, u8, &[u8])> {
        let mut out = Vec::new();
        while let Ok(Some((n, v))) = next_field(&mut s) {
            out.push(match v {
                Value::Len(b) => (n, 2, b),
                Value::Varint(_) => (n, 0, &[][..]),
                Value::Fixed64(_) => (n, 1, &[][..]),
                Value::Fixed32(_) => (n, 5, &[][..]),
            });
        }
        out
    }

    fn by_next(mut s: &[u8]) -> Vec<(u32, u8, &[u8])> {
        let mut out = Vec::new();
        while let Some(f) = next(&mut s) {
            out.push(f);
        }
        out
    }

    /// [`next`] reads what the wire reader reads, and [`Each`] what the
    /// views' `Repeated` yields, on a pod, on every truncation of it and on
    /// every one-byte change of it.
    #[test]
    fn same_fields_as_the_wire_reader() {
        let long = "x".repeat(300);
        let pod = PodBuilder::new("p")
            .container(C::new("a").request("cpu", "1").image(&long))
            .init_container(C::new("i").restart_policy("Always"))
            .container(C::new(&"b".repeat(20_000)))
            .overhead("cpu", "1")
            .build();
        let spec = Pod::from_bytes(&pod).spec().unwrap().as_bytes().to_vec();
        let check = |s: &[u8]| {
            assert_eq!(by_next(s), by_wire(s), "{s:?}");
            let spec = kguest_k8s::api::core::v1::PodSpec::from_bytes(s);
            let views: Vec<&[u8]> = spec.containers().map(|c: Container| c.as_bytes()).collect();
            assert_eq!(Each::new(s, 2).collect::<Vec<_>>(), views);
            let views: Vec<&[u8]> = spec.init_containers().map(|c| c.as_bytes()).collect();
            assert_eq!(Each::new(s, 20).collect::<Vec<_>>(), views);
        };
        check(&spec);
        let mut cases = 0;
        assert_eq!(Each::new(&spec, 2).count(), 2);
        let first = Each::new(&spec, 2).next().unwrap().to_vec();
        let check_last = |c: &[u8]| {
            let view = Container::from_bytes(c);
            assert_eq!(
                last_len(c, 8),
                view.resources().map(|r| r.as_bytes()),
                "{c:?}"
            );
            assert_eq!(last_len(c, 2), view.image_bytes(), "{c:?}");
        };
        assert!(last_len(&first, 8).is_some());
        for cut in 0..first.len() {
            check_last(&first[..cut]);
        }
        for at in 0..first.len() {
            for b in [
                0x00, 0x01, 0x08, 0x0a, 0x10, 0x12, 0x40, 0x42, 0x45, 0x7f, 0x80, 0xff,
            ] {
                let mut c = first.clone();
                c[at] = b;
                check_last(&c);
                cases += 1;
            }
        }
        for cut in (0..spec.len()).filter(|c| c % 97 == 0 || *c < 400) {
            check(&spec[..cut]);
            cases += 1;
        }
        for at in 0..400.min(spec.len()) {
            for b in [
                0x00, 0x01, 0x08, 0x09, 0x0a, 0x0d, 0x10, 0x12, 0x7f, 0x80, 0xa2, 0xff,
            ] {
                let mut s = spec.clone();
                s[at] = b;
                check(&s);
                cases += 1;
            }
        }
        // Varints of every length and the multi-byte tags around the
        // fast path's limits.
        for key in [8u64, 0x7f, 0x80, 0x3fff, 0x4000, 1 << 28] {
            for v in [
                0u64,
                1,
                0x7f,
                0x80,
                0x3fff,
                0x4000,
                0x1f_ffff,
                0x20_0000,
                u64::MAX,
            ] {
                for wire in [0u64, 1, 2, 5] {
                    let mut s = Vec::new();
                    let push = |mut x: u64, s: &mut Vec<u8>| {
                        while x >= 0x80 {
                            s.push((x as u8) | 0x80);
                            x >>= 7;
                        }
                        s.push(x as u8);
                    };
                    push(key & !7 | wire, &mut s);
                    push(v, &mut s);
                    s.extend(std::iter::repeat_n(7u8, 300));
                    check(&s);
                    cases += 1;
                }
            }
        }
        assert!(cases > 5000, "{cases}");
    }
}
