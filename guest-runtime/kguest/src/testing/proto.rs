//! Protobuf bytes of Kubernetes objects for tests, without a code generator.
//!
//! [`Msg`] appends fields by number; the builders know the few field numbers
//! of `k8s.io/api/core/v1` that example plugins read.

use std::format;
use std::string::String;
use std::vec::Vec;

/// A protobuf message under construction (fields in call order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Msg(Vec<u8>);

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Msg {
    pub fn new() -> Msg {
        Msg(Vec::new())
    }

    /// A varint field (int32/int64/bool/enum; negative numbers as 10 bytes).
    pub fn int(mut self, field: u32, v: i64) -> Msg {
        varint(&mut self.0, u64::from(field) << 3);
        varint(&mut self.0, v as u64);
        self
    }

    /// A length-delimited field.
    pub fn bytes(mut self, field: u32, b: &[u8]) -> Msg {
        varint(&mut self.0, (u64::from(field) << 3) | 2);
        varint(&mut self.0, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }

    pub fn str(self, field: u32, s: &str) -> Msg {
        self.bytes(field, s.as_bytes())
    }

    pub fn msg(self, field: u32, m: &Msg) -> Msg {
        self.bytes(field, &m.0)
    }

    /// One entry of a `map<string, string>` field.
    pub fn map_str(self, field: u32, k: &str, v: &str) -> Msg {
        self.msg(field, &Msg::new().str(1, k).str(2, v))
    }

    /// One entry of a `map<string, Quantity>` field.
    pub fn map_quantity(self, field: u32, k: &str, q: &str) -> Msg {
        self.msg(field, &Msg::new().str(1, k).msg(2, &Msg::new().str(1, q)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

/// `ObjectMeta` fields shared by the pod and node builders.
#[derive(Debug, Clone, Default)]
struct Meta(Msg);

impl Meta {
    fn named(name: &str) -> Meta {
        Meta(if name.is_empty() {
            Msg::new()
        } else {
            Msg::new().str(1, name)
        })
    }
}

/// A `v1.Container`.
#[derive(Debug, Clone, Default)]
pub struct ContainerBuilder {
    msg: Msg,
    requests: Vec<(String, String)>,
    limits: Vec<(String, String)>,
}

impl ContainerBuilder {
    pub fn new(name: &str) -> ContainerBuilder {
        ContainerBuilder {
            msg: Msg::new().str(1, name),
            ..Default::default()
        }
    }

    pub fn image(mut self, image: &str) -> Self {
        self.msg = self.msg.str(2, image);
        self
    }

    /// `resources.requests[resource] = quantity`.
    pub fn request(mut self, resource: &str, quantity: &str) -> Self {
        self.requests.push((resource.into(), quantity.into()));
        self
    }

    /// `resources.limits[resource] = quantity`.
    pub fn limit(mut self, resource: &str, quantity: &str) -> Self {
        self.limits.push((resource.into(), quantity.into()));
        self
    }

    /// `restartPolicy` (`"Always"` makes an init container a sidecar).
    pub fn restart_policy(mut self, policy: &str) -> Self {
        self.msg = self.msg.str(24, policy);
        self
    }

    fn build(&self) -> Msg {
        let mut res = Msg::new();
        for (k, q) in &self.limits {
            res = res.map_quantity(1, k, q);
        }
        for (k, q) in &self.requests {
            res = res.map_quantity(2, k, q);
        }
        if res.is_empty() {
            self.msg.clone()
        } else {
            self.msg.clone().msg(8, &res)
        }
    }
}

/// A `v1.Pod`.
#[derive(Debug, Clone, Default)]
pub struct PodBuilder {
    meta: Meta,
    spec: Msg,
}

impl PodBuilder {
    /// A pod with `metadata.name` (none if `name` is empty).
    pub fn new(name: &str) -> PodBuilder {
        PodBuilder {
            meta: Meta::named(name),
            spec: Msg::new(),
        }
    }

    pub fn namespace(mut self, ns: &str) -> Self {
        self.meta.0 = self.meta.0.str(3, ns);
        self
    }

    pub fn uid(mut self, uid: &str) -> Self {
        self.meta.0 = self.meta.0.str(5, uid);
        self
    }

    pub fn label(mut self, k: &str, v: &str) -> Self {
        self.meta.0 = self.meta.0.map_str(11, k, v);
        self
    }

    pub fn annotation(mut self, k: &str, v: &str) -> Self {
        self.meta.0 = self.meta.0.map_str(12, k, v);
        self
    }

    pub fn node_name(mut self, n: &str) -> Self {
        self.spec = self.spec.str(10, n);
        self
    }

    pub fn container(mut self, c: ContainerBuilder) -> Self {
        self.spec = self.spec.msg(2, &c.build());
        self
    }

    pub fn init_container(mut self, c: ContainerBuilder) -> Self {
        self.spec = self.spec.msg(20, &c.build());
        self
    }

    /// A toleration; empty strings leave the field unset.
    pub fn toleration(mut self, key: &str, operator: &str, value: &str, effect: &str) -> Self {
        let mut t = Msg::new();
        for (f, s) in [(1, key), (2, operator), (3, value), (4, effect)] {
            if !s.is_empty() {
                t = t.str(f, s);
            }
        }
        self.spec = self.spec.msg(22, &t);
        self
    }

    /// `spec.overhead[resource] = quantity`.
    pub fn overhead(mut self, resource: &str, quantity: &str) -> Self {
        self.spec = self.spec.map_quantity(32, resource, quantity);
        self
    }

    /// Appends any raw `PodSpec` field.
    pub fn spec_field(mut self, f: impl FnOnce(Msg) -> Msg) -> Self {
        self.spec = f(self.spec);
        self
    }

    pub fn build(self) -> Vec<u8> {
        let mut m = Msg::new();
        if !self.meta.0.is_empty() {
            m = m.msg(1, &self.meta.0);
        }
        if !self.spec.is_empty() {
            m = m.msg(2, &self.spec);
        }
        m.into_bytes()
    }
}

/// A `v1.Node`.
#[derive(Debug, Clone, Default)]
pub struct NodeBuilder {
    meta: Meta,
    spec: Msg,
    status: Msg,
}

impl NodeBuilder {
    pub fn new(name: &str) -> NodeBuilder {
        NodeBuilder {
            meta: Meta::named(name),
            ..Default::default()
        }
    }

    pub fn label(mut self, k: &str, v: &str) -> Self {
        self.meta.0 = self.meta.0.map_str(11, k, v);
        self
    }

    /// A taint; empty strings leave the field unset.
    pub fn taint(mut self, key: &str, value: &str, effect: &str) -> Self {
        let mut t = Msg::new();
        for (f, s) in [(1, key), (2, value), (3, effect)] {
            if !s.is_empty() {
                t = t.str(f, s);
            }
        }
        self.spec = self.spec.msg(5, &t);
        self
    }

    /// `status.allocatable[resource] = quantity`.
    pub fn allocatable(mut self, resource: &str, quantity: &str) -> Self {
        self.status = self.status.map_quantity(2, resource, quantity);
        self
    }

    /// An entry of `status.images`.
    pub fn image(mut self, names: &[&str], size_bytes: i64) -> Self {
        let mut m = Msg::new();
        for n in names {
            m = m.str(1, n);
        }
        self.status = self.status.msg(8, &m.int(2, size_bytes));
        self
    }

    pub fn build(self) -> Vec<u8> {
        let mut m = Msg::new();
        if !self.meta.0.is_empty() {
            m = m.msg(1, &self.meta.0);
        }
        if !self.spec.is_empty() {
            m = m.msg(2, &self.spec);
        }
        if !self.status.is_empty() {
            m = m.msg(3, &self.status);
        }
        m.into_bytes()
    }
}

/// A `v1.NodeList` of these encoded nodes, as Go writes it (an empty
/// `metadata` first, then one `items` entry per node).
pub fn node_list<'a>(nodes: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut m = Msg::new().bytes(1, &[]);
    for n in nodes {
        m = m.bytes(2, n);
    }
    m.into_bytes()
}

/// `["a","b"]` from names (no escaping; test names are plain).
pub fn json_strings(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    format!("[{}]", quoted.join(","))
}
