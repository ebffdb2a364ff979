//! WASI preview1, as much of it as a sandboxed guest needs: arguments, no
//! environment, standard input from a buffer, standard output and error
//! into [`Sink`]s, the realtime and monotonic clocks, random bytes,
//! `poll_oneoff` on clocks and standard streams, `sched_yield`,
//! `proc_exit`. There are no preopened directories (`fd_prestat_get` says
//! `EBADF`, so runtimes stop looking) and no sockets: any other function
//! answers `ENOSYS` when its signature returns an errno, and otherwise stops
//! the guest with [`Fault::Unsupported`].
//!
//! Every pointer goes through [`crate::memory`]; faults trap the call.

use std::fmt;
use std::io::Write;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use wasmtime::{Caller, FuncType, Linker, Memory, Module, Val, ValType};

use crate::memory::{self, OutOfBounds, guest_memory, range};

/// The import module of every preview1 function.
pub const MODULE: &str = kguest_abi::MODULE_WASI;

/// Every function of WASI preview1 (`wasi_snapshot_preview1.witx`).
pub const FUNCTIONS: [&str; 46] = [
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "clock_res_get",
    "clock_time_get",
    "fd_advise",
    "fd_allocate",
    "fd_close",
    "fd_datasync",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_fdstat_set_rights",
    "fd_filestat_get",
    "fd_filestat_set_size",
    "fd_filestat_set_times",
    "fd_pread",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "fd_pwrite",
    "fd_read",
    "fd_readdir",
    "fd_renumber",
    "fd_seek",
    "fd_sync",
    "fd_tell",
    "fd_write",
    "path_create_directory",
    "path_filestat_get",
    "path_filestat_set_times",
    "path_link",
    "path_open",
    "path_readlink",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
    "poll_oneoff",
    "proc_exit",
    "proc_raise",
    "sched_yield",
    "random_get",
    "sock_accept",
    "sock_recv",
    "sock_send",
    "sock_shutdown",
];

const SUCCESS: i32 = 0;
const EBADF: i32 = 8;
const EINVAL: i32 = 28;
const ENOSYS: i32 = 52;
const ESPIPE: i32 = 70;
const FILETYPE_CHARACTER_DEVICE: u8 = 2;
const RIGHT_FD_READ: u64 = 1 << 1;
const RIGHT_FD_WRITE: u64 = 1 << 6;
const RIGHT_POLL_FD_READWRITE: u64 = 1 << 27;
/// Bytes `poll_oneoff` reports writable on standard output and error.
const WRITABLE: u64 = 64 << 10;
/// Resolution reported for both clocks.
const CLOCK_RESOLUTION_NS: u64 = 1000;

/// Why a WASI call stopped the guest (the trap's error).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// `proc_exit(code)`.
    Exit(i32),
    /// A pointer outside guest memory.
    OutOfBounds(OutOfBounds),
    /// The module has no memory to serve the call from.
    NoMemory { function: &'static str },
    /// Standard output went past its limit (a [`Sink`] with [`Overflow::Trap`]).
    OutputLimit(usize),
    /// A call the host does not offer and cannot answer with an errno.
    Unsupported(String),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Exit(code) => write!(f, "proc_exit({code})"),
            Fault::OutOfBounds(err) => err.fmt(f),
            Fault::NoMemory { function } => {
                write!(
                    f,
                    "{function}: the module exports no memory to serve it from"
                )
            }
            Fault::OutputLimit(limit) => write!(f, "standard output over {limit} bytes"),
            Fault::Unsupported(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Fault {}

impl From<OutOfBounds> for Fault {
    fn from(err: OutOfBounds) -> Fault {
        Fault::OutOfBounds(err)
    }
}

/// The guest's arguments, packed as `args_get` serves them (each entry
/// NUL-terminated, back to back). Cloning is cheap.
#[derive(Debug, Clone, Default)]
pub struct Args {
    packed: Arc<[u8]>,
    count: u32,
}

impl Args {
    /// `None` when an argument contains a NUL byte (it cannot be passed).
    pub fn new<S: AsRef<str>>(args: &[S]) -> Option<Args> {
        let mut packed = Vec::new();
        for arg in args {
            let arg = arg.as_ref().as_bytes();
            if arg.contains(&0) {
                return None;
            }
            packed.extend_from_slice(arg);
            packed.push(0);
        }
        Some(Args {
            packed: packed.into(),
            count: u32::try_from(args.len()).ok()?,
        })
    }

    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// What happens to bytes written past a capture's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// Keep the first `limit` bytes; the guest is told everything was written.
    Truncate,
    /// Stop the guest with [`Fault::OutputLimit`].
    Trap,
}

/// Where a standard stream's bytes go.
pub enum Sink {
    /// Nowhere (the guest is told they were written).
    Discard,
    /// Into memory, up to `limit` bytes.
    Capture {
        bytes: Vec<u8>,
        limit: usize,
        overflow: Overflow,
    },
    /// To a writer, up to `left` more bytes; write errors are ignored (a
    /// closed pipe does not fail the guest).
    Stream {
        writer: Box<dyn Write + Send>,
        left: usize,
    },
    /// Standard error only: into standard output's sink, interleaved.
    Stdout,
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sink::Discard => f.write_str("Discard"),
            Sink::Capture {
                bytes,
                limit,
                overflow,
            } => write!(f, "Capture({} of {limit} bytes, {overflow:?})", bytes.len()),
            Sink::Stream { left, .. } => write!(f, "Stream({left} bytes left)"),
            Sink::Stdout => f.write_str("Stdout"),
        }
    }
}

