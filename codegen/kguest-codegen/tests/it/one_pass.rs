//! One-pass reads (`view.read((View::A, View::B, ..))`) of the blessed
//! snapshots give exactly what the accessors give: on hand-made corner
//! cases (oneofs, duplicates, wrong wire types, packed and unpacked runs,
//! repeated map keys, malformed tails) and on seeded random messages.

use crate::enc::Enc;
use crate::kt::scalars::Scalars;
use crate::kt::shapes::Pod;

/// Every field of a `kt.shapes.Pod`, read through its accessor or in one
/// pass, in a comparable text form. Messages compare by their bytes,
/// floats by their bits.
fn pod_fields(bytes: &[u8], one_pass: bool) -> Vec<String> {
    let pod = Pod::from_bytes(bytes);
    let msg = |v: Option<&[u8]>| format!("{v:?}");
    if !one_pass {
        return vec![
            format!("{:?}", pod.count()),
            format!("{:?}", pod.maybe()),
            format!("{:?}", pod.phase()),
            format!("{:?}", pod.phases().collect::<Vec<_>>()),
            msg(pod.spec().map(|s| s.as_bytes())),
            format!(
                "{:?}",
                pod.containers().map(|c| c.as_bytes()).collect::<Vec<_>>()
            ),
            format!("{:?}", pod.url()),
            format!("{:?}", pod.inline()),
            msg(pod.other().map(|s| s.as_bytes())),
            format!("{:?}", pod.labels().collect::<Vec<_>>()),
            format!(
                "{:?}",
                pod.by_port()
                    .map(|(k, v)| (k, v.as_bytes()))
                    .collect::<Vec<_>>()
            ),
            format!("{:?}", pod.phase_by_id().collect::<Vec<_>>()),
            format!(
                "{:?}",
                pod.weights()
                    .map(|(k, v)| (k, v.to_bits()))
                    .collect::<Vec<_>>()
            ),
            format!(
                "{:?}",
                pod.scalars_by_key()
                    .map(|(k, v)| (k, v.as_bytes()))
                    .collect::<Vec<_>>()
            ),
            msg(pod.scalars().map(|s| s.as_bytes())),
            format!("{:?}", pod.sizes().collect::<Vec<_>>()),
            format!("{:?}", pod.sizes_unpacked().collect::<Vec<_>>()),
            msg(pod.names().map(|s| s.as_bytes())),
        ];
    }
    let (count, maybe, phase, phases, spec, containers, url, inline, other) = pod.read((
        Pod::COUNT,
        Pod::MAYBE,
        Pod::PHASE,
        Pod::PHASES,
        Pod::SPEC,
        Pod::CONTAINERS,
        Pod::URL,
        Pod::INLINE,
        Pod::OTHER,
    ));
    let (labels, by_port, phase_by_id, weights, scalars_by_key, scalars, sizes, unpacked, names) =
        pod.read((
            Pod::LABELS,
            Pod::BY_PORT,
            Pod::PHASE_BY_ID,
            Pod::WEIGHTS,
            Pod::SCALARS_BY_KEY,
            Pod::SCALARS,
            Pod::SIZES,
            Pod::SIZES_UNPACKED,
            Pod::NAMES,
        ));
    vec![
        format!("{count:?}"),
        format!("{maybe:?}"),
        format!("{phase:?}"),
        format!("{:?}", phases.collect::<Vec<_>>()),
        msg(spec.map(|s| s.as_bytes())),
        format!("{:?}", containers.map(|c| c.as_bytes()).collect::<Vec<_>>()),
        format!("{url:?}"),
        format!("{inline:?}"),
        msg(other.map(|s| s.as_bytes())),
        format!("{:?}", labels.collect::<Vec<_>>()),
        format!(
            "{:?}",
            by_port.map(|(k, v)| (k, v.as_bytes())).collect::<Vec<_>>()
        ),
        format!("{:?}", phase_by_id.collect::<Vec<_>>()),
        format!(
            "{:?}",
            weights.map(|(k, v)| (k, v.to_bits())).collect::<Vec<_>>()
        ),
        format!(
            "{:?}",
            scalars_by_key
                .map(|(k, v)| (k, v.as_bytes()))
                .collect::<Vec<_>>()
        ),
        msg(scalars.map(|s| s.as_bytes())),
        format!("{:?}", sizes.collect::<Vec<_>>()),
        format!("{:?}", unpacked.collect::<Vec<_>>()),
        msg(names.map(|s| s.as_bytes())),
    ]
}

