//! The emitter (go-yaml v2's emitterc.go, block context only).

use super::read::Value;
use super::style::{Style, analyze, is_break, is_printable, requested_style, select_style};

/// go-yaml v2's preferred line width.
const BEST_WIDTH: usize = 80;
/// go-yaml v2's indent step.
const BEST_INDENT: i64 = 2;
/// The longest key go-yaml writes as `key: value` (longer: `? key`).
const MAX_SIMPLE_KEY: usize = 128;

/// Where a node is being written.
#[derive(Clone, Copy)]
pub(super) struct Context {
    /// A mapping's key or value.
    mapping: bool,
    /// A key written as `key: value`.
    simple_key: bool,
}

impl Context {
    /// The document's node or a sequence's item.
    pub(super) const ROOT: Context = Context {
        mapping: false,
        simple_key: false,
    };
    const ITEM: Context = Context::ROOT;
    const VALUE: Context = Context {
        mapping: true,
        simple_key: false,
    };
    const SIMPLE_KEY: Context = Context {
        mapping: true,
        simple_key: true,
    };
}

pub(super) struct Emitter {
    pub(super) out: String,
    /// Characters (not bytes) since the last line break.
    column: usize,
    /// The last character written is whitespace (or nothing yet).
    whitespace: bool,
    /// Only indentation (and indicators like `- `) on this line so far.
    indention: bool,
    indent: i64,
    indents: Vec<i64>,
}

impl Emitter {
    pub(super) fn new() -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// A line break taken from a scalar: `\n` as itself; another break
    /// character is copied and starts a new line as far as columns go.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    pub(super) fn write_indent(&mut self) {
        let indent = usize::try_from(self.indent.max(0)).unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    pub(super) fn node(&mut self, value: &Value, ctx: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, ctx),
            Value::Bool(true) => self.scalar("true", Style::Plain, ctx),
            Value::Bool(false) => self.scalar("false", Style::Plain, ctx),
            Value::Number(n) => self.scalar(n, Style::Plain, ctx),
            Value::String(s) => self.string(s, ctx),
            Value::Seq(items) if items.is_empty() => self.write_indicator("[]", true, false, false),
            Value::Map(members) if members.is_empty() => {
                self.write_indicator("{}", true, false, false);
            }
            Value::Seq(items) => {
                self.increase_indent(false, ctx.mapping && !self.indention);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::ITEM);
                }
                self.pop_indent();
            }
            Value::Map(members) => {
                self.increase_indent(false, false);
                for (key, value) in members {
                    self.write_indent();
                    let simple = !key.contains(is_break) && key.len() <= MAX_SIMPLE_KEY;
                    if simple {
                        self.string(key, Context::SIMPLE_KEY);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.string(key, Context::VALUE);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(value, Context::VALUE);
                }
                self.pop_indent();
            }
        }
    }

    fn string(&mut self, s: &str, ctx: Context) {
        let analysis = analyze(s);
        let style = select_style(requested_style(s), &analysis, ctx.simple_key, s.is_empty());
        self.scalar(s, style, ctx);
    }

    fn scalar(&mut self, value: &str, style: Style, ctx: Context) {
        self.increase_indent(true, false);
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.plain(value, allow_breaks),
            Style::SingleQuoted => self.single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.double_quoted(value, allow_breaks),
            Style::Literal => self.literal(value),
        }
        self.pop_indent();
    }

    fn plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let last = chars.len().saturating_sub(1);
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < last
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        // go-yaml escapes every character of a string that starts with a
        // byte order mark.
        let bom = value.starts_with('\u{feff}');
        let chars: Vec<char> = value.chars().collect();
        let last = chars.len().saturating_sub(1);
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || bom || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{b}' => Some('v'),
                    '\u{c}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1b}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match short {
                    Some(s) => self.put(s),
                    None => {
                        let code = c as u32;
                        let (letter, width) = match code {
                            0..=0xff => ('x', 2),
                            0x100..=0xffff => ('u', 4),
                            _ => ('U', 8),
                        };
                        self.put(letter);
                        for k in (0..width).rev() {
                            let digit = (code >> (4 * k)) & 0xf;
                            self.put(
                                char::from_digit(digit, 16).map_or('0', |d| d.to_ascii_uppercase()),
                            );
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i < last {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        // Chomping: `-` without a final break, `+` when the text is one
        // break or ends with two, none (clip) for exactly one final break.
        let n = chars.len();
        let chomp = match n {
            0 => Some('-'),
            _ if !is_break(chars[n - 1]) => Some('-'),
            1 => Some('+'),
            _ if is_break(chars[n - 2]) => Some('+'),
            _ => None,
        };
        if let Some(c) = chomp {
            let mut buf = [0u8; 4];
            self.write_indicator(c.encode_utf8(&mut buf), false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}
