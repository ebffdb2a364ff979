//! kguest-k8s-io integration tests (one binary).

mod envelope;
mod kubectl_yaml;