impl Sink {
    /// A capture of at most `limit` bytes.
    pub fn capture(limit: usize, overflow: Overflow) -> Sink {
        Sink::Capture {
            bytes: Vec::new(),
            limit,
            overflow,
        }
    }

    /// Takes what a capture holds (empty for other sinks).
    pub fn take(&mut self) -> Vec<u8> {
        match self {
            Sink::Capture { bytes, .. } => std::mem::take(bytes),
            _ => Vec::new(),
        }
    }

    /// Empties a capture, keeping its buffer.
    pub fn clear(&mut self) {
        if let Sink::Capture { bytes, .. } = self {
            bytes.clear();
        }
    }

    fn write(&mut self, data: &[u8]) -> Result<(), Fault> {
        match self {
            Sink::Discard | Sink::Stdout => Ok(()),
            Sink::Capture {
                bytes,
                limit,
                overflow,
            } => {
                let room = limit.saturating_sub(bytes.len());
                if data.len() > room && *overflow == Overflow::Trap {
                    return Err(Fault::OutputLimit(*limit));
                }
                bytes.extend_from_slice(&data[..data.len().min(room)]);
                Ok(())
            }
            Sink::Stream { writer, left } => {
                let n = data.len().min(*left);
                let _ = writer.write_all(&data[..n]);
                *left -= n;
                Ok(())
            }
        }
    }
}

/// The WASI state of one store.
#[derive(Debug)]
pub struct Wasi {
    /// The guest's memory: set by the host after instantiation, or found
    /// through the `memory` export on the first call.
    pub memory: Option<Memory>,
    args: Args,
    stdin: Vec<u8>,
    stdin_read: usize,
    pub stdout: Sink,
    pub stderr: Sink,
    /// Sleeps in `poll_oneoff` end by then (the call's deadline).
    deadline: Option<Instant>,
    rng: u64,
}

impl Default for Wasi {
    fn default() -> Wasi {
        Wasi::new()
    }
}

impl Wasi {
    /// No arguments, empty standard input, output discarded.
    pub fn new() -> Wasi {
        use std::hash::{BuildHasher, RandomState};
        Wasi {
            memory: None,
            args: Args::default(),
            stdin: Vec::new(),
            stdin_read: 0,
            stdout: Sink::Discard,
            stderr: Sink::Discard,
            deadline: None,
            rng: RandomState::new().hash_one(0x6b67_7565_7374u64) | 1,
        }
    }

    pub fn args(mut self, args: Args) -> Wasi {
        self.args = args;
        self
    }

    pub fn stdin(mut self, bytes: Vec<u8>) -> Wasi {
        self.stdin = bytes;
        self.stdin_read = 0;
        self
    }

    pub fn stdout(mut self, sink: Sink) -> Wasi {
        self.stdout = sink;
        self
    }

    pub fn stderr(mut self, sink: Sink) -> Wasi {
        self.stderr = sink;
        self
    }

    pub fn deadline(mut self, at: Instant) -> Wasi {
        self.deadline = Some(at);
        self
    }

