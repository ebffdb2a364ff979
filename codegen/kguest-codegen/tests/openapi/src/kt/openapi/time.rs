/// A timestamp, to the second (fixture): a newtype, encoded by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct Time(pub crate::jiff::Timestamp);
