//! The blessed snapshots, compiled into this binary (see `main.rs`), read
//! hand-encoded messages correctly.

use kguest_wire::{DecodeError, ErrorKind, View};

use crate::enc::Enc;
use crate::kt::ab::Thing;
use crate::kt::ab::c::Leaf;
use crate::kt::ab::schema::{GroupVersion, Schema};
use crate::kt::scalars::Scalars;
use crate::kt::shapes::{Empty, Forest, Names, Pod, Tree, pod};

/// `int32`/`int64`/enum values go on the wire sign-extended to 64 bits.
fn signed(v: i64) -> u64 {
    v as u64
}

#[test]
fn every_scalar_type_decodes() {
    let bytes = Enc::new()
        .fixed64(1, 2.5f64.to_bits())
        .fixed32(2, (-1.25f32).to_bits())
        .varint(3, signed(-1))
        .varint(4, signed(i64::MIN))
        .varint(5, u64::from(u32::MAX))
        .varint(6, u64::MAX)
        .sint(7, i64::from(i32::MIN))
        .sint(8, i64::MIN)
        .fixed32(9, 0xdead_beef)
        .fixed64(10, u64::MAX - 1)
        .fixed32(11, (-5i32) as u32)
        .fixed64(12, (-6i64) as u64)
        .varint(13, 2)
        .str(14, "héllo")
        .bytes(15, &[0, 0xff])
        .varint(16, signed(-3))
        .varint(17, 42)
        .varint(536_870_911, 7)
        .finish();
    let s = Scalars::from_bytes(&bytes);
    assert_eq!(s.opt_double(), Some(2.5));
    assert_eq!(s.opt_float(), Some(-1.25));
    assert_eq!(s.opt_int32(), Some(-1));
    assert_eq!(s.opt_int64(), Some(i64::MIN));
    assert_eq!(s.opt_uint32(), Some(u32::MAX));
    assert_eq!(s.opt_uint64(), Some(u64::MAX));
    assert_eq!(s.opt_sint32(), Some(i32::MIN));
    assert_eq!(s.opt_sint64(), Some(i64::MIN));
    assert_eq!(s.opt_fixed32(), Some(0xdead_beef));
    assert_eq!(s.opt_fixed64(), Some(u64::MAX - 1));
    assert_eq!(s.opt_sfixed32(), Some(-5));
    assert_eq!(s.opt_sfixed64(), Some(-6));
    assert_eq!(s.opt_bool(), Some(true), "any non-zero varint is true");
    assert_eq!(s.opt_string(), Some("héllo"));
    assert_eq!(s.opt_string_bytes(), Some("héllo".as_bytes()));
    assert_eq!(s.opt_bytes(), Some(&[0, 0xff][..]));
    assert_eq!(
        s.color(),
        Some(-3),
        "enums are open: unknown values survive"
    );
    assert_eq!(s.id(), Some(42));
    assert_eq!(s.last(), Some(7), "the largest field number (a 5-byte key)");
    assert_eq!(s.validate(), Ok(()));
}

#[test]
fn scalar_edge_values() {
    let zigzag = |v: i64| Scalars::from_bytes(&Enc::new().sint(8, v).finish()).opt_sint64();
    for v in [0, -1, 1, i64::MAX, i64::MIN] {
        assert_eq!(zigzag(v), Some(v));
    }
    let sint32 = |v: i32| Scalars::from_bytes(&Enc::new().sint(7, v.into()).finish()).opt_sint32();
    for v in [0, -1, 1, i32::MAX, i32::MIN] {
        assert_eq!(sint32(v), Some(v));
    }
    // int32 keeps the varint's low 32 bits, however it was written.
    let int32 = |raw: u64| Scalars::from_bytes(&Enc::new().varint(3, raw).finish()).opt_int32();
    assert_eq!(int32(signed(i64::from(i32::MIN))), Some(i32::MIN));
    assert_eq!(int32(0xffff_ffff), Some(-1));
    let double =
        |v: f64| Scalars::from_bytes(&Enc::new().fixed64(1, v.to_bits()).finish()).opt_double();
    assert_eq!(double(f64::INFINITY), Some(f64::INFINITY));
    assert!(double(f64::NAN).unwrap().is_nan());
    assert_eq!(double(-0.0).map(f64::to_bits), Some((-0.0f64).to_bits()));
    let float =
        |v: f32| Scalars::from_bytes(&Enc::new().fixed32(2, v.to_bits()).finish()).opt_float();
    assert_eq!(float(f32::MIN_POSITIVE), Some(f32::MIN_POSITIVE));
    assert_eq!(
        Scalars::from_bytes(&Enc::new().varint(13, 0).finish()).opt_bool(),
        Some(false)
    );
}

