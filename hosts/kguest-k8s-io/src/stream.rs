//! Kubernetes' protobuf stream framing: each object
//! preceded by its length as 4 big-endian bytes, as watch streams carry
//! objects and as `kguest encode` writes several objects.

/// The 4 bytes that go before `object` in a stream.
pub fn frame_length(object: &[u8]) -> [u8; 4] {
    (object.len() as u32).to_be_bytes()
}

/// Appends `object` to `out` as one frame.
pub fn push_frame(out: &mut Vec<u8>, object: &[u8]) {
    out.extend_from_slice(&frame_length(object));
    out.extend_from_slice(object);
}

/// The objects as one framed stream.
pub fn frame(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for object in objects {
        push_frame(&mut out, object);
    }
    out
}

/// The frames of a stream whose objects are all enveloped (`k8s\0`);
/// `None` when `bytes` is not such a stream.
pub fn unframe(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut rest = bytes;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_be_bytes(*len) as usize;
        let (object, tail) = tail.split_at_checked(len)?;
        if !object.starts_with(&kguest_k8s::envelope::MAGIC) {
            return None;
        }
        out.push(object);
        rest = tail;
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_junk_is_not_a_stream() {
        let a = b"k8s\0abc".to_vec();
        let b = b"k8s\0".to_vec();
        let framed = frame(&[a.clone(), b.clone()]);
        assert_eq!(unframe(&framed), Some(vec![&a[..], &b[..]]));
        assert_eq!(unframe(&framed[..framed.len() - 1]), None);
        assert_eq!(unframe(b"k8s\0abc"), None);
        assert_eq!(unframe(b""), None);
    }
}
