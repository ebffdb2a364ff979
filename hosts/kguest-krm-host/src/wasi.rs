//! The WASI preview1 a KRM function gets: argv `["krm"]`, no environment,
//! standard input from a buffer, standard output captured (up to a limit),
//! standard error passed through (up to a limit), clocks, random bytes,
//! `poll_oneoff` on those, `sched_yield`, `proc_exit`. No preopened
//! directories and no sockets: every other preview1 function the module
//! imports returns `ENOSYS` (`fd_prestat_get` says `EBADF`, so runtimes
//! see no preopens and stop looking).
//!
//! Every guest pointer is checked against the memory size before use; a
//! bad one traps the call with [`Fault::OutOfBounds`].

use std::io::Write;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use wasmtime::{Caller, Extern, Linker, Memory, Module, ResourceLimiter, Val, ValType};

pub(crate) const MODULE: &str = "wasi_snapshot_preview1";

/// Every function of WASI preview1 (`wasi_snapshot_preview1.witx`): an
/// import outside this list is refused before the function runs, naming
/// the call.
pub(crate) const PREVIEW1: [&str; 46] = [
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

/// Why the host stopped a call (carried as the trap's error).
#[derive(Debug)]
pub(crate) enum Fault {
    Exit(i32),
    OutOfBounds { function: &'static str },
    OutputLimit(usize),
    MemoryLimit { requested: usize, limit: usize },
    Unsupported(String),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Exit(code) => write!(f, "proc_exit({code})"),
            Fault::OutOfBounds { function } => write!(f, "{function}: pointer out of bounds"),
            Fault::OutputLimit(limit) => write!(f, "standard output over {limit} bytes"),
            Fault::MemoryLimit { requested, limit } => {
                write!(f, "memory of {requested} bytes requested, limit {limit}")
            }
            Fault::Unsupported(name) => write!(f, "{name}"),
        }
    }
}

impl std::error::Error for Fault {}

type Res<T> = wasmtime::Result<T>;

/// Per-run state of the store.
pub(crate) struct State {
    pub memory: Option<Memory>,
    pub stdin: Vec<u8>,
    pub stdin_pos: usize,
    pub stdout: Vec<u8>,
    pub stdout_limit: usize,
    pub stderr: Box<dyn Write + Send>,
    pub stderr_left: usize,
    pub memory_limit: usize,
    /// When the epoch deadline will fire (sleeps in `poll_oneoff` end by then).
    pub deadline: Instant,
    rng: u64,
}

impl State {
    pub fn new(
        stdin: Vec<u8>,
        stdout_limit: usize,
        stderr: Box<dyn Write + Send>,
        stderr_limit: usize,
        memory_limit: usize,
        deadline: Instant,
    ) -> State {
        use std::hash::{BuildHasher, RandomState};
        State {
            memory: None,
            stdin,
            stdin_pos: 0,
            stdout: Vec::new(),
            stdout_limit,
            stderr,
            stderr_left: stderr_limit,
            memory_limit,
            deadline,
            rng: RandomState::new().hash_one(0x6b72_6d5f_7761_7369u64) | 1,
        }
    }

