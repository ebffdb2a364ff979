//! The image states of a node (`k8s.io/scheduler.nodeImageStates`), read in
//! place: no allocation, no copy.
//!
//! The host sends JSON, Go's `json.Marshal` of the node's
//! `map[string]*ImageStateSummary`: per image name (as listed in the node's
//! `status.images[].names`), `{"Size": bytes, "NumNodes": n, ...}`, where
//! `NumNodes` counts the nodes of the cluster that list the name.
//!
//! ```
//! use kguest::images::{ImageState, ImageStates};
//! let json = br#"{"nginx:1.27":{"Size":190000000,"NumNodes":3,"Nodes":null}}"#;
//! let states = ImageStates::new(json);
//! assert_eq!(states.get("nginx:1.27"), Some(ImageState { size: 190_000_000, num_nodes: 3 }));
//! assert_eq!(states.get("nginx"), None);
//! ```

use crate::json;

/// One image's summary (Go's `ImageStateSummary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageState {
    /// `Size`: the image size in bytes.
    pub size: i64,
    /// `NumNodes`: how many nodes hold the image.
    pub num_nodes: i64,
}

impl ImageState {
    /// Reads one summary object as Go decodes it into the struct: keys
    /// matched case-insensitively, later keys winning, `null` leaving a
    /// field unchanged, unknown keys ignored. `None` for anything else
    /// (Go's decoder fails on it).
    #[inline]
    pub fn parse(raw: &[u8]) -> Option<ImageState> {
        let mut st = ImageState::default();
        if !raw.starts_with(b"{") {
            return None;
        }
        for (key, value) in json::raw_entries(raw) {
            let field = if json::key_matches(key, "Size") {
                &mut st.size
            } else if json::key_matches(key, "NumNodes") {
                &mut st.num_nodes
            } else {
                continue;
            };
            if value != b"null" {
                *field = json::as_i64(value)?;
            }
        }
        Some(st)
    }
}

/// The image states of one node.
#[derive(Debug, Clone, Copy)]
pub struct ImageStates<'a> {
    json: &'a [u8],
}

impl<'a> ImageStates<'a> {
    /// Wraps the JSON the host sent (empty bytes: no images).
    pub const fn new(json: &'a [u8]) -> Self {
        ImageStates { json }
    }

    /// The raw JSON.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.json
    }

    /// Every entry in order: the image name as written (JSON string
    /// content, escapes not decoded: Go writes image names without any) and
    /// its raw state (read it with [`ImageState::parse`]). A name written
    /// twice appears twice; Go keeps the last.
    #[inline]
    pub fn iter(&self) -> Iter<'a> {
        Iter(json::raw_entries(self.json))
    }

    /// The state of `image` (an exact name, as the node lists it; the last
    /// entry if repeated). `None` when absent or malformed.
    #[inline]
    pub fn get(&self, image: &str) -> Option<ImageState> {
        self.find(&[image.as_bytes()]).flatten()
    }

    /// Like [`ImageStates::get`] for the name `parts` concatenated (e.g. an
    /// image and its implied `:latest` tag, without building the string):
    /// `None` when absent, `Some(None)` when present but malformed.
    #[inline]
    pub fn find(&self, parts: &[&[u8]]) -> Option<Option<ImageState>> {
        let mut found = None;
        for (k, v) in self.iter() {
            if json::raw_eq(k, parts) {
                found = Some(v);
            }
        }
        found.map(ImageState::parse)
    }
}

/// The entries of [`ImageStates`], as [`json::raw_entries`] yields them.
///
/// Entries written the way Go's encoder writes them,
/// `"name":{"Size":D,"NumNodes":D,"Nodes":null}` (`D` decimal digits, no
/// whitespace, no `\` before the name's first `"`), are recognised by
/// their shape: the name is searched for its closing quote eight bytes at
/// a time and the value compared with the shape word by word, several
/// times faster than scanning the JSON byte by byte. Anything else is read by the general scanner, from
/// the same place, so both give exactly the same entries.
#[derive(Debug, Clone)]
pub struct Iter<'a>(json::RawEntries<'a>);

impl<'a> Iter<'a> {
    /// As [`json::RawEntries::rest`].
    #[inline]
    pub fn rest(&self) -> Option<&'a [u8]> {
        self.0.rest()
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let r = &mut self.0;
        let s = r.s;
        // The first member (no `,` before it) is left to the scanner.
        if !r.first
            && let Some((q, end)) = go_entry(s, r.i)
            && let (Some(key), Some(value)) = (s.get(r.i + 2..q), s.get(q + 2..end))
        {
            r.i = end;
            return Some((key, value));
        }
        r.next()
    }
}

