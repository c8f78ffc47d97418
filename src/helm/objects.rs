//! The objects of Helm's top-level dot besides `.Values`: `.Files` (a map of the chart's other
//! files with Helm's methods), `.Capabilities` (the Kubernetes and Helm versions `helm
//! template` assumes, v3.17.3's defaults) and their values.

use super::files::ChartFiles;
use super::glob;
use crate::template::bytes::GoBytes;
use crate::template::{
    Dict, Field, FuncError, GoStruct, MapType, MapValues, MethodSig, NamedMap, Object, ObjectRef,
    Param, Value,
};
use base64::Engine;
use std::collections::BTreeMap;
use std::sync::Arc;

/// helm v3.17.3's `.Capabilities.APIVersions` (client-go's scheme), in its order.
pub const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1alpha1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1alpha1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// helm v3.17.3's default Kubernetes version (client-go v0.32).
pub const DEFAULT_KUBE_VERSION: &str = "v1.32.0";

/// Helm's `engine.files`: path to content, with `Get`, `GetBytes`, `Glob`, `Lines`,
/// `AsConfig` and `AsSecrets`.
pub static FILES: NamedMap = NamedMap {
    name: "engine.files",
    methods: &["AsConfig", "AsSecrets", "Get", "GetBytes", "Glob", "Lines"],
    values: MapValues::Bytes,
    call: files_method,
};

/// `.Files` for a chart's files: a map whose entries are read when a template first looks
/// at it; `Get`, `GetBytes`, `Lines` and `Glob` read only the files they name.
pub fn files_value(files: &std::sync::Arc<ChartFiles>) -> Value {
    Value::Map(Dict::lazy(files.clone(), MapType::Named(&FILES)))
}

fn files_method(d: &Dict, name: &str, a: &[Value]) -> Result<Value, FuncError> {
    let want = usize::from(matches!(name, "Get" | "GetBytes" | "Glob" | "Lines"));
    if a.len() != want {
        return Err(FuncError::Plain(format!(
            "wrong number of args for {name}: want {want} got {}",
            a.len()
        )));
    }
    let arg = || a[0].as_str().unwrap_or_default().to_string();
    // The text of a file's bytes.
    let text = |v: &Value| v.as_bytes().cloned().unwrap_or_else(|| Arc::from(""));
    let by_base = |encode: fn(&str) -> String| -> Value {
        // Helm returns "" only for a nil `files`; an empty one (a `Glob` that matched
        // nothing) is an empty map, printed `{}`.
        if d.is_nil() {
            return Value::str("");
        }
        let m: BTreeMap<String, Value> = d
            .entries()
            .into_iter()
            .map(|(k, v)| {
                let base = k.rsplit('/').next().unwrap_or_default().to_string();
                (base, Value::str(encode(&text(&v))))
            })
            .collect();
        Value::str(crate::template::helm_to_yaml(&Value::map(m)).unwrap_or_default())
    };
    // A chart's `.Files` reads only the files named; any other `engine.files` map (a
    // `Glob`'s) holds its contents.
    let chart_files = d.source::<ChartFiles>();
    let get = |path: &str| match &chart_files {
        Some(files) => files.get(path),
        None => d.get(path).map(|v| text(&v)),
    };
    Ok(match name {
        // A missing file is empty.
        "Get" => Value::String(get(&arg()).unwrap_or_else(|| Arc::from(""))),
        "GetBytes" => GoBytes::value(get(&arg()).unwrap_or_else(|| Arc::from(""))),
        "Glob" => {
            let pattern = arg();
            let matching = match &chart_files {
                Some(files) => files
                    .names()
                    .filter(|k| glob::matches(glob::Syntax::Gobwas, &pattern, k))
                    .map(|k| {
                        let bytes = get(k).unwrap_or_else(|| Arc::from(""));
                        (k.to_string(), GoBytes::value(bytes))
                    })
                    .collect(),
                None => d
                    .entries()
                    .into_iter()
                    .filter(|(k, _)| glob::matches(glob::Syntax::Gobwas, &pattern, k))
                    .collect(),
            };
            Value::Map(Dict::typed(matching, MapType::Named(&FILES)))
        }
        "Lines" => match get(&arg()) {
            Some(s) if !s.is_empty() => {
                let s = s.strip_suffix('\n').unwrap_or(&s);
                Value::strings(s.split('\n'))
            }
            _ => Value::strings(Vec::<String>::new()),
        },
        "AsConfig" => by_base(|s| s.to_string()),
        _ => by_base(|s| {
            base64::engine::general_purpose::STANDARD.encode(crate::template::gostr::to_bytes(s))
        }),
    })
}

/// `.Capabilities.KubeVersion`: fields `Version`, `Major`, `Minor` and the `GitVersion` and
/// `String` methods.
#[derive(Debug)]
pub struct KubeVersion {
    pub version: String,
    pub major: String,
    pub minor: String,
}