#[test]
fn presence_is_none_vs_some_zero() {
    let empty = Scalars::from_bytes(&[]);
    assert_eq!(empty.opt_int32(), None);
    assert_eq!(empty.opt_string(), None);
    assert_eq!(empty.opt_bool(), None);
    assert_eq!(
        empty.color(),
        None,
        "proto2 [default = GREEN] is not applied"
    );
    assert!(empty.unpacked().is_empty());

    let zeros = Enc::new()
        .varint(3, 0)
        .str(14, "")
        .bytes(15, b"")
        .varint(13, 0)
        .finish();
    let zeros = Scalars::from_bytes(&zeros);
    assert_eq!(zeros.opt_int32(), Some(0));
    assert_eq!(zeros.opt_string(), Some(""));
    assert_eq!(zeros.opt_bytes(), Some(&[][..]));
    assert_eq!(zeros.opt_bool(), Some(false));

    // proto3: implicit presence reads the same way (None when not on the wire).
    assert_eq!(Pod::from_bytes(&[]).count(), None);
    assert_eq!(
        Pod::from_bytes(&Enc::new().varint(1, 0).finish()).count(),
        Some(0)
    );
    assert_eq!(
        Pod::from_bytes(&Enc::new().varint(2, 0).finish()).maybe(),
        Some(0)
    );
    assert_eq!(Pod::default().count(), None);
}

#[test]
fn last_occurrence_wins() {
    let bytes = Enc::new()
        .varint(3, 1)
        .str(14, "first")
        .varint(99, 5) // unknown fields are skipped
        .varint(3, 2)
        .str(14, "second")
        .finish();
    let s = Scalars::from_bytes(&bytes);
    assert_eq!(s.opt_int32(), Some(2));
    assert_eq!(s.opt_string(), Some("second"));

    // A singular message is not merged: the last occurrence is read as is.
    let spec = |name: &str| Enc::new().str(1, name);
    let bytes = Enc::new()
        .msg(5, spec("a").msg(2, Enc::new().str(1, "c")))
        .msg(5, spec("b"))
        .finish();
    let spec = Pod::from_bytes(&bytes).spec().unwrap();
    assert_eq!(spec.node_name(), Some("b"));
    assert!(spec.containers().is_empty());
}

#[test]
fn wrong_wire_type_reads_as_none() {
    // opt_int32 as a string, opt_string as a varint, opt_double as fixed32.
    let bytes = Enc::new().str(3, "x").varint(14, 1).fixed32(1, 0).finish();
    let s = Scalars::from_bytes(&bytes);
    assert_eq!(s.opt_int32(), None);
    assert_eq!(s.opt_string(), None);
    assert_eq!(s.opt_double(), None);
    // The last occurrence decides, even if an earlier one was well typed.
    let bytes = Enc::new().varint(3, 1).fixed64(3, 2).finish();
    assert_eq!(Scalars::from_bytes(&bytes).opt_int32(), None);
    // Malformed input anywhere makes every accessor give up.
    let bytes = Enc::new().varint(3, 1).raw(&[0x12, 0x05, b'a']).finish();
    assert_eq!(Scalars::from_bytes(&bytes).opt_int32(), None);
}

