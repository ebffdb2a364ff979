//! One bit per hook, for hook sets.

pub const FILTER: u32 = 1;
pub const SCORE: u32 = 1 << 1;
pub const RESERVE: u32 = 1 << 2;
pub const PERMIT: u32 = 1 << 3;
pub const BIND: u32 = 1 << 4;
pub const PREFILTER: u32 = 1 << 5;
pub const POSTFILTER: u32 = 1 << 6;
pub const PRESCORE: u32 = 1 << 7;
pub const NORMALIZESCORE: u32 = 1 << 8;
pub const PREBIND: u32 = 1 << 9;
pub const POSTBIND: u32 = 1 << 10;
pub const ADDPOD: u32 = 1 << 11;
pub const REMOVEPOD: u32 = 1 << 12;
pub const ENQUEUE: u32 = 1 << 13;
/// Only in sets of exported names: the SDK's `reserve` exports both.
pub const UNRESERVE: u32 = 1 << 14;
/// The hooks one of which a plugin must have.
pub const MAIN: u32 = FILTER | SCORE | RESERVE | PERMIT | BIND;
