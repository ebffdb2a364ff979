//! Running a function natively, for unit tests: the same code path as the
//! wasm entry point, with the input from a string and the output captured.

use std::string::String;
use std::vec::Vec;

use crate::list::ResourceList;
use crate::sys::Arena;

/// What a function run produced.
#[derive(Debug)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    /// The exit code the wasm function would exit with.
    pub code: u32,
}

/// Runs `f` on `input` as `kguest krm` would run the built function.
pub fn run(input: &str, f: impl for<'a> FnOnce(&mut ResourceList<'a>)) -> Output {
    let arena = Arena::with_capacity(input.len() * 48 + (4 << 20));
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = crate::rt::process(&arena, input.as_bytes(), f, &mut out, &mut err);
    Output {
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        code,
    }
}
