//! kguest-k8s integration tests (one binary; needs the `json` feature).

mod kubectl_yaml;