    fn random(&mut self) -> u64 {
        // splitmix64 seeded from the OS (RandomState): not cryptographic;
        // guests use random bytes for hash seeds.
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn write_fd(&mut self, fd: i32, data: &[u8]) -> Result<(), Fault> {
        match (fd, &mut self.stderr) {
            (1, _) | (2, Sink::Stdout) => self.stdout.write(data),
            (_, stderr) => stderr.write(data),
        }
    }
}

/// Store data that holds a [`Wasi`].
pub trait WasiView {
    fn wasi(&self) -> &Wasi;
    fn wasi_mut(&mut self) -> &mut Wasi;
}

impl WasiView for Wasi {
    fn wasi(&self) -> &Wasi {
        self
    }
    fn wasi_mut(&mut self) -> &mut Wasi {
        self
    }
}

type Res<T> = wasmtime::Result<T>;

/// Defines every preview1 function `module` imports; `host` names the host
/// in [`Fault::Unsupported`]'s message. Imports from other modules are left
/// to the caller.
pub fn define_imports<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    module: &Module,
    host: &'static str,
) -> Res<()> {
    let mut done = std::collections::HashSet::new();
    for import in module.imports() {
        if import.module() != MODULE || !done.insert(import.name()) {
            continue;
        }
        define(linker, import.name(), import.ty().func(), host)?;
    }
    Ok(())
}

fn is_stdio(fd: i32) -> bool {
    (0..=2).contains(&fd)
}

fn errno_if_stdio(fd: i32, errno: i32) -> i32 {
    if is_stdio(fd) { errno } else { EBADF }
}

/// Defines one preview1 function. `ty` (the import's type) is needed only
/// for the functions without an implementation here, which answer `ENOSYS`
/// or stop the guest; without it they are an error.
pub fn define<T: WasiView + 'static>(
    linker: &mut Linker<T>,
    name: &str,
    ty: Option<&FuncType>,
    host: &'static str,
) -> Res<()> {
    // Each function body returns `Result<_, Fault>`; `lift` hands the fault
    // to wasmtime as the trap's error, so hosts find it by downcasting.
    fn lift<R>(r: Result<R, Fault>) -> Res<R> {
        r.map_err(wasmtime::Error::new)
    }
    type C<'a, T> = Caller<'a, T>;
    match name {
        "args_sizes_get" => linker.func_wrap(
            MODULE,
            "args_sizes_get",
            |mut c: C<'_, T>, n: i32, size: i32| lift(args_sizes_get(&mut c, n, size)),
        )?,
        "args_get" => linker.func_wrap(
            MODULE,
            "args_get",
            |mut c: C<'_, T>, ptrs: i32, buf: i32| lift(args_get(&mut c, ptrs, buf)),
        )?,
        "environ_sizes_get" => linker.func_wrap(
            MODULE,
            "environ_sizes_get",
            |mut c: C<'_, T>, n: i32, size: i32| lift(environ_sizes_get(&mut c, n, size)),
        )?,
        // With no environment there is nothing to write.
        "environ_get" => linker.func_wrap(
            MODULE,
            "environ_get",
            |_c: C<'_, T>, _ptrs: i32, _buf: i32| SUCCESS,
        )?,
        "fd_read" => linker.func_wrap(
            MODULE,
            "fd_read",
            |mut c: C<'_, T>, fd: i32, iovs: i32, n: i32, nread: i32| {
                lift(fd_read(&mut c, fd, iovs, n, nread))
            },
        )?,
        "fd_write" => linker.func_wrap(
            MODULE,
            "fd_write",
            |mut c: C<'_, T>, fd: i32, iovs: i32, n: i32, nwritten: i32| {
                lift(fd_write(&mut c, fd, iovs, n, nwritten))
            },
        )?,
        "fd_close" => linker.func_wrap(MODULE, "fd_close", |_c: C<'_, T>, fd: i32| {
            errno_if_stdio(fd, SUCCESS)
        })?,
        "fd_fdstat_get" => linker.func_wrap(
            MODULE,
            "fd_fdstat_get",
            |mut c: C<'_, T>, fd: i32, out: i32| lift(fd_fdstat_get(&mut c, fd, out)),
        )?,
        "fd_fdstat_set_flags" => linker.func_wrap(
            MODULE,
            "fd_fdstat_set_flags",
            |_c: C<'_, T>, fd: i32, _flags: i32| errno_if_stdio(fd, SUCCESS),
        )?,
        "fd_filestat_get" => linker.func_wrap(
            MODULE,
            "fd_filestat_get",
            |mut c: C<'_, T>, fd: i32, out: i32| lift(fd_filestat_get(&mut c, fd, out)),
        )?,
        "fd_prestat_get" => linker.func_wrap(
            MODULE,
            "fd_prestat_get",
            |_c: C<'_, T>, _fd: i32, _out: i32| EBADF,
        )?,
        "fd_prestat_dir_name" => linker.func_wrap(
            MODULE,
            "fd_prestat_dir_name",
            |_c: C<'_, T>, _fd: i32, _path: i32, _len: i32| EBADF,
        )?,
        "fd_seek" => linker.func_wrap(
            MODULE,
            "fd_seek",
            |_c: C<'_, T>, fd: i32, _offset: i64, _whence: i32, _out: i32| {
                errno_if_stdio(fd, ESPIPE)
            },
        )?,
        "fd_tell" => linker.func_wrap(MODULE, "fd_tell", |_c: C<'_, T>, fd: i32, _out: i32| {
            errno_if_stdio(fd, ESPIPE)
        })?,
        "clock_time_get" => linker.func_wrap(
            MODULE,
            "clock_time_get",
            |mut c: C<'_, T>, id: i32, _precision: i64, out: i32| {
                lift(clock_time_get(&mut c, id, out))
            },
        )?,
        "clock_res_get" => linker.func_wrap(
            MODULE,
            "clock_res_get",
            |mut c: C<'_, T>, id: i32, out: i32| lift(clock_res_get(&mut c, id, out)),
        )?,
        "random_get" => linker.func_wrap(
            MODULE,
            "random_get",
            |mut c: C<'_, T>, buf: i32, len: i32| lift(random_get(&mut c, buf, len)),
        )?,
        "poll_oneoff" => linker.func_wrap(
            MODULE,
            "poll_oneoff",
            |mut c: C<'_, T>, subs: i32, events: i32, n: i32, nevents: i32| {
                lift(poll_oneoff(&mut c, subs, events, n, nevents))
            },
        )?,
        "sched_yield" => linker.func_wrap(MODULE, "sched_yield", |_c: C<'_, T>| SUCCESS)?,
        "proc_exit" => {
            linker.func_wrap(MODULE, "proc_exit", |_c: C<'_, T>, code: i32| -> Res<()> {
                lift(Err(Fault::Exit(code)))
            })?
        }
        _ => {
            let Some(ty) = ty else {
                return Err(wasmtime::Error::msg(format!(
                    "WASI preview1 `{name}` has no implementation here"
                )));
            };
            let errno = matches!(ty.results().collect::<Vec<_>>().as_slice(), [ValType::I32]);
            let what = format!("the guest called WASI `{name}`, which {host} does not offer");
            linker.func_new(MODULE, name, ty.clone(), move |_c, _params, results| {
                if errno && let Some(r) = results.first_mut() {
                    *r = Val::I32(ENOSYS);
                    return Ok(());
                }
                lift(Err(Fault::Unsupported(what.clone())))
            })?
        }
    };
    Ok(())
}