/// Every field of a `kt.scalars.Scalars`, as [`pod_fields`] does.
fn scalars_fields(bytes: &[u8], one_pass: bool) -> Vec<String> {
    let s = Scalars::from_bytes(bytes);
    if !one_pass {
        return vec![
            format!("{:?}", s.opt_double().map(f64::to_bits)),
            format!("{:?}", s.opt_float().map(f32::to_bits)),
            format!("{:?}", s.opt_int32()),
            format!("{:?}", s.opt_int64()),
            format!("{:?}", s.opt_uint32()),
            format!("{:?}", s.opt_uint64()),
            format!("{:?}", s.opt_sint32()),
            format!("{:?}", s.opt_sint64()),
            format!("{:?}", s.opt_fixed32()),
            format!("{:?}", s.opt_fixed64()),
            format!("{:?}", s.opt_sfixed32()),
            format!("{:?}", s.opt_sfixed64()),
            format!("{:?}", s.opt_bool()),
            format!("{:?}", s.opt_string()),
            format!("{:?}", s.opt_string_bytes()),
            format!("{:?}", s.opt_bytes()),
            format!("{:?}", s.color()),
            format!("{:?}", s.id()),
            format!("{:?}", s.unpacked().collect::<Vec<_>>()),
            format!("{:?}", s.packed().collect::<Vec<_>>()),
            format!("{:?}", s.packed_fixed().collect::<Vec<_>>()),
            format!("{:?}", s.doubles().map(f64::to_bits).collect::<Vec<_>>()),
            format!("{:?}", s.names().collect::<Vec<_>>()),
            format!("{:?}", s.blobs().collect::<Vec<_>>()),
            format!("{:?}", s.colors().collect::<Vec<_>>()),
            format!("{:?}", s.last()),
        ];
    }
    let (double, float, int32, int64, uint32, uint64, sint32, sint64) = s.read((
        Scalars::OPT_DOUBLE,
        Scalars::OPT_FLOAT,
        Scalars::OPT_INT32,
        Scalars::OPT_INT64,
        Scalars::OPT_UINT32,
        Scalars::OPT_UINT64,
        Scalars::OPT_SINT32,
        Scalars::OPT_SINT64,
    ));
    let (fixed32, fixed64, sfixed32, sfixed64, bool_, string, string_bytes, bytes_) = s.read((
        Scalars::OPT_FIXED32,
        Scalars::OPT_FIXED64,
        Scalars::OPT_SFIXED32,
        Scalars::OPT_SFIXED64,
        Scalars::OPT_BOOL,
        Scalars::OPT_STRING,
        Scalars::OPT_STRING.bytes(),
        Scalars::OPT_BYTES,
    ));
    let (color, id, unpacked, packed, packed_fixed, doubles, names, blobs, colors, last) =
        s.read((
            Scalars::COLOR,
            Scalars::ID,
            Scalars::UNPACKED,
            Scalars::PACKED,
            Scalars::PACKED_FIXED,
            Scalars::DOUBLES,
            Scalars::NAMES,
            Scalars::BLOBS,
            Scalars::COLORS,
            Scalars::LAST,
        ));
    vec![
        format!("{:?}", double.map(f64::to_bits)),
        format!("{:?}", float.map(f32::to_bits)),
        format!("{int32:?}"),
        format!("{int64:?}"),
        format!("{uint32:?}"),
        format!("{uint64:?}"),
        format!("{sint32:?}"),
        format!("{sint64:?}"),
        format!("{fixed32:?}"),
        format!("{fixed64:?}"),
        format!("{sfixed32:?}"),
        format!("{sfixed64:?}"),
        format!("{bool_:?}"),
        format!("{string:?}"),
        format!("{string_bytes:?}"),
        format!("{bytes_:?}"),
        format!("{color:?}"),
        format!("{id:?}"),
        format!("{:?}", unpacked.collect::<Vec<_>>()),
        format!("{:?}", packed.collect::<Vec<_>>()),
        format!("{:?}", packed_fixed.collect::<Vec<_>>()),
        format!("{:?}", doubles.map(f64::to_bits).collect::<Vec<_>>()),
        format!("{:?}", names.collect::<Vec<_>>()),
        format!("{:?}", blobs.collect::<Vec<_>>()),
        format!("{:?}", colors.collect::<Vec<_>>()),
        format!("{last:?}"),
    ]
}

