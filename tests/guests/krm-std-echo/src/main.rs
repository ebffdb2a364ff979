//! A KRM function built the ordinary way (Rust std on wasm32-wasip1, so
//! wasi-libc's start-up code, preopen scan and stdio run): copies the
//! ResourceList from stdin to stdout, after checking the sandbox `kguest
//! krm` promises: argv `["krm"]`, no environment, no files. Exit code 3
//! and a line on stderr when the sandbox is not that.

use std::io::{Read, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let env = std::env::vars().count();
    let files = std::fs::read_dir("/").is_ok() || std::fs::read("/etc/hostname").is_ok();
    if args != ["krm"] || env != 0 || files {
        eprintln!("unexpected sandbox: args {args:?}, {env} environment variables, files: {files}");
        std::process::exit(3);
    }
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        std::process::exit(4);
    }
    let mut out = std::io::stdout().lock();
    if out.write_all(&input).and_then(|()| out.flush()).is_err() {
        std::process::exit(5);
    }
    eprintln!("std-echo: {} bytes", input.len());
}