/// The member after the `,` at `i` when written in Go's
/// shape: where its name's closing quote is and where the value ends.
/// `None` declines (the general scanner reads the member): anything
/// unusual, and a member too close to the end of the JSON for the word
/// reads.
#[inline(always)]
fn go_entry(s: &[u8], i: usize) -> Option<(usize, usize)> {
    let k = byte(s, byte(s, i, b',')?, b'"')?;
    let q = quote(s, k)?;
    // The first `"` closes the name unless a `\` precedes it (it may be
    // escaped): the general scanner decides then.
    if q > k && s.get(q - 1).copied() == Some(b'\\') {
        return None;
    }
    // `":{"Size":` from the closing quote; digits, `,"NumNodes":`; digits,
    // `,"Nodes":null}` (a loop: one copy of the inlined digit scan).
    let mut end = literal(s, q, w(b"\":{\"Size"), w(b"{\"Size\":"), 10);
    for &(head, tail, len) in &SHAPE {
        end = literal(s, digits(s, end), head, tail, len);
    }
    (end != 0).then_some((q, end))
}

const fn w(b: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*b)
}

/// What follows each of the summary's two numbers, as [`literal`] compares
/// it: `,"NumNodes":` and `,"Nodes":null}`.
static SHAPE: [(u64, u64, usize); 2] = [
    (w(b",\"NumNod"), w(b"mNodes\":"), 12),
    (w(b",\"Nodes\""), w(b"s\":null}"), 14),
];

/// The index past `c` when `s` has it at `i`.
#[inline(always)]
fn byte(s: &[u8], i: usize, c: u8) -> Option<usize> {
    (*s.get(i)? == c).then_some(i + 1)
}

/// The eight bytes at `i` as one word (0 past the end: a word never
/// compared with 0).
#[inline(always)]
fn word(s: &[u8], i: usize) -> u64 {
    s.get(i..)
        .and_then(|r| r.first_chunk::<8>())
        .map_or(0, |w| u64::from_le_bytes(*w))
}