    fn random(&mut self) -> u64 {
        // splitmix64 seeded from the OS (RandomState): not cryptographic,
        // which nothing a KRM function does needs.
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl ResourceLimiter for State {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> Res<bool> {
        if desired > self.memory_limit {
            return Err(Fault::MemoryLimit {
                requested: desired,
                limit: self.memory_limit,
            }
            .into());
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> Res<bool> {
        Ok(desired <= 1 << 20)
    }
}

// ---------------------------------------------------------------------------
// Guest memory.

fn memory<'a>(
    caller: &'a mut Caller<'_, State>,
    function: &'static str,
) -> Res<(&'a mut [u8], &'a mut State)> {
    let memory = match caller.data().memory {
        Some(m) => m,
        None => match caller.get_export("memory") {
            Some(Extern::Memory(m)) => {
                caller.data_mut().memory = Some(m);
                m
            }
            _ => return Err(Fault::OutOfBounds { function }.into()),
        },
    };
    Ok(memory.data_and_store_mut(caller))
}

fn range(data: &[u8], function: &'static str, ptr: i32, len: u64) -> Res<std::ops::Range<usize>> {
    let start = u64::from(ptr as u32);
    match start.checked_add(len) {
        Some(end) if end <= data.len() as u64 => Ok(start as usize..end as usize),
        _ => Err(Fault::OutOfBounds { function }.into()),
    }
}

fn put(data: &mut [u8], function: &'static str, ptr: i32, bytes: &[u8]) -> Res<()> {
    let r = range(data, function, ptr, bytes.len() as u64)?;
    data[r].copy_from_slice(bytes);
    Ok(())
}

fn get_u32(data: &[u8], function: &'static str, ptr: u64) -> Res<u32> {
    let r = range(data, function, ptr as i32, 4)?;
    let mut b = [0u8; 4];
    b.copy_from_slice(&data[r]);
    Ok(u32::from_le_bytes(b))
}

/// The `(ptr, len)` pairs of an iovec array.
fn iovecs(data: &[u8], function: &'static str, iovs: i32, count: i32) -> Res<Vec<(u32, u32)>> {
    let table = range(data, function, iovs, u64::from(count as u32) * 8)?;
    let mut out = Vec::with_capacity(count as u32 as usize);
    for at in (table.start..table.end).step_by(8) {
        let ptr = get_u32(data, function, at as u64)?;
        let len = get_u32(data, function, at as u64 + 4)?;
        out.push((ptr, len));
    }
    Ok(out)
}

fn is_stdio(fd: i32) -> bool {
    (0..=2).contains(&fd)
}

// ---------------------------------------------------------------------------
// The functions.

/// Defines every preview1 function `module` imports.
pub(crate) fn define(linker: &mut Linker<State>, module: &Module) -> Res<()> {
    let mut done = std::collections::HashSet::new();
    for import in module.imports() {
        if import.module() != MODULE || !done.insert(import.name().to_string()) {
            continue;
        }
        define_one(linker, import.name(), import.ty().func().cloned())?;
    }
    Ok(())
}

fn define_one(linker: &mut Linker<State>, name: &str, ty: Option<wasmtime::FuncType>) -> Res<()> {
    match name {
        "args_sizes_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, argc: i32, size: i32| -> Res<i32> {
                let (data, _) = memory(&mut c, "args_sizes_get")?;
                put(data, "args_sizes_get", argc, &1u32.to_le_bytes())?;
                put(data, "args_sizes_get", size, &4u32.to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "args_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, argv: i32, buf: i32| -> Res<i32> {
                let (data, _) = memory(&mut c, "args_get")?;
                put(data, "args_get", buf, b"krm\0")?;
                put(data, "args_get", argv, &(buf as u32).to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "environ_sizes_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, count: i32, size: i32| -> Res<i32> {
                let (data, _) = memory(&mut c, "environ_sizes_get")?;
                put(data, "environ_sizes_get", count, &0u32.to_le_bytes())?;
                put(data, "environ_sizes_get", size, &0u32.to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "environ_get" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, _env: i32, _buf: i32| -> i32 { SUCCESS },
        )?,
        "fd_read" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, fd: i32, iovs: i32, count: i32, nread: i32| -> Res<i32> {
                const F: &str = "fd_read";
                let (data, state) = memory(&mut c, F)?;
                if fd != 0 {
                    return Ok(EBADF);
                }
                let mut total = 0usize;
                for (ptr, len) in iovecs(data, F, iovs, count)? {
                    let dst = range(data, F, ptr as i32, u64::from(len))?;
                    let rest = &state.stdin[state.stdin_pos..];
                    let n = rest.len().min(dst.len());
                    data[dst.start..dst.start + n].copy_from_slice(&rest[..n]);
                    state.stdin_pos += n;
                    total += n;
                    if n < dst.len() {
                        break;
                    }
                }
                put(data, F, nread, &(total as u32).to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "fd_write" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, fd: i32, iovs: i32, count: i32, nwritten: i32| -> Res<i32> {
                const F: &str = "fd_write";
                let (data, state) = memory(&mut c, F)?;
                if fd != 1 && fd != 2 {
                    return Ok(EBADF);
                }
                let mut total = 0u64;
                for (ptr, len) in iovecs(data, F, iovs, count)? {
                    let src = range(data, F, ptr as i32, u64::from(len))?;
                    let bytes = &data[src];
                    if fd == 1 {
                        if state.stdout.len() + bytes.len() > state.stdout_limit {
                            return Err(Fault::OutputLimit(state.stdout_limit).into());
                        }
                        state.stdout.extend_from_slice(bytes);
                    } else {
                        let n = bytes.len().min(state.stderr_left);
                        // Standard error is best effort: a closed pipe does not fail the function.
                        let _ = state.stderr.write_all(&bytes[..n]);
                        state.stderr_left -= n;
                    }
                    total += u64::from(len);
                }
                put(data, F, nwritten, &(total as u32).to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "fd_close" => linker.func_wrap(MODULE, name, |_c: Caller<'_, State>, fd: i32| -> i32 {
            if is_stdio(fd) { SUCCESS } else { EBADF }
        })?,
        "fd_fdstat_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, fd: i32, out: i32| -> Res<i32> {
                const F: &str = "fd_fdstat_get";
                let (data, _) = memory(&mut c, F)?;
                if !is_stdio(fd) {
                    return Ok(EBADF);
                }
                let rights = RIGHT_POLL_FD_READWRITE
                    | if fd == 0 {
                        RIGHT_FD_READ
                    } else {
                        RIGHT_FD_WRITE
                    };
                let mut stat = [0u8; 24];
                stat[0] = FILETYPE_CHARACTER_DEVICE;
                stat[8..16].copy_from_slice(&rights.to_le_bytes());
                put(data, F, out, &stat)?;
                Ok(SUCCESS)
            },
        )?,
        "fd_fdstat_set_flags" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, fd: i32, _flags: i32| -> i32 {
                if is_stdio(fd) { SUCCESS } else { EBADF }
            },
        )?,
        "fd_filestat_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, fd: i32, out: i32| -> Res<i32> {
                const F: &str = "fd_filestat_get";
                let (data, _) = memory(&mut c, F)?;
                if !is_stdio(fd) {
                    return Ok(EBADF);
                }
                let mut stat = [0u8; 64];
                stat[16] = FILETYPE_CHARACTER_DEVICE;
                put(data, F, out, &stat)?;
                Ok(SUCCESS)
            },
        )?,
        "fd_prestat_get" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, _fd: i32, _out: i32| -> i32 { EBADF },
        )?,
        "fd_prestat_dir_name" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, _fd: i32, _p: i32, _l: i32| -> i32 { EBADF },
        )?,
        "fd_seek" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, fd: i32, _off: i64, _whence: i32, _out: i32| -> i32 {
                if is_stdio(fd) { ESPIPE } else { EBADF }
            },
        )?,
        "fd_tell" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, fd: i32, _out: i32| -> i32 {
                if is_stdio(fd) { ESPIPE } else { EBADF }
            },
        )?,
        "clock_time_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, id: i32, _precision: i64, out: i32| -> Res<i32> {
                const F: &str = "clock_time_get";
                let (data, _) = memory(&mut c, F)?;
                let nanos = match id {
                    0 => SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos() as u64),
                    1 => monotonic_base().elapsed().as_nanos() as u64,
                    _ => return Ok(EINVAL),
                };
                put(data, F, out, &nanos.to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "clock_res_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, id: i32, out: i32| -> Res<i32> {
                const F: &str = "clock_res_get";
                let (data, _) = memory(&mut c, F)?;
                if !(0..=1).contains(&id) {
                    return Ok(EINVAL);
                }
                put(data, F, out, &1000u64.to_le_bytes())?;
                Ok(SUCCESS)
            },
        )?,
        "random_get" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>, buf: i32, len: i32| -> Res<i32> {
                const F: &str = "random_get";
                let (data, state) = memory(&mut c, F)?;
                let r = range(data, F, buf, u64::from(len as u32))?;
                for chunk in data[r].chunks_mut(8) {
                    let v = state.random().to_le_bytes();
                    chunk.copy_from_slice(&v[..chunk.len()]);
                }
                Ok(SUCCESS)
            },
        )?,
        "poll_oneoff" => linker.func_wrap(
            MODULE,
            name,
            |mut c: Caller<'_, State>,
             subs: i32,
             events: i32,
             count: i32,
             nevents: i32|
             -> Res<i32> { poll_oneoff(&mut c, subs, events, count, nevents) },
        )?,
        "sched_yield" => {
            linker.func_wrap(MODULE, name, |_c: Caller<'_, State>| -> i32 { SUCCESS })?
        }
        "proc_exit" => linker.func_wrap(
            MODULE,
            name,
            |_c: Caller<'_, State>, code: i32| -> Res<()> { Err(Fault::Exit(code).into()) },
        )?,
        _ => {
            // Files, sockets, `proc_raise`, ...: ENOSYS when the signature
            // returns an errno; otherwise calling it stops the function.
            let Some(ty) = ty else {
                return Ok(());
            };
            let errno = matches!(ty.results().collect::<Vec<_>>().as_slice(), [ValType::I32]);
            let label =
                format!("the function called WASI `{name}`, which kguest krm does not offer");
            linker.func_new(MODULE, name, ty, move |_c, _params, results| {
                if errno && let Some(r) = results.first_mut() {
                    *r = Val::I32(ENOSYS);
                    return Ok(());
                }
                Err(Fault::Unsupported(label.clone()).into())
            })?
        }
    };
    Ok(())
}

