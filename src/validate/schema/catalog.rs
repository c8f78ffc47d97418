//! The bundled Kubernetes API schemas: one [`Catalog`] per bundled Kubernetes version,
//! compiled on first use from `data/k8s-schemas.json.gz` (made by
//! `scripts/gen-k8s-schemas.py`; its `source` field names the inputs and their sha256).

use super::model::{Compiler, Flavor, Model, Type, TypeId, OBJECT_META};
use super::version::KubeVersion;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::sync::OnceLock;

/// The bundle: gzip-compressed JSON (see the generator's docstring for its layout).
static BUNDLE_GZ: &[u8] = include_bytes!("../data/k8s-schemas.json.gz");

/// The decompressed bundle, parsed once per process.
pub(crate) struct Bundle {
    pub(crate) versions: Vec<KubeVersion>,
    contents: Vec<Value>,
    /// Per version (same order as `versions`): definition name → index into `contents`.
    definitions: Vec<HashMap<String, usize>>,
    /// `[group, version, kind, introduced, deprecated, removed, replacement]` rows.
    pub(crate) lifecycle: Vec<LifecycleRow>,
    /// Per version: the group/version/kinds its schemas define.
    pub(crate) kinds: Vec<BTreeSet<Gvk>>,
    /// Every API group any bundled version or lifecycle row names.
    groups: BTreeSet<String>,
    source: BundleSource,
}

/// Where the bundled schemas come from, as the generator recorded it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BundleSource {
    /// The kubernetes-validate wheel (`kubernetes_validate-1.37.0-py3-none-any.whl`).
    pub schemas: String,
    pub schemas_sha256: String,
    /// The k8s.io/api revisions the lifecycle data was read from.
    pub lifecycle: String,
    /// The command that made the bundle.
    pub command: String,
}

/// Where the bundled schemas come from (for reports and `--version` output).
pub fn bundle_source() -> &'static BundleSource {
    &bundle().source
}

/// A group, version and kind (`("apps", "v1", "Deployment")`; the core group is `""`).
pub(crate) type Gvk = (String, String, String);

/// One row of k8s.io/api's prerelease lifecycle data.
pub(crate) struct LifecycleRow {
    pub(crate) gvk: Gvk,
    pub(crate) introduced: Option<KubeVersion>,
    pub(crate) deprecated: Option<KubeVersion>,
    pub(crate) removed: Option<KubeVersion>,
    pub(crate) replacement: Option<String>,
}

pub(crate) fn bundle() -> &'static Bundle {
    static BUNDLE: OnceLock<Bundle> = OnceLock::new();
    BUNDLE.get_or_init(|| {
        let mut json = Vec::with_capacity(BUNDLE_GZ.len() * 12);
        flate2::read::GzDecoder::new(BUNDLE_GZ)
            .read_to_end(&mut json)
            .expect("the bundled schemas are gzip (checked by the bundle tests)");
        let raw: Value =
            serde_json::from_slice(&json).expect("the bundled schemas are JSON (checked by tests)");
        Bundle::from_json(raw)
    })
}

