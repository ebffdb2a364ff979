//! `to_kubectl_yaml` against upstream's fixtures: each `<type>.yaml` in
//! k8s.io/api's testdata was written by Go's YAML serializer
//! (sigs.k8s.io/yaml over go-yaml v2, keys sorted), the same path kubectl
//! prints with, from the object in `<type>.json`.

use std::path::PathBuf;

use kguest_k8s_io::kubectl_yaml::to_kubectl_yaml;

fn testdata() -> PathBuf {
    let Some(dir) = std::env::var_os("KGUEST_K8S_DIR") else {
        panic!(
            "KGUEST_K8S_DIR is not set: it must name the Kubernetes data directory (with testdata/)"
        );
    };
    let dir = PathBuf::from(dir).join("testdata");
    assert!(dir.is_dir(), "{} is not a directory", dir.display());
    dir
}

#[test]
fn fixtures_print_as_upstream_yaml() {
    let dir = testdata();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("reading {}: {err}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let mut compared = 0;
    let mut failures = Vec::new();
    for json_path in &names {
        let yaml_path = json_path.with_extension("yaml");
        let Ok(expected) = std::fs::read_to_string(&yaml_path) else {
            failures.push(format!("{}: no .yaml beside it", json_path.display()));
            continue;
        };
        let json = std::fs::read_to_string(json_path).expect("fixture JSON");
        compared += 1;
        match to_kubectl_yaml(&json) {
            Ok(yaml) if yaml == expected => {}
            Ok(yaml) => {
                let line = yaml
                    .lines()
                    .zip(expected.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(yaml.lines().count().min(expected.lines().count()));
                failures.push(format!(
                    "{}: differs at line {}: got {:?}, upstream {:?}",
                    json_path.display(),
                    line + 1,
                    yaml.lines().nth(line),
                    expected.lines().nth(line)
                ));
            }
            Err(err) => failures.push(format!("{}: {err}", json_path.display())),
        }
    }
    println!("kubectl YAML: {compared} upstream fixtures compared");
    assert!(
        compared >= 100,
        "only {compared} fixtures in {}",
        dir.display()
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} fixtures differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
