//! kguest-krm-host: hostile WAT guests (one misbehaviour each, asserting
//! the typed outcome), the WASI surface, and the ResourceList protocol
//! with the example functions.

mod functions;
mod protocol;
mod wasi;

use std::sync::{Arc, Mutex};

use kguest_krm_host::{Limits, Outcome, RunError, run};

/// A clonable stderr sink.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Runs a WAT module with `stdin`.
pub fn run_wat(wat: &str, stdin: &[u8], limits: &Limits) -> (Result<Outcome, RunError>, String) {
    let wasm = wat::parse_str(wat).expect("valid WAT");
    let err = Captured::default();
    let out = run(&wasm, stdin.to_vec(), limits, Box::new(err.clone()));
    (out, err.text())
}

/// The WASI imports every WAT guest declares, and `_start`'s frame.
pub const IMPORTS: &str = r#"
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
"#;

/// Copies standard input to standard output.
pub const ECHO: &str = r#"
  (func (export "_start")
    (local $n i32)
    (loop $l
      (i32.store (i32.const 0) (i32.const 1024))
      (i32.store (i32.const 4) (i32.const 60000))
      (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $n (i32.load (i32.const 8)))
      (if (local.get $n) (then
        (i32.store (i32.const 16) (i32.const 1024))
        (i32.store (i32.const 20) (local.get $n))
        (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24)))
        (br $l)))))
"#;

/// A module with the common imports, `body` (its own imports first), and
/// a 128 KiB memory.
pub fn module(body: &str) -> String {
    format!("(module {IMPORTS} {body} (memory (export \"memory\") 2))")
}
