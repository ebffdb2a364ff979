//! What kguest's generated crates know about Kubernetes that its protos do
//! not say: data only, read by `cargo xtask regen` into a [`Config`].
//!
//! Every message is named below `k8s.io.` (prepend `k8s.io.` for the full
//! protobuf name). The generator refuses an entry whose message or field the
//! protos lack, so a table cannot outlive an upstream rename.
//!
//! The other Go facts (pointer fields, json tags without `omitempty`, the Go
//! field order) are long and machine-written: they live in kguest's
//! `xtask/data/*.txt`, written and checked by `cargo xtask go-facts`.
//!
//! [`Config`]: crate::Config

use crate::JsonForm;

/// Messages whose JSON form is not an object of their fields: (message
/// below `k8s.io.`, form).
///
/// Source: the Go types' own `MarshalJSON`/`UnmarshalJSON` in
/// k8s.io/apimachinery and k8s.io/api, which the `.proto` comments mark
/// (`+protobuf.as=Timestamp` on `Time` and `MicroTime`,
/// `+protobuf.embed=string` on `Quantity`, `+protobuf.nullable=true` on the
/// `[]string` types, `+protobuf=true` on `RawExtension` and `IntOrString`).
/// `Time` writes RFC 3339 to the second (`metav1/time.go`), `MicroTime` with
/// six fractional digits (`micro_time.go`), `Duration` Go's duration string
/// (`duration.go`); `FieldsV1` and `RawExtension` carry raw JSON; `Verbs`
/// and the `ExtraValue`s and `AttestationValue` (1.37) are `[]string`, written as the bare array. Kept by
/// hand from those sources (`cargo xtask go-facts` does not check it).
///
/// The k8s-openapi encoders ([`crate::openapi`]) read the forms too: a
/// message with a form other than [`JsonForm::Object`] is encoded by hand
/// (the encoders' `rt.rs`), except [`JsonForm::BareArray`], which
/// k8s-openapi holds as a `Vec<String>`.
pub const JSON_FORMS: &[(&str, JsonForm)] = &[
    (
        "apimachinery.pkg.apis.meta.v1.Time",
        JsonForm::Timestamp { frac_digits: 0 },
    ),
    (
        "apimachinery.pkg.apis.meta.v1.MicroTime",
        JsonForm::Timestamp { frac_digits: 6 },
    ),
    ("apimachinery.pkg.apis.meta.v1.Duration", JsonForm::Duration),
    ("apimachinery.pkg.apis.meta.v1.FieldsV1", JsonForm::RawJson),
    ("apimachinery.pkg.apis.meta.v1.Verbs", JsonForm::BareArray),
    ("apimachinery.pkg.runtime.RawExtension", JsonForm::RawJson),
    ("apimachinery.pkg.api.resource.Quantity", JsonForm::Quantity),
    (
        "apimachinery.pkg.api.resource.QuantityValue",
        JsonForm::Quantity,
    ),
    (
        "apimachinery.pkg.util.intstr.IntOrString",
        JsonForm::IntOrString,
    ),
    (
        "api.authentication.v1.AttestationValue",
        JsonForm::BareArray,
    ),
    ("api.authentication.v1.ExtraValue", JsonForm::BareArray),
    ("api.authentication.v1beta1.ExtraValue", JsonForm::BareArray),
    ("api.authorization.v1.ExtraValue", JsonForm::BareArray),
    ("api.authorization.v1beta1.ExtraValue", JsonForm::BareArray),
    ("api.certificates.v1.ExtraValue", JsonForm::BareArray),
    ("api.certificates.v1beta1.ExtraValue", JsonForm::BareArray),
];

