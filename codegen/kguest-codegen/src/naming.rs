//! Every Rust identifier the generator writes is made here.
//!
//! Field accessors follow k8s-openapi's names (snake_case, a trailing `_` for
//! keywords: `type_`, `continue_`), so a kube-rs user finds what they expect.
//! Protobuf names in Kubernetes are Go JSON names, where plural acronyms are
//! common (`podIPs`, `podCIDRs`, `nonResourceURLs`); they become one word
//! (`pod_ips`), not `pod_i_ps`.

use heck::{ToShoutySnakeCase, ToSnakeCase};

/// Rust's strict and reserved keywords, which no plain identifier may be.
pub const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

fn escape(ident: String) -> String {
    if KEYWORDS.contains(&ident.as_str()) {
        ident + "_"
    } else {
        ident
    }
}

/// Collapses plural acronyms (`IPs`, `CIDRs`, `URLs`) to one capitalised word
/// (`Ips`) so that snake-casing keeps them together.
fn fold_plural_acronyms(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < chars.len() {
        let run_end = chars[i..]
            .iter()
            .position(|c| !c.is_ascii_uppercase())
            .map_or(chars.len(), |p| i + p);
        let run = run_end - i;
        let plural = run >= 2
            && chars.get(run_end) == Some(&'s')
            && chars
                .get(run_end + 1)
                .is_none_or(|c| !c.is_ascii_lowercase());
        if plural {
            out.push(chars[i]);
            out.extend(chars[i + 1..run_end].iter().map(|c| c.to_ascii_lowercase()));
            i = run_end;
        } else if run > 0 {
            out.extend(&chars[i..run_end]);
            i = run_end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The accessor for a field: `nodeName` → `node_name`, `type` → `type_`.
pub fn field_method(proto_name: &str) -> String {
    escape(fold_plural_acronyms(proto_name).to_snake_case())
}

/// The associated constant naming a field for one-pass reads:
/// `nodeName` → `NODE_NAME`, `podIPs` → `POD_IPS`, `type` → `TYPE`
/// (upper case is never a keyword).
pub fn field_const(proto_name: &str) -> String {
    fold_plural_acronyms(proto_name).to_shouty_snake_case()
}

/// The raw-bytes accessor of a string field: `type` → `type_bytes`.
pub fn raw_bytes_method(proto_name: &str) -> String {
    escape(fold_plural_acronyms(proto_name).to_snake_case() + "_bytes")
}

/// A module for a package component or a message's nested types.
pub fn module(name: &str) -> String {
    escape(name.to_snake_case())
}

/// A view type: the protobuf message name, kept as written (`APIGroup`, as
/// k8s-openapi does), escaped if it is a keyword.
pub fn type_name(proto_name: &str) -> String {
    escape(proto_name.to_string())
}

/// The schema static of a message, from its names from the package down:
/// `["PodSpec", "NodeSelectorEntry"]` → `POD_SPEC_NODE_SELECTOR_ENTRY`.
pub fn schema_static(nesting: &[String]) -> String {
    let joined: Vec<String> = nesting.iter().map(|n| n.to_shouty_snake_case()).collect();
    escape(joined.join("_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_methods_follow_k8s_openapi() {
        let cases = [
            ("nodeName", "node_name"),
            ("podIPs", "pod_ips"),
            ("podIP", "pod_ip"),
            ("hostIPC", "host_ipc"),
            ("podCIDRs", "pod_cidrs"),
            ("nonResourceURLs", "non_resource_urls"),
            (
                "serverAddressByClientCIDRs",
                "server_address_by_client_cidrs",
            ),
            ("targetWWNs", "target_wwns"),
            ("IPFamilyPolicy", "ip_family_policy"),
            ("ipFamilies", "ip_families"),
            ("httpGet", "http_get"),
            ("tcpSocket", "tcp_socket"),
            ("Port", "port"),
            ("storagePolicyID", "storage_policy_id"),
            ("x509", "x509"),
            ("readOnly", "read_only"),
            ("type", "type_"),
            ("continue", "continue_"),
            ("ref", "ref_"),
            ("Raw", "raw"),
            ("externalIPs", "external_ips"),
            ("clusterIPs", "cluster_ips"),
            ("allowedCSIDrivers", "allowed_csi_drivers"),
        ];
        for (proto, want) in cases {
            assert_eq!(field_method(proto), want, "{proto}");
        }
        assert_eq!(raw_bytes_method("type"), "type_bytes");
        assert_eq!(field_const("nodeName"), "NODE_NAME");
        assert_eq!(field_const("podIPs"), "POD_IPS");
        assert_eq!(field_const("type"), "TYPE");
        assert_eq!(field_const("IPFamilyPolicy"), "IP_FAMILY_POLICY");
        assert_eq!(raw_bytes_method("podIPs"), "pod_ips_bytes");
    }

    #[test]
    fn every_keyword_is_escaped() {
        for keyword in KEYWORDS {
            let method = field_method(keyword);
            assert!(
                !KEYWORDS.contains(&method.as_str()),
                "{keyword} -> {method}"
            );
            assert!(
                syn::parse_str::<syn::Ident>(&method).is_ok(),
                "{method} is not an identifier"
            );
            let constant = field_const(keyword);
            assert!(
                syn::parse_str::<syn::Ident>(&constant).is_ok(),
                "{constant} is not an identifier"
            );
            let ty = type_name(keyword);
            assert!(
                syn::parse_str::<syn::Ident>(&ty).is_ok(),
                "{ty} is not an identifier"
            );
        }
    }

    #[test]
    fn statics_and_modules() {
        assert_eq!(schema_static(&["APIGroup".into()]), "API_GROUP");
        assert_eq!(
            schema_static(&["PodSpec".into(), "NodeSelectorEntry".into()]),
            "POD_SPEC_NODE_SELECTOR_ENTRY"
        );
        assert_eq!(module("v1beta1"), "v1beta1");
        assert_eq!(module("apimachinery"), "apimachinery");
    }
}
