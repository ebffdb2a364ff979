//! Bounds-checked access to a guest's linear memory.
//!
//! A guest pointer is an `i32` read as unsigned (wasm32 addresses are
//! unsigned); a range is valid when it ends at or before the memory's current
//! size. Nothing here indexes memory without [`range`] first: a range that
//! overflows or leaves the memory is an [`OutOfBounds`] naming the function
//! that was called, and nothing is read or written.

use std::fmt;
use std::ops::Range;

use wasmtime::{Caller, Extern};

use crate::preview1::{Fault, WasiView};

/// A guest's `(ptr, len)` that does not lie inside its memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The host function the guest called.
    pub function: &'static str,
    pub ptr: u32,
    pub len: u64,
    /// The memory's size when the call was made.
    pub memory_size: usize,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} bytes at {:#x} out of bounds of guest memory ({} bytes)",
            self.function, self.len, self.ptr, self.memory_size
        )
    }
}

impl std::error::Error for OutOfBounds {}

/// The host range of `len` bytes at guest address `ptr`.
pub fn range(
    data_len: usize,
    function: &'static str,
    ptr: i32,
    len: u64,
) -> Result<Range<usize>, OutOfBounds> {
    let start = ptr as u32;
    match u64::from(start).checked_add(len) {
        Some(end) if end <= data_len as u64 => Ok(start as usize..end as usize),
        _ => Err(OutOfBounds {
            function,
            ptr: start,
            len,
            memory_size: data_len,
        }),
    }
}

/// The `len` bytes at `ptr`.
pub fn read<'m>(
    data: &'m [u8],
    function: &'static str,
    ptr: i32,
    len: u32,
) -> Result<&'m [u8], OutOfBounds> {
    let r = range(data.len(), function, ptr, u64::from(len))?;
    Ok(&data[r])
}

/// Writes `bytes` at `ptr`, all or nothing.
pub fn write(
    data: &mut [u8],
    function: &'static str,
    ptr: i32,
    bytes: &[u8],
) -> Result<(), OutOfBounds> {
    let r = range(data.len(), function, ptr, bytes.len() as u64)?;
    data[r].copy_from_slice(bytes);
    Ok(())
}

/// The little-endian `u32` at `ptr`.
pub fn read_u32(data: &[u8], function: &'static str, ptr: i32) -> Result<u32, OutOfBounds> {
    let bytes = read(data, function, ptr, 4)?;
    Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// Writes `v` little-endian at `ptr`.
pub fn write_u32(
    data: &mut [u8],
    function: &'static str,
    ptr: i32,
    v: u32,
) -> Result<(), OutOfBounds> {
    write(data, function, ptr, &v.to_le_bytes())
}

/// Writes `v` little-endian at `ptr`.
pub fn write_u64(
    data: &mut [u8],
    function: &'static str,
    ptr: i32,
    v: u64,
) -> Result<(), OutOfBounds> {
    write(data, function, ptr, &v.to_le_bytes())
}

/// The `(ptr, len)` pairs of a WASI iovec array of `count` entries at
/// `iovs`. The table itself is checked; each buffer is checked when used.
pub fn iovecs(
    data: &[u8],
    function: &'static str,
    iovs: i32,
    count: i32,
) -> Result<Vec<(i32, u32)>, OutOfBounds> {
    let table = range(data.len(), function, iovs, u64::from(count as u32) * 8)?;
    Ok(data[table]
        .chunks_exact(8)
        .map(|e| {
            let ptr = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            let len = u32::from_le_bytes([e[4], e[5], e[6], e[7]]);
            (ptr as i32, len)
        })
        .collect())
}

/// The caller's memory and store data. The memory is the one the host put
/// in [`Wasi::memory`](crate::Wasi::memory), else the module's `memory`
/// export (remembered for the next call); a module without one cannot be
/// served: [`Fault::NoMemory`].
pub fn guest_memory<'a, T: WasiView>(
    caller: &'a mut Caller<'_, T>,
    function: &'static str,
) -> Result<(&'a mut [u8], &'a mut T), Fault> {
    let memory = match caller.data().wasi().memory {
        Some(m) => m,
        None => match caller.get_export("memory") {
            Some(Extern::Memory(m)) => {
                caller.data_mut().wasi_mut().memory = Some(m);
                m
            }
            _ => return Err(Fault::NoMemory { function }),
        },
    };
    Ok(memory.data_and_store_mut(caller))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_rejects_overflow_and_out_of_bounds() {
        assert_eq!(range(100, "t", 90, 10), Ok(90..100));
        assert!(range(100, "t", 90, 11).is_err());
        // A negative pointer is a high address.
        assert!(range(100, "t", -1, 2).is_err());
        assert!(range(100, "t", 0, u64::from(u32::MAX)).is_err());
        assert!(range(100, "t", -1, u64::MAX).is_err());
        assert_eq!(range(100, "t", 100, 0), Ok(100..100));
        assert!(range(100, "t", 101, 0).is_err());
        let err = range(16, "fd_write", 12, 8).unwrap_err();
        assert_eq!(
            err.to_string(),
            "fd_write: 8 bytes at 0xc out of bounds of guest memory (16 bytes)"
        );
    }

    #[test]
    fn writes_are_all_or_nothing() {
        let mut mem = [0u8; 8];
        assert!(write(&mut mem, "t", 6, b"abc").is_err());
        assert_eq!(mem, [0; 8]);
        write(&mut mem, "t", 5, b"abc").unwrap();
        assert_eq!(&mem[5..], b"abc");
        write_u32(&mut mem, "t", 0, 0x0403_0201).unwrap();
        assert_eq!(read_u32(&mem, "t", 0), Ok(0x0403_0201));
        assert!(read_u32(&mem, "t", 5).is_err());
        assert!(write_u64(&mut mem, "t", 1, 7).is_err());
    }

    #[test]
    fn iovecs_checks_the_table() {
        let mut mem = [0u8; 24];
        mem[0..4].copy_from_slice(&16u32.to_le_bytes());
        mem[4..8].copy_from_slice(&8u32.to_le_bytes());
        mem[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        mem[12..16].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(iovecs(&mem, "t", 0, 2), Ok(vec![(16, 8), (-1, 1)]));
        assert!(iovecs(&mem, "t", 0, 4).is_err());
        assert!(iovecs(&mem, "t", 0, -1).is_err());
    }
}
