//! JSON layout: punctuation, indentation in the pretty style, member
//! names and the scalar tokens (strings, numbers, `null`).

use alloc::string::String;
use alloc::vec::Vec;

use super::Writer;
use super::strings::{PLAIN, write_go_string};

impl<'o, 'a> Writer<'o, 'a> {
    fn newline(&mut self) {
        if self.pretty {
            self.out.push(b'\n');
            for _ in 0..self.depth {
                self.out.extend_from_slice(b"    ");
            }
        }
    }

    pub(super) fn object_start(&mut self) {
        self.out.push(b'{');
        self.depth += 1;
    }

    pub(super) fn object_end(&mut self, empty: bool) {
        self.depth -= 1;
        if !empty {
            self.newline();
        }
        self.out.push(b'}');
    }

    pub(super) fn array_start(&mut self) {
        self.out.push(b'[');
        self.depth += 1;
    }

    pub(super) fn array_end(&mut self, empty: bool) {
        self.depth -= 1;
        if !empty {
            self.newline();
        }
        self.out.push(b']');
    }

    /// Starts the next array element.
    pub(super) fn element(&mut self, first: &mut bool) {
        if !*first {
            self.out.push(b',');
        }
        *first = false;
        self.newline();
    }

    /// Starts the next object member.
    pub(super) fn member(&mut self, first: &mut bool, name: &str) {
        // Schema names are plain identifiers: nothing to escape.
        debug_assert!(name.bytes().all(|b| PLAIN[usize::from(b)]), "{name}");
        self.element(first);
        let out = &mut *self.out;
        out.reserve(name.len() + 4);
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.push(b'"');
        out.push(b':');
        if self.pretty {
            out.push(b' ');
        }
    }

    pub(super) fn member_bytes(&mut self, first: &mut bool, name: &[u8]) {
        self.element(first);
        self.string(name);
        self.out.push(b':');
        if self.pretty {
            self.out.push(b' ');
        }
    }

    /// A JSON string the way Go writes one: `<`, `>`, `&`, U+2028 and
    /// U+2029 escaped too, invalid UTF-8 as U+FFFD.
    pub(super) fn string(&mut self, text: &[u8]) {
        if !write_go_string(text, self.out) {
            // Only `string` fields reach here with bytes that are not UTF-8.
            self.suspect = true;
        }
    }

    pub(super) fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    pub(super) fn int(&mut self, v: i64) {
        write_int(self.out, v);
    }

    pub(super) fn uint(&mut self, v: u64) {
        write_uint(self.out, v);
    }

    /// A float as Go writes one: shortest digits, exponent form below 1e-6
    /// and from 1e21 on; non-finite values as `null`.
    #[inline(never)]
    pub(super) fn float(&mut self, v: f64) {
        use core::fmt::Write;
        if !v.is_finite() {
            return self.null();
        }
        let abs = v.abs();
        let mut s = String::new();
        if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
            let _ = write!(s, "{v:e}");
            if let Some(at) = s.find('e')
                && !s[at + 1..].starts_with('-')
            {
                s.insert(at + 1, '+');
            }
        } else {
            let _ = write!(s, "{v}");
        }
        self.out.extend_from_slice(s.as_bytes());
    }
}

pub(super) fn write_int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    write_uint(out, v.unsigned_abs());
}

pub(super) fn write_uint(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 20];
    let mut n = v;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}