impl KubeVersion {
    /// Parses `v1.32.0` / `1.32` / `1.30.0-gke.1` as Helm's `--kube-version` does
    /// (`chartutil.ParseKubeVersion`: Masterminds' `NewVersion`, then `"v" + String()`).
    pub fn parse(text: &str) -> Result<KubeVersion, crate::semver::SemverError> {
        let v = crate::semver::Version::parse(text)?;
        let mut version = format!("v{}.{}.{}", v.major, v.minor, v.patch);
        if !v.pre.is_empty() {
            version = format!("{version}-{}", v.pre.join("."));
        }
        if let Some((_, metadata)) = text.split_once('+') {
            version = format!("{version}+{metadata}");
        }
        Ok(KubeVersion {
            version,
            major: v.major.to_string(),
            minor: v.minor.to_string(),
        })
    }
}

impl Object for KubeVersion {
    fn type_name(&self) -> &'static str {
        "chartutil.KubeVersion"
    }

    fn kind_name(&self) -> &'static str {
        "struct"
    }

    fn signature(&self, name: &str) -> Option<MethodSig> {
        match name {
            "Version" | "Major" | "Minor" => Some(MethodSig::Field),
            "GitVersion" | "String" => Some(MethodSig::Params(&[])),
            _ => None,
        }
    }

    /// Its fields, and the methods without arguments.
    fn call(&self, name: &str, _: &[Value]) -> Option<Result<Value, String>> {
        let v = match name {
            "Version" | "GitVersion" | "String" => &self.version,
            "Major" => &self.major,
            "Minor" => &self.minor,
            _ => return None,
        };
        Some(Ok(Value::str(v.as_str())))
    }

    /// fmt's `%v` of the struct (its `String` method is on the pointer).
    fn text(&self) -> String {
        format!("{{{} {} {}}}", self.version, self.major, self.minor)
    }

    fn action_text(&self) -> String {
        self.version.clone()
    }

    /// The struct has no JSON tags in Helm 3: its Go field names.
    fn json_fields(&self) -> Option<Vec<(String, Value)>> {
        Some(vec![
            ("Version".into(), Value::str(self.version.as_str())),
            ("Major".into(), Value::str(self.major.as_str())),
            ("Minor".into(), Value::str(self.minor.as_str())),
        ])
    }
}

/// `.Capabilities.APIVersions`: Helm's `VersionSet` with `Has`.
#[derive(Debug)]
pub struct VersionSet(pub Vec<String>);

impl Object for VersionSet {
    fn type_name(&self) -> &'static str {
        "chartutil.VersionSet"
    }

    fn kind_name(&self) -> &'static str {
        "slice"
    }

    fn signature(&self, method: &str) -> Option<MethodSig> {
        (method == "Has").then_some(MethodSig::Params(&[Param::String]))
    }

    /// `Has`, its argument typed by the executor.
    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let wanted = args.first().and_then(Value::as_str);
        (method == "Has").then(|| {
            Ok(Value::Bool(
                self.0.iter().any(|v| Some(v.as_str()) == wanted),
            ))
        })
    }

    fn text(&self) -> String {
        format!("[{}]", self.0.join(" "))
    }

    fn items(&self) -> Option<Vec<Value>> {
        Some(self.0.iter().map(|v| Value::str(v.as_str())).collect())
    }
}

/// `.Capabilities`.
pub fn capabilities(kube: KubeVersion, api_versions: Vec<String>) -> Value {
    let field = |name, json, value: &str| Field {
        name,
        json,
        omit_empty: true,
        embedded: false,
        value: Value::str(value),
    };
    let helm = GoStruct {
        type_name: "version.BuildInfo",
        fields: vec![
            field("Version", "version", "v3.17.3"),
            field(
                "GitCommit",
                "git_commit",
                "e4da49785aa6e6ee2b86efd5dd9e43400318262b",
            ),
            field("GitTreeState", "git_tree_state", "clean"),
            field("GoVersion", "go_version", "go1.23.7"),
        ],
    }
    .value();
    // *chartutil.Capabilities, a struct without JSON tags, in its field order.
    let member = |name, value| Field {
        name,
        json: "",
        omit_empty: false,
        embedded: false,
        value,
    };
    GoStruct {
        type_name: "*chartutil.Capabilities",
        fields: vec![
            member("KubeVersion", Value::Object(ObjectRef(Arc::new(kube)))),
            member(
                "APIVersions",
                Value::Object(ObjectRef(Arc::new(VersionSet(api_versions)))),
            ),
            member("HelmVersion", helm),
        ],
    }
    .value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_versions_parse_as_helm_flags() {
        let k = KubeVersion::parse("1.29").unwrap();
        assert_eq!(
            (k.version.as_str(), k.major.as_str(), k.minor.as_str()),
            ("v1.29.0", "1", "29")
        );
        let k = KubeVersion::parse("01.30.0-gke.1+a.b").unwrap();
        assert_eq!(
            (k.version.as_str(), k.major.as_str(), k.minor.as_str()),
            ("v1.30.0-gke.1+a.b", "1", "30")
        );
        for bad in ["x", "1.30.0.1", "1.30.0-01"] {
            assert!(KubeVersion::parse(bad).is_err(), "{bad}");
        }
    }
}