/// Fields whose JSON name differs from their protobuf name:
/// (message below `k8s.io.`, protobuf name, JSON name).
///
/// Source: the Go structs' `json:"..."` tags in k8s.io/api v0.36.3, where
/// the `protobuf:"...,name=..."` tag names the field otherwise (e.g.
/// `Webhooks []MutatingWebhook` with `json:"webhooks"` and
/// `name=Webhooks`). `cargo xtask go-facts` checks this table against the
/// Go source (`tests/go-judge/facts jsonnames`); edit it by hand.
pub const JSON_NAMES: &[(&str, &str, &str)] = &[
    (
        "api.admissionregistration.v1.MutatingWebhookConfiguration",
        "Webhooks",
        "webhooks",
    ),
    (
        "api.admissionregistration.v1.ValidatingWebhookConfiguration",
        "Webhooks",
        "webhooks",
    ),
    (
        "api.admissionregistration.v1.Validation",
        "Expression",
        "expression",
    ),
    ("api.admissionregistration.v1.Variable", "Name", "name"),
    (
        "api.admissionregistration.v1.Variable",
        "Expression",
        "expression",
    ),
    (
        "api.admissionregistration.v1alpha1.Validation",
        "Expression",
        "expression",
    ),
    (
        "api.admissionregistration.v1alpha1.Variable",
        "Name",
        "name",
    ),
    (
        "api.admissionregistration.v1alpha1.Variable",
        "Expression",
        "expression",
    ),
    (
        "api.admissionregistration.v1beta1.MutatingWebhookConfiguration",
        "Webhooks",
        "webhooks",
    ),
    (
        "api.admissionregistration.v1beta1.ValidatingWebhookConfiguration",
        "Webhooks",
        "webhooks",
    ),
    (
        "api.admissionregistration.v1beta1.Validation",
        "Expression",
        "expression",
    ),
    ("api.admissionregistration.v1beta1.Variable", "Name", "name"),
    (
        "api.admissionregistration.v1beta1.Variable",
        "Expression",
        "expression",
    ),
    ("api.authentication.v1.BoundObjectReference", "uID", "uid"),
    (
        "api.networking.v1.IngressClassParametersReference",
        "aPIGroup",
        "apiGroup",
    ),
    (
        "api.networking.v1beta1.IngressClassParametersReference",
        "aPIGroup",
        "apiGroup",
    ),
];

/// Message fields that are Go structs embedded with `json:",inline"`: their
/// members appear in the parent's JSON object. (message below `k8s.io.`,
/// protobuf field name)
///
/// Source: the embedded fields of the Go structs in k8s.io/api v0.36.3
/// (e.g. `Volume`'s `VolumeSource` with `json:",inline"`). `cargo xtask
/// go-facts` checks this table against the Go source (`tests/go-judge/facts
/// inline`); edit it by hand.
pub const JSON_INLINE: &[(&str, &str)] = &[
    (
        "api.admissionregistration.v1.NamedRuleWithOperations",
        "ruleWithOperations",
    ),
    ("api.admissionregistration.v1.RuleWithOperations", "rule"),
    (
        "api.admissionregistration.v1alpha1.NamedRuleWithOperations",
        "ruleWithOperations",
    ),
    (
        "api.admissionregistration.v1beta1.NamedRuleWithOperations",
        "ruleWithOperations",
    ),
    ("api.core.v1.ConfigMapEnvSource", "localObjectReference"),
    ("api.core.v1.ConfigMapKeySelector", "localObjectReference"),
    ("api.core.v1.ConfigMapProjection", "localObjectReference"),
    ("api.core.v1.ConfigMapVolumeSource", "localObjectReference"),
    ("api.core.v1.EphemeralContainer", "ephemeralContainerCommon"),
    ("api.core.v1.PersistentVolumeSpec", "persistentVolumeSource"),
    ("api.core.v1.Probe", "handler"),
    ("api.core.v1.SecretEnvSource", "localObjectReference"),
    ("api.core.v1.SecretKeySelector", "localObjectReference"),
    ("api.core.v1.SecretProjection", "localObjectReference"),
    ("api.core.v1.Volume", "volumeSource"),
    ("api.extensions.v1beta1.IngressRule", "ingressRuleValue"),
    ("api.networking.v1.IngressRule", "ingressRuleValue"),
    ("api.networking.v1beta1.IngressRule", "ingressRuleValue"),
    (
        "api.resource.v1.DeviceAllocationConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1.DeviceClaimConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1.DeviceClassConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1beta1.DeviceAllocationConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1beta1.DeviceClaimConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1beta1.DeviceClassConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1beta2.DeviceAllocationConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1beta2.DeviceClaimConfiguration",
        "deviceConfiguration",
    ),
    (
        "api.resource.v1beta2.DeviceClassConfiguration",
        "deviceConfiguration",
    ),
];