#[test]
fn strings_with_bad_utf8() {
    let bytes = Enc::new().bytes(14, &[b'a', 0xff]).finish();
    let s = Scalars::from_bytes(&bytes);
    assert_eq!(s.opt_string(), None);
    assert_eq!(s.opt_string_bytes(), Some(&[b'a', 0xff][..]));
    // A repeated string stops at the first bad element.
    let bytes = Enc::new()
        .str(24, "ok")
        .bytes(24, &[0xc0])
        .str(24, "after")
        .finish();
    let names: Vec<&str> = Scalars::from_bytes(&bytes).names().collect();
    assert_eq!(names, ["ok"]);
}

#[test]
fn repeated_packed_and_unpacked() {
    let bytes = Enc::new()
        // `unpacked` (proto2 default) accepts packed runs too, mixed.
        .varint(20, 1)
        .packed(20, &[2, 3])
        .varint(20, signed(-4))
        // `packed` (sint64) accepts single occurrences too.
        .sint(21, -1)
        .packed(21, &[4, 5]) // zigzag: 2, -3
        .packed(21, &[])
        .bytes(22, &[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff])
        .fixed32(22, 9)
        .fixed64(23, 0.5f64.to_bits())
        .bytes(
            23,
            &[
                1.5f64.to_bits().to_le_bytes(),
                2.5f64.to_bits().to_le_bytes(),
            ]
            .concat(),
        )
        .str(24, "a")
        .str(24, "")
        .bytes(25, b"\x00")
        .packed(26, &[0, 2, 99])
        .finish();
    let s = Scalars::from_bytes(&bytes);
    assert_eq!(s.unpacked().collect::<Vec<_>>(), [1, 2, 3, -4]);
    assert_eq!(s.packed().collect::<Vec<_>>(), [-1, 2, -3]);
    assert_eq!(s.packed_fixed().collect::<Vec<_>>(), [1, u32::MAX, 9]);
    assert_eq!(s.doubles().collect::<Vec<_>>(), [0.5, 1.5, 2.5]);
    assert_eq!(s.names().collect::<Vec<_>>(), ["a", ""]);
    assert_eq!(s.blobs().collect::<Vec<_>>(), [&[0u8][..]]);
    assert_eq!(s.colors().collect::<Vec<_>>(), [0, 2, 99]);
    assert_eq!(s.validate(), Ok(()));

    // proto3 repeated scalars are packed by default; both forms read.
    let bytes = Enc::new()
        .packed(16, &[1, signed(-2)])
        .varint(17, 3)
        .varint(17, 4)
        .packed(4, &[1, 2])
        .finish();
    let pod = Pod::from_bytes(&bytes);
    assert_eq!(pod.sizes().collect::<Vec<_>>(), [1, -2]);
    assert_eq!(pod.sizes_unpacked().collect::<Vec<_>>(), [3, 4]);
    assert_eq!(pod.phases().collect::<Vec<_>>(), [1, 2]);

    // Repeated is Copy: iterating a copy leaves the original where it was.
    let mut sizes = pod.sizes();
    assert_eq!(sizes.next(), Some(1));
    let copy = sizes;
    assert_eq!(copy.count(), 1);
    assert_eq!(sizes.next(), Some(-2));
    assert_eq!(sizes.next(), None);
}

#[test]
fn enums_are_open_i32() {
    let bytes = Enc::new()
        .varint(3, 2)
        .packed(4, &[0, 7, signed(-1)])
        .finish();
    let pod = Pod::from_bytes(&bytes);
    assert_eq!(pod.phase(), Some(2));
    assert_eq!(pod.phases().collect::<Vec<_>>(), [0, 7, -1]);
}

