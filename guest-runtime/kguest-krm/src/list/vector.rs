//! A growable vector in the arena.

use crate::sys::Arena;

/// A vector in the arena that moves when it outgrows its block.
pub(super) struct Vector<'a, T: Copy> {
    data: &'a mut [T],
    pub(super) len: usize,
}

impl<'a, T: Copy> Vector<'a, T> {
    pub(super) fn with_capacity(arena: &'a Arena, n: usize, fill: T) -> Option<Self> {
        Some(Vector {
            data: arena.fill(n.max(4), fill)?,
            len: 0,
        })
    }

    pub(super) fn push(&mut self, arena: &'a Arena, v: T) -> bool {
        if self.len == self.data.len() {
            let Some(bigger) = arena.fill(self.data.len() * 2, v) else {
                return false;
            };
            let Some(dst) = bigger.get_mut(..self.len) else {
                return false;
            };
            let Some(src) = self.data.get(..self.len) else {
                return false;
            };
            crate::bytes::copy(dst, src);
            self.data = bigger;
        }
        match self.data.get_mut(self.len) {
            Some(slot) => {
                *slot = v;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    pub(super) fn get(&self, i: usize) -> Option<&T> {
        self.data.get(..self.len)?.get(i)
    }

    pub(super) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.data.get_mut(..self.len)?.get_mut(i)
    }

    pub(super) fn as_slice(&self) -> &[T] {
        self.data.get(..self.len).unwrap_or(&[])
    }
}
