//! Running one WASI command module: compile, link the preview1 functions,
//! call `_start` under a deadline and a memory limit, collect stdout.

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use wasmtime::{Config, Engine, ExternType, Linker, Module, Store, Trap};

use kguest_wasi::preview1::{self, Args, define_imports};
use kguest_wasi::{Fault, Limiter, MemoryLimitExceeded, Overflow, Sink, Wasi, WasiView};

use crate::error::RunError;

/// The store's data: WASI and the memory limit.
struct State {
    wasi: Wasi,
    limiter: Limiter,
}

impl WasiView for State {
    fn wasi(&self) -> &Wasi {
        &self.wasi
    }
    fn wasi_mut(&mut self) -> &mut Wasi {
        &mut self.wasi
    }
}

/// What a run may use.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock time for instantiation and `_start`.
    pub timeout: Duration,
    /// Largest linear memory, in bytes.
    pub memory: usize,
    /// Most bytes the function may write to standard output.
    pub stdout: usize,
    /// Most bytes passed through from standard error (the rest is dropped).
    pub stderr: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            memory: 512 << 20,
            stdout: 256 << 20,
            stderr: 1 << 20,
        }
    }
}

/// A finished run.
#[derive(Debug)]
pub struct Outcome {
    /// 0 when `_start` returned, else the `proc_exit` code.
    pub exit_code: i32,
    pub stdout: Vec<u8>,
    /// Time spent compiling the module.
    pub compile: Duration,
    /// Time spent instantiating and running it.
    pub run: Duration,
}

/// Compiles and runs `wasm` with `stdin` as standard input; standard error
/// goes to `stderr`.
pub fn run(
    wasm: &[u8],
    stdin: Vec<u8>,
    limits: &Limits,
    stderr: Box<dyn Write + Send>,
) -> Result<Outcome, RunError> {
    let mut config = Config::new();
    config.epoch_interruption(true).max_wasm_stack(1 << 20);
    let engine = Engine::new(&config).map_err(|e| RunError::Internal(format!("{e:#}")))?;
    let start = Instant::now();
    let module =
        Module::new(&engine, wasm).map_err(|e| RunError::Compile(one_line(&format!("{e:#}"))))?;
    let compile = start.elapsed();
    for import in module.imports() {
        if import.module() != preview1::MODULE {
            return Err(RunError::Import {
                module: import.module().to_string(),
                name: import.name().to_string(),
            });
        }
        if !matches!(import.ty(), ExternType::Func(_))
            || !preview1::FUNCTIONS.contains(&import.name())
        {
            return Err(RunError::Import {
                module: import.module().to_string(),
                name: import.name().to_string(),
            });
        }
    }
    let has_start = module.exports().any(|e| {
        e.name() == "_start" && matches!(e.ty(), ExternType::Func(f) if f.params().len() == 0 && f.results().len() == 0)
    });
    if !has_start {
        return Err(RunError::NoStart);
    }
    let mut linker = Linker::new(&engine);
    define_imports(&mut linker, &module, "kguest krm")
        .map_err(|e| RunError::Internal(format!("{e:#}")))?;

    let begin = Instant::now();
    let deadline = begin + limits.timeout;
    let args = Args::new(&["krm"]).ok_or_else(|| RunError::Internal("argv".into()))?;
    let wasi = Wasi::new()
        .args(args)
        .stdin(stdin)
        .stdout(Sink::capture(limits.stdout, Overflow::Trap))
        .stderr(Sink::Stream {
            writer: stderr,
            left: limits.stderr,
        })
        .deadline(deadline);
    let state = State {
        wasi,
        limiter: Limiter {
            memory_limit: limits.memory,
        },
    };
    let mut store = Store::new(&engine, state);
    store.limiter(|s| &mut s.limiter);
    store.set_epoch_deadline(1);
    store.epoch_deadline_trap();
    let (stop, stopped) = mpsc::channel::<()>();
    let ticker = {
        let engine = engine.clone();
        let timeout = limits.timeout;
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(timeout) {
                engine.increment_epoch();
            }
        })
    };
    let result = linker
        .instantiate(&mut store, &module)
        .and_then(|instance| instance.get_typed_func::<(), ()>(&mut store, "_start"))
        .and_then(|start| start.call(&mut store, ()));
    drop(stop);
    let _ = ticker.join();
    let run = begin.elapsed();
    let exit_code = match result {
        Ok(()) => 0,
        Err(e) => match e.downcast_ref::<Fault>() {
            Some(Fault::Exit(code)) => *code,
            Some(Fault::OutputLimit(limit)) => return Err(RunError::OutputLimit(*limit)),
            Some(other) => return Err(RunError::Trap(other.to_string())),
            None if let Some(m) = e.downcast_ref::<MemoryLimitExceeded>() => {
                return Err(RunError::MemoryLimit {
                    requested: m.requested,
                    limit: m.limit,
                });
            }
            None => {
                return Err(match e.downcast_ref::<Trap>() {
                    Some(Trap::Interrupt) => RunError::Deadline(limits.timeout),
                    Some(Trap::StackOverflow) => RunError::Trap("stack overflow".into()),
                    Some(trap) => RunError::Trap(trap.to_string()),
                    None => RunError::Trap(one_line(&format!("{e:#}"))),
                });
            }
        },
    };
    let stdout = store.data_mut().wasi.stdout.take();
    Ok(Outcome {
        exit_code,
        stdout,
        compile,
        run,
    })
}

/// The first line of a multi-line message.
pub(crate) fn one_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}
