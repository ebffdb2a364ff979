//! Running a function: read the input, check it, call the function, write
//! the output, pick the exit code. Shared by the wasm entry point and the
//! native test harness.

use crate::emit;
use crate::list::{ResourceList, Sink};
use crate::node::Bytes;
use crate::sys::Arena;

/// Runs `f` on `input`; returns the exit code: 0 on success, 1 when the
/// input is not a ResourceList, when `f` reported an error result, or when
/// the output could not be written.
pub fn process<'a>(
    arena: &'a Arena,
    input: &'a [u8],
    f: impl FnOnce(&mut ResourceList<'a>),
    out: &mut dyn Sink,
    err: &mut dyn Sink,
) -> u32 {
    let mut list = match ResourceList::parse(arena, input) {
        Ok(list) => list,
        Err(e) => {
            let mut msg = Bytes::new(arena);
            let written = msg.as_mut().is_some_and(|m| {
                let mut ok = m.extend(b"error: input: ") && m.extend(e.what.as_bytes());
                if let Some(i) = e.item {
                    ok = ok && m.extend(b" (item ") && emit::int(m, i64::from(i)) && m.push(b')');
                }
                if let Some((line, col)) = e.line_column(input) {
                    ok = ok
                        && m.extend(b" at line ")
                        && emit::int(m, i64::from(line))
                        && m.extend(b", column ")
                        && emit::int(m, i64::from(col));
                }
                ok && m.push(b'\n')
            });
            match msg {
                Some(m) if written => {
                    err.write(m.finish());
                }
                _ => {
                    err.write(b"error: input: ");
                    err.write(e.what.as_bytes());
                    err.write(b"\n");
                }
            }
            return 1;
        }
    };
    f(&mut list);
    if !list.write(out) {
        err.write(b"error: writing the output failed\n");
        return 1;
    }
    u32::from(list.error_count() > 0)
}

/// The wasm entry point behind [`export!`](crate::export).
#[cfg(target_arch = "wasm32")]
pub fn main(f: impl FnOnce(&mut ResourceList<'static>)) -> ! {
    use crate::sys;

    struct Stdout<'b> {
        buf: &'b mut [u8],
        len: usize,
    }
    impl Stdout<'_> {
        fn flush(&mut self) -> bool {
            let ok = self
                .buf
                .get(..self.len)
                .is_some_and(|b| sys::write_fd(1, b).is_ok());
            self.len = 0;
            ok
        }
    }
    impl Sink for Stdout<'_> {
        fn write(&mut self, bytes: &[u8]) -> bool {
            if bytes.len() > self.buf.len() - self.len && !self.flush() {
                return false;
            }
            if bytes.len() > self.buf.len() {
                return sys::write_fd(1, bytes).is_ok();
            }
            match self.buf.get_mut(self.len..self.len + bytes.len()) {
                Some(dst) => {
                    crate::bytes::copy(dst, bytes);
                    self.len += bytes.len();
                    true
                }
                None => false,
            }
        }
    }
    struct Stderr;
    impl Sink for Stderr {
        fn write(&mut self, bytes: &[u8]) -> bool {
            sys::write_fd(2, bytes).is_ok()
        }
    }

    let arena: &'static Arena = sys::leak_arena();
    let Some(mut input) = sys::Growing::<u8>::new(arena) else {
        let _ = Stderr.write(b"error: out of memory\n");
        sys::exit(1)
    };
    loop {
        let Some(spare) = input.spare(64 << 10) else {
            let _ = Stderr.write(b"error: out of memory reading the input\n");
            sys::exit(1)
        };
        match sys::read_stdin(spare) {
            Ok(0) => {
                input.commit(0);
                break;
            }
            Ok(n) => input.commit(n),
            Err(()) => {
                let _ = Stderr.write(b"error: reading standard input failed\n");
                sys::exit(1)
            }
        }
    }
    let input: &'static [u8] = input.finish();
    let Some(buf) = arena.alloc(64 << 10) else {
        let _ = Stderr.write(b"error: out of memory\n");
        sys::exit(1)
    };
    let mut out = Stdout { buf, len: 0 };
    let code = process(arena, input, f, &mut out, &mut Stderr);
    let flushed = out.flush();
    sys::exit(if flushed { code } else { 1 })
}