#[test]
fn maps_with_string_keys() {
    let entry = |k: &str, v: &str| Enc::new().str(1, k).str(2, v);
    let bytes = Enc::new()
        .msg(10, entry("a", "1"))
        .msg(10, entry("b", "2"))
        .varint(1, 5) // other fields in between
        .msg(10, entry("a", "3"))
        .msg(10, Enc::new().str(1, "no-value"))
        .msg(10, Enc::new().str(2, "no-key"))
        .msg(10, Enc::new().str(2, "v").str(1, "swapped"))
        .finish();
    let labels = Pod::from_bytes(&bytes).labels();
    assert_eq!(
        labels.get("a"),
        Some("3"),
        "the last value of a repeated key wins"
    );
    assert_eq!(labels.get("b"), Some("2"));
    assert_eq!(labels.get("zz"), None);
    assert_eq!(
        labels.get("no-value"),
        Some(""),
        "a missing value is the default"
    );
    assert_eq!(
        labels.get(""),
        Some("no-key"),
        "a missing key is the default"
    );
    assert_eq!(labels.get("swapped"), Some("v"));
    assert!(labels.contains_key("b"));
    assert!(!labels.contains_key("c"));
    assert!(!labels.is_empty());
    let entries: Vec<(&str, &str)> = labels.collect();
    assert_eq!(
        entries,
        [
            ("a", "1"),
            ("b", "2"),
            ("a", "3"),
            ("no-value", ""),
            ("", "no-key"),
            ("swapped", "v")
        ]
    );
    assert!(Pod::from_bytes(&[]).labels().is_empty());
    assert_eq!(Pod::from_bytes(&bytes).validate(), Ok(()));
}

#[test]
fn maps_with_integer_and_bool_keys() {
    let container = |name: &str| Enc::new().str(1, name);
    let bytes = Enc::new()
        .msg(11, Enc::new().varint(1, 8080).msg(2, container("web")))
        .msg(
            11,
            Enc::new().varint(1, signed(-1)).msg(2, container("neg")),
        )
        .msg(11, Enc::new().varint(1, 9090)) // no value: an empty message
        .msg(12, Enc::new().varint(1, u64::MAX).varint(2, 2))
        .msg(12, Enc::new().varint(1, 1)) // no value: enum 0
        .msg(13, Enc::new().varint(1, 1).fixed64(2, 0.25f64.to_bits()))
        .msg(13, Enc::new().fixed64(2, 0.75f64.to_bits())) // key false
        .msg(14, Enc::new().sint(1, -3).msg(2, Enc::new().varint(17, 5)))
        .finish();
    let pod = Pod::from_bytes(&bytes);
    assert_eq!(pod.by_port().get(&8080).and_then(|c| c.name()), Some("web"));
    assert_eq!(pod.by_port().get(&-1).and_then(|c| c.name()), Some("neg"));
    let empty = pod.by_port().get(&9090).unwrap();
    assert_eq!(empty.as_bytes(), &[] as &[u8]);
    assert_eq!(empty.name(), None);
    assert!(pod.by_port().get(&1).is_none());
    assert_eq!(pod.phase_by_id().get(&u64::MAX), Some(2));
    assert_eq!(pod.phase_by_id().get(&1), Some(0));
    assert_eq!(pod.weights().get(&true), Some(0.25));
    assert_eq!(pod.weights().get(&false), Some(0.75));
    assert_eq!(pod.scalars_by_key().get(&-3).and_then(|s| s.id()), Some(5));
    let ports: Vec<i32> = pod.by_port().map(|(k, _)| k).collect();
    assert_eq!(ports, [8080, -1, 9090]);
    assert_eq!(pod.validate(), Ok(()));
}

#[test]
fn malformed_map_entries_end_iteration() {
    let bytes = Enc::new()
        .msg(10, Enc::new().str(1, "a").str(2, "1"))
        .msg(10, Enc::new().varint(1, 5)) // key with the wrong wire type
        .msg(10, Enc::new().str(1, "b").str(2, "2"))
        .finish();
    let labels = Pod::from_bytes(&bytes).labels();
    assert_eq!(labels.count(), 1);
    assert_eq!(labels.get("b"), None);
}