/// Subscriptions on the clocks and on stdin/stdout/stderr: ready at once
/// (clock subscriptions sleep first, but never past the deadline).
fn poll_oneoff(
    c: &mut Caller<'_, State>,
    subs: i32,
    events: i32,
    count: i32,
    nevents: i32,
) -> Res<i32> {
    const F: &str = "poll_oneoff";
    if count <= 0 {
        return Ok(EINVAL);
    }
    let (data, state) = memory(c, F)?;
    let subs = range(data, F, subs, u64::from(count as u32) * 48)?;
    let out = range(data, F, events, u64::from(count as u32) * 32)?;
    let mut sleep = None::<u64>;
    let mut written = 0u32;
    let mut events_buf = Vec::with_capacity(count as usize * 32);
    for k in 0..count as usize {
        let s = &data[subs.start + k * 48..subs.start + (k + 1) * 48];
        let userdata = &s[0..8];
        let tag = s[8];
        let mut ev = [0u8; 32];
        ev[0..8].copy_from_slice(userdata);
        ev[10] = tag;
        match tag {
            0 => {
                let timeout = u64::from_le_bytes(s[24..32].try_into().unwrap_or([0; 8]));
                let absolute = u16::from_le_bytes([s[40], s[41]]) & 1 == 1;
                let now = monotonic_base().elapsed().as_nanos() as u64;
                let wait = if absolute {
                    timeout.saturating_sub(now)
                } else {
                    timeout
                };
                sleep = Some(sleep.map_or(wait, |w| w.min(wait)));
            }
            1 | 2 => {
                let fd = u32::from_le_bytes(s[16..20].try_into().unwrap_or([0; 4])) as i32;
                let ready = (tag == 1 && fd == 0) || (tag == 2 && (fd == 1 || fd == 2));
                if ready {
                    let n = if tag == 1 {
                        state.stdin.len() - state.stdin_pos
                    } else {
                        65536
                    };
                    ev[16..24].copy_from_slice(&(n as u64).to_le_bytes());
                } else {
                    ev[8..10].copy_from_slice(&(EBADF as u16).to_le_bytes());
                }
                sleep = Some(0);
            }
            _ => ev[8..10].copy_from_slice(&(EINVAL as u16).to_le_bytes()),
        }
        events_buf.extend_from_slice(&ev);
        written += 1;
    }
    if let Some(ns) = sleep.filter(|&ns| ns > 0) {
        let left = state.deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(std::time::Duration::from_nanos(ns).min(left));
    }
    data[out.start..out.start + events_buf.len()].copy_from_slice(&events_buf);
    put(data, F, nevents, &written.to_le_bytes())?;
    Ok(SUCCESS)
}

fn monotonic_base() -> Instant {
    static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *BASE.get_or_init(Instant::now)
}
