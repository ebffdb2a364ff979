//! Differential tests: the generated views against prost-reflect's
//! `DynamicMessage`, an independent decoder built from the vendored `.proto`
//! files.
//!
//! Both sides are normalized into one comparable tree ([`Node`]): the views
//! through `Reflect::reflect` (each message read in one pass; `one_pass`
//! holds that equal to the generated accessors), the reference by walking
//! the fields `DynamicMessage` has set. Then:
//!
//! - every upstream fixture gives identical trees (test A);
//! - re-encodings of every fixture that a conforming decoder must read the
//!   same (shuffled fields, unknown fields, overlong varints, earlier
//!   duplicates, packed/unpacked splits, duplicate map keys) give identical
//!   trees, equal to the original's (test B);
//! - hand-written corner cases of the wire format give identical trees;
//! - the one documented deviation, a singular message split over several
//!   records, behaves exactly as documented (test C).
//!
//! Whatever prost-reflect accepts must also pass `validate()`.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use kguest_test_support::diff::{hex, hex_prefix};
use kguest_test_support::fixtures;
use kguest_test_support::oracle::{
    Node, first_difference, reference_decode, reference_tree, view_tree,
};
use kguest_test_support::rng::Lcg;
use kguest_test_support::wire::{
    key, len_field, put_varint, put_varint_n, varint_field, varint_len,
};
use kguest_wire::View;
use kguest_wire::reflect::Reflect;
use kguest_wire::schema::{self, Kind, Label, MessageSchema};
use kguest_wire::wire::{MAX_FIELD_NUMBER, Value, next_field, read_varint};
use prost_reflect::Value as PValue;

// ---------------------------------------------------------------------------
// From a message name to a view.

/// Generates [`reflect_root`] and [`root_schemas`] from a list of view types
/// (paths below `kguest_k8s::`).
macro_rules! roots {
    ($($($seg:ident)::+),* $(,)?) => {
        /// Wraps `bytes` in the view of the message `full_name` (e.g.
        /// `k8s.io.api.core.v1.Pod`) and hands it to `f`. False when the
        /// type is not in the list.
        pub fn reflect_root<'a>(
            full_name: &str,
            bytes: &'a [u8],
            f: &mut dyn FnMut(&dyn Reflect<'a>),
        ) -> bool {
            $(
                let view = kguest_k8s::$($seg)::+::from_bytes(bytes);
                if view.schema().name() == full_name {
                    f(&view);
                    return true;
                }
            )*
            false
        }

        /// The schemas of every type [`reflect_root`] knows.
        pub fn root_schemas() -> Vec<&'static MessageSchema> {
            vec![$(<kguest_k8s::$($seg)::+<'static> as View<'static>>::SCHEMA),*]
        }
    };
}

