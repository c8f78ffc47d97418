//! Schema validation of Kubernetes objects, offline.
//!
//! - [`bundled_versions`] lists the Kubernetes versions whose API schemas are bundled
//!   (`data/k8s-schemas.json.gz`, made by `scripts/gen-k8s-schemas.py`, decompressed once per
//!   process on first use). [`Catalog::bundled`] compiles one version's schemas (once);
//!   [`Catalog::lookup`] finds a kind's [`Type`] by apiVersion and kind, or says why not
//!   ([`Lookup`]).
//! - [`Crd::from_node`] compiles a CustomResourceDefinition's `openAPIV3Schema`s into the same
//!   model; [`Crd::lookup`] gives the [`CrdVersion`] whose [`CrdVersion::root`] validates its
//!   custom resources.
//! - [`validate`] walks an object's YAML node tree against a type and returns the
//!   [`Violation`]s, each with its field path, line and column and a message worded like the
//!   API server's (`spec.replica: unknown field "replica"`).
//! - [`lifecycle`] says whether a Kubernetes version serves an apiVersion and kind, was
//!   removed from it, or deprecates it ([`ApiStatus`]), from the bundled schemas and k8s.io/api's
//!   lifecycle data.
//!
//! What the validator follows, and where it departs from a JSON schema validator:
//! - Built-in kinds are strict (unknown fields are errors); a CRD's structural schema is
//!   closed unless `x-kubernetes-preserve-unknown-fields`.
//! - `null` on an optional field is accepted (the API server leaves it unset); on a required
//!   field it is a [`ViolationKind::Required`]. A `null` array item of a built-in object type
//!   is its Go zero value (an empty object, so its required fields are missing).
//! - Formats the API server parses on decoding: `int32`/`int64` range, quantities, RFC 3339
//!   times, base64 `[]byte`. Integral floats (`1.0`) are integers.
//! - `x-kubernetes-list-type` `map` and `set` duplicates, duplicate YAML keys (when the tree
//!   keeps them), `x-kubernetes-embedded-resource`, ObjectMeta name/label/annotation rules.
//! - A CRD's `x-kubernetes-validations` (CEL) rules are evaluated after its `default`s apply
//!   (`cel.rs`, [`ViolationKind::Rule`]); a rule that does not compile or calls a function
//!   kdelta lacks is a [`RuleProblem`] of the CRD ([`Crd::rule_problems`]). A CRD's `allOf`/`anyOf`/`oneOf`/`not`
//!   value validations are evaluated on the defaulted node ([`ViolationKind::Junctor`]).

mod catalog;
mod cel;
mod cel_library;
mod check;
mod crd;
mod formats;
mod lifecycle;
mod meta;
mod model;
pub mod names;
mod version;

pub use catalog::{
    bundle_source, bundled_versions, split_api_version, BundleSource, Catalog, Lookup,
};
pub use cel::{RuleProblem, RuleProblemKind, COST_LIMIT};
pub use check::{validate, validate_in, Violation, ViolationKind};
pub use crd::{
    catalog_crd, schema_crd, Crd, CrdError, CrdMatch, CrdVersion, Scope, CATALOG_ANNOTATION,
};
pub use formats::{is_base64, is_date_time, is_quantity};
pub use lifecycle::{lifecycle, ApiStatus};
pub use model::{
    Additional, Bounds, CelRule, Flavor, Format, JsonTypes, ListType, Type, TypeDef, TypeId,
};
pub use version::{KubeVersion, VersionError};
