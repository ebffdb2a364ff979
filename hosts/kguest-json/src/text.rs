//! A pull parser for JSON text (RFC 8259) that hands out events borrowing
//! the input: no tree, no allocation except a small stack of open
//! containers. Strings are checked but not decoded; a [`Text`] decodes on
//! demand.

use alloc::vec::Vec;

use super::JsonError;

/// How deep containers may nest before the reader gives up.
pub const MAX_DEPTH: usize = 100;

/// One step of a JSON (or JSON-shaped) document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
    /// A member name; its value follows.
    Key(Text<'a>),
    Null,
    Bool(bool),
    /// A number in JSON syntax (`-12`, `0.5`, `1e3`).
    Number(&'a str),
    String(Text<'a>),
}

impl Event<'_> {
    /// "a string", "an object", ...: for error messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Event::ObjectStart | Event::ObjectEnd => "an object",
            Event::ArrayStart | Event::ArrayEnd => "an array",
            Event::Key(_) => "a member name",
            Event::Null => "null",
            Event::Bool(_) => "a boolean",
            Event::Number(_) => "a number",
            Event::String(_) => "a string",
        }
    }
}

/// String contents: either plain text, or the text between the quotes of
/// a JSON string that contains escapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text<'a> {
    raw: &'a str,
    escaped: bool,
}

impl<'a> Text<'a> {
    /// Text that needs no decoding.
    pub const fn plain(text: &'a str) -> Self {
        Text {
            raw: text,
            escaped: false,
        }
    }

    /// The text, when it has no escapes to decode.
    pub fn as_plain(&self) -> Option<&'a str> {
        (!self.escaped).then_some(self.raw)
    }

    /// The text as it appears in the input (escapes not decoded).
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// Appends the decoded text to `out`.
    pub fn decode_into(&self, out: &mut Vec<u8>) {
        if !self.escaped {
            out.extend_from_slice(self.raw.as_bytes());
            return;
        }
        let bytes = self.raw.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            while i < bytes.len() && bytes[i] != b'\\' {
                i += 1;
            }
            out.extend_from_slice(&bytes[start..i]);
            if i >= bytes.len() {
                break;
            }
            // The reader checked every escape, so these reads stay in bounds.
            let c = bytes.get(i + 1).copied().unwrap_or(b'\\');
            i += 2;
            let simple = match c {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                _ => 0,
            };
            if c != b'u' {
                out.push(simple);
                continue;
            }
            let mut code = hex4(bytes, i).unwrap_or(0xfffd);
            i += 4;
            if (0xd800..0xdc00).contains(&code) {
                // A high surrogate; the reader checked a low one follows.
                let low = hex4(bytes, i + 2).unwrap_or(0xdc00);
                i += 6;
                code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            }
            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
            let mut buf = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
    }

    /// True when the decoded text equals `s`.
    pub fn eq_str(&self, s: &str) -> bool {
        if !self.escaped {
            return self.raw == s;
        }
        let mut buf = Vec::with_capacity(self.raw.len());
        self.decode_into(&mut buf);
        buf == s.as_bytes()
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut value = 0u32;
    for &d in digits {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        value = (value << 4) | u32::from(v);
    }
    Some(value)
}

/// Where the reader is in the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// A value (the document's, an array element's or a member's).
    Value,
    /// A member name or `}` right after `{`.
    FirstKey,
    /// An element or `]` right after `[`.
    FirstElement,
    /// `,` or the end of the enclosing container, after a value.
    AfterValue,
    /// The document's value is complete.
    Done,
}

/// Reads one JSON document event by event. Cloning a reader forks it: the
/// clone reads on from the same place.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    src: &'a str,
    pos: usize,
    expect: Expect,
    /// Open containers: `true` for objects.
    stack: Vec<bool>,
    /// Where the last value event's token starts.
    value_start: usize,
}

impl<'a> Reader<'a> {
    pub fn new(src: &'a str) -> Self {
        Reader {
            src,
            pos: 0,
            expect: Expect::Value,
            stack: Vec::new(),
            value_start: 0,
        }
    }