fn args_sizes_get<T: WasiView>(c: &mut Caller<'_, T>, count: i32, size: i32) -> Result<i32, Fault> {
    const F: &str = "args_sizes_get";
    let (data, state) = guest_memory(c, F)?;
    let args = &state.wasi().args;
    sizes(data, F, count, size, args.count, args.packed.len() as u32)
}

fn args_get<T: WasiView>(c: &mut Caller<'_, T>, ptrs: i32, buf: i32) -> Result<i32, Fault> {
    const F: &str = "args_get";
    let (data, state) = guest_memory(c, F)?;
    let args = &state.wasi().args;
    // Both ranges first, so that a bad pointer writes nothing.
    range(data.len(), F, ptrs, u64::from(args.count) * 4)?;
    range(data.len(), F, buf, args.packed.len() as u64)?;
    memory::write(data, F, buf, &args.packed)?;
    let mut at = buf as u32;
    for (i, arg) in args.packed.split_inclusive(|b| *b == 0).enumerate() {
        memory::write_u32(data, F, ptrs.wrapping_add(4 * i as i32), at)?;
        at = at.wrapping_add(arg.len() as u32);
    }
    Ok(SUCCESS)
}

fn environ_sizes_get<T: WasiView>(
    c: &mut Caller<'_, T>,
    count: i32,
    size: i32,
) -> Result<i32, Fault> {
    const F: &str = "environ_sizes_get";
    let (data, _) = guest_memory(c, F)?;
    sizes(data, F, count, size, 0, 0)
}

