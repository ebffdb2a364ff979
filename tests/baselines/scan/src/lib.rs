//! Baseline (c): the `nodename` Filter as a hand-written field scan, the
//! floor for both code size and decode time. It walks the Pod's top-level
//! fields to `spec` (2), then `spec`'s fields to `nodeName` (10), skipping
//! everything else by wire type. No SDK, no views, no allocator.

#![cfg_attr(target_arch = "wasm32", no_std)]

pub const SUCCESS: i32 = 0;
pub const ERROR: i32 = 1;
pub const UNSCHEDULABLE_AND_UNRESOLVABLE: i32 = 3;
pub const REASON: &str = "node(s) didn't match the requested node name";

fn varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    while shift < 64 {
        let byte = *buf.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
        shift += 7;
    }
    None
}

/// The last occurrence of length-delimited field `number` in `msg`
/// (`Ok(None)` when absent, `Err` when malformed).
fn field(msg: &[u8], number: u64) -> Result<Option<&[u8]>, ()> {
    let mut pos = 0;
    let mut found = None;
    while pos < msg.len() {
        let key = varint(msg, &mut pos).ok_or(())?;
        match key & 7 {
            0 => {
                varint(msg, &mut pos).ok_or(())?;
            }
            1 => pos = pos.checked_add(8).ok_or(())?,
            5 => pos = pos.checked_add(4).ok_or(())?,
            2 => {
                let len = usize::try_from(varint(msg, &mut pos).ok_or(())?).map_err(|_| ())?;
                let end = pos.checked_add(len).ok_or(())?;
                let value = msg.get(pos..end).ok_or(())?;
                if key >> 3 == number {
                    found = Some(value);
                }
                pos = end;
            }
            _ => return Err(()),
        }
    }
    if pos > msg.len() { Err(()) } else { Ok(found) }
}

/// The decision for a protobuf Pod and a node name.
pub fn decide(pod: &[u8], node_name: &[u8]) -> i32 {
    let wanted = match field(pod, 2) {
        Ok(Some(spec)) => field(spec, 10),
        Ok(None) => Ok(None),
        Err(()) => Err(()),
    };
    match wanted {
        Err(()) => ERROR,
        Ok(None | Some(b"")) => SUCCESS,
        Ok(Some(name)) if name == node_name => SUCCESS,
        Ok(Some(_)) => UNSCHEDULABLE_AND_UNRESOLVABLE,
    }
}

#[cfg(target_arch = "wasm32")]
mod abi {
    #[unsafe(no_mangle)]
    extern "C" fn filter() -> i32 {
        // SAFETY: one pull per call; the slices die with the call.
        let Some((pod, node)) = (unsafe { test_guest_ffi::pod_and_node_name() }) else {
            return super::ERROR;
        };
        let code = super::decide(pod, node);
        if code == super::UNSCHEDULABLE_AND_UNRESOLVABLE {
            test_guest_ffi::status_reason(super::REASON);
        }
        code
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &[u8]) -> Vec<u8> {
        // metadata (1) { name (1): "p" }, spec (2) { restartPolicy (3): "x", nodeName (10): name }
        let mut spec = vec![0x1a, 1, b'x', 0x52, name.len() as u8];
        spec.extend_from_slice(name);
        let mut pod = vec![0x0a, 3, 0x0a, 1, b'p', 0x12, spec.len() as u8];
        pod.extend(spec);
        pod
    }

    #[test]
    fn decisions() {
        assert_eq!(decide(&pod(b"a"), b"a"), SUCCESS);
        assert_eq!(decide(&pod(b"a"), b"b"), UNSCHEDULABLE_AND_UNRESOLVABLE);
        assert_eq!(decide(&pod(b""), b"b"), SUCCESS);
        assert_eq!(decide(&[], b"b"), SUCCESS);
        assert_eq!(decide(&[0x12, 5, 0], b"b"), ERROR);
    }
}