    /// The text of the value whose first event was the last one read (a
    /// scalar, or the `{` / `[` opening a container), read to its end: the
    /// value exactly as written, inner whitespace included.
    pub fn value_text(&mut self, first: Event<'a>) -> Result<&'a str, JsonError> {
        let start = self.value_start;
        let mut depth = match first {
            Event::ObjectStart | Event::ArrayStart => 1usize,
            _ => 0,
        };
        while depth > 0 {
            match self.next_event()? {
                Event::ObjectStart | Event::ArrayStart => depth += 1,
                Event::ObjectEnd | Event::ArrayEnd => depth -= 1,
                _ => {}
            }
        }
        Ok(self.src.get(start..self.pos).unwrap_or(""))
    }

    /// The byte offset of the next unread character.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// A syntax error at the current position.
    pub fn error(&self, reason: &str) -> JsonError {
        syntax_error(self.src, self.pos, reason)
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    fn skip_ws(&mut self) {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// The next event. After the document's value, [`Reader::finish`]
    /// checks that only whitespace follows.
    pub fn next_event(&mut self) -> Result<Event<'a>, JsonError> {
        self.skip_ws();
        match self.expect {
            Expect::Value => self.value(),
            Expect::FirstKey => {
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    self.close();
                    Ok(Event::ObjectEnd)
                } else {
                    self.key()
                }
            }
            Expect::FirstElement => {
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    self.close();
                    Ok(Event::ArrayEnd)
                } else {
                    self.value()
                }
            }
            Expect::AfterValue => {
                let in_object = self.stack.last().copied().unwrap_or(false);
                match (self.peek(), in_object) {
                    (Some(b','), true) => {
                        self.pos += 1;
                        self.skip_ws();
                        self.key()
                    }
                    (Some(b','), false) => {
                        self.pos += 1;
                        self.skip_ws();
                        self.value()
                    }
                    (Some(b'}'), true) => {
                        self.pos += 1;
                        self.close();
                        Ok(Event::ObjectEnd)
                    }
                    (Some(b']'), false) => {
                        self.pos += 1;
                        self.close();
                        Ok(Event::ArrayEnd)
                    }
                    (None, _) => Err(self.error("unexpected end of input")),
                    (_, true) => Err(self.error("expected `,` or `}`")),
                    (_, false) => Err(self.error("expected `,` or `]`")),
                }
            }
            Expect::Done => Err(self.error("the document has ended")),
        }
    }

    /// Checks that nothing but whitespace follows the document.
    pub fn finish(&mut self) -> Result<(), JsonError> {
        self.skip_ws();
        if self.expect != Expect::Done {
            return Err(self.error("unexpected end of input"));
        }
        if self.pos < self.src.len() {
            return Err(self.error("trailing characters after the document"));
        }
        Ok(())
    }

    /// Skips the value whose first event is `first` (a scalar or the start
    /// of a container), checking its syntax.
    pub fn skip_from(&mut self, first: Event<'a>) -> Result<(), JsonError> {
        let mut depth = match first {
            Event::ObjectStart | Event::ArrayStart => 1usize,
            _ => return Ok(()),
        };
        while depth > 0 {
            match self.next_event()? {
                Event::ObjectStart | Event::ArrayStart => depth += 1,
                Event::ObjectEnd | Event::ArrayEnd => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn close(&mut self) {
        self.stack.pop();
        self.expect = if self.stack.is_empty() {
            Expect::Done
        } else {
            Expect::AfterValue
        };
    }

    fn after_scalar(&mut self) {
        self.expect = if self.stack.is_empty() {
            Expect::Done
        } else {
            Expect::AfterValue
        };
    }

    fn open(&mut self, object: bool) -> Result<(), JsonError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error("nesting deeper than 100 levels"));
        }
        self.stack.push(object);
        self.pos += 1;
        self.expect = if object {
            Expect::FirstKey
        } else {
            Expect::FirstElement
        };
        Ok(())
    }

    fn key(&mut self) -> Result<Event<'a>, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.error(if self.peek().is_none() {
                "unexpected end of input"
            } else {
                "expected a member name in double quotes"
            }));
        }
        let text = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.error("expected `:` after a member name"));
        }
        self.pos += 1;
        self.expect = Expect::Value;
        Ok(Event::Key(text))
    }

    fn value(&mut self) -> Result<Event<'a>, JsonError> {
        self.value_start = self.pos;
        let Some(b) = self.peek() else {
            return Err(self.error("unexpected end of input"));
        };
        let event = match b {
            b'{' => {
                self.open(true)?;
                return Ok(Event::ObjectStart);
            }
            b'[' => {
                self.open(false)?;
                return Ok(Event::ArrayStart);
            }
            b'"' => Event::String(self.string()?),
            b't' => {
                self.literal("true")?;
                Event::Bool(true)
            }
            b'f' => {
                self.literal("false")?;
                Event::Bool(false)
            }
            b'n' => {
                self.literal("null")?;
                Event::Null
            }
            b'-' | b'0'..=b'9' => Event::Number(self.number()?),
            _ => return Err(self.error("expected a value")),
        };
        self.after_scalar();
        Ok(event)
    }

    fn literal(&mut self, word: &str) -> Result<(), JsonError> {
        if self.src[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn number(&mut self) -> Result<&'a str, JsonError> {
        let bytes = self.bytes();
        let start = self.pos;
        let mut i = self.pos;
        let digits = |i: &mut usize| {
            let from = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => {
                self.pos = i;
                return Err(self.error("invalid number"));
            }
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                self.pos = i;
                return Err(self.error("invalid number"));
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                self.pos = i;
                return Err(self.error("invalid number"));
            }
        }
        self.pos = i;
        Ok(&self.src[start..i])
    }

    /// Reads a string starting at its opening quote.
    fn string(&mut self) -> Result<Text<'a>, JsonError> {
        let bytes = self.bytes();
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = plain_run(bytes, i);
            let Some(&b) = bytes.get(i) else {
                self.pos = i;
                return Err(self.error("unterminated string"));
            };
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i = self.escape(i)?;
                }
                0..=0x1f => {
                    self.pos = i;
                    return Err(self.error("control character in a string"));
                }
                _ => i += 1,
            }
        }
        self.pos = i + 1;
        Ok(Text {
            raw: &self.src[start..i],
            escaped,
        })
    }

    /// Checks the escape at `at` (a backslash); returns the offset after it.
    fn escape(&mut self, at: usize) -> Result<usize, JsonError> {
        let bytes = self.bytes();
        let fail = |this: &mut Self, reason| {
            this.pos = at;
            Err(this.error(reason))
        };
        match bytes.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 2),
            Some(b'u') => {
                let Some(code) = hex4(bytes, at + 2) else {
                    return fail(self, "invalid \\u escape");
                };
                if (0xdc00..0xe000).contains(&code) {
                    return fail(self, "unpaired surrogate in a \\u escape");
                }
                if (0xd800..0xdc00).contains(&code) {
                    let low = (bytes.get(at + 6..at + 8) == Some(b"\\u"))
                        .then(|| hex4(bytes, at + 8))
                        .flatten();
                    return match low {
                        Some(low) if (0xdc00..0xe000).contains(&low) => Ok(at + 12),
                        _ => fail(self, "unpaired surrogate in a \\u escape"),
                    };
                }
                Ok(at + 6)
            }
            _ => fail(self, "invalid escape"),
        }
    }
}

