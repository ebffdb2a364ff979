//! `Node::view` / `to_protobuf`: every upstream YAML fixture transcoded
//! through its schema reads back (as Kubernetes JSON) like the upstream
//! protobuf fixture; plus the typed reads a KRM function does.

use kguest_k8s::api::core::v1::{Container, ResourceRequirements};
use kguest_krm::ViewError;

use super::{arena, parse};

#[test]
fn every_upstream_fixture_transcodes_like_the_upstream_protobuf() {
    let dir = std::env::var_os("KGUEST_VENDOR_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(
                std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
            )
            .join("../../proto-vendor")
        })
        .join("testdata");
    assert!(
        dir.is_dir(),
        "{} is missing: run `cargo xtask vendor` first",
        dir.display()
    );
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".yaml")
                .map(String::from)
        })
        .collect();
    names.sort();
    let mut checked = 0;
    for name in &names {
        let yaml = std::fs::read_to_string(dir.join(format!("{name}.yaml"))).unwrap();
        let Ok(pb) = std::fs::read(dir.join(format!("{name}.pb"))) else {
            continue;
        };
        let env = kguest_k8s::envelope::unwrap(&pb).expect("envelope");
        let Some(schema) = kguest_k8s_io::json::schema_for_api_version(env.api_version, env.kind)
            .or_else(|| kguest_k8s_io::json::schema_by_type_name(name))
        else {
            continue;
        };
        let a = arena();
        let node = parse(&a, &yaml);
        let ours = node
            .to_protobuf(schema)
            .unwrap_or_else(|e| panic!("{name}: {} at {}", e.what, e.at));
        let ours =
            kguest_k8s_io::json::to_json(schema, ours).unwrap_or_else(|e| panic!("{name}: {e}"));
        let theirs = kguest_k8s_io::json::to_json(schema, env.raw).expect("fixture decodes");
        assert_eq!(ours, theirs, "{name}");
        checked += 1;
    }
    assert!(checked > 150, "only {checked} fixtures checked");
}

#[test]
fn typed_reads() {
    let a = arena();
    let root = parse(
        &a,
        "name: web\nimage: nginx\nports: [{containerPort: 80, name: http}]\nresources:\n  requests: {cpu: 250m, memory: \"1Gi\"}\n  limits:\n    cpu: '1'\nlivenessProbe:\n  httpGet: {path: /, port: http}\n  initialDelaySeconds: 3\nunknownField: {x: 1}\n",
    );
    let c: Container<'_> = root.view().unwrap();
    assert_eq!(c.name(), Some("web"));
    assert_eq!(c.ports().next().and_then(|p| p.container_port()), Some(80));
    let r = c.resources().unwrap();
    let cpu = r.requests().get("cpu").unwrap().parse().unwrap();
    let limit = r.limits().get("cpu").unwrap().parse().unwrap();
    assert!(cpu < limit);
    assert_eq!(
        r.requests().get("memory").unwrap().parse().unwrap().value(),
        Some(1 << 30)
    );
    let probe = c.liveness_probe().unwrap();
    assert_eq!(probe.initial_delay_seconds(), Some(3));
    let port = probe
        .handler()
        .and_then(|h| h.http_get())
        .and_then(|g| g.port())
        .unwrap();
    assert_eq!(port.str_val(), Some("http"));

    let rr: ResourceRequirements<'_> = root.get("resources").unwrap().view().unwrap();
    assert_eq!(rr.requests().count(), 2);
}

#[test]
fn type_mismatches_name_the_place() {
    let a = arena();
    let root = parse(&a, "name: web\nports: 80\n");
    let e: ViewError = root.view::<Container<'_>>().unwrap_err();
    assert_eq!(e.what, "expected a sequence");
    assert_eq!(e.at, 17);
    let root = parse(&a, "resources: {requests: {cpu: [1]}}\n");
    assert_eq!(
        root.view::<Container<'_>>().unwrap_err().what,
        "expected a scalar"
    );
}