// Every type of the upstream fixtures (`proto-vendor/testdata/*.pb`), derived
// from the fixture names `<group>.<version>.<Kind>` with the folder of the
// group from `kguest_k8s_io::groups`; kinds that apimachinery defines for every
// group live in `meta/v1`. `every_fixture_matches_prost_reflect` fails when a
// fixture has no entry here.
roots![
    api::admission::v1::AdmissionReview,
    api::admission::v1beta1::AdmissionReview,
    api::admissionregistration::v1::MutatingAdmissionPolicy,
    api::admissionregistration::v1::MutatingAdmissionPolicyBinding,
    api::admissionregistration::v1::MutatingWebhookConfiguration,
    api::admissionregistration::v1::ValidatingAdmissionPolicy,
    api::admissionregistration::v1::ValidatingAdmissionPolicyBinding,
    api::admissionregistration::v1::ValidatingWebhookConfiguration,
    api::admissionregistration::v1alpha1::MutatingAdmissionPolicy,
    api::admissionregistration::v1alpha1::MutatingAdmissionPolicyBinding,
    api::admissionregistration::v1alpha1::ValidatingAdmissionPolicy,
    api::admissionregistration::v1alpha1::ValidatingAdmissionPolicyBinding,
    api::admissionregistration::v1beta1::MutatingAdmissionPolicy,
    api::admissionregistration::v1beta1::MutatingAdmissionPolicyBinding,
    api::admissionregistration::v1beta1::MutatingWebhookConfiguration,
    api::admissionregistration::v1beta1::ValidatingAdmissionPolicy,
    api::admissionregistration::v1beta1::ValidatingAdmissionPolicyBinding,
    api::admissionregistration::v1beta1::ValidatingWebhookConfiguration,
    api::apidiscovery::v2::APIGroupDiscovery,
    api::apidiscovery::v2beta1::APIGroupDiscovery,
    api::apiserverinternal::v1alpha1::StorageVersion,
    api::apps::v1::ControllerRevision,
    api::apps::v1::DaemonSet,
    api::apps::v1::Deployment,
    api::apps::v1::ReplicaSet,
    api::apps::v1::StatefulSet,
    api::apps::v1beta1::ControllerRevision,
    api::apps::v1beta1::Deployment,
    api::apps::v1beta1::DeploymentRollback,
    api::apps::v1beta1::Scale,
    api::apps::v1beta1::StatefulSet,
    api::apps::v1beta2::ControllerRevision,
    api::apps::v1beta2::DaemonSet,
    api::apps::v1beta2::Deployment,
    api::apps::v1beta2::ReplicaSet,
    api::apps::v1beta2::Scale,
    api::apps::v1beta2::StatefulSet,
    api::authentication::v1::SelfSubjectReview,
    api::authentication::v1::TokenRequest,
    api::authentication::v1::TokenReview,
    api::authentication::v1beta1::SelfSubjectReview,
    api::authentication::v1beta1::TokenReview,
    api::authorization::v1::LocalSubjectAccessReview,
    api::authorization::v1::SelfSubjectAccessReview,
    api::authorization::v1::SelfSubjectRulesReview,
    api::authorization::v1::SubjectAccessReview,
    api::authorization::v1beta1::LocalSubjectAccessReview,
    api::authorization::v1beta1::SelfSubjectAccessReview,
    api::authorization::v1beta1::SelfSubjectRulesReview,
    api::authorization::v1beta1::SubjectAccessReview,
    api::autoscaling::v1::HorizontalPodAutoscaler,
    api::autoscaling::v1::Scale,
    api::autoscaling::v2::HorizontalPodAutoscaler,
    api::batch::v1::CronJob,
    api::batch::v1::Job,
    api::batch::v1beta1::CronJob,
    api::certificates::v1::CertificateSigningRequest,
    api::certificates::v1::ClusterTrustBundle,
    api::certificates::v1::PodCertificateRequest,
    api::certificates::v1alpha1::ClusterTrustBundle,
    api::certificates::v1beta1::CertificateSigningRequest,
    api::certificates::v1beta1::ClusterTrustBundle,
    api::certificates::v1beta1::PodCertificateRequest,
    api::coordination::v1::Lease,
    api::coordination::v1alpha2::LeaseCandidate,
    api::coordination::v1beta1::Lease,
    api::coordination::v1beta1::LeaseCandidate,
    api::core::v1::Binding,
    api::core::v1::ComponentStatus,
    api::core::v1::ConfigMap,
    api::core::v1::Endpoints,
    api::core::v1::Event,
    api::core::v1::LimitRange,
    api::core::v1::Namespace,
    api::core::v1::Node,
    api::core::v1::NodeProxyOptions,
    api::core::v1::PersistentVolume,
    api::core::v1::PersistentVolumeClaim,
    api::core::v1::Pod,
    api::core::v1::PodAttachOptions,
    api::core::v1::PodExecOptions,
    api::core::v1::PodLogOptions,
    api::core::v1::PodPortForwardOptions,
    api::core::v1::PodProxyOptions,
    api::core::v1::PodTemplate,
    api::core::v1::RangeAllocation,
    api::core::v1::ReplicationController,
    api::core::v1::ResourceQuota,
    api::core::v1::Secret,
    api::core::v1::SerializedReference,
    api::core::v1::Service,
    api::core::v1::ServiceAccount,
    api::core::v1::ServiceProxyOptions,
    api::discovery::v1::EndpointSlice,
    api::discovery::v1beta1::EndpointSlice,
    api::events::v1::Event,
    api::events::v1beta1::Event,
    api::extensions::v1beta1::DaemonSet,
    api::extensions::v1beta1::Deployment,
    api::extensions::v1beta1::DeploymentRollback,
    api::extensions::v1beta1::Ingress,
    api::extensions::v1beta1::NetworkPolicy,
    api::extensions::v1beta1::ReplicaSet,
    api::extensions::v1beta1::Scale,
    api::flowcontrol::v1::FlowSchema,
    api::flowcontrol::v1::PriorityLevelConfiguration,
    api::flowcontrol::v1beta1::FlowSchema,
    api::flowcontrol::v1beta1::PriorityLevelConfiguration,
    api::flowcontrol::v1beta2::FlowSchema,
    api::flowcontrol::v1beta2::PriorityLevelConfiguration,
    api::flowcontrol::v1beta3::FlowSchema,
    api::flowcontrol::v1beta3::PriorityLevelConfiguration,
    api::imagepolicy::v1alpha1::ImageReview,
    api::lifecycle::v1alpha1::Eviction,
    api::lifecycle::v1alpha1::EvictionRequest,
    api::networking::v1::IPAddress,
    api::networking::v1::Ingress,
    api::networking::v1::IngressClass,
    api::networking::v1::NetworkPolicy,
    api::networking::v1::ServiceCIDR,
    api::networking::v1beta1::IPAddress,
    api::networking::v1beta1::Ingress,
    api::networking::v1beta1::IngressClass,
    api::networking::v1beta1::ServiceCIDR,
    api::node::v1::RuntimeClass,
    api::node::v1alpha1::RuntimeClass,
    api::node::v1beta1::RuntimeClass,
    api::policy::v1::Eviction,
    api::policy::v1::PodDisruptionBudget,
    api::policy::v1beta1::Eviction,
    api::policy::v1beta1::PodDisruptionBudget,
    api::rbac::v1::ClusterRole,
    api::rbac::v1::ClusterRoleBinding,
    api::rbac::v1::Role,
    api::rbac::v1::RoleBinding,
    api::rbac::v1alpha1::ClusterRole,
    api::rbac::v1alpha1::ClusterRoleBinding,
    api::rbac::v1alpha1::Role,
    api::rbac::v1alpha1::RoleBinding,
    api::rbac::v1beta1::ClusterRole,
    api::rbac::v1beta1::ClusterRoleBinding,
    api::rbac::v1beta1::Role,
    api::rbac::v1beta1::RoleBinding,
    api::resource::v1::DeviceClass,
    api::resource::v1::DeviceTaintRule,
    api::resource::v1::ResourceClaim,
    api::resource::v1::ResourceClaimTemplate,
    api::resource::v1::ResourceSlice,
    api::resource::v1alpha3::DeviceTaintRule,
    api::resource::v1alpha3::ResourcePoolStatusRequest,
    api::resource::v1beta1::DeviceClass,
    api::resource::v1beta1::ResourceClaim,
    api::resource::v1beta1::ResourceClaimTemplate,
    api::resource::v1beta1::ResourceSlice,
    api::resource::v1beta2::DeviceClass,
    api::resource::v1beta2::DeviceTaintRule,
    api::resource::v1beta2::ResourceClaim,
    api::resource::v1beta2::ResourceClaimTemplate,
    api::resource::v1beta2::ResourceSlice,
    api::scheduling::v1::PriorityClass,
    api::scheduling::v1alpha3::CompositePodGroup,
    api::scheduling::v1alpha3::PodGroup,
    api::scheduling::v1alpha3::Workload,
    api::scheduling::v1beta1::PodGroup,
    api::scheduling::v1beta1::PriorityClass,
    api::scheduling::v1beta1::Workload,
    api::storage::v1::CSIDriver,
    api::storage::v1::CSINode,
    api::storage::v1::CSIStorageCapacity,
    api::storage::v1::StorageClass,
    api::storage::v1::VolumeAttachment,
    api::storage::v1::VolumeAttributesClass,
    api::storage::v1alpha1::CSIStorageCapacity,
    api::storage::v1alpha1::VolumeAttachment,
    api::storage::v1alpha1::VolumeAttributesClass,
    api::storage::v1beta1::CSIDriver,
    api::storage::v1beta1::CSINode,
    api::storage::v1beta1::CSIStorageCapacity,
    api::storage::v1beta1::StorageClass,
    api::storage::v1beta1::VolumeAttachment,
    api::storage::v1beta1::VolumeAttributesClass,
    api::storagemigration::v1::StorageVersionMigration,
    api::storagemigration::v1beta1::StorageVersionMigration,
    apimachinery::pkg::apis::meta::v1::APIGroup,
    apimachinery::pkg::apis::meta::v1::APIVersions,
    apimachinery::pkg::apis::meta::v1::CreateOptions,
    apimachinery::pkg::apis::meta::v1::DeleteOptions,
    apimachinery::pkg::apis::meta::v1::GetOptions,
    apimachinery::pkg::apis::meta::v1::ListOptions,
    apimachinery::pkg::apis::meta::v1::PatchOptions,
    apimachinery::pkg::apis::meta::v1::Status,
    apimachinery::pkg::apis::meta::v1::UpdateOptions,
    apimachinery::pkg::apis::meta::v1::WatchEvent,
];