/// The offset of the first byte at or after `i` that ends a run of plain
/// string bytes: `"`, `\\`, a control character, or the end. Eight bytes at
/// a time: a byte is flagged when it equals `"` or `\\`, or is below 0x20;
/// the lowest flagged byte of a word is always a real one.
fn plain_run(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let flagged = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        let flagged = flagged & HIGH;
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while bytes
        .get(i)
        .is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20)
    {
        i += 1;
    }
    i
}

/// A syntax error at byte `offset` of `src`, with its line and column.
pub(crate) fn syntax_error(src: &str, offset: usize, reason: &str) -> JsonError {
    let before = src.get(..offset).unwrap_or(src);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let column = before.rfind('\n').map_or(before.chars().count(), |nl| {
        before[nl + 1..].chars().count()
    }) + 1;
    JsonError::Syntax {
        line,
        column,
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec;

    #[test]
    fn plain_runs_stop_at_every_special_byte() {
        for at in 0..40usize {
            for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                let mut text = [b'a'; 40];
                // Bytes that look close to the specials must not stop the run.
                text[at.saturating_sub(1)] = 0x80 | special;
                text[at] = special;
                assert_eq!(plain_run(&text, 0), at, "{special:#x} at {at}");
                assert_eq!(plain_run(&text, at), at);
            }
        }
        for b in [0x20u8, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff] {
            assert_eq!(plain_run(&[b; 19], 0), 19, "{b:#x}");
        }
    }

    fn events(src: &str) -> Result<Vec<String>, JsonError> {
        let mut reader = Reader::new(src);
        let mut out = vec![];
        loop {
            let event = reader.next_event()?;
            out.push(match event {
                Event::Key(t) | Event::String(t) => {
                    let mut buf = Vec::new();
                    t.decode_into(&mut buf);
                    String::from_utf8(buf).unwrap()
                }
                Event::Number(n) => n.into(),
                other => other.describe().into(),
            });
            if reader.expect == Expect::Done {
                reader.finish()?;
                return Ok(out);
            }
        }
    }

    #[test]
    fn reads_nested_documents() {
        let got = events(
            r#" {"a": [1, -2.5e3, true, null], "b\n": {"c": "x\u00e9\ud83d\ude00"}, "d": {}} "#,
        )
        .unwrap();
        let want = [
            "an object",
            "a",
            "an array",
            "1",
            "-2.5e3",
            "a boolean",
            "null",
            "an array",
            "b\n",
            "an object",
            "c",
            "xé😀",
            "an object",
            "d",
            "an object",
            "an object",
            "an object",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn rejects_malformed_documents_with_a_position() {
        let cases = [
            ("{\"a\" 1}", 1, 6),
            ("[1,]", 1, 4),
            ("{\"a\":1,}", 1, 8),
            ("01", 1, 2),
            ("1.", 1, 3),
            ("\"abc", 1, 5),
            ("\"a\\x\"", 1, 3),
            ("\"\\ud800\"", 1, 2),
            ("[1] 2", 1, 5),
            ("{\n  \"a\": tru}", 2, 8),
            ("", 1, 1),
        ];
        for (src, line, column) in cases {
            match events(src) {
                Err(JsonError::Syntax {
                    line: l, column: c, ..
                }) => assert_eq!((l, c), (line, column), "{src:?}"),
                other => panic!("{src:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn depth_is_limited() {
        let deep = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(events(&deep).is_ok());
        let deeper = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(matches!(events(&deeper), Err(JsonError::Syntax { .. })));
    }
}