#[test]
fn nested_recursive_and_cross_package_views() {
    let tree = |name: &str| Enc::new().str(1, name);
    let forest = Enc::new()
        .msg(1, tree("t1"))
        .msg(2, Enc::new().str(1, "k").msg(2, tree("t2")));
    let root = tree("root")
        .msg(2, tree("child").msg(2, tree("grandchild")))
        .msg(2, tree("second"))
        .msg(3, tree("up"))
        .msg(4, forest);
    let spec = Enc::new()
        .str(1, "node-a")
        .msg(2, Enc::new().str(1, "c1").str(2, "x").str(2, "y"))
        .msg(3, Enc::new().str(1, "k").str(2, "v"))
        .msg(4, root.clone());
    let bytes = Enc::new()
        .msg(5, spec)
        .msg(15, Enc::new().varint(17, 1).str(14, "inner"))
        .finish();
    let pod = Pod::from_bytes(&bytes);
    let spec: pod::Spec<'_> = pod.spec().unwrap();
    assert_eq!(spec.node_name(), Some("node-a"));
    let container: pod::Container<'_> = spec.containers().next().unwrap();
    assert_eq!(container.name(), Some("c1"));
    assert_eq!(container.args().collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(spec.annotations().get("k"), Some("v"));
    assert_eq!(pod.scalars().and_then(|s| s.opt_string()), Some("inner"));

    let tree: Tree<'_> = spec.tree().unwrap();
    let children: Vec<Option<&str>> = tree.children().map(|c| c.name()).collect();
    assert_eq!(children, [Some("child"), Some("second")]);
    let grandchild = tree.children().next().unwrap().children().next().unwrap();
    assert_eq!(grandchild.name(), Some("grandchild"));
    assert_eq!(tree.parent().and_then(|p| p.name()), Some("up"));
    let forest: Forest<'_> = tree.forest().unwrap();
    assert_eq!(forest.trees().next().and_then(|t| t.name()), Some("t1"));
    assert_eq!(forest.by_name().get("k").and_then(|t| t.name()), Some("t2"));
    assert_eq!(pod.validate(), Ok(()));

    // kt.ab.c.Leaf reaches into kt.ab, kt.ab.schema and kt.shapes.
    let gv = |g: &str, v: &str| Enc::new().str(1, g).str(2, v);
    let bytes = Enc::new()
        .msg(1, Enc::new().str(1, "thing").msg(2, gv("apps", "v1")))
        .msg(2, root)
        .msg(3, gv("batch", "v1"))
        .msg(3, gv("", "v2"))
        .msg(
            4,
            Enc::new().str(1, "t").msg(2, Enc::new().str(1, "mapped")),
        )
        .msg(5, Enc::new().str(1, "sidecar"))
        .finish();
    let leaf = Leaf::from_bytes(&bytes);
    let thing: Thing<'_> = leaf.thing().unwrap();
    let thing_gv: GroupVersion<'_> = thing.gv().unwrap();
    assert_eq!(
        (thing_gv.group(), thing_gv.version()),
        (Some("apps"), Some("v1"))
    );
    assert_eq!(leaf.tree().and_then(|t| t.name()), Some("root"));
    let versions: Vec<_> = leaf.gvs().map(|gv| gv.version()).collect();
    assert_eq!(versions, [Some("v1"), Some("v2")]);
    assert_eq!(
        leaf.things().get("t").and_then(|t| t.name()),
        Some("mapped")
    );
    assert_eq!(leaf.container().and_then(|c| c.name()), Some("sidecar"));
    assert_eq!(leaf.validate(), Ok(()));

    let schema = Schema::from_bytes(&[]);
    assert!(schema.versions().is_empty());
}

#[test]
fn keyword_and_acronym_accessors() {
    let bytes = Enc::new()
        .str(1, "Opaque")
        .str(2, "main")
        .varint(3, 1)
        .varint(4, 4)
        .str(5, "super")
        .str(6, "async")
        .str(7, "10.0.0.1")
        .str(7, "fd00::1")
        .str(8, "/healthz")
        .str(9, "10.0.0.1")
        .varint(10, 1)
        .str(11, "SingleStack")
        .finish();
    let names = Names::from_bytes(&bytes);
    assert_eq!(names.type_(), Some("Opaque"));
    assert_eq!(names.type_bytes(), Some(&b"Opaque"[..]));
    assert_eq!(names.ref_(), Some("main"));
    assert_eq!(names.continue_(), Some(true));
    assert_eq!(names.self_(), Some(4));
    assert_eq!(names.super_(), Some("super"));
    assert_eq!(names.async_(), Some("async"));
    assert_eq!(names.pod_ips().collect::<Vec<_>>(), ["10.0.0.1", "fd00::1"]);
    assert_eq!(names.non_resource_urls().collect::<Vec<_>>(), ["/healthz"]);
    assert_eq!(names.pod_ip(), Some("10.0.0.1"));
    assert_eq!(names.host_ipc(), Some(true));
    assert_eq!(names.ip_family_policy(), Some("SingleStack"));
}

#[test]
fn oneof_members_read_independently() {
    // The views have no oneof type: each member is its own accessor.
    let bytes = Enc::new().str(7, "https://x").finish();
    let pod = Pod::from_bytes(&bytes);
    assert_eq!(pod.url(), Some("https://x"));
    assert_eq!(pod.inline(), None);
    assert!(pod.other().is_none());
}

#[test]

fn oneof_last_member_wins() {
    // protobuf: "if the parser encounters multiple members of the same oneof
    // on the wire, only the last member seen is used in the parsed message".
    let bytes = Enc::new().str(7, "https://x").bytes(8, b"inline").finish();
    let pod = Pod::from_bytes(&bytes);
    assert_eq!(pod.inline(), Some(&b"inline"[..]));
    assert_eq!(pod.url(), None);
}

fn err(kind: ErrorKind, offset: usize, field: u32) -> Result<(), DecodeError> {
    Err(DecodeError {
        kind,
        offset,
        field,
    })
}

#[test]
fn validate_reports_the_first_problem_with_its_offset() {
    // Truncated: field 2's length runs past the end; the key is at byte 2.
    let bytes = Enc::new().varint(1, 5).raw(&[0x12, 0x05, b'a']).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::Truncated, 2, 2)
    );
    // A truncated varint value.
    let bytes = Enc::new().varint(1, 5).raw(&[0x08, 0x80]).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::Truncated, 2, 1)
    );

    // Bad UTF-8 in a nested message: the offset counts from the outer start.
    let head = Enc::new().varint(1, 1).raw(&[0x2a, 0x03]); // count, then spec (len 3)
    let at = head.len();
    let bytes = head.raw(&[0x0a, 0x01, 0xff]).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::InvalidUtf8, at, 1)
    );

    // Two levels down, behind a preceding valid field.
    let ok = Enc::new().str(14, "ok");
    let bad_at = 2 + 2 + ok.len(); // count, key and length of scalars, opt_string
    let inner = ok.bytes(24, &[0xe2, 0x82]); // a truncated '€'
    let bytes = Enc::new().varint(1, 1).msg(15, inner).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::InvalidUtf8, bad_at, 24)
    );

    // Bad UTF-8 in a map key, inside an entry.
    let head = Enc::new().raw(&[0x52, 0x03]); // labels entry, len 3
    let at = head.len();
    let bytes = head.raw(&[0x0a, 0x01, 0xff]).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::InvalidUtf8, at, 1)
    );

    // Wire type mismatch: count (int32) as fixed32, at byte 3.
    let bytes = Enc::new().str(7, "u").fixed32(1, 1).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::WireTypeMismatch, 3, 1)
    );
    // A length-delimited run is only allowed for repeated scalars.
    let bytes = Enc::new().packed(1, &[1]).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::WireTypeMismatch, 0, 1)
    );
    // ... and must hold whole values.
    let bytes = Enc::new().bytes(22, &[1, 2, 3]).finish();
    assert_eq!(
        Scalars::from_bytes(&bytes).validate(),
        err(ErrorKind::WireTypeMismatch, 0, 22)
    );
    // A message as a varint.
    let bytes = Enc::new().varint(5, 1).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::WireTypeMismatch, 0, 5)
    );

    // Groups (wire type 3) are not valid anywhere.
    let bytes = Enc::new().varint(1, 1).raw(&[0x1b]).finish();
    assert_eq!(
        Pod::from_bytes(&bytes).validate(),
        err(ErrorKind::InvalidWireType, 2, 3)
    );
    // Field number 0.
    assert_eq!(
        Empty::from_bytes(&[0x00, 0x00]).validate(),
        err(ErrorKind::InvalidFieldNumber, 0, 0)
    );

    // Unknown fields of any wire type are fine; so is an empty message.
    let bytes = Enc::new()
        .varint(100, 1)
        .fixed32(101, 1)
        .str(102, "\u{0}")
        .finish();
    assert_eq!(Empty::from_bytes(&bytes).validate(), Ok(()));
    assert_eq!(Empty::from_bytes(&[]).validate(), Ok(()));
}

