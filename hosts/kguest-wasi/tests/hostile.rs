//! Hostile pointers against every preview1 function that takes one: each
//! call must stop the guest with `Fault::OutOfBounds` naming the function,
//! and a call that fails writes nothing.

use kguest_wasi::preview1::{self, Args};
use kguest_wasi::{Fault, Overflow, Sink, Wasi};
use wasmtime::{Engine, Linker, Module, Store};

/// One page of memory: the last valid address is 0xffff.
const PAGE: i64 = 65536;

/// Runs `call` (WAT instructions leaving an i32 errno) in a module that
/// imports `name` with signature `sig`; returns the fault, if any, and the
/// memory afterwards.
fn run(name: &str, sig: &str, setup: &str, call: &str) -> (Result<i32, Fault>, Vec<u8>) {
    let wat = format!(
        r#"(module
            (import "wasi_snapshot_preview1" "{name}" (func $f {sig}))
            (memory (export "memory") 1)
            (func (export "go") (result i32) {setup} {call}))"#
    );
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(&wat).expect("wat")).expect("module");
    let mut linker = Linker::new(&engine);
    preview1::define_imports(&mut linker, &module, "test").expect("define");
    let wasi = Wasi::new()
        .args(Args::new(&["prog", "arg"]).unwrap())
        .stdin(b"input".to_vec())
        .stdout(Sink::capture(1 << 20, Overflow::Trap));
    let mut store = Store::new(&engine, wasi);
    let instance = linker.instantiate(&mut store, &module).expect("instance");
    let go = instance
        .get_typed_func::<(), i32>(&mut store, "go")
        .expect("go");
    let result = go.call(&mut store, ()).map_err(|e| {
        e.downcast_ref::<Fault>()
            .cloned()
            .unwrap_or_else(|| panic!("{name}: not a Fault: {e:#}"))
    });
    let memory = instance.get_memory(&mut store, "memory").unwrap();
    (result, memory.data(&store).to_vec())
}

fn assert_out_of_bounds(name: &str, sig: &str, setup: &str, call: &str) {
    let (result, memory) = run(name, sig, setup, call);
    match result {
        Err(Fault::OutOfBounds(e)) => assert_eq!(e.function, name, "{e}"),
        other => panic!("{name} with {call}: {other:?}"),
    }
    // Only `setup` wrote to memory: everything from 0x1000 on is untouched.
    assert!(
        memory[0x1000..].iter().all(|&b| b == 0),
        "{name} wrote before failing"
    );
}

const ONE_PAIR: &str = "(param i32 i32) (result i32)";

#[test]
fn pointers_past_the_end_fault_and_write_nothing() {
    let end = PAGE - 2; // a 4-byte value here crosses the end
    let cases: &[(&str, &str, String)] = &[
        (
            "args_sizes_get",
            ONE_PAIR,
            format!("(call $f (i32.const 0x1000) (i32.const {end}))"),
        ),
        (
            "args_sizes_get",
            ONE_PAIR,
            format!("(call $f (i32.const {end}) (i32.const 0x1000))"),
        ),
        (
            "args_get",
            ONE_PAIR,
            format!("(call $f (i32.const {end}) (i32.const 0x1000))"),
        ),
        (
            "args_get",
            ONE_PAIR,
            format!("(call $f (i32.const 0x1000) (i32.const {}))", PAGE - 4),
        ),
        (
            "environ_sizes_get",
            ONE_PAIR,
            "(call $f (i32.const -4) (i32.const 0x1000))".into(),
        ),
        (
            "clock_time_get",
            "(param i32 i64 i32) (result i32)",
            format!(
                "(call $f (i32.const 0) (i64.const 0) (i32.const {}))",
                PAGE - 4
            ),
        ),
        (
            "clock_res_get",
            ONE_PAIR,
            "(call $f (i32.const 1) (i32.const -1))".into(),
        ),
        (
            "random_get",
            ONE_PAIR,
            format!("(call $f (i32.const 0x1000) (i32.const {}))", PAGE),
        ),
        (
            "random_get",
            ONE_PAIR,
            "(call $f (i32.const -8) (i32.const 16))".into(),
        ),
        (
            "fd_fdstat_get",
            ONE_PAIR,
            format!("(call $f (i32.const 1) (i32.const {}))", PAGE - 8),
        ),
        (
            "fd_filestat_get",
            ONE_PAIR,
            format!("(call $f (i32.const 1) (i32.const {}))", PAGE - 32),
        ),
    ];
    for (name, sig, call) in cases {
        assert_out_of_bounds(name, sig, "", call);
    }
}