// ---------------------------------------------------------------------------
// The views and the reference compared.

/// The tree of the root view `full_name` over `bytes`.
pub fn root_view_tree(full_name: &str, bytes: &[u8]) -> Option<Node> {
    let mut tree = None;
    reflect_root(full_name, bytes, &mut |view| tree = Some(view_tree(view)));
    tree
}

/// Compares the views and the reference on `bytes`: `Ok(reference tree)` when
/// they agree, else the first difference.
fn compare(full_name: &str, bytes: &[u8]) -> Result<Node, String> {
    let schema = kguest_k8s_io::json::schema_by_full_name(full_name);
    let theirs = reference_tree(&reference_decode(full_name, bytes)?);
    let ours = root_view_tree(full_name, bytes)
        .ok_or_else(|| format!("no view for {full_name} in reflect_root's list"))?;
    if let Err(err) = schema::validate(schema.expect("schema"), bytes) {
        return Err(format!(
            "prost-reflect decodes it, but validate() fails: {err}"
        ));
    }
    match first_difference(schema, "", &ours, &theirs) {
        None => Ok(theirs),
        Some(diff) => Err(diff),
    }
}

// ---------------------------------------------------------------------------
// Test A.

#[test]
fn every_fixture_matches_prost_reflect() {
    let start = Instant::now();
    let fixtures = fixtures::raw();
    let mut failures = Vec::new();
    for (name, full_name, raw) in &fixtures {
        if let Err(err) = compare(full_name, raw) {
            failures.push(format!("{name} ({full_name}): {err}"));
        }
    }
    let passed = fixtures.len() - failures.len();
    println!(
        "differential: {passed}/{} fixtures identical to prost-reflect ({:.2?})",
        fixtures.len(),
        start.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Test B: a wire-level re-encoder.

/// Which transformations the re-encoder applies (each per record, at random).
#[derive(Clone, Copy, Default)]
pub struct Plan {
    /// Reorder fields; occurrences of one field number keep their order.
    pub shuffle: bool,
    /// Insert fields the schema does not know, of every wire type.
    pub unknown: bool,
    /// Overlong (but at most 10-byte) varints for keys, lengths and values.
    pub pad: bool,
    /// An earlier occurrence of a singular scalar or string with another value.
    pub earlier_duplicate: bool,
    /// Repeated integers split into packed and unpacked runs.
    pub split_packed: bool,
    /// An earlier map entry with the same key and another value.
    pub earlier_map_duplicate: bool,
    /// A later occurrence of a singular scalar, or a later map entry with the
    /// same key: changes the value, so only the mutated reference applies.
    pub overwrite: bool,
}

impl Plan {
    fn preserves_values(&self) -> bool {
        !self.overwrite
    }
}

#[derive(Default)]
pub struct Stats {
    shuffled: usize,
    unknown: usize,
    padded: usize,
    earlier_duplicate: usize,
    packed_runs: usize,
    unpacked_runs: usize,
    empty_runs: usize,
    earlier_map_duplicate: usize,
    overwritten: usize,
}

/// A field value the re-encoder made up.
enum Owned {
    Varint(u64),
    Len(Vec<u8>),
}

impl Owned {
    fn as_value(&self) -> Value<'_> {
        match self {
            Owned::Varint(v) => Value::Varint(*v),
            Owned::Len(body) => Value::Len(body),
        }
    }
}

struct Encoder<'r> {
    rng: &'r mut Lcg,
    plan: Plan,
    stats: &'r mut Stats,
}

