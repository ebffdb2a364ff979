/// Every member shape the emitter knows (fixture). `image` and
/// `timeout_seconds` belong to the inlined protobuf message `Source`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WidgetSpec {
    pub api_group: Option<std::string::String>,
    pub args: Option<std::vec::Vec<std::string::String>>,
    pub config: Option<crate::kt::openapi::Raw>,
    pub extra: Option<std::collections::BTreeMap<std::string::String, std::vec::Vec<std::string::String>>>,
    pub image: Option<std::string::String>,
    pub node_name: Option<std::string::String>,
    pub owners: Option<std::vec::Vec<std::string::String>>,
    pub paused: bool,
    pub payload: Option<crate::ByteString>,
    pub ports: std::vec::Vec<crate::kt::openapi::Port>,
    pub ratio: Option<f64>,
    pub renewed: Option<crate::kt::openapi::MicroTime>,
    pub replicas: Option<i32>,
    pub started: Option<crate::kt::openapi::Time>,
    pub timeout_seconds: Option<i64>,
    pub type_: Option<std::string::String>,
    pub r#loop: Option<std::string::String>,
}

// As in k8s-openapi's `Deserialize` impl: each JSON key names a member.
fn key(v: &str) -> Field {
    match v {
        "apiGroup" => Field::Key_api_group,
        "args" => Field::Key_args,
        "config" => Field::Key_config,
        "extra" => Field::Key_extra,
        "image" => Field::Key_image,
        "nodeName" => Field::Key_node_name,
        "owners" => Field::Key_owners,
        "paused" => Field::Key_paused,
        "payload" => Field::Key_payload,
        "ports" => Field::Key_ports,
        "ratio" => Field::Key_ratio,
        "renewed" => Field::Key_renewed,
        "replicas" => Field::Key_replicas,
        "started" => Field::Key_started,
        "timeoutSeconds" => Field::Key_timeout_seconds,
        "type" => Field::Key_type_,
        "loop" => Field::Key_loop,
        _ => Field::Other,
    }
}
