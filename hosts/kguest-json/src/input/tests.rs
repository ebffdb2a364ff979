//! Unit tests of the encoder: base64 and the depth limit.

use super::*;
use crate::text::{MAX_DEPTH, Text};
use alloc::string::ToString;
use kguest_wire::schema::{JsonForm, Kind, Label, MessageSchema};

#[test]
fn base64_round_trips() {
    for input in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
        let encoded = super::super::output::base64(input.as_bytes());
        assert_eq!(base64_decode(&encoded).as_deref(), Some(input.as_bytes()));
    }
    for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "Zg==Zg=="] {
        assert_eq!(base64_decode(bad), None, "{bad}");
    }
}

/// A schema that contains itself: only the depth limit stops the
/// recursion, with an error instead of a stack overflow.
#[test]
fn recursion_is_bounded_for_any_schema() {
    use kguest_wire::schema::FieldSchema as F;
    static NODE: MessageSchema = MessageSchema::new(
        "t.Node",
        JsonForm::Object,
        &[F::new(1, "next", Label::Singular, Kind::Message(&NODE))],
    );
    let nested = |depth: usize| "{\"next\":".repeat(depth) + "{}" + &"}".repeat(depth);
    let mut encoder = Encoder::new();
    let mut out = Vec::new();
    encoder
        .encode_text(&NODE, &nested(MAX_DEPTH - 1), &[], &mut out)
        .expect("100 levels");
    struct Deep(usize);
    impl<'s> Source<'s> for Deep {
        fn next_event(&mut self) -> Result<SourceEvent<'s>> {
            self.0 += 1;
            Ok(match self.0 % 2 {
                1 => SourceEvent::ObjectStart,
                _ => SourceEvent::Key(Text::plain("next")),
            })
        }
    }
    let err = encoder
        .encode(&NODE, &mut Deep(0), &[], &mut out)
        .expect_err("endless");
    assert!(
        err.to_string().contains("nested more than 100 levels deep"),
        "{err}"
    );
}