impl Bundle {
    fn from_json(mut raw: Value) -> Bundle {
        let version_texts: Vec<String> = raw["versions"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let versions: Vec<KubeVersion> = version_texts
            .iter()
            .filter_map(|t| KubeVersion::parse(t).ok())
            .collect();
        let contents = match raw["contents"].take() {
            Value::Array(c) => c,
            _ => Vec::new(),
        };
        let mut definitions = Vec::new();
        let mut kinds = Vec::new();
        let mut groups = BTreeSet::new();
        for text in &version_texts {
            let rows = raw["definitions"][text.as_str()]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut table = HashMap::with_capacity(rows.len());
            let mut gvks = BTreeSet::new();
            for row in rows {
                let (Some(name), Some(index)) = (row[0].as_str(), row[1].as_u64()) else {
                    continue;
                };
                let index = index as usize;
                if let Some(Value::Array(list)) = contents
                    .get(index)
                    .and_then(|c| c.get("x-kubernetes-group-version-kind"))
                {
                    // Definitions shared by every group (DeleteOptions, WatchEvent) name many.
                    if list.len() == 1 {
                        let gvk = gvk_of(&list[0]);
                        groups.insert(gvk.0.clone());
                        gvks.insert(gvk);
                    }
                }
                table.insert(name.to_string(), index);
            }
            definitions.push(table);
            kinds.push(gvks);
        }
        let lifecycle: Vec<LifecycleRow> = raw["lifecycle"]
            .as_array()
            .map(|rows| rows.iter().filter_map(lifecycle_row).collect())
            .unwrap_or_default();
        for row in &lifecycle {
            groups.insert(row.gvk.0.clone());
        }
        let text = |k: &str| raw["source"][k].as_str().unwrap_or_default().to_string();
        let source = BundleSource {
            schemas: text("schemas"),
            schemas_sha256: text("schemas_sha256"),
            lifecycle: text("lifecycle"),
            command: text("command"),
        };
        Bundle {
            versions,
            contents,
            definitions,
            lifecycle,
            kinds,
            groups,
            source,
        }
    }

    /// The index of a bundled version with this major and minor.
    pub(crate) fn index_of(&self, v: KubeVersion) -> Option<usize> {
        self.versions.iter().position(|b| *b == v)
    }
}

fn gvk_of(v: &Value) -> Gvk {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (s("group"), s("version"), s("kind"))
}

fn lifecycle_row(row: &Value) -> Option<LifecycleRow> {
    let text = |i: usize| row.get(i).and_then(Value::as_str);
    let version = |i: usize| text(i).and_then(|t| KubeVersion::parse(t).ok());
    Some(LifecycleRow {
        gvk: (
            text(0)?.to_string(),
            text(1)?.to_string(),
            text(2)?.to_string(),
        ),
        introduced: version(3),
        deprecated: version(4),
        removed: version(5),
        replacement: text(6).map(str::to_string),
    })
}

/// The bundled Kubernetes versions, oldest first.
pub fn bundled_versions() -> &'static [KubeVersion] {
    &bundle().versions
}

/// Splits an `apiVersion` into group and version (`v1` is the core group, `""`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}

/// The schemas of one Kubernetes version.
pub struct Catalog {
    version: KubeVersion,
    model: Model,
    /// Sorted by group/version/kind, looked up without allocating.
    kinds: Vec<(Gvk, TypeId)>,
    object_meta: Option<TypeId>,
}

/// What a catalog knows of an apiVersion and kind.
#[derive(Clone, Copy, Debug)]
pub enum Lookup<'a> {
    /// The schema of the kind.
    Found(Type<'a>),
    /// This version serves the group/version, but no such kind in it.
    UnknownKind,
    /// A Kubernetes API group, but this version does not serve this version of it (removed,
    /// not yet added, or never existed): see [`super::lifecycle`].
    UnknownApiVersion,
    /// Not a Kubernetes API group: a custom resource, whose schema is its CRD's.
    NotBuiltIn,
}

