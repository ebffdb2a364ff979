/// Standard object metadata (fixture).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    pub created: Option<crate::kt::openapi::Time>,
    pub labels: Option<std::collections::BTreeMap<std::string::String, std::string::String>>,
    pub name: Option<std::string::String>,
}

// As in k8s-openapi's `Deserialize` impl: each JSON key names a member.
fn key(v: &str) -> Field {
    match v {
        "created" => Field::Key_created,
        "labels" => Field::Key_labels,
        "name" => Field::Key_name,
        _ => Field::Other,
    }
}