#[test]
fn iovecs_are_checked_table_and_buffers() {
    let sig = "(param i32 i32 i32 i32) (result i32)";
    // The table runs past the end.
    let table_past = format!(
        "(call $f (i32.const 1) (i32.const {}) (i32.const 2) (i32.const 0x1000))",
        PAGE - 8
    );
    assert_out_of_bounds("fd_write", sig, "", &table_past);
    // The table is fine (at 0..8), its buffer is not: [0x10000, +4).
    let setup = format!(
        "(i32.store (i32.const 0) (i32.const {PAGE})) (i32.store (i32.const 4) (i32.const 4))"
    );
    let write = "(call $f (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 0x1000))";
    assert_out_of_bounds("fd_write", sig, &setup, write);
    let read = "(call $f (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 0x1000))";
    assert_out_of_bounds("fd_read", sig, &setup, read);
    // A buffer inside, the count pointer outside.
    let setup = "(i32.store (i32.const 0) (i32.const 16)) (i32.store (i32.const 4) (i32.const 2))";
    let read = "(call $f (i32.const 0) (i32.const 0) (i32.const 1) (i32.const -2))";
    let (result, _) = run("fd_read", sig, setup, read);
    assert!(
        matches!(result, Err(Fault::OutOfBounds(ref e)) if e.function == "fd_read"),
        "{result:?}"
    );
}

#[test]
fn poll_oneoff_checks_every_array() {
    let sig = "(param i32 i32 i32 i32) (result i32)";
    for call in [
        // 2 subscriptions of 48 bytes from PAGE - 48.
        format!(
            "(call $f (i32.const {}) (i32.const 0x1000) (i32.const 2) (i32.const 0x2000))",
            PAGE - 48
        ),
        // Events past the end.
        format!(
            "(call $f (i32.const 0) (i32.const {}) (i32.const 1) (i32.const 0x2000))",
            PAGE - 16
        ),
        // The count pointer past the end.
        "(call $f (i32.const 0) (i32.const 0x1000) (i32.const 1) (i32.const -1))".to_string(),
    ] {
        assert_out_of_bounds("poll_oneoff", sig, "", &call);
    }
}

#[test]
fn good_calls_still_work() {
    let (result, memory) = run(
        "args_get",
        ONE_PAIR,
        "",
        "(call $f (i32.const 0x1000) (i32.const 0x2000))",
    );
    assert_eq!(result, Ok(0));
    assert_eq!(&memory[0x2000..0x2009], b"prog\0arg\0");
    assert_eq!(&memory[0x1000..0x1008], &[0, 0x20, 0, 0, 5, 0x20, 0, 0]);
    let (result, _) = run(
        "proc_exit",
        "(param i32)",
        "",
        "(call $f (i32.const 3)) (i32.const 0)",
    );
    assert_eq!(result, Err(Fault::Exit(3)));
    // An unknown fd is an errno, not a fault.
    let (result, _) = run(
        "fd_write",
        "(param i32 i32 i32 i32) (result i32)",
        "",
        "(call $f (i32.const 7) (i32.const -1) (i32.const 1) (i32.const -1))",
    );
    assert_eq!(result, Ok(8));
}
