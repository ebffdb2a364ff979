//! Arbitrary bytes through the scalar parsers of kguest-wire.
//!
//! Quantities: `parse`, `scaled` and `reserialize` never panic; `scaled(s, k)`,
//! when it returns a value, equals `parse(s)?.scaled_value(k)`; the canonical
//! form re-parses to an equal value with the same canonical form; what
//! `reserialize` returns re-parses to an equal value.
//!
//! Also (cheap, same kind of input) RFC 3339 times and Go durations: parse →
//! format → parse is the identity on what was parsed.

#![no_main]

use kguest_wire::quantity;
use kguest_wire::timefmt;
use libfuzzer_sys::fuzz_target;

/// Scales every guest is likely to use, plus extremes (below nano, `scaled`
/// must return `None` or agree with `parse`, which rounds to nano first).
const SCALES: [i32; 11] = [-9, -6, -3, 0, 1, 3, 6, 9, 18, -30, 40];

fn check_quantity(s: &[u8], extra_scale: i32) {
    let parsed = quantity::parse(s);
    for scale in SCALES.into_iter().chain([extra_scale]) {
        if let Some(fast) = quantity::scaled(s, scale) {
            let q = parsed.unwrap_or_else(|err| {
                panic!("scaled({s:?}, {scale}) = {fast} but parse fails: {err:?}")
            });
            assert_eq!(
                q.scaled_value(scale),
                Some(fast),
                "scaled({s:?}, {scale}) disagrees with parse({s:?}) = {q:?}"
            );
        }
    }
    let Ok(q) = parsed else {
        return;
    };
    for scale in SCALES.into_iter().chain([extra_scale]) {
        std::hint::black_box(q.scaled_value(scale));
    }
    let mut buf = [0u8; 64];
    let canonical = q.canonical(&mut buf).to_string();
    let again = quantity::parse(canonical.as_bytes())
        .unwrap_or_else(|err| panic!("canonical {canonical:?} of {s:?} does not parse: {err:?}"));
    // Go's canonical form of a DecimalSI value past `E` drops the exponent
    // (`5000E` is `5`), and kguest writes what Go writes.
    let past_e = q.format() == quantity::Format::DecimalSI && q.exponent().div_euclid(3) * 3 > 18;
    assert!(
        again == q || past_e,
        "canonical {canonical:?} of {s:?} changes the value"
    );
    assert!(
        again.cmp_exact(&q) == std::cmp::Ordering::Equal || past_e,
        "canonical {canonical:?} of {s:?}: cmp_exact disagrees with =="
    );
    // A binary value that is not a multiple of 1024 prints with no suffix
    // ("10312.5Ki" -> "10560000"), which re-parses as decimal SI and then
    // prints "10560k": Kubernetes does the same, so the canonical form is a
    // fixed point only from the second round on (or at once when decimal).
    let mut buf2 = [0u8; 64];
    let second = again.canonical(&mut buf2).to_string();
    if q.format() != quantity::Format::BinarySI {
        assert_eq!(
            second, canonical,
            "canonical form of {s:?} is not a fixed point"
        );
    }
    let third_q = quantity::parse(second.as_bytes())
        .unwrap_or_else(|err| panic!("{second:?} (from {s:?}) does not parse: {err:?}"));
    assert_eq!(
        third_q, q,
        "{s:?} -> {canonical:?} -> {second:?} changes the value"
    );
    let mut buf4 = [0u8; 64];
    assert_eq!(
        third_q.canonical(&mut buf4),
        second,
        "canonical form of {s:?} is not a fixed point after two rounds"
    );
    let mut buf3 = [0u8; 64];
    let kept = quantity::reserialize(s, &mut buf3)
        .unwrap_or_else(|err| panic!("{s:?} parses but reserialize fails: {err:?}"))
        .to_string();
    let kept_q = quantity::parse(kept.as_bytes())
        .unwrap_or_else(|err| panic!("reserialize({s:?}) = {kept:?} does not parse: {err:?}"));
    assert_eq!(kept_q, q, "reserialize({s:?}) = {kept:?} changes the value");
}

fn check_time(s: &[u8]) {
    if let Some((seconds, nanos)) = timefmt::parse_rfc3339(s) {
        assert!((0..1_000_000_000).contains(&nanos), "{s:?}: nanos {nanos}");
        assert!(
            (timefmt::MIN_SECONDS..=timefmt::MAX_SECONDS).contains(&seconds),
            "{s:?}: seconds {seconds} out of range"
        );
        let mut buf = [0u8; 40];
        let text = timefmt::format_rfc3339(seconds, nanos, 9, &mut buf)
            .unwrap_or_else(|| {
                panic!("{s:?} parses to ({seconds}, {nanos}) but cannot be formatted")
            })
            .to_string();
        assert_eq!(
            timefmt::parse_rfc3339(text.as_bytes()),
            Some((seconds, nanos)),
            "{s:?} -> {text:?} does not round-trip"
        );
    }
    if let Some(nanos) = timefmt::parse_go_duration(s) {
        let mut buf = [0u8; 40];
        let text = timefmt::format_go_duration(nanos, &mut buf).to_string();
        assert_eq!(
            timefmt::parse_go_duration(text.as_bytes()),
            Some(nanos),
            "{s:?} -> {nanos} ns -> {text:?} does not round-trip"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    // The last two bytes (when present) pick one more scale; the quantity is
    // tried both with and without them.
    let extra = match data {
        [.., a, b] => i32::from(i16::from_le_bytes([*a, *b])) % 64,
        _ => 0,
    };
    check_quantity(data, extra);
    if data.len() >= 2 {
        check_quantity(&data[..data.len() - 2], extra);
    }
    check_time(data);
});
