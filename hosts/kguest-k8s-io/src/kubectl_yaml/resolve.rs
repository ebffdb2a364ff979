//! go-yaml v2's implicit resolution (resolve.go).

/// True when go-yaml reads `s`, written plain, back as a string (not a
/// bool, null, int, float or timestamp).
pub(super) fn resolves_to_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null",
        "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    let Some(&first) = s.as_bytes().first() else {
        return false;
    };
    let hint = match first {
        b'+' | b'-' | b'0'..=b'9' => b'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => b'M',
        b'.' => b'.',
        _ => return true,
    };
    if SPECIAL.contains(&s) {
        return false;
    }
    match hint {
        b'.' => !go_parse_float(s),
        b'D' => {
            if is_timestamp(s) {
                return false;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if go_parse_int(&plain, 0) || go_parse_uint(&plain, 0) {
                return false;
            }
            if is_yaml_float(&plain) && go_parse_float(&plain) {
                return false;
            }
            // `0b` then a binary number, which may carry its own sign.
            match (plain.strip_prefix("0b"), plain.strip_prefix("-0b")) {
                (Some(rest), _) => !(go_parse_int(rest, 2) || go_parse_uint(rest, 2)),
                (None, Some(rest)) => !go_parse_int(&format!("-{rest}"), 2),
                (None, None) => true,
            }
        }
        _ => true,
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Whether Go's `strconv.ParseUint(s, base, 64)` succeeds (base 0: `0b`,
/// `0o`, `0x` or a leading `0` for octal; the caller removed underscores).
fn go_parse_uint(s: &str, base: u32) -> bool {
    go_uint_value(s, base).is_some()
}

fn go_uint_value(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (digits, base) = if base == 0 {
        let b = s.as_bytes();
        if b[0] == b'0' {
            match b.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if b.len() >= 3 => (&s[2..], 2),
                Some(b'o') if b.len() >= 3 => (&s[2..], 8),
                Some(b'x') if b.len() >= 3 => (&s[2..], 16),
                _ => (&s[1..], 8),
            }
        } else {
            (s, 10)
        }
    } else {
        (s, base)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(36)?;
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Whether Go's `strconv.ParseInt(s, base, 64)` succeeds.
fn go_parse_int(s: &str, base: u32) -> bool {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    match go_uint_value(rest, base) {
        Some(n) if negative => n <= 1 << 63,
        Some(n) => n < 1 << 63,
        None => false,
    }
}

/// Whether Go's `strconv.ParseFloat(s, 64)` succeeds, for the strings
/// `resolve` hands it: decimal syntax (underscores between digits allowed),
/// and the value in range.
fn go_parse_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower = rest.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return true;
    }
    if lower == "nan" && i == 0 {
        return true;
    }
    if rest.len() > 2 && rest.starts_with('0') && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        // Hexadecimal floats never reach here: `resolve` only parses
        // strings that start with '.' or match the decimal float pattern.
        return false;
    }
    let mut saw_dot = false;
    let mut saw_digits = false;
    let mut underscores = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'_' => underscores = true,
            b'.' if !saw_dot => saw_dot = true,
            b'0'..=b'9' => saw_digits = true,
            _ => break,
        }
        i += 1;
    }
    if !saw_digits {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while matches!(b.get(i), Some(b'0'..=b'9' | b'_')) {
            underscores |= b[i] == b'_';
            i += 1;
        }
    }
    if i != b.len() || (underscores && !underscores_ok(s)) {
        return false;
    }
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    plain.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Go's `underscoreOK` for a decimal number: each underscore between digits.
fn underscores_ok(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let mut saw = '^';
    for c in s.chars() {
        if c.is_ascii_digit() {
            saw = '0';
        } else if c == '_' {
            if saw != '0' {
                return false;
            }
            saw = '_';
        } else {
            if saw == '_' {
                return false;
            }
            saw = '!';
        }
    }
    saw != '_'
}

/// go-yaml's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub(super) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    if !s.contains(':') {
        return false;
    }
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while matches!(b.get(i), Some(b'0'..=b'9' | b'_')) {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // [0-5]?[0-9]: one digit, or [0-5] then a digit.
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(b'0'..=b'9')) => i += 2,
            (Some(b'0'..=b'9'), _) => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while matches!(b.get(i), Some(b'0'..=b'9' | b'_')) {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml's `parseTimestamp`: four digits and `-`, then one of the layouts
/// `2006-1-2T15:4:5.999999999Z07:00` (also with `t`),
/// `2006-1-2 15:4:5.999999999` or `2006-1-2`, as Go's `time.Parse` reads
/// them.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year = b[..4]
        .iter()
        .fold(0u32, |y, &d| y * 10 + u32::from(d - b'0'));
    let mut p = TimeParser { b, i: 5 };
    let Some(month) = p.num() else { return false };
    if !p.lit(b'-') {
        return false;
    }
    let Some(day) = p.num() else { return false };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    if p.i == b.len() {
        return true;
    }
    let zoned = match b[p.i] {
        b'T' | b't' => true,
        b' ' => false,
        _ => return false,
    };
    p.i += 1;
    let Some(hour) = p.num() else { return false };
    if !p.lit(b':') {
        return false;
    }
    let Some(minute) = p.num() else { return false };
    if !p.lit(b':') {
        return false;
    }
    let Some(second) = p.num() else { return false };
    if hour >= 24 || minute >= 60 || second >= 60 {
        return false;
    }
    // An optional fraction: `.` or `,` and digits.
    if matches!(b.get(p.i), Some(b'.' | b',')) && b.get(p.i + 1).is_some_and(u8::is_ascii_digit) {
        p.i += 1;
        while b.get(p.i).is_some_and(u8::is_ascii_digit) {
            p.i += 1;
        }
    }
    if !zoned {
        return p.i == b.len();
    }
    match b.get(p.i) {
        Some(b'Z') => p.i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let zone = &b[p.i + 1..];
            zone.len() == 5
                && zone[0].is_ascii_digit()
                && zone[1].is_ascii_digit()
                && zone[2] == b':'
                && zone[3].is_ascii_digit()
                && zone[4].is_ascii_digit()
                && (zone[0] - b'0') * 10 + (zone[1] - b'0') <= 24
                && (zone[3] - b'0') * 10 + (zone[4] - b'0') <= 60
        }
        _ => false,
    }
}

struct TimeParser<'a> {
    b: &'a [u8],
    i: usize,
}

impl TimeParser<'_> {
    /// One or two digits (Go's `getnum` for a non-padded field).
    fn num(&mut self) -> Option<u32> {
        let first = *self.b.get(self.i).filter(|d| d.is_ascii_digit())?;
        self.i += 1;
        let mut n = u32::from(first - b'0');
        if let Some(&d) = self.b.get(self.i).filter(|d| d.is_ascii_digit()) {
            self.i += 1;
            n = n * 10 + u32::from(d - b'0');
        }
        Some(n)
    }

    fn lit(&mut self, c: u8) -> bool {
        let ok = self.b.get(self.i) == Some(&c);
        self.i += usize::from(ok);
        ok
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