fn fd_read<T: WasiView>(
    c: &mut Caller<'_, T>,
    fd: i32,
    iovs: i32,
    count: i32,
    nread: i32,
) -> Result<i32, Fault> {
    const F: &str = "fd_read";
    let (data, state) = guest_memory(c, F)?;
    if fd != 0 {
        return Ok(EBADF);
    }
    let wasi = state.wasi_mut();
    let mut total = 0u32;
    for (ptr, len) in memory::iovecs(data, F, iovs, count)? {
        let dst = range(data.len(), F, ptr, u64::from(len))?;
        let rest = &wasi.stdin[wasi.stdin_read..];
        let n = rest.len().min(dst.len());
        data[dst.start..dst.start + n].copy_from_slice(&rest[..n]);
        wasi.stdin_read += n;
        total = total.saturating_add(n as u32);
        if n < dst.len() {
            break;
        }
    }
    memory::write_u32(data, F, nread, total)?;
    Ok(SUCCESS)
}

fn fd_write<T: WasiView>(
    c: &mut Caller<'_, T>,
    fd: i32,
    iovs: i32,
    count: i32,
    nwritten: i32,
) -> Result<i32, Fault> {
    const F: &str = "fd_write";
    let (data, state) = guest_memory(c, F)?;
    if fd != 1 && fd != 2 {
        return Ok(EBADF);
    }
    let wasi = state.wasi_mut();
    let mut total = 0u32;
    for (ptr, len) in memory::iovecs(data, F, iovs, count)? {
        wasi.write_fd(fd, memory::read(data, F, ptr, len)?)?;
        total = total.saturating_add(len);
    }
    memory::write_u32(data, F, nwritten, total)?;
    Ok(SUCCESS)
}

fn fd_fdstat_get<T: WasiView>(c: &mut Caller<'_, T>, fd: i32, out: i32) -> Result<i32, Fault> {
    const F: &str = "fd_fdstat_get";
    let (data, _) = guest_memory(c, F)?;
    if !is_stdio(fd) {
        return Ok(EBADF);
    }
    let direction = if fd == 0 {
        RIGHT_FD_READ
    } else {
        RIGHT_FD_WRITE
    };
    let mut stat = [0u8; 24];
    stat[0] = FILETYPE_CHARACTER_DEVICE;
    stat[8..16].copy_from_slice(&(RIGHT_POLL_FD_READWRITE | direction).to_le_bytes());
    memory::write(data, F, out, &stat)?;
    Ok(SUCCESS)
}

fn fd_filestat_get<T: WasiView>(c: &mut Caller<'_, T>, fd: i32, out: i32) -> Result<i32, Fault> {
    const F: &str = "fd_filestat_get";
    let (data, _) = guest_memory(c, F)?;
    if !is_stdio(fd) {
        return Ok(EBADF);
    }
    let mut stat = [0u8; 64];
    stat[16] = FILETYPE_CHARACTER_DEVICE;
    memory::write(data, F, out, &stat)?;
    Ok(SUCCESS)
}

fn clock_time_get<T: WasiView>(c: &mut Caller<'_, T>, id: i32, out: i32) -> Result<i32, Fault> {
    const F: &str = "clock_time_get";
    let (data, _) = guest_memory(c, F)?;
    let nanos = match id {
        0 => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        1 => monotonic_nanos(),
        _ => return Ok(EINVAL),
    };
    memory::write_u64(data, F, out, nanos)?;
    Ok(SUCCESS)
}

fn clock_res_get<T: WasiView>(c: &mut Caller<'_, T>, id: i32, out: i32) -> Result<i32, Fault> {
    const F: &str = "clock_res_get";
    let (data, _) = guest_memory(c, F)?;
    if !(0..=1).contains(&id) {
        return Ok(EINVAL);
    }
    memory::write_u64(data, F, out, CLOCK_RESOLUTION_NS)?;
    Ok(SUCCESS)
}

