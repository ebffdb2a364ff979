//! The scratch space: bytes, chunks and finished nodes, their sizes, and the
//! final walk that writes the output.

use alloc::vec::Vec;

use super::{Body, Chunk, Encoder, MapKey, Node, Result};
use kguest_wire::encode::{LEN, put_key, put_varint, varint_len};

impl Encoder {
    pub(super) fn pos(&self) -> Result<u32> {
        u32::try_from(self.raw.len()).map_err(|_| self.invalid("the object is larger than 4 GiB"))
    }

    pub(super) fn raw_range(&self, start: u32, end: u32) -> &[u8] {
        self.raw.get(start as usize..end as usize).unwrap_or(&[])
    }

    pub(super) fn node(&self, id: u32) -> Node {
        self.nodes.get(id as usize).copied().unwrap_or(Node {
            start: 0,
            end: 0,
            len: 0,
        })
    }

    pub(super) fn chunk_len(&self, chunk: &Chunk) -> u64 {
        match chunk.body {
            Body::Null => 0,
            Body::Raw(start, end) => u64::from(end - start),
            Body::Len(start, end) => {
                let n = u64::from(end - start);
                key_len(chunk.number) + varint_len(n) as u64 + n
            }
            Body::Node(id) => {
                let n = self.node(id).len;
                key_len(chunk.number) + varint_len(n) as u64 + n
            }
        }
    }

    pub(super) fn emit(&self, node: u32, out: &mut Vec<u8>) {
        let Node { start, end, .. } = self.node(node);
        for chunk in self.done.get(start as usize..end as usize).unwrap_or(&[]) {
            match chunk.body {
                Body::Null => {}
                Body::Raw(s, e) => out.extend_from_slice(self.raw_range(s, e)),
                Body::Len(s, e) => {
                    put_key(out, chunk.number, LEN);
                    put_varint(out, u64::from(e - s));
                    out.extend_from_slice(self.raw_range(s, e));
                }
                Body::Node(id) => {
                    put_key(out, chunk.number, LEN);
                    put_varint(out, self.node(id).len);
                    self.emit(id, out);
                }
            }
        }
    }

    pub(super) fn push(&mut self, owner: u8, number: u32, seq: u32, key: MapKey, body: Body) {
        self.stack.push(Chunk {
            owner,
            number,
            seq,
            key,
            body,
        });
    }

    pub(super) fn new_node(&mut self, start: u32, len: u64) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            start,
            end: self.done.len() as u32,
            len,
        });
        id
    }

    /// The chunk of the key field just written by `map_key`.
    pub(super) fn last_raw(&mut self) -> Chunk {
        self.stack.pop().unwrap_or(Chunk {
            owner: 0,
            number: 1,
            seq: 0,
            key: MapKey::None,
            body: Body::Null,
        })
    }
}

fn key_len(number: u32) -> u64 {
    varint_len(u64::from(number) << 3) as u64
}