fn assert_same(label: &str, bytes: &[u8]) {
    assert_eq!(
        pod_fields(bytes, true),
        pod_fields(bytes, false),
        "{label}: Pod {bytes:02x?}"
    );
    assert_eq!(
        scalars_fields(bytes, true),
        scalars_fields(bytes, false),
        "{label}: Scalars {bytes:02x?}"
    );
}

/// Corner cases, each read as a `kt.shapes.Pod` and as a `kt.scalars.Scalars`.
fn corner_cases() -> Vec<(&'static str, Vec<u8>)> {
    let entry = |k: &str, v: &str| Enc::new().str(1, k).str(2, v);
    let container = |name: &str| Enc::new().str(1, name);
    vec![
        ("empty", Vec::new()),
        (
            "last occurrence wins, unknown fields between",
            Enc::new()
                .varint(1, 1)
                .str(14, "first")
                .varint(99, 5)
                .varint(1, 2)
                .str(14, "second")
                .finish(),
        ),
        (
            "wrong wire type in the last occurrence",
            Enc::new().varint(3, 1).fixed64(3, 2).str(1, "x").finish(),
        ),
        (
            "oneof: url then inline",
            Enc::new().str(7, "u").bytes(8, b"i").finish(),
        ),
        (
            "oneof: inline then url, url again",
            Enc::new()
                .bytes(8, b"i")
                .str(7, "u1")
                .varint(1, 3)
                .str(7, "u2")
                .finish(),
        ),
        (
            "oneof: other last, unknown after",
            Enc::new()
                .str(7, "u")
                .msg(9, container("o"))
                .varint(100, 1)
                .finish(),
        ),
        (
            "oneof: member then sibling then member",
            Enc::new().str(7, "u").bytes(8, b"i").str(7, "v").finish(),
        ),
        (
            "repeated interleaved with other fields",
            Enc::new()
                .msg(6, container("a"))
                .varint(1, 1)
                .msg(6, container("b"))
                .packed(16, &[1, 2])
                .msg(6, container("c"))
                .varint(16, 3)
                .finish(),
        ),
        (
            "packed and unpacked mixed, empty run",
            Enc::new()
                .varint(4, 1)
                .packed(4, &[2, 3])
                .packed(4, &[])
                .varint(17, 5)
                .packed(17, &[6, 7])
                .varint(20, 1)
                .packed(20, &[2, 3])
                .sint(21, -1)
                .packed(21, &[4, 5])
                .bytes(22, &[1, 0, 0, 0])
                .fixed32(22, 9)
                .finish(),
        ),
        (
            "a packed run with a truncated element",
            Enc::new()
                .varint(16, 1)
                .bytes(16, &[2, 0x80])
                .varint(16, 4)
                .finish(),
        ),
        (
            "a repeated string with bad UTF-8 in the middle",
            Enc::new()
                .str(24, "ok")
                .bytes(24, &[0xc0])
                .str(24, "after")
                .finish(),
        ),
        (
            "maps: repeated keys, missing parts, malformed entry",
            Enc::new()
                .msg(10, entry("a", "1"))
                .msg(10, entry("b", "2"))
                .varint(1, 5)
                .msg(10, entry("a", "3"))
                .msg(10, Enc::new().str(2, "no-key"))
                .msg(11, Enc::new().varint(1, 8080).msg(2, container("web")))
                .msg(13, Enc::new().fixed64(2, 0.75f64.to_bits()))
                .msg(10, Enc::new().varint(1, 5))
                .msg(10, entry("c", "4"))
                .finish(),
        ),
        (
            "malformed tail after every field",
            Enc::new()
                .varint(1, 1)
                .msg(6, container("a"))
                .msg(6, container("b"))
                .msg(10, entry("a", "1"))
                .str(7, "u")
                .raw(&[0x12, 0x05, b'a'])
                .finish(),
        ),
        (
            "malformed between repeated occurrences",
            Enc::new()
                .msg(6, container("a"))
                .varint(16, 1)
                .raw(&[0x0b])
                .msg(6, container("b"))
                .finish(),
        ),
        (
            "field number 0",
            Enc::new().varint(1, 1).raw(&[0x00, 0x01]).finish(),
        ),
        (
            "overlong varint value",
            Enc::new()
                .varint(2, 1)
                .raw(&[
                    0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
                ])
                .finish(),
        ),
        (
            "padded varints and the largest field number",
            Enc::new()
                .raw(&[0x08, 0x85, 0x80, 0x00])
                .varint(536_870_911, 7)
                .varint(17, 42)
                .finish(),
        ),
        (
            "a singular message split in two",
            Enc::new()
                .msg(5, Enc::new().str(1, "a"))
                .msg(15, Enc::new().varint(17, 1))
                .msg(5, Enc::new().str(1, "b"))
                .finish(),
        ),
    ]
}