fn random_get<T: WasiView>(c: &mut Caller<'_, T>, buf: i32, len: i32) -> Result<i32, Fault> {
    const F: &str = "random_get";
    let (data, state) = guest_memory(c, F)?;
    let r = range(data.len(), F, buf, u64::from(len as u32))?;
    let wasi = state.wasi_mut();
    for chunk in data[r].chunks_mut(8) {
        let v = wasi.random().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    Ok(SUCCESS)
}

/// `*_sizes_get`: the entry count and the strings' total size, both or
/// neither written.
fn sizes(
    data: &mut [u8],
    function: &'static str,
    count_ptr: i32,
    size_ptr: i32,
    count: u32,
    size: u32,
) -> Result<i32, Fault> {
    range(data.len(), function, count_ptr, 4)?;
    range(data.len(), function, size_ptr, 4)?;
    memory::write_u32(data, function, count_ptr, count)?;
    memory::write_u32(data, function, size_ptr, size)?;
    Ok(SUCCESS)
}

/// Subscriptions on the clocks and on standard streams: the streams are
/// ready at once; clock subscriptions sleep first (the shortest of them),
/// never past the deadline.
fn poll_oneoff<T: WasiView>(
    c: &mut Caller<'_, T>,
    subs: i32,
    events: i32,
    count: i32,
    nevents: i32,
) -> Result<i32, Fault> {
    const F: &str = "poll_oneoff";
    const SUB: usize = 48;
    const EVENT: usize = 32;
    if count <= 0 {
        return Ok(EINVAL);
    }
    let (data, state) = guest_memory(c, F)?;
    let wasi = state.wasi();
    let n = count as u32 as u64;
    let subs = range(data.len(), F, subs, n * SUB as u64)?;
    let out = range(data.len(), F, events, n * EVENT as u64)?;
    range(data.len(), F, nevents, 4)?;
    let mut sleep = None::<u64>;
    let mut written = Vec::with_capacity(out.len());
    for s in data[subs].chunks_exact(SUB) {
        let tag = s[8];
        let mut ev = [0u8; EVENT];
        ev[0..8].copy_from_slice(&s[0..8]);
        ev[10] = tag;
        let le_u64 = |at: usize| u64::from_le_bytes(std::array::from_fn(|i| s[at + i]));
        match tag {
            0 => {
                let timeout = le_u64(24);
                let absolute = s[40] & 1 == 1;
                let wait = if absolute {
                    timeout.saturating_sub(monotonic_nanos())
                } else {
                    timeout
                };
                sleep = Some(sleep.map_or(wait, |w| w.min(wait)));
            }
            1 | 2 => {
                let fd = u32::from_le_bytes([s[16], s[17], s[18], s[19]]) as i32;
                let ready = (tag == 1 && fd == 0) || (tag == 2 && (fd == 1 || fd == 2));
                if ready {
                    let bytes = if tag == 1 {
                        (wasi.stdin.len() - wasi.stdin_read) as u64
                    } else {
                        WRITABLE
                    };
                    ev[16..24].copy_from_slice(&bytes.to_le_bytes());
                } else {
                    ev[8..10].copy_from_slice(&(EBADF as u16).to_le_bytes());
                }
                sleep = Some(0);
            }
            _ => ev[8..10].copy_from_slice(&(EINVAL as u16).to_le_bytes()),
        }
        written.extend_from_slice(&ev);
    }
    if let Some(ns) = sleep.filter(|&ns| ns > 0) {
        let mut wait = Duration::from_nanos(ns);
        if let Some(deadline) = wasi.deadline {
            wait = wait.min(deadline.saturating_duration_since(Instant::now()));
        }
        std::thread::sleep(wait);
    }
    data[out.start..out.start + written.len()].copy_from_slice(&written);
    memory::write_u32(data, F, nevents, count as u32)?;
    Ok(SUCCESS)
}

/// Nanoseconds on the monotonic clock, counted from its first reading in
/// this process.
fn monotonic_nanos() -> u64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    BASE.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_are_packed_with_nul_terminators() {
        let args = Args::new(&["krm", "--x=1"]).unwrap();
        assert_eq!(&*args.packed, b"krm\0--x=1\0");
        assert_eq!(args.len(), 2);
        assert!(Args::new(&["a\0b"]).is_none());
        assert!(Args::new::<&str>(&[]).unwrap().is_empty());
    }

    #[test]
    fn sinks_truncate_trap_and_share() {
        let mut wasi = Wasi::new()
            .stdout(Sink::capture(4, Overflow::Truncate))
            .stderr(Sink::Stdout);
        wasi.write_fd(1, b"ab").unwrap();
        wasi.write_fd(2, b"cdef").unwrap();
        assert_eq!(wasi.stdout.take(), b"abcd");
        let mut wasi = Wasi::new().stdout(Sink::capture(3, Overflow::Trap));
        wasi.write_fd(1, b"abc").unwrap();
        assert_eq!(wasi.write_fd(1, b"d"), Err(Fault::OutputLimit(3)));
        assert_eq!(wasi.stdout.take(), b"abc");
        // Standard error discarded by default.
        wasi.write_fd(2, b"zzz").unwrap();
        assert_eq!(wasi.stderr.take(), b"");
    }
}
