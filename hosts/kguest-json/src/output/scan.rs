//! Reading the protobuf wire format inside the writer's loops: the next
//! field and its value, inlined where it is hot.

use kguest_wire::rt;
use kguest_wire::wire::{MAX_FIELD_NUMBER, Value, read_varint};

/// Reads the next field from the front of `rest`, as `wire::next_field`
/// does (it rejects what that rejects), but inlined into the writer's
/// loops: this is the writer's innermost step.
#[inline(always)]
pub(super) fn next_field<'a>(rest: &mut &'a [u8]) -> Result<Option<(u32, Value<'a>)>, ()> {
    let bytes = *rest;
    if bytes.is_empty() {
        return Ok(None);
    }
    let mut pos = 0usize;
    let key = varint(bytes, &mut pos)?;
    let number = key >> 3;
    if number == 0 || number > u64::from(MAX_FIELD_NUMBER) {
        return Err(());
    }
    let value = match key & 7 {
        0 => Value::Varint(varint(bytes, &mut pos)?),
        1 => {
            let b = bytes.get(pos..pos + 8).ok_or(())?;
            pos += 8;
            Value::Fixed64(u64::from_le_bytes(b.try_into().map_err(|_| ())?))
        }
        2 => {
            let len = varint(bytes, &mut pos)?;
            let len = usize::try_from(len).map_err(|_| ())?;
            let end = pos.checked_add(len).ok_or(())?;
            let body = bytes.get(pos..end).ok_or(())?;
            pos = end;
            Value::Len(body)
        }
        5 => {
            let b = bytes.get(pos..pos + 4).ok_or(())?;
            pos += 4;
            Value::Fixed32(u32::from_le_bytes(b.try_into().map_err(|_| ())?))
        }
        _ => return Err(()),
    };
    *rest = bytes.get(pos..).unwrap_or(&[]);
    Ok(Some((number as u32, value)))
}

/// A varint at `*pos`: one byte inline, longer ones out of line.
#[inline(always)]
fn varint(bytes: &[u8], pos: &mut usize) -> Result<u64, ()> {
    match bytes.get(*pos) {
        Some(&b) if b < 0x80 => {
            *pos += 1;
            Ok(u64::from(b))
        }
        _ => varint_long(bytes, pos),
    }
}

#[inline(never)]
fn varint_long(bytes: &[u8], pos: &mut usize) -> Result<u64, ()> {
    let mut rest = bytes.get(*pos..).unwrap_or(&[]);
    let before = rest.len();
    let v = read_varint(&mut rest).map_err(|_| ())?;
    *pos += before - rest.len();
    Ok(v)
}

pub(super) fn last_value(bytes: &[u8], number: u32) -> Option<Value<'_>> {
    rt::last(bytes, number).and_then(|raw| raw.value())
}