impl Catalog {
    /// The catalog of a bundled version (same major and minor), compiled on first use.
    pub fn bundled(version: KubeVersion) -> Option<&'static Catalog> {
        static CATALOGS: OnceLock<Vec<OnceLock<Catalog>>> = OnceLock::new();
        let b = bundle();
        let index = b.index_of(version)?;
        let slots = CATALOGS.get_or_init(|| b.versions.iter().map(|_| OnceLock::new()).collect());
        Some(slots[index].get_or_init(|| Catalog::compile(b, index)))
    }

    /// The catalog for a cluster of `version`: its own when bundled, else the newest bundled
    /// version older than it (as kubernetes-validate picks); `None` below the bundled range.
    pub fn for_version(version: KubeVersion) -> Option<&'static Catalog> {
        let nearest = bundled_versions().iter().rev().find(|v| **v <= version)?;
        Catalog::bundled(*nearest)
    }

    /// The newest bundled catalog (for ObjectMeta under a CRD).
    pub fn latest() -> &'static Catalog {
        let v = *bundled_versions()
            .last()
            .expect("the bundle holds at least one version (checked by tests)");
        Catalog::bundled(v).expect("a bundled version has a catalog")
    }

    fn compile(b: &'static Bundle, index: usize) -> Catalog {
        let table = &b.definitions[index];
        let lookup = |name: &str| table.get(name).and_then(|i| b.contents.get(*i));
        let mut compiler = Compiler::new(Flavor::BuiltIn, &lookup);
        let mut kinds = Vec::new();
        let mut names: Vec<&String> = table.keys().collect();
        names.sort();
        for name in names {
            let Some(Value::Array(list)) =
                lookup(name).and_then(|c| c.get("x-kubernetes-group-version-kind"))
            else {
                continue;
            };
            if list.len() != 1 {
                continue;
            }
            if let Some(id) = compiler.named(name) {
                kinds.push((gvk_of(&list[0]), id));
            }
        }
        kinds.sort_by(|a, b| a.0.cmp(&b.0));
        kinds.dedup_by(|a, b| a.0 == b.0);
        let object_meta = compiler.named(OBJECT_META);
        Catalog {
            version: b.versions[index],
            model: compiler.finish(),
            kinds,
            object_meta,
        }
    }

    /// The Kubernetes version of these schemas.
    pub fn version(&self) -> KubeVersion {
        self.version
    }

    /// The schema of `kind` in `apiVersion`.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Lookup<'_> {
        let (group, version) = split_api_version(api_version);
        let key = (group, version, kind);
        let found = self
            .kinds
            .binary_search_by(|((g, v, k), _)| (g.as_str(), v.as_str(), k.as_str()).cmp(&key));
        if let Ok(i) = found {
            return Lookup::Found(Type {
                model: &self.model,
                id: self.kinds[i].1,
            });
        }
        if !bundle().groups.contains(group) {
            return Lookup::NotBuiltIn;
        }
        let served = self
            .kinds
            .iter()
            .any(|((g, v, _), _)| g == group && v == version);
        if served {
            Lookup::UnknownKind
        } else {
            Lookup::UnknownApiVersion
        }
    }

    /// ObjectMeta's type.
    pub fn object_meta(&self) -> Option<Type<'_>> {
        self.object_meta.map(|id| Type {
            model: &self.model,
            id,
        })
    }

    /// Every group/version/kind this version defines, sorted.
    pub fn kinds(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.kinds
            .iter()
            .map(|((g, v, k), _)| (g.as_str(), v.as_str(), k.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_holds_1_25_to_1_37_and_their_kinds() {
        let versions = bundled_versions();
        assert_eq!(versions.first(), Some(&KubeVersion::new(1, 25)));
        assert!(versions.len() >= 13, "{versions:?}");
        let c = Catalog::bundled(KubeVersion::new(1, 25)).unwrap();
        assert!(matches!(
            c.lookup("apps/v1", "Deployment"),
            Lookup::Found(_)
        ));
        assert!(matches!(c.lookup("v1", "ConfigMap"), Lookup::Found(_)));
        assert!(matches!(
            c.lookup("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
            Lookup::Found(_)
        ));
        assert!(matches!(
            c.lookup("apps/v1", "Deploymnet"),
            Lookup::UnknownKind
        ));
        assert!(matches!(
            c.lookup("extensions/v1beta1", "Ingress"),
            Lookup::UnknownApiVersion
        ));
        assert!(matches!(
            c.lookup("cert-manager.io/v1", "Certificate"),
            Lookup::NotBuiltIn
        ));
        let c26 = Catalog::bundled(KubeVersion::new(1, 26)).unwrap();
        assert!(matches!(
            c26.lookup("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
            Lookup::UnknownApiVersion
        ));
        assert!(Catalog::bundled(KubeVersion::new(1, 24)).is_none());
        assert!(Catalog::for_version(KubeVersion::new(1, 24)).is_none());
        assert_eq!(
            Catalog::for_version(KubeVersion::new(1, 99)).map(Catalog::version),
            bundled_versions().last().copied()
        );
        assert!(c.kinds().any(|k| k == ("batch", "v1", "CronJob")));
        assert!(c.object_meta().unwrap().def().object_meta);
        let source = bundle_source();
        assert!(
            source.schemas.starts_with("kubernetes_validate-"),
            "{source:?}"
        );
        assert_eq!(source.schemas_sha256.len(), 64);
    }
}
