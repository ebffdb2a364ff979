/// A message without fields (fixture): k8s-openapi's JSON-value newtype.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WidgetStatus(pub crate::serde_json::Value);
