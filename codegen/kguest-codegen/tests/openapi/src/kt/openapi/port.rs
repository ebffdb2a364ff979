/// A network port (fixture): a required member is not an Option.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Port {
    pub container_port: i32,
    pub protocol: Option<std::string::String>,
}

// As in k8s-openapi's `Deserialize` impl: each JSON key names a member.
fn key(v: &str) -> Field {
    match v {
        "containerPort" => Field::Key_container_port,
        "protocol" => Field::Key_protocol,
        _ => Field::Other,
    }
}
