/// An embedded JSON value (fixture): a newtype, encoded by hand.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Raw(pub crate::serde_json::Value);