fn is_varint_kind(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Int32
            | Kind::Int64
            | Kind::Uint32
            | Kind::Uint64
            | Kind::Sint32
            | Kind::Sint64
            | Kind::Bool
            | Kind::Enum
    )
}

impl Encoder<'_> {
    fn varint(&mut self, out: &mut Vec<u8>, v: u64) {
        let min = varint_len(v);
        let n = if self.plan.pad && min < 10 && self.rng.chance(20) {
            self.stats.padded += 1;
            min + 1 + self.rng.below(10 - min)
        } else {
            min
        };
        put_varint_n(out, v, n);
    }

    fn key(&mut self, out: &mut Vec<u8>, number: u32, wire: u8) {
        self.varint(out, (u64::from(number) << 3) | u64::from(wire));
    }

    fn len_record(&mut self, number: u32, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(body.len() + 8);
        self.key(&mut out, number, 2);
        self.varint(&mut out, body.len() as u64);
        out.extend_from_slice(body);
        out
    }

    fn varint_record(&mut self, number: u32, v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        self.key(&mut out, number, 0);
        self.varint(&mut out, v);
        out
    }

    fn record(&mut self, number: u32, value: Value<'_>) -> Vec<u8> {
        match value {
            Value::Varint(v) => self.varint_record(number, v),
            Value::Len(body) => self.len_record(number, body),
            Value::Fixed32(v) => {
                let mut out = Vec::new();
                self.key(&mut out, number, 5);
                out.extend_from_slice(&v.to_le_bytes());
                out
            }
            Value::Fixed64(v) => {
                let mut out = Vec::new();
                self.key(&mut out, number, 1);
                out.extend_from_slice(&v.to_le_bytes());
                out
            }
        }
    }

    fn random_varint(&mut self) -> u64 {
        match self.rng.below(4) {
            0 => self.rng.below(128) as u64,
            1 => self.rng.below(1 << 20) as u64,
            2 => u64::MAX - self.rng.below(3) as u64,
            _ => self.rng.next_u64(),
        }
    }

    fn random_string(&mut self) -> String {
        const PIECES: &[&str] = &["a", "b", "z", "-", "0", "é", "日本", "🦀", " ", "x/y"];
        (0..self.rng.below(6))
            .map(|_| PIECES[self.rng.below(PIECES.len())])
            .collect()
    }

    /// A well-formed record of a field `schema` does not know.
    fn unknown_record(&mut self, schema: &MessageSchema) -> (u32, Vec<u8>) {
        let top = schema.fields.last().map_or(0, |f| f.number);
        let number = loop {
            let n = if self.rng.chance(50) {
                top + 1 + self.rng.below(100) as u32
            } else {
                1 + self.rng.below(MAX_FIELD_NUMBER as usize) as u32
            };
            if schema.field(n).is_none() {
                break n;
            }
        };
        let value = match self.rng.below(4) {
            0 => Value::Varint(self.random_varint()),
            1 => Value::Fixed64(self.rng.next_u64()),
            2 => Value::Fixed32(self.rng.next_u32()),
            _ => {
                let body = self.rng.bytes(12);
                return (number, self.len_record(number, &body));
            }
        };
        (number, self.record(number, value))
    }

    /// Another value of the same kind as `old`.
    fn other_value(&mut self, kind: Kind, old: Value<'_>) -> Owned {
        match kind {
            Kind::String => Owned::Len(self.random_string().into_bytes()),
            Kind::Bytes => Owned::Len(self.rng.bytes(8)),
            // An empty message, or one with only a field its type does not
            // know (a field it knows, e.g. Quantity's string, would need a
            // value of its type).
            Kind::Message(_) if self.rng.chance(50) => Owned::Len(Vec::new()),
            Kind::Message(inner) => Owned::Len(self.unknown_record(inner).1),
            _ => {
                let mut v = self.random_varint();
                if old == Value::Varint(v) {
                    v ^= 1;
                }
                Owned::Varint(v)
            }
        }
    }

    /// A map entry with the key of `entry` and another value.
    fn entry_with_other_value(&mut self, entry_schema: &MessageSchema, entry: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = entry;
        let mut old_value = Value::Len(&[]);
        while let Ok(Some((number, value))) = next_field(&mut rest) {
            match number {
                1 => out.extend(self.record(1, value)),
                2 => old_value = value,
                _ => {}
            }
        }
        if let Some(value_field) = entry_schema.field(2) {
            let value = self.other_value(value_field.kind, old_value);
            out.extend(self.record(2, value.as_value()));
        }
        out
    }

    /// Re-encodes the message `bytes` of type `schema`.
    fn message(&mut self, schema: &MessageSchema, bytes: &[u8]) -> Vec<u8> {
        let mut records: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut rest = bytes;
        while let Some((number, value)) =
            next_field(&mut rest).expect("the re-encoder reads well-formed input")
        {
            if self.plan.unknown && self.rng.chance(10) {
                self.stats.unknown += 1;
                records.push(self.unknown_record(schema));
            }
            let Some(field) = schema.field(number) else {
                records.push((number, self.record(number, value)));
                continue;
            };
            match (field.label, field.kind, value) {
                (label, Kind::Message(inner), Value::Len(body)) => {
                    let body = self.message(inner, body);
                    let map = label == Label::Map;
                    if map && self.plan.earlier_map_duplicate && self.rng.chance(30) {
                        self.stats.earlier_map_duplicate += 1;
                        let dup = self.entry_with_other_value(inner, &body);
                        records.push((number, self.len_record(number, &dup)));
                    }
                    records.push((number, self.len_record(number, &body)));
                    if map && self.plan.overwrite && self.rng.chance(30) {
                        self.stats.overwritten += 1;
                        let dup = self.entry_with_other_value(inner, &body);
                        records.push((number, self.len_record(number, &dup)));
                    }
                }
                (Label::Singular, kind, value) => {
                    if self.plan.earlier_duplicate && self.rng.chance(30) {
                        self.stats.earlier_duplicate += 1;
                        let other = self.other_value(kind, value);
                        records.push((number, self.record(number, other.as_value())));
                    }
                    records.push((number, self.record(number, value)));
                    if self.plan.overwrite && self.rng.chance(20) {
                        self.stats.overwritten += 1;
                        let other = self.other_value(kind, value);
                        records.push((number, self.record(number, other.as_value())));
                    }
                }
                (Label::Repeated, kind, value)
                    if self.plan.split_packed && is_varint_kind(kind) =>
                {
                    let elements: Vec<u64> = match value {
                        Value::Varint(v) => vec![v],
                        Value::Len(mut run) => {
                            let mut elements = Vec::new();
                            while !run.is_empty() {
                                elements.push(read_varint(&mut run).expect("packed run"));
                            }
                            elements
                        }
                        _ => panic!("fixture has a repeated varint field with wire type {value:?}"),
                    };
                    self.split(number, &elements, &mut records);
                }
                (_, _, value) => records.push((number, self.record(number, value))),
            }
        }
        if self.plan.unknown && self.rng.chance(10) {
            self.stats.unknown += 1;
            records.push(self.unknown_record(schema));
        }
        if self.plan.shuffle && records.len() > 1 {
            self.stats.shuffled += 1;
            self.interleave(records)
        } else {
            records.into_iter().flat_map(|(_, r)| r).collect()
        }
    }

    /// `elements` of a repeated integer field as a random mix of packed runs
    /// (some empty) and single unpacked records.
    fn split(&mut self, number: u32, elements: &[u64], records: &mut Vec<(u32, Vec<u8>)>) {
        let mut rest = elements;
        loop {
            if self.rng.chance(15) {
                self.stats.empty_runs += 1;
                records.push((number, self.len_record(number, &[])));
            }
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at(1 + self.rng.below(rest.len()));
            rest = tail;
            if self.rng.chance(50) {
                self.stats.packed_runs += 1;
                let mut run = Vec::new();
                for &v in chunk {
                    self.varint(&mut run, v);
                }
                records.push((number, self.len_record(number, &run)));
            } else {
                self.stats.unpacked_runs += 1;
                for &v in chunk {
                    records.push((number, self.varint_record(number, v)));
                }
            }
        }
    }

    /// A random interleaving of the records that keeps the order of the
    /// records of each field number.
    fn interleave(&mut self, records: Vec<(u32, Vec<u8>)>) -> Vec<u8> {
        let mut queues: BTreeMap<u32, VecDeque<Vec<u8>>> = BTreeMap::new();
        for (number, record) in records {
            queues.entry(number).or_default().push_back(record);
        }
        let mut out = Vec::new();
        let mut numbers: Vec<u32> = queues.keys().copied().collect();
        while !numbers.is_empty() {
            let i = self.rng.below(numbers.len());
            let queue = queues.get_mut(&numbers[i]).expect("queue");
            out.extend(queue.pop_front().expect("non-empty queue"));
            if queue.is_empty() {
                numbers.swap_remove(i);
            }
        }
        out
    }
}

