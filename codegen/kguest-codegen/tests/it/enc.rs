//! A tiny protobuf writer for hand-encoding test messages.

/// Builds one encoded message, field by field, in the order written.
#[derive(Clone, Default)]
pub struct Enc(Vec<u8>);

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Enc {
    pub fn new() -> Enc {
        Enc::default()
    }

    fn key(mut self, field: u32, wire: u8) -> Enc {
        put_varint(&mut self.0, u64::from(field) << 3 | u64::from(wire));
        self
    }

    /// Wire type 0 (int32/int64 callers pass `v as i64 as u64`).
    pub fn varint(self, field: u32, v: u64) -> Enc {
        let mut enc = self.key(field, 0);
        put_varint(&mut enc.0, v);
        enc
    }

    /// A zigzag-encoded `sint32`/`sint64`.
    pub fn sint(self, field: u32, v: i64) -> Enc {
        self.varint(field, ((v << 1) ^ (v >> 63)) as u64)
    }

    /// Wire type 5.
    pub fn fixed32(mut self, field: u32, v: u32) -> Enc {
        self = self.key(field, 5);
        self.0.extend(v.to_le_bytes());
        self
    }

    /// Wire type 1.
    pub fn fixed64(mut self, field: u32, v: u64) -> Enc {
        self = self.key(field, 1);
        self.0.extend(v.to_le_bytes());
        self
    }

    /// Wire type 2: a string, bytes, or a packed run.
    pub fn bytes(self, field: u32, body: &[u8]) -> Enc {
        let mut enc = self.key(field, 2);
        put_varint(&mut enc.0, body.len() as u64);
        enc.0.extend_from_slice(body);
        enc
    }

    pub fn str(self, field: u32, s: &str) -> Enc {
        self.bytes(field, s.as_bytes())
    }

    pub fn msg(self, field: u32, inner: Enc) -> Enc {
        self.bytes(field, &inner.0)
    }

    /// A packed run of varints.
    pub fn packed(self, field: u32, values: &[u64]) -> Enc {
        let mut run = Vec::new();
        for &v in values {
            put_varint(&mut run, v);
        }
        self.bytes(field, &run)
    }

    /// Bytes appended as they are (for malformed input).
    pub fn raw(mut self, bytes: &[u8]) -> Enc {
        self.0.extend_from_slice(bytes);
        self
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}

#[test]
fn encoder_matches_the_protobuf_docs() {
    // The examples of https://protobuf.dev/programming-guides/encoding/.
    assert_eq!(Enc::new().varint(1, 150).finish(), [0x08, 0x96, 0x01]);
    assert_eq!(Enc::new().str(2, "testing").finish(), b"\x12\x07testing");
    assert_eq!(Enc::new().sint(1, -2).finish(), [0x08, 0x03]);
    assert_eq!(
        Enc::new().packed(4, &[3, 270, 86942]).finish(),
        [0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]
    );
}
