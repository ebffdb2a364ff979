//! Numbers as go-yaml v2 prints them after reading JSON.

/// go-yaml's text for a JSON number: `int64`, then `uint64`, then `float64`;
/// a number out of float range stays a string (its own text, plain).
pub(super) fn number(text: &str) -> String {
    if let Ok(i) = text.parse::<i64>() {
        return i.to_string();
    }
    if let Ok(u) = text.parse::<u64>() {
        return u.to_string();
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => format_float(f),
        _ => text.into(),
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)` for a finite `f`.
fn format_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest digits that read back as `f`, as
    // Go's shortest formatting does: `-1.2345e-7`.
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let nd = digits.len() as i64;
    let dp = exponent + 1;
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    // Shortest 'g': %e when the exponent is < -4 or >= 6 (Go uses 6 as the
    // precision for this choice, whatever the number of digits).
    if !(-4..6).contains(&exponent) {
        out.push(char::from(digits[0]));
        if nd > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|&d| char::from(d)));
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        let e = exponent.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    } else {
        if dp > 0 {
            for i in 0..dp {
                out.push(digits.get(i as usize).map_or('0', |&d| char::from(d)));
            }
        } else {
            out.push('0');
        }
        let decimals = (nd - dp).max(0);
        if decimals > 0 {
            out.push('.');
            for i in 0..decimals {
                let at = dp + i;
                let d = if at >= 0 {
                    digits.get(at as usize)
                } else {
                    None
                };
                out.push(d.map_or('0', |&d| char::from(d)));
            }
        }
    }
    out
}
