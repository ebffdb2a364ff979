/// A top-level object (fixture): apiVersion and kind are JSON keys but no
/// members, as in k8s-openapi's resources.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Widget {
    pub metadata: crate::kt::openapi::Meta,
    pub spec: Option<crate::kt::openapi::WidgetSpec>,
    pub status: Option<crate::kt::openapi::WidgetStatus>,
}

// As in k8s-openapi's `Deserialize` impl: each JSON key names a member.
fn key(v: &str) -> Field {
    match v {
        "apiVersion" => Field::Key_api_version,
        "kind" => Field::Key_kind,
        "metadata" => Field::Key_metadata,
        "spec" => Field::Key_spec,
        "status" => Field::Key_status,
        _ => Field::Other,
    }
}
