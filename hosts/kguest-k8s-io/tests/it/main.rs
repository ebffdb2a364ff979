//! kguest-k8s-io integration tests (one binary).

mod kubectl_yaml;