#[test]
fn one_pass_reads_equal_the_accessors_on_corner_cases() {
    for (label, bytes) in corner_cases() {
        assert_same(label, &bytes);
        // Every truncation too: the malformed point moves through the input.
        for end in 0..bytes.len() {
            assert_same(label, &bytes[..end]);
        }
    }
}

#[test]
fn one_pass_reads_give_the_expected_values() {
    // Not only equal to the accessors: the values themselves.
    let bytes = Enc::new()
        .str(7, "u")
        .varint(1, 3)
        .bytes(8, b"i")
        .packed(16, &[1, 2])
        .msg(6, Enc::new().str(1, "a"))
        .varint(16, 3)
        .msg(10, Enc::new().str(1, "k").str(2, "v"))
        .finish();
    let pod = Pod::from_bytes(&bytes);
    let (url, inline, count, sizes, containers, labels) = pod.read((
        Pod::URL,
        Pod::INLINE,
        Pod::COUNT,
        Pod::SIZES,
        Pod::CONTAINERS,
        Pod::LABELS,
    ));
    assert_eq!(url, None, "a later member of the oneof shadows url");
    assert_eq!(inline, Some(&b"i"[..]));
    assert_eq!(count, Some(3));
    assert_eq!(sizes.collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(
        containers.map(|c| c.name()).collect::<Vec<_>>(),
        [Some("a")]
    );
    assert_eq!(labels.get("k"), Some("v"));
    // The same field twice, and a one-element tuple.
    let (a, b) = pod.read((Pod::COUNT, Pod::COUNT));
    assert_eq!((a, b), (Some(3), Some(3)));
    assert_eq!(pod.read((Pod::URL.bytes(),)), (None,));
    assert_eq!(Pod::SIZES.number(), 16);
    // Malformed anywhere: singular fields give up, iterators keep what
    // precedes the malformed field.
    let mut bad = bytes.clone();
    bad.extend([0x0b]);
    let (count, sizes) = Pod::from_bytes(&bad).read((Pod::COUNT, Pod::SIZES));
    assert_eq!(count, None);
    assert_eq!(sizes.collect::<Vec<_>>(), [1, 2, 3]);
}

/// A small deterministic generator (Knuth's MMIX LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random message: fields numbered 1..=27 (both test messages' numbers
/// and unknown ones) with random wire types, values, nested entries and
/// packed runs; sometimes corrupted.
fn random_message(rng: &mut Lcg, depth: u32) -> Enc {
    let mut enc = Enc::new();
    for _ in 0..rng.below(12) {
        let field = 1 + rng.below(27) as u32;
        enc = match rng.below(8) {
            0 | 1 => enc.varint(field, rng.next() >> rng.below(40)),
            2 => enc.fixed32(field, rng.next() as u32),
            3 => enc.fixed64(field, rng.next() << 31 | rng.next()),
            4 => enc.str(field, ["", "a", "k", "héllo"][rng.below(4) as usize]),
            5 => enc.packed(field, &[rng.below(300), rng.below(3)]),
            6 if depth < 2 => enc.msg(field, random_message(rng, depth + 1)),
            _ => enc.msg(
                field,
                Enc::new()
                    .str(1, ["a", "b"][rng.below(2) as usize])
                    .str(2, "v"),
            ),
        };
    }
    enc
}

#[test]
fn one_pass_reads_equal_the_accessors_on_random_messages() {
    let mut rng = Lcg(0x5eed_0e9a);
    for case in 0..3000 {
        let mut bytes = random_message(&mut rng, 0).finish();
        if case % 3 == 0 && !bytes.is_empty() {
            // Corrupt one byte or cut the message short.
            let at = rng.below(bytes.len() as u64) as usize;
            if rng.below(2) == 0 {
                bytes[at] = rng.next() as u8;
            } else {
                bytes.truncate(at);
            }
        }
        assert_same(&format!("random case {case}"), &bytes);
    }
}