/// The index past the `len` bytes (8 to 16) at `i` when they are `head`
/// followed by `tail`'s last `len - 8` bytes: two word comparisons
/// (overlapping when `len` < 16), not a byte loop. 0 when they are not
/// (and when `i` is 0: the previous step failed).
#[inline(always)]
fn literal(s: &[u8], i: usize, head: u64, tail: u64, len: usize) -> usize {
    let same = i != 0 && word(s, i) == head && word(s, i + len - 8) == tail;
    if same { i + len } else { 0 }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = LO << 7;

/// The index past the one or more ASCII digits at `i`, eight bytes at a
/// time (SWAR: with `t = byte ^ b'0'`, a byte is a digit when `t < 10`,
/// i.e. when neither `t` nor `(t & 0x7f) + 0x76` has its high bit set; no
/// carry crosses bytes). 0 when there is none, when `i` is 0, and when the
/// run ends in the last eight bytes (fewer than a word left).
#[inline(always)]
fn digits(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while let Some(w) = s.get(j..).and_then(|r| r.first_chunk::<8>()) {
        let t = u64::from_le_bytes(*w) ^ (LO * u64::from(b'0'));
        let m = ((t & !HI).wrapping_add(LO * 0x76) | t) & HI;
        if m != 0 {
            let end = j + (m.trailing_zeros() / 8) as usize;
            return if end > i && i != 0 { end } else { 0 };
        }
        j += 8;
    }
    0
}

/// The index of the first `"` at or after `i` when it is within the whole
/// 16-byte blocks from `i`, searched eight bytes at a time (SWAR: a `"` is
/// a zero byte of `x ^ 0x2222..`; bytes above the first may be flagged
/// falsely, so only the lowest flag counts). `None` otherwise.
#[inline(always)]
fn quote(s: &[u8], i: usize) -> Option<usize> {
    let found = |w: &[u8; 8]| {
        let q = u64::from_le_bytes(*w) ^ (LO * u64::from(b'"'));
        q.wrapping_sub(LO) & !q & HI
    };
    let (blocks, _) = s.get(i..)?.as_chunks::<16>();
    for (n, b) in blocks.iter().enumerate() {
        let (lo, hi) = b.split_first_chunk::<8>()?;
        let (lo, hi) = (found(lo), found(hi.first_chunk::<8>()?));
        if lo | hi != 0 {
            let (m, at) = if lo != 0 { (lo, 0) } else { (hi, 8) };
            return Some(i + n * 16 + at + (m.trailing_zeros() / 8) as usize);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn parsing_follows_go() {
        let st = |s: &str| ImageState::parse(s.as_bytes());
        assert_eq!(
            st(r#"{"Size":5,"NumNodes":2,"Nodes":null}"#),
            Some(ImageState {
                size: 5,
                num_nodes: 2
            })
        );
        assert_eq!(
            st(r#"{"size":5,"numnodes":2,"Size":null,"extra":{"a":[1]}}"#),
            Some(ImageState {
                size: 5,
                num_nodes: 2
            })
        );
        assert_eq!(st("{}"), Some(ImageState::default()));
        assert_eq!(st(r#"{"Size":1.5}"#), None);
        assert_eq!(st(r#"{"Size":"1"}"#), None);
        assert_eq!(st("null"), None);
        assert_eq!(st("[]"), None);
    }

    /// Every entry, then the rest after the object.
    type Read<'a> = (Vec<(&'a [u8], &'a [u8])>, Option<&'a [u8]>);

    fn general(json: &[u8]) -> Read<'_> {
        let mut it = json::raw_entries(json);
        let v = it.by_ref().collect();
        (v, it.rest())
    }

    fn fast(json: &[u8]) -> Read<'_> {
        let mut it = ImageStates::new(json).iter();
        let v = it.by_ref().collect();
        (v, it.rest())
    }

    /// The shape shortcut yields exactly the general scanner's entries (and
    /// the same rest): on Go's shape, on every truncation of it and on
    /// every one-byte change of it.
    #[test]
    fn go_shape_shortcut_matches_the_scanner() {
        let go: &[u8] = br#"{"registry.example.com/shop/checkout@sha256:00000000000000000000000000007d269ef937b1b8f":{"Size":212334911,"NumNodes":12,"Nodes":null},"a:1":{"Size":0,"NumNodes":1,"Nodes":null},"b\\\"c:2":{"Size":3,"NumNodes":4,"Nodes":null}} x"#;
        let (entries, rest) = fast(go);
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[2].0, br#"b\\\"c:2"#);
        assert_eq!(rest, Some(&b" x"[..]));
        let mut cases = 0;
        for cut in 0..=go.len() {
            assert_eq!(fast(&go[..cut]), general(&go[..cut]), "cut at {cut}");
            cases += 1;
        }
        for at in 0..go.len() {
            for b in *b"\"}{\\-x0 ,:\n" {
                let mut s = go.to_vec();
                s[at] = b;
                assert_eq!(fast(&s), general(&s), "{}", String::from_utf8_lossy(&s));
                cases += 1;
            }
        }
        assert!(cases > 1500, "{cases}");
    }

    #[test]
    fn digit_runs_end_where_bytewise_counting_ends() {
        let mut checked = 0;
        for len in 0..20 {
            for stop in 0..=255u8 {
                let mut s = vec![b'7'; len];
                s.push(stop);
                s.extend_from_slice(b"123456789");
                for from in 1..=len.min(3) + 1 {
                    let n = s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
                    // Declined when the run ends in the last word.
                    let whole = from + n / 8 * 8 + 8 <= s.len();
                    let want = if n > 0 && whole { from + n } else { 0 };
                    assert_eq!(digits(&s, from), want, "{s:?} {from}");
                    checked += 1;
                }
            }
        }
        assert_eq!(digits(b"", 0), 0);
        assert_eq!(digits(b"x1234567890", 1), 0);
        assert_eq!(digits(b"x1234567890,\"NumNo", 1), 11);
        assert_eq!(digits(b"01234567890,", 0), 0);
        assert_eq!(digits(b"x12", 3), 0);
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn quote_search_finds_the_first_quote() {
        let mut checked = 0;
        for len in 0..40 {
            for pos in 0..=len {
                let mut s = vec![b'a'; len];
                if pos < len {
                    s[pos] = b'"';
                    // Bytes that look alike to a careless bit trick.
                    for (j, x) in s.iter_mut().enumerate().skip(pos + 1) {
                        *x = [b'"', 0x23, 0x21, 0xa2, 0x00][j % 5];
                    }
                }
                for from in 0..=len.min(9) {
                    // Found only within the whole blocks from `from`.
                    let words = (len - from) / 16 * 16;
                    let want = s[from..from + words].iter().position(|&b| b == b'"');
                    assert_eq!(quote(&s, from), want.map(|p| p + from));
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000, "{checked}");
    }

    #[test]
    fn lookup_by_exact_name_last_wins() {
        let json = br#"{"a:1":{"Size":1,"NumNodes":1},"b:latest":{"Size":2,"NumNodes":2},"a:1":{"Size":3,"NumNodes":1},"bad":{"Size":true}}"#;
        let s = ImageStates::new(json);
        assert_eq!(s.get("a:1").map(|x| x.size), Some(3));
        assert_eq!(
            s.find(&[b"b", b":latest"]).flatten().map(|x| x.size),
            Some(2)
        );
        assert_eq!(s.get("b"), None);
        assert_eq!(s.find(&[b"bad"]), Some(None));
        assert_eq!(s.find(&[b"none"]), None);
        assert_eq!(s.iter().count(), 4);
        assert_eq!(ImageStates::new(b"").iter().count(), 0);
    }
}
