//! The files under deploy/extender/ are what the extender and a cluster
//! read: the profile loads, RBAC grants list/watch on Nodes only, and the
//! scheduler's extender block names the verbs the server serves.

use std::path::PathBuf;

use serde_json::Value;

fn deploy(name: &str) -> String {
    let path = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("../../deploy/extender")
    .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn documents(text: &str) -> Vec<Value> {
    text.split("\n---\n")
        .map(|d| serde_norway::from_str(d).unwrap())
        .collect()
}

#[test]
fn the_shipped_profile_loads_and_predicts() {
    let plugin = kguest_test_support::built::plugin("nodenumber");
    let config = deploy("plugins.yaml").replace(
        "file:///etc/kguest/nodenumber.wasm",
        &format!("file://{}", plugin.display()),
    );
    let dir = std::env::temp_dir().join(format!("kguest-extender-deploy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let config = write("config.yaml", &config);
    let pod = write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web-2, namespace: default}\nspec: {containers: [{name: c, image: busybox}]}\n",
    );
    let nodes = write(
        "nodes.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n-1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n-2}\n",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kguest-extender"))
        .arg("predict")
        .arg("--config")
        .arg(&config)
        .arg("--pod")
        .arg(&pod)
        .arg("--nodes")
        .arg(&nodes)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["chosen"], "n-2", "{v}");
    assert_eq!(v["prioritize"][1]["Score"], 1, "{v}");
}

#[test]
fn rbac_grants_list_and_watch_on_nodes_only() {
    let docs = documents(&deploy("rbac.yaml"));
    let roles: Vec<&Value> = docs.iter().filter(|d| d["kind"] == "ClusterRole").collect();
    assert_eq!(roles.len(), 1);
    assert_eq!(
        roles[0]["rules"],
        serde_json::json!([{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list", "watch"]}])
    );
    let deployment = documents(&deploy("deployment.yaml")).remove(0);
    let spec = &deployment["spec"]["template"]["spec"];
    assert_eq!(spec["serviceAccountName"], "kguest-extender");
    assert_eq!(deployment["spec"]["replicas"], 2);
}

#[test]
fn the_extender_block_names_the_served_verbs() {
    let config: Value = serde_norway::from_str(&deploy("scheduler-extender.yaml")).unwrap();
    let ext = &config["extenders"][0];
    assert_eq!(ext["filterVerb"], "filter");
    assert_eq!(ext["prioritizeVerb"], "prioritize");
    assert_eq!(ext["nodeCacheCapable"], true);
    assert_eq!(ext["enableHTTPS"], true);
}