pub fn reencode(
    schema: &MessageSchema,
    bytes: &[u8],
    seed: u64,
    plan: Plan,
    stats: &mut Stats,
) -> Vec<u8> {
    let mut rng = Lcg::new(seed);
    Encoder {
        rng: &mut rng,
        plan,
        stats,
    }
    .message(schema, bytes)
}

#[test]
fn reencoded_fixtures_match_prost_reflect() {
    const SEEDS: u64 = 4;
    let start = Instant::now();
    let fixtures = fixtures::raw();
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    let (mut checked, mut changed) = (0, 0);
    for (name, full_name, raw) in &fixtures {
        let schema = kguest_k8s_io::json::schema_by_full_name(full_name).expect("schema");
        let Ok(original) = reference_decode(full_name, raw).map(|m| reference_tree(&m)) else {
            failures.push(format!("{name}: prost-reflect rejects the original"));
            continue;
        };
        for round in 0..SEEDS {
            let plan = Plan {
                shuffle: true,
                unknown: true,
                pad: true,
                earlier_duplicate: true,
                split_packed: true,
                earlier_map_duplicate: true,
                overwrite: round == SEEDS - 1,
            };
            let seed = round.wrapping_mul(0x1000_0000_01b3) ^ raw.len() as u64;
            let mutated = reencode(schema, raw, seed, plan, &mut stats);
            checked += 1;
            changed += usize::from(mutated != *raw);
            let result = compare(full_name, &mutated).and_then(|theirs| {
                if !plan.preserves_values() {
                    return Ok(());
                }
                match first_difference(Some(schema), "", &theirs, &original) {
                    None => Ok(()),
                    Some(diff) => Err(format!(
                        "the re-encoding changed a value (\"views\" = the re-encoding, \
                         \"prost-reflect\" = the fixture, both decoded by prost-reflect): {diff}"
                    )),
                }
            });
            if let Err(err) = result {
                // The seed reproduces the input; show its start.
                failures.push(format!(
                    "{name} (round {round}, seed {seed}): {err}\n  input ({})",
                    hex_prefix(&mutated, 256)
                ));
            }
        }
    }
    println!(
        "differential (re-encoded): {}/{checked} encodings ({changed} differ from the fixture) \
         identical to prost-reflect ({:.2?})",
        checked - failures.len(),
        start.elapsed()
    );
    println!(
        "  messages shuffled {}, unknown fields {}, padded varints {}, earlier duplicates {}, \
         packed runs {}, unpacked runs {}, empty packed runs {}, earlier map duplicates {}, \
         overwrites {}",
        stats.shuffled,
        stats.unknown,
        stats.padded,
        stats.earlier_duplicate,
        stats.packed_runs,
        stats.unpacked_runs,
        stats.empty_runs,
        stats.earlier_map_duplicate,
        stats.overwritten
    );
    assert!(
        stats.packed_runs > 0 && stats.unpacked_runs > 0,
        "no repeated integer field was split"
    );
    let total = failures.len();
    failures.truncate(20);
    assert!(
        total == 0,
        "{total} encoding(s) differ (first 20 shown):\n{}",
        failures.join("\n")
    );
}

