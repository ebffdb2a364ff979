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
    pub fn iter(&self) -> json::RawEntries<'a> {
        json::raw_entries(self.json)
    }

    /// The state of `image` (an exact name, as the node lists it; the last
    /// entry if repeated). `None` when absent or malformed.
    pub fn get(&self, image: &str) -> Option<ImageState> {
        self.find(&[image.as_bytes()]).flatten()
    }

    /// Like [`ImageStates::get`] for the name `parts` concatenated (e.g. an
    /// image and its implied `:latest` tag, without building the string):
    /// `None` when absent, `Some(None)` when present but malformed.
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

#[cfg(test)]
mod tests {
    use super::*;

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
