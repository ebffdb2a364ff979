//! The WASI surface and misbehaving guests: each ends in its typed error,
//! never a host panic.

use std::time::{Duration, Instant};

use kguest_krm_host::{Limits, RunError};

use super::{ECHO, module, run_wat};

#[test]
fn echo_copies_stdin_to_stdout() {
    let input = b"apiVersion: config.kubernetes.io/v1\n# comment\n".repeat(5000);
    let (out, _) = run_wat(&module(ECHO), &input, &Limits::default());
    let out = out.unwrap();
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.stdout, input);
}

#[test]
fn argv_is_krm_and_environment_empty() {
    // Writes argc, argv[0] and the environment count to stdout.
    let body = r#"
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $as (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $ag (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $es (param i32 i32) (result i32)))
  (func (export "_start")
    (drop (call $as (i32.const 100) (i32.const 104)))
    (drop (call $ag (i32.const 200) (i32.const 300)))
    (drop (call $es (i32.const 108) (i32.const 112)))
    ;; stdout: the 16 bytes at 100 (argc, argv size, env count, env size), then argv[0]
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 16))
    (i32.store (i32.const 8) (i32.load (i32.const 200)))
    (i32.store (i32.const 12) (i32.const 4))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 2) (i32.const 20))))
"#;
    let (out, _) = run_wat(&module(body), b"", &Limits::default());
    let out = out.unwrap();
    let word = |i: usize| u32::from_le_bytes(out.stdout[i..i + 4].try_into().unwrap());
    assert_eq!((word(0), word(4), word(8), word(12)), (1, 4, 0, 0));
    assert_eq!(&out.stdout[16..], b"krm\0");
}

#[test]
fn no_preopens_and_no_files() {
    // fd_prestat_get(3) is EBADF (no preopened directory); path_open is
    // ENOSYS; the errnos go to stdout as two bytes.
    let body = r#"
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $pre (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $acc (param i32 i32 i32) (result i32)))
  (func (export "_start")
    (i32.store8 (i32.const 100) (call $pre (i32.const 3) (i32.const 200)))
    (i32.store8 (i32.const 101) (call $open (i32.const 3) (i32.const 0) (i32.const 300) (i32.const 4) (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 400)))
    (i32.store8 (i32.const 102) (call $acc (i32.const 3) (i32.const 0) (i32.const 400)))
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 3))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20))))
"#;
    let (out, _) = run_wat(&module(body), b"", &Limits::default());
    assert_eq!(out.unwrap().stdout, [8, 52, 52]);
}

#[test]
fn stderr_passes_through_up_to_its_limit() {
    let body = r#"
  (data (i32.const 100) "oops\n")
  (func (export "_start")
    (local $i i32)
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 5))
    (loop $l
      (drop (call $write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 20)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000)))))
"#;
    let limits = Limits {
        stderr: 12,
        ..Limits::default()
    };
    let (out, err) = run_wat(&module(body), b"", &limits);
    assert_eq!(out.unwrap().exit_code, 0);
    assert_eq!(err, "oops\noops\noo");
}

#[test]
fn proc_exit_code_is_returned() {
    let (out, _) = run_wat(
        &module(r#"(func (export "_start") (call $exit (i32.const 3)))"#),
        b"",
        &Limits::default(),
    );
    assert_eq!(out.unwrap().exit_code, 3);
}

#[test]
fn a_trap_is_a_trap() {
    let (out, _) = run_wat(
        &module(r#"(func (export "_start") unreachable)"#),
        b"",
        &Limits::default(),
    );
    match out {
        Err(RunError::Trap(m)) => assert!(m.contains("unreachable"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_endless_loop_hits_the_deadline() {
    let limits = Limits {
        timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let start = Instant::now();
    let (out, _) = run_wat(
        &module(r#"(func (export "_start") (loop $l (br $l)))"#),
        b"",
        &limits,
    );
    assert!(
        matches!(out, Err(RunError::Deadline(d)) if d == limits.timeout),
        "{out:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn gigabytes_of_output_hit_the_output_limit() {
    // Writes the same 64 KiB forever.
    let body = r#"
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const 65536))
    (loop $l
      (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20)))
      (br $l)))
"#;
    let limits = Limits {
        stdout: 1 << 20,
        ..Limits::default()
    };
    let (out, _) = run_wat(&module(body), b"", &limits);
    assert!(
        matches!(out, Err(RunError::OutputLimit(l)) if l == 1 << 20),
        "{out:?}"
    );
}

#[test]
fn growing_past_the_memory_limit_is_stopped() {
    let body = r#"(func (export "_start") (drop (memory.grow (i32.const 2000))))"#;
    let limits = Limits {
        memory: 16 << 20,
        ..Limits::default()
    };
    let (out, _) = run_wat(&module(body), b"", &limits);
    assert!(
        matches!(out, Err(RunError::MemoryLimit { limit, .. }) if limit == 16 << 20),
        "{out:?}"
    );
}

#[test]
fn pointers_out_of_bounds_trap() {
    let body = r#"(func (export "_start") (drop (call $write (i32.const 1) (i32.const 131000) (i32.const 1000) (i32.const 20))))"#;
    let (out, _) = run_wat(&module(body), b"", &Limits::default());
    match out {
        Err(RunError::Trap(m)) => assert!(m.contains("fd_write"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn foreign_imports_missing_start_and_garbage_are_refused() {
    let foreign = r#"(module (import "env" "f" (func)) (func (export "_start")))"#;
    let foreign_wasi_table = r#"(module (import "wasi_snapshot_preview1" "t" (table 1 funcref)) (func (export "_start")))"#;
    assert!(matches!(
        run_wat(foreign_wasi_table, b"", &Limits::default()).0,
        Err(RunError::Import { .. })
    ));
    assert!(matches!(
        run_wat(foreign, b"", &Limits::default()).0,
        Err(RunError::Import { .. })
    ));
    // A name preview1 does not have is refused before the run, named.
    let made_up = r#"(module (import "wasi_snapshot_preview1" "sock_listen" (func (param i32 i32) (result i32))) (func (export "_start")))"#;
    match run_wat(made_up, b"", &Limits::default()).0 {
        Err(e @ RunError::Import { .. }) => assert!(
            e.to_string()
                .contains("imports `wasi_snapshot_preview1`.`sock_listen`"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    let no_start = r#"(module (memory (export "memory") 1))"#;
    assert!(matches!(
        run_wat(no_start, b"", &Limits::default()).0,
        Err(RunError::NoStart)
    ));
    let garbage = kguest_krm_host::run(
        b"\0asm garbage",
        Vec::new(),
        &Limits::default(),
        Box::new(std::io::sink()),
    );
    assert!(matches!(garbage, Err(RunError::Compile(_))));
}

#[test]
fn errors_are_one_line() {
    for e in [
        RunError::Compile("x".into()),
        RunError::NoStart,
        RunError::Deadline(Duration::from_secs(10)),
        RunError::OutputLimit(1 << 20),
        RunError::MemoryLimit {
            requested: 1 << 30,
            limit: 1 << 29,
        },
        RunError::Trap("wasm trap: unreachable".into()),
    ] {
        assert_eq!(e.to_string().lines().count(), 1);
    }
}