/// Hand-written corner cases of the wire format, each a Pod.
#[test]
fn corner_cases_match_prost_reflect() {
    // Pod: metadata 1, spec 2. ObjectMeta: name 1, generation 7, labels 11.
    // PodSpec: containers 2, securityContext 14. PodSecurityContext:
    // runAsUser 2, runAsNonRoot 3, supplementalGroups 4. Container: ports 6,
    // resources 8. ContainerPort: containerPort 3 (int32).
    // ResourceRequirements: limits 1 (map<string, Quantity>).
    let meta = |body: &[u8]| len_field(1, body);
    let labels = |entry: &[u8]| len_field(11, entry);
    let security = |body: &[u8]| len_field(2, &len_field(14, body));
    let container = |body: &[u8]| len_field(2, &len_field(2, body));
    let limits = |entry: &[u8]| container(&len_field(8, &len_field(1, entry)));
    let groups_packed = |values: &[u64]| {
        let mut run = Vec::new();
        for &v in values {
            put_varint(&mut run, v);
        }
        len_field(4, &run)
    };
    let cat = |parts: &[&[u8]]| parts.concat();

    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty input", vec![]),
        ("empty spec", len_field(2, &[])),
        ("empty name", meta(&len_field(1, b""))),
        ("empty map entry", meta(&labels(&[]))),
        ("map entry without key", meta(&labels(&len_field(2, b"v")))),
        (
            "map entry without value",
            meta(&labels(&len_field(1, b"k"))),
        ),
        (
            "map entry value first",
            meta(&labels(&cat(&[&len_field(2, b"v"), &len_field(1, b"k")]))),
        ),
        (
            "map entry key twice",
            meta(&labels(&cat(&[
                &len_field(1, b"a"),
                &len_field(1, b"b"),
                &len_field(2, b"v"),
            ]))),
        ),
        (
            "map entry with unknown fields",
            meta(&labels(&cat(&[
                &varint_field(3, 7, 0),
                &len_field(1, b"k"),
                &[0x25, 1, 2, 3, 4],
                &len_field(2, b"v"),
            ]))),
        ),
        (
            "map key repeated in two entries",
            meta(&cat(&[
                &labels(&cat(&[&len_field(1, b"a"), &len_field(2, b"1")])),
                &labels(&cat(&[&len_field(1, b"b"), &len_field(2, b"2")])),
                &labels(&cat(&[&len_field(1, b"a"), &len_field(2, b"3")])),
            ])),
        ),
        (
            "message-valued map entry without value",
            limits(&len_field(1, b"cpu")),
        ),
        (
            "message-valued map entry without key",
            limits(&len_field(2, &len_field(1, b"1"))),
        ),
        (
            "message-valued map entry, empty value",
            limits(&cat(&[&len_field(1, b"cpu"), &len_field(2, &[])])),
        ),
        ("empty packed run only", security(&groups_packed(&[]))),
        (
            "packed, unpacked, empty and packed again",
            security(&cat(&[
                &groups_packed(&[1, 2]),
                &varint_field(4, 3, 0),
                &groups_packed(&[]),
                &groups_packed(&[u64::MAX, 1 << 40]),
                &varint_field(4, 5, 10),
            ])),
        ),
        (
            "int64 -1 and bool 2",
            security(&cat(&[
                &varint_field(2, u64::MAX, 0),
                &varint_field(3, 2, 0),
            ])),
        ),
        ("int64 1 in 10 bytes", meta(&varint_field(7, 1, 10))),
        ("int64 with bit 63 only", meta(&varint_field(7, 1 << 63, 0))),
        (
            "int32 from a 64-bit varint",
            container(&len_field(6, &varint_field(3, (1 << 32) + 5, 0))),
        ),
        (
            "int32 -1 in 10 bytes",
            container(&len_field(6, &varint_field(3, u64::MAX, 0))),
        ),
        (
            "int32 -1 in 5 bytes",
            container(&len_field(6, &varint_field(3, 0xffff_ffff, 0))),
        ),
        ("unknown field of the largest number", {
            let mut out = Vec::new();
            key(&mut out, MAX_FIELD_NUMBER, 0);
            out.push(1);
            out
        }),
        ("key padded to 5 bytes", {
            let mut out = vec![0x8a, 0x80, 0x80, 0x80, 0x00]; // field 1, wire type 2
            out.extend([0x03, 0x0a, 0x01, b'n']);
            out
        }),
        ("length padded to 10 bytes", {
            let mut out = vec![0x0a];
            put_varint_n(&mut out, 3, 10);
            out.extend([0x0a, 0x01, b'n']);
            out
        }),
        (
            "last of three names",
            meta(&cat(&[
                &len_field(1, b"a"),
                &len_field(1, b"b"),
                &len_field(1, b"c"),
            ])),
        ),
        (
            "UTF-8 of every width",
            meta(&len_field(1, "aé日🦀".as_bytes())),
        ),
    ];
    let mut failures = Vec::new();
    for (label, bytes) in &cases {
        if let Err(err) = compare("k8s.io.api.core.v1.Pod", bytes) {
            failures.push(format!("{label}: {err}\n  input: {}", hex(bytes)));
        }
    }
    println!(
        "differential (corner cases): {}/{} identical to prost-reflect",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} corner case(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Test C: the documented deviation.

/// A singular message split over two records: protobuf merges them, a view
/// reads the last one only. This is the one documented deviation of the views
/// (see the `kguest-wire` crate docs); Kubernetes' marshaller never splits a
/// message, so real input is unaffected. This test pins the behavior down:
/// if it changes, the documentation must change with it.
#[test]
fn split_singular_message_reads_last_occurrence() {
    use kguest_k8s::api::core::v1::Pod;

    // Pod { metadata(1) { name(1): "a" }, metadata(1) { namespace(3): "b" } }
    let bytes = [0x0a, 0x03, 0x0a, 0x01, b'a', 0x0a, 0x03, 0x1a, 0x01, b'b'];
    let pod = Pod::from_bytes(&bytes);
    assert_eq!(
        pod.validate(),
        Ok(()),
        "a split message is well-formed protobuf"
    );

    let reference =
        reference_decode("k8s.io.api.core.v1.Pod", &bytes).expect("prost-reflect decodes");
    let metadata = reference
        .get_field_by_name("metadata")
        .expect("metadata field");
    let metadata = metadata.as_message().expect("metadata is a message");
    assert_eq!(
        metadata.get_field_by_name("name").as_deref(),
        Some(&PValue::String("a".into()))
    );
    assert_eq!(
        metadata.get_field_by_name("namespace").as_deref(),
        Some(&PValue::String("b".into()))
    );
    assert!(
        metadata.has_field_by_name("name"),
        "prost-reflect merges both occurrences"
    );

    let view_metadata = pod.metadata().expect("metadata present");
    assert_eq!(
        view_metadata.name(),
        None,
        "the view reads only the last occurrence"
    );
    assert_eq!(view_metadata.namespace(), Some("b"));

    // Through the trees: exactly one difference, metadata.name.
    let ours = root_view_tree("k8s.io.api.core.v1.Pod", &bytes).expect("Pod is a root");
    let theirs = reference_tree(&reference);
    let schema = <Pod<'_> as View<'_>>::SCHEMA;
    assert_eq!(
        first_difference(Some(schema), "", &ours, &theirs).as_deref(),
        Some(".metadata.name: views have nothing, prost-reflect gives \"str:a\"")
    );
}
