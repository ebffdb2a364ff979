/// A timestamp, to the microsecond (fixture): a newtype, encoded by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct MicroTime(pub crate::jiff::Timestamp);
