//! The shared engine: compilation settings, instance pool sizing, the linker
//! with every host function, and the epoch ticker thread.

use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, Linker, PoolingAllocationConfig};

use crate::abi::{self, HostState};
use crate::error::LoadError;

/// Engine-wide settings. Everything here is fixed for the engine's lifetime
/// because wasmtime bakes it into compiled code or the instance pool.
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Maximum number of live instances across all plugins of this runtime
    /// (the pooling allocator's slot count). Each plugin keeps up to
    /// `PluginConfig::pool_size` idle instances plus one per concurrent call.
    pub max_instances: u32,
    /// Largest linear memory any instance may have, in bytes (pool slot
    /// size). `PluginConfig::memory_limit` must not exceed it.
    pub max_memory: usize,
    /// Maximum wasm stack per call, in bytes.
    pub max_wasm_stack: usize,
    /// Epoch tick: deadlines are enforced with this granularity.
    pub epoch_tick: Duration,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            max_instances: 64,
            max_memory: 64 << 20,
            max_wasm_stack: 512 << 10,
            epoch_tick: Duration::from_millis(5),
        }
    }
}

/// One wasmtime [`Engine`] plus the host-function [`Linker`], shared by every
/// plugin loaded on it. Cheap to clone. The epoch ticker thread stops when
/// the last clone (including the ones held by plugins) is dropped.
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<RuntimeInner>,
}

pub(crate) struct RuntimeInner {
    pub engine: Engine,
    pub linker: Linker<HostState>,
    pub config: RuntimeConfig,
    _ticker: Ticker,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// Builds the engine, the instance pool and the linker, and starts the
    /// epoch ticker.
    pub fn new(config: RuntimeConfig) -> Result<Runtime, LoadError> {
        if config.max_instances == 0 {
            return Err(LoadError::InvalidConfig("max_instances must be > 0".into()));
        }
        if config.epoch_tick.is_zero() {
            return Err(LoadError::InvalidConfig("epoch_tick must be > 0".into()));
        }
        let mut pool = PoolingAllocationConfig::new();
        pool.total_core_instances(config.max_instances)
            .total_memories(config.max_instances)
            .total_tables(config.max_instances)
            .total_component_instances(0)
            .max_memory_size(config.max_memory);
        let mut wasm = Config::new();
        wasm.epoch_interruption(true)
            .max_wasm_stack(config.max_wasm_stack)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&wasm).map_err(|e| LoadError::InvalidConfig(format!("{e:#}")))?;
        let mut linker = Linker::new(&engine);
        abi::define_imports(&mut linker).map_err(|e| LoadError::Link(format!("{e:#}")))?;
        let ticker = Ticker::start(engine.clone(), config.epoch_tick)
            .map_err(|e| LoadError::InvalidConfig(format!("cannot start epoch ticker: {e}")))?;
        Ok(Runtime {
            inner: Arc::new(RuntimeInner {
                engine,
                linker,
                config,
                _ticker: ticker,
            }),
        })
    }

    /// The underlying engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The configuration the runtime was built with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.inner.config
    }
}

struct Ticker {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine, tick: Duration) -> std::io::Result<Ticker> {
        let (stop, rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("kguest-epoch".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(tick) {
                    engine.increment_epoch();
                }
            })?;
        Ok(Ticker {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
