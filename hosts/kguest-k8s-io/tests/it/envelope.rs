//! `kguest_wire::envelope` describes `runtime.Unknown` itself, without the
//! generated views: its schemas must be the generated ones, and what it
//! reads must be what the generated view reads.

use kguest_k8s::View;
use kguest_k8s::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use kguest_wire::envelope::{self, EnvelopeError};

#[test]
fn schemas_are_the_generated_ones() {
    let debug = |s: &kguest_wire::schema::MessageSchema| format!("{s:?}");
    assert_eq!(debug(&envelope::UNKNOWN), debug(Unknown::SCHEMA));
    assert_eq!(debug(&envelope::TYPE_META), debug(TypeMeta::SCHEMA));
}

#[test]
fn unwrap_reads_what_the_view_reads() {
    let wrapped = envelope::wrap("apps/v1", "Deployment", b"\x0a\x00");
    let env = envelope::unwrap(&wrapped).expect("unwraps");
    let view = Unknown::from_bytes(&wrapped[4..]);
    let type_meta = view.type_meta().expect("typeMeta");
    assert_eq!(
        (env.api_version, env.kind, env.raw),
        (
            type_meta.api_version().unwrap(),
            type_meta.kind().unwrap(),
            view.raw().unwrap()
        )
    );
    assert_eq!((env.content_encoding, env.content_type), ("", ""));
    assert_eq!(envelope::unwrap(b"k8s"), Err(EnvelopeError::MissingMagic));
    // typeMeta (field 1) as a varint: malformed, the offset counting the magic.
    let Err(EnvelopeError::Malformed(err)) = envelope::unwrap(b"k8s\0\x08\x01") else {
        panic!("a varint typeMeta is malformed");
    };
    let mut expected = Unknown::from_bytes(b"\x08\x01").validate().unwrap_err();
    expected.offset += 4;
    assert_eq!(err, expected);
}