#[test]
fn validate_limits_depth() {
    let mut tree = Enc::new().str(1, "leaf");
    for _ in 0..kguest_wire::schema::MAX_DEPTH {
        tree = Enc::new().msg(3, tree);
    }
    assert_eq!(Tree::from_bytes(&tree.clone().finish()).validate(), Ok(()));
    let too_deep = Enc::new().msg(3, tree).finish();
    let error = Tree::from_bytes(&too_deep).validate().unwrap_err();
    assert_eq!(error.kind, ErrorKind::TooDeep);
}

#[test]
fn schemas_and_registry() {
    use crate::kt::{ab, scalars, shapes};
    use kguest_wire::schema::{Kind, Label, MessageSchema};

    assert!(std::ptr::eq(Pod::SCHEMA, &shapes::_schema::POD));
    assert!(std::ptr::eq(
        <pod::Spec<'_> as View<'_>>::SCHEMA,
        &shapes::_schema::POD_SPEC
    ));
    assert!(std::ptr::eq(Schema::SCHEMA, &ab::schema::_schema::SCHEMA));

    let want: [&MessageSchema; 12] = [
        &ab::_schema::THING,
        &ab::c::_schema::LEAF,
        &ab::schema::_schema::GROUP_VERSION,
        &ab::schema::_schema::SCHEMA,
        &scalars::_schema::SCALARS,
        &shapes::_schema::EMPTY,
        &shapes::_schema::FOREST,
        &shapes::_schema::NAMES,
        &shapes::_schema::POD,
        &shapes::_schema::POD_CONTAINER,
        &shapes::_schema::POD_SPEC,
        &shapes::_schema::TREE,
    ];
    let got = crate::registry::MESSAGES;
    assert_eq!(got.len(), want.len());
    for (got, want) in got.iter().zip(want) {
        assert!(std::ptr::eq(*got, want));
    }

    // Map fields point at their entry schema: key 1, value 2.
    let labels = Pod::SCHEMA.field(10).unwrap();
    assert_eq!(labels.label, Label::Map);
    let Kind::Message(entry) = labels.kind else {
        panic!("map entry kind")
    };
    assert!(std::ptr::eq(entry, &shapes::_schema::POD_LABELS_ENTRY));
    assert_eq!(
        entry.fields.iter().map(|f| f.number).collect::<Vec<_>>(),
        [1, 2]
    );
    // Fields are sorted by number (the binary search relies on it).
    let numbers: Vec<u32> = Scalars::SCHEMA.fields.iter().map(|f| f.number).collect();
    assert!(numbers.is_sorted());
    assert_eq!(numbers.last(), Some(&536_870_911));
}

#[test]
fn views_are_cheap_copies() {
    let bytes = Enc::new().varint(1, 3).finish();
    let pod = Pod::from_bytes(&bytes);
    let copy = pod;
    assert_eq!(copy.as_bytes(), pod.as_bytes());
    assert_eq!(<Pod<'_> as View<'_>>::as_bytes(&pod), &bytes[..]);
    assert_eq!(format!("{pod:?}"), "Pod { len: 2, .. }");
    assert_eq!(format!("{:?}", pod::Spec::default()), "Spec { len: 0, .. }");
    assert_eq!(size_of::<Pod<'_>>(), size_of::<&[u8]>());
}
