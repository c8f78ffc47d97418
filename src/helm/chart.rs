//! A chart in memory, as Helm's loader makes one from a chart directory's files: `Chart.yaml`
//! (the metadata `.Chart` shows), `values.yaml`, the templates, `crds/`, and every other file
//! for `.Files`. Subcharts (`charts/`) are recognised but not loaded yet.

use super::files::ChartFiles;
use crate::source::{Bytes, Contents};
use crate::template::{helm_values, Dict, Field, GoStruct, HelmYamlError, MapType, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A loaded chart.
#[derive(Clone, Debug)]
pub struct Chart {
    /// `Chart.yaml`'s `name`.
    pub name: String,
    /// `Chart.yaml` as read (YAML 1.1, numbers float64).
    pub metadata: BTreeMap<String, Value>,
    /// `values.yaml` (an empty map without one).
    pub values: Value,
    /// `templates/…` by path relative to the chart (`templates/deployment.yaml`). Shared by
    /// the chart's clones, as are `files`.
    pub templates: Arc<BTreeMap<String, Arc<str>>>,
    /// Every other file, for `.Files` (relative paths), each read and made the Go string
    /// templates see when one first asks for it. Shared by the chart's clones and renders.
    pub files: Arc<ChartFiles>,
    /// The paths of `crds/*.yaml|yml|json` in `files`, printed only with `--include-crds`.
    pub crds: Vec<String>,
    /// The subcharts loaded from `charts/<dir>/`.
    pub dependencies: Vec<Chart>,
    /// `Chart.yaml`'s `dependencies` (or `requirements.yaml`'s, apiVersion v1).
    pub requirements: Vec<Dependency>,
    /// `values.schema.json`.
    pub schema: Option<Arc<str>>,
    /// The documents at URLs `schema` references, as the fetch step downloaded them (see
    /// `schema::remote_documents`); empty until the target attaches them.
    pub schema_documents: Vec<super::schema::RemoteDocument>,
    /// Where the chart was loaded from, relative to the top chart's directory: empty for the
    /// top chart, `charts/sub` for an unpacked subchart, `charts/sub-1.0.0.tgz` for a packed
    /// one (and `charts/sub-1.0.0.tgz/charts/dep` below it). Findings point there.
    pub source: String,
    /// The file `requirements` was read from: `requirements.yaml` or `Chart.yaml`.
    pub requirements_file: &'static str,
}

/// Helm's limits on a packed chart (`loader.MaxDecompressedChartSize`, `…FileSize`).
const MAX_ARCHIVE_BYTES: u64 = 100 << 20;
const MAX_ARCHIVE_FILE_BYTES: u64 = 5 << 20;

/// One entry of `dependencies:`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dependency {
    pub name: String,
    pub version: String,
    pub repository: String,
    pub condition: String,
    pub tags: Vec<String>,
    pub alias: String,
    pub import_values: Vec<ImportValue>,
    /// Its 1-based position in the list, for findings.
    pub index: usize,
}

/// An `import-values` entry.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportValue {
    /// `{child: X, parent: Y}`.
    Map { child: String, parent: String },
    /// `S`: `{child: exports.S, parent: .}`.
    Exports(String),
}

/// Why a chart cannot be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("Chart.yaml file is missing")]
    NoChartYaml,
    #[error("cannot load Chart.yaml: {0}")]
    ChartYaml(HelmYamlError),
    #[error("cannot load Chart.yaml: Chart.yaml is not a mapping")]
    ChartYamlNotMapping,
    /// A field of another JSON type than `chart.Metadata`'s (`description: [a]`).
    #[error("cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go struct field {field} of type {want}")]
    ChartYamlField {
        got: &'static str,
        field: String,
        want: &'static str,
    },
    #[error("cannot load values.yaml: {0}")]
    Values(HelmYamlError),
    #[error("cannot load values.yaml: values.yaml is not a mapping")]
    ValuesNotMapping,
    #[error("validation: chart.metadata.name is required")]
    NoName,
    #[error("subchart charts/{0}: {1}")]
    Subchart(String, Box<LoadError>),
    #[error("{0}")]
    Archive(String),
    /// A file the loader needs could not be read.
    #[error("{0}")]
    Unreadable(String),
}

/// A `dependencies:` entry as Helm reads it.
fn dependency(v: &Value, index: usize) -> Dependency {
    let Value::Map(m) = v else {
        return Dependency {
            index,
            ..Dependency::default()
        };
    };
    let text = |k: &str| m.get(k).map(|v| scalar_text(&v)).unwrap_or_default();
    let tags = match m.get("tags") {
        Some(Value::List(l)) => l.iter().map(scalar_text).collect(),
        _ => Vec::new(),
    };
    let import_values = match m.get("import-values") {
        Some(Value::List(l)) => l
            .iter()
            .filter_map(|iv| match iv {
                Value::String(s) => Some(ImportValue::Exports(s.to_string())),
                Value::Map(d) => Some(ImportValue::Map {
                    child: d.get("child").map(|v| scalar_text(&v)).unwrap_or_default(),
                    parent: d.get("parent").map(|v| scalar_text(&v)).unwrap_or_default(),
                }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Dependency {
        name: text("name"),
        version: text("version"),
        repository: text("repository"),
        condition: text("condition"),
        tags,
        alias: text("alias"),
        import_values,
        index,
    }
}

impl Chart {
    /// Builds a chart from the files of its directory (paths relative to it), as Helm's
    /// `LoadDir` does: the top chart's `.helmignore` (and Helm's default `templates/.?*`)
    /// applies to the whole tree.
    pub fn from_files<B: AsRef<[u8]> + Into<Arc<[u8]>>>(
        files: impl IntoIterator<Item = (String, B)>,
    ) -> Result<Chart, LoadError> {
        let files: Vec<(String, B)> = files.into_iter().collect();
        let rules = files
            .iter()
            .find(|(p, _)| p == ".helmignore")
            .map(|(_, b)| super::ignore::Rules::parse(&String::from_utf8_lossy(b.as_ref())))
            .unwrap_or_default();
        Chart::load(
            files
                .into_iter()
                .filter(|(p, _)| !rules.ignores_file(p))
                .map(|(p, b)| (p, Contents::Read(b.into()))),
        )
    }

    /// Builds a chart from files its `.helmignore` was already applied to (a walk that skipped
    /// what it ignores). Files the loader does not read itself may come as reads for later
    /// (see [`ChartFiles`]); the rest must be read.
    pub fn from_walked_files(
        files: impl IntoIterator<Item = (String, Contents)>,
    ) -> Result<Chart, LoadError> {
        Chart::load(files)
    }

    /// Whether the loader reads the file at `path` (relative to the top chart) itself: a
    /// chart's `Chart.yaml`, values, schema, `requirements.yaml` and templates, and packed
    /// subcharts, at any depth. The others are `.Files`, read when a template asks.
    pub fn reads_at_load(path: &str) -> bool {
        let mut rest = path;
        // Down through `charts/<dir>/` to the chart the file belongs to.
        while let Some(inner) = rest.strip_prefix("charts/") {
            match inner.split_once('/') {
                Some((_, below)) => rest = below,
                None => return true,
            }
        }
        matches!(
            rest,
            "Chart.yaml" | "values.yaml" | "values.schema.json" | "requirements.yaml"
        ) || rest.starts_with("templates/")
    }

    /// Builds a chart from its files, no ignore rules applied (subcharts, archives).
    pub fn load(files: impl IntoIterator<Item = (String, Contents)>) -> Result<Chart, LoadError> {
        let mut chart_yaml = None;
        let mut values_yaml = None;
        let mut chart = Chart {
            name: String::new(),
            metadata: BTreeMap::new(),
            values: Value::map(BTreeMap::new()),
            templates: Arc::default(),
            files: Arc::default(),
            crds: Vec::new(),
            dependencies: Vec::new(),
            requirements: Vec::new(),
            schema: None,
            schema_documents: Vec::new(),
            source: String::new(),
            requirements_file: "Chart.yaml",
        };
        let mut archives = Vec::new();
        let mut requirements_yaml = None;
        let mut subchart_files: BTreeMap<String, Vec<(String, Contents)>> = BTreeMap::new();
        let mut other_files = Vec::new();
        for (path, file) in files {
            // What the loader reads itself.
            let read = |file: Contents| match file {
                Contents::Read(bytes) => Ok(bytes),
                Contents::Later(later) => later().map_err(|e| LoadError::Unreadable(e.to_string())),
            };
            match path.as_str() {
                "Chart.yaml" => chart_yaml = Some(text(&read(file)?)),
                "values.yaml" => values_yaml = Some(text(&read(file)?)),
                "requirements.yaml" => requirements_yaml = Some(text(&read(file)?)),
                "values.schema.json" => chart.schema = Some(Arc::from(text(&read(file)?))),
                "requirements.lock" | "Chart.lock" => {}
                p if p.starts_with("templates/") => {
                    // Helm's default ignore rule: `templates/.?*`.
                    let name = p.rsplit('/').next().unwrap_or_default();
                    if !name.starts_with('.') {
                        let text = template_text(read(file)?);
                        Arc::make_mut(&mut chart.templates).insert(path.clone(), text);
                    }
                }
                p if p.starts_with("charts/") => {
                    let rest = &p["charts/".len()..];
                    let (entry, inner) = rest.split_once('/').unwrap_or((rest, ""));
                    if entry.starts_with(['_', '.']) {
                        continue;
                    }
                    if inner.is_empty() {
                        if entry.ends_with(".tgz") {
                            archives.push((entry.to_string(), read(file)?));
                        }
                        continue;
                    }
                    subchart_files
                        .entry(entry.to_string())
                        .or_default()
                        .push((inner.to_string(), file));
                }
                p => {
                    let crd = p.strip_prefix("crds/").is_some_and(|rest| {
                        !rest.contains('/')
                            && [".yaml", ".yml", ".json"].iter().any(|e| rest.ends_with(e))
                    });
                    if crd {
                        chart.crds.push(path.clone());
                    }
                    other_files.push((path, file));
                }
            }
        }
        let chart_yaml = chart_yaml.ok_or(LoadError::NoChartYaml)?;
        match helm_values(&chart_yaml).map_err(LoadError::ChartYaml)? {
            Value::Map(m) => chart.metadata = m.read().clone(),
            Value::Nil => {}
            _ => return Err(LoadError::ChartYamlNotMapping),
        }
        metadata_types(&chart.metadata)?;
        chart.name = match chart.metadata.get("name") {
            // A string field takes any scalar's text: `name: yes` is "true".
            Some(v) if is_scalar(v) => scalar_text(v),
            _ => String::new(),
        };
        if chart.name.is_empty() {
            return Err(LoadError::NoName);
        }
        // Subcharts load on every core (their values files are most of a big chart's YAML),
        // beside this chart's own values and files; the first failure in Helm's order (packed
        // subcharts, unpacked ones by directory, requirements, values) is the one reported.
        chart.files = Arc::new(ChartFiles::new(other_files));
        let (subcharts, values) = rayon::join(
            || {
                use rayon::prelude::*;
                let packed = archives.into_par_iter().map(|(name, bytes)| {
                    let mut sub = Chart::from_archive(bytes.as_ref())
                        .map_err(|e| LoadError::Subchart(name.clone(), Box::new(e)))?;
                    sub.set_source(&format!("charts/{name}"));
                    Ok(sub)
                });
                let unpacked = subchart_files.into_par_iter().map(|(dir, files)| {
                    let mut sub = Chart::load(files)
                        .map_err(|e| LoadError::Subchart(dir.clone(), Box::new(e)))?;
                    sub.set_source(&format!("charts/{dir}"));
                    Ok(sub)
                });
                packed
                    .chain(unpacked)
                    .collect::<Vec<Result<Chart, LoadError>>>()
            },
            || values_yaml.map(|text| helm_values(&text)),
        );
        for sub in subcharts {
            chart.dependencies.push(sub?);
        }
        // requirements.yaml (apiVersion v1's place) is read over Chart.yaml's metadata, as
        // Helm's loader does for any apiVersion.
        if requirements_yaml.is_some() {
            chart.requirements_file = "requirements.yaml";
        }
        let from_requirements = match requirements_yaml {
            Some(text) => match helm_values(&text).map_err(LoadError::ChartYaml)? {
                Value::Map(m) => m.get("dependencies"),
                _ => None,
            },
            None => None,
        };
        let list = from_requirements.or_else(|| chart.metadata.get("dependencies").cloned());
        if let Some(Value::List(items)) = list {
            chart.requirements = items
                .iter()
                .enumerate()
                .map(|(i, d)| dependency(d, i + 1))
                .collect();
        }
        if let Some(values) = values {
            chart.values = match values.map_err(LoadError::Values)? {
                Value::Nil | Value::NoValue => Value::map(BTreeMap::new()),
                v @ Value::Map(_) => v,
                _ => return Err(LoadError::ValuesNotMapping),
            };
        }
        Ok(chart)
    }

    /// Loads a packed chart (`.tgz`) as Helm's `LoadArchive` does: the first path component
    /// (the chart's directory) dropped, paths outside the chart refused, Helm's size limits.
    pub fn from_archive(bytes: &[u8]) -> Result<Chart, LoadError> {
        let files = Chart::archive_files(bytes)?;
        Chart::load(
            files
                .into_iter()
                .map(|(path, data)| (path, Contents::Read(data.into()))),
        )
    }

    /// The files of a packed chart, relative to the chart (`values.yaml`,
    /// `templates/x.yaml`), with `LoadArchive`'s checks and limits.
    pub fn archive_files(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LoadError> {
        use std::io::Read;
        let fail = |m: &str| LoadError::Archive(m.to_string());
        let gz = flate2::read::GzDecoder::new(bytes);
        let mut archive = tar::Archive::new(gz.take(MAX_ARCHIVE_BYTES + 1));
        let mut files = Vec::new();
        let mut total = 0u64;
        let entries = archive
            .entries()
            .map_err(|e| LoadError::Archive(e.to_string()))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| LoadError::Archive(e.to_string()))?;
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let raw = String::from_utf8_lossy(&entry.path_bytes()).replace('\\', "/");
            let parts: Vec<&str> = raw.split('/').collect();
            let name = if parts.len() > 1 {
                parts[1..].join("/")
            } else {
                raw.clone()
            };
            if name.is_empty() {
                continue;
            }
            if name.starts_with('/') {
                return Err(fail("chart illegally contains absolute paths"));
            }
            let clean = crate::template::go_path_clean(&name);
            if clean == "." {
                return Err(fail(
                    "chart illegally contains content outside the base directory",
                ));
            }
            if clean.starts_with("..") {
                return Err(fail("chart illegally references parent directory"));
            }
            if parts[0] == "Chart.yaml" {
                return Err(fail("chart yaml not in base directory"));
            }
            let mut data = Vec::new();
            let n = (&mut entry)
                .take(MAX_ARCHIVE_FILE_BYTES + 1)
                .read_to_end(&mut data)
                .map_err(|e| LoadError::Archive(e.to_string()))? as u64;
            if n > MAX_ARCHIVE_FILE_BYTES {
                return Err(LoadError::Archive(format!(
                    "decompressed chart file \"{clean}\" is larger than the maximum file size {MAX_ARCHIVE_FILE_BYTES}"
                )));
            }
            total += n;
            if total > MAX_ARCHIVE_BYTES {
                return Err(LoadError::Archive(format!(
                    "decompressed chart is larger than the maximum size {MAX_ARCHIVE_BYTES}"
                )));
            }
            files.push((clean, data));
        }
        if files.is_empty() {
            return Err(fail("no files in chart archive"));
        }
        Ok(files)
    }

    /// Places the chart (and its subtree) at `prefix` under its parent.
    pub(crate) fn set_source(&mut self, prefix: &str) {
        self.source = if self.source.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}/{}", self.source)
        };
        for d in &mut self.dependencies {
            d.set_source(prefix);
        }
    }

    /// `Chart.yaml`'s `apiVersion` (`v1` without one, as Helm assumes).
    pub fn api_version(&self) -> String {
        self.text_field("apiVersion")
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "v1".into())
    }

    /// `Chart.yaml`'s `version` as text (what dependency constraints are matched against).
    pub fn version(&self) -> String {
        self.text_field("version").unwrap_or_default()
    }

    /// True for `type: library`.
    pub fn is_library(&self) -> bool {
        self.text_field("type").as_deref() == Some("library")
    }

    fn text_field(&self, key: &str) -> Option<String> {
        self.metadata.get(key).map(scalar_text)
    }

    /// `.Chart`: Helm's `struct { chart.Metadata; IsRoot bool }` — every `Metadata` field
    /// (zero when unset, printed and marshalled as Go does) and `IsRoot`.
    pub fn dot_value(&self, is_root: bool) -> Value {
        let text = |key: &str| Value::str(self.text_field(key).unwrap_or_default());
        let list = |key: &str| match self.metadata.get(key) {
            Some(Value::List(l)) => Value::strings(l.iter().map(scalar_text)),
            _ => Value::strings(Vec::<String>::new()),
        };
        let annotations = match self.metadata.get("annotations") {
            Some(Value::Map(m)) => Value::Map(Dict::typed(
                m.entries()
                    .into_iter()
                    .map(|(k, v)| (k, Value::str(scalar_text(&v))))
                    .collect(),
                MapType::String,
            )),
            _ => Value::Map(Dict::typed(BTreeMap::new(), MapType::String)),
        };
        let maintainers = match self.metadata.get("maintainers") {
            Some(Value::List(l)) => Value::list(
                l.iter()
                    .map(|m| {
                        let get = |k: &str| match m {
                            Value::Map(d) => {
                                Value::str(d.get(k).map(|v| scalar_text(&v)).unwrap_or_default())
                            }
                            _ => Value::str(""),
                        };
                        GoStruct {
                            type_name: "*chart.Maintainer",
                            fields: vec![
                                field("Name", "name", get("name")),
                                field("Email", "email", get("email")),
                                field("URL", "url", get("url")),
                            ],
                        }
                        .value()
                    })
                    .collect(),
            ),
            _ => Value::list(Vec::new()),
        };
        let deprecated = matches!(self.metadata.get("deprecated"), Some(Value::Bool(true)));
        let metadata = GoStruct {
            type_name: "chart.Metadata",
            fields: vec![
                field("Name", "name", text("name")),
                field("Home", "home", text("home")),
                field("Sources", "sources", list("sources")),
                field("Version", "version", text("version")),
                field("Description", "description", text("description")),
                field("Keywords", "keywords", list("keywords")),
                field("Maintainers", "maintainers", maintainers),
                field("Icon", "icon", text("icon")),
                field("APIVersion", "apiVersion", Value::str(self.api_version())),
                field("Condition", "condition", text("condition")),
                field("Tags", "tags", text("tags")),
                field("AppVersion", "appVersion", text("appVersion")),
                field("Deprecated", "deprecated", Value::Bool(deprecated)),
                field("Annotations", "annotations", annotations),
                field("KubeVersion", "kubeVersion", text("kubeVersion")),
                field("Dependencies", "dependencies", self.dependencies_value()),
                field("Type", "type", text("type")),
            ],
        };
        GoStruct {
            type_name: "struct { chart.Metadata; IsRoot bool }",
            fields: vec![
                Field {
                    name: "Metadata",
                    json: "",
                    omit_empty: false,
                    embedded: true,
                    value: metadata.value(),
                },
                Field {
                    name: "IsRoot",
                    json: "",
                    omit_empty: false,
                    embedded: false,
                    value: Value::Bool(is_root),
                },
            ],
        }
        .value()
    }
}

impl Chart {
    /// `.Chart.Dependencies`: the entries that survived dependency processing.
    fn dependencies_value(&self) -> Value {
        let items = self
            .requirements
            .iter()
            .map(|d| {
                GoStruct {
                    type_name: "*chart.Dependency",
                    fields: vec![
                        field("Name", "name", Value::str(d.name.as_str())),
                        field("Version", "version", Value::str(d.version.as_str())),
                        field(
                            "Repository",
                            "repository",
                            Value::str(d.repository.as_str()),
                        ),
                        field("Condition", "condition", Value::str(d.condition.as_str())),
                        field("Tags", "tags", Value::strings(d.tags.clone())),
                        field("Enabled", "enabled", Value::Bool(true)),
                        field("Alias", "alias", Value::str(d.alias.as_str())),
                    ],
                }
                .value()
            })
            .collect();
        Value::list(items)
    }
}

/// A `json:"NAME,omitempty"` field.
fn field(name: &'static str, json: &'static str, value: Value) -> Field {
    Field {
        name,
        json,
        omit_empty: true,
        embedded: false,
        value,
    }
}

/// A scalar as Go's JSON-into-string would have it (numbers as YAML wrote them is what a
/// chart author means by `version: 1.0`; Helm would refuse a number there).
fn is_scalar(v: &Value) -> bool {
    !matches!(
        v,
        Value::List(_) | Value::Map(_) | Value::Nil | Value::NoValue
    )
}

/// The JSON type `encoding/json` names a value by in its errors; None for null, which no
/// field refuses.
fn json_type(v: &Value) -> Option<&'static str> {
    match v {
        Value::Nil | Value::NoValue => None,
        Value::Bool(_) => Some("bool"),
        Value::String(_) => Some("string"),
        Value::List(_) => Some("array"),
        Value::Map(_) => Some("object"),
        _ => Some("number"),
    }
}

/// Helm's decoding of Chart.yaml into `chart.Metadata` (sigs.k8s.io/yaml, then
/// `encoding/json`): a string field takes any scalar (as its text), a bool field a bool, a
/// list or map field its kind; the first field of another type, in the JSON's key order (a
/// Go map's JSON is sorted, as a BTreeMap iterates), is the error. Unknown keys are ignored.
fn metadata_types(metadata: &BTreeMap<String, Value>) -> Result<(), LoadError> {
    #[derive(Clone, Copy)]
    enum Kind {
        Str,
        Bool,
        Strings,
        StringMap,
        Anys,
        /// An item of a list of structs that is not an object (its Go type).
        Item(&'static str),
        /// A list of structs: its Go type, its item's, and the item's fields.
        Structs(&'static str, &'static str, &'static [(&'static str, Kind)]),
    }
    const MAINTAINER: &[(&str, Kind)] = &[
        ("email", Kind::Str),
        ("name", Kind::Str),
        ("url", Kind::Str),
    ];
    const DEPENDENCY: &[(&str, Kind)] = &[
        ("alias", Kind::Str),
        ("condition", Kind::Str),
        ("enabled", Kind::Bool),
        ("import-values", Kind::Anys),
        ("name", Kind::Str),
        ("repository", Kind::Str),
        ("tags", Kind::Strings),
        ("version", Kind::Str),
    ];
    const METADATA: &[(&str, Kind)] = &[
        ("annotations", Kind::StringMap),
        ("apiVersion", Kind::Str),
        ("appVersion", Kind::Str),
        ("condition", Kind::Str),
        (
            "dependencies",
            Kind::Structs("[]*chart.Dependency", "chart.Dependency", DEPENDENCY),
        ),
        ("deprecated", Kind::Bool),
        ("description", Kind::Str),
        ("home", Kind::Str),
        ("icon", Kind::Str),
        ("keywords", Kind::Strings),
        ("kubeVersion", Kind::Str),
        (
            "maintainers",
            Kind::Structs("[]*chart.Maintainer", "chart.Maintainer", MAINTAINER),
        ),
        ("name", Kind::Str),
        ("sources", Kind::Strings),
        ("tags", Kind::Str),
        ("type", Kind::Str),
        ("version", Kind::Str),
    ];
    /// `field` is Go's `Struct.path.to.field`.
    fn check(v: &Value, kind: Kind, field: &str) -> Result<(), LoadError> {
        let Some(got) = json_type(v) else {
            return Ok(());
        };
        let wrong = |want: &'static str| {
            Err(LoadError::ChartYamlField {
                got,
                field: field.to_string(),
                want,
            })
        };
        match (kind, v) {
            (Kind::Str, v) if is_scalar(v) => Ok(()),
            (Kind::Str, _) => wrong("string"),
            (Kind::Bool, Value::Bool(_)) => Ok(()),
            (Kind::Bool, _) => wrong("bool"),
            (Kind::Strings, Value::List(l)) => {
                l.iter().try_for_each(|item| check(item, Kind::Str, field))
            }
            (Kind::Strings, _) => wrong("[]string"),
            (Kind::StringMap, Value::Map(m)) => m
                .entries()
                .iter()
                .try_for_each(|(_, item)| check(item, Kind::Str, field)),
            (Kind::StringMap, _) => wrong("map[string]string"),
            (Kind::Anys, Value::List(_)) => Ok(()),
            (Kind::Anys, _) => wrong("[]interface {}"),
            (Kind::Structs(_, item_type, fields), Value::List(l)) => {
                let (_, path) = field.split_once('.').unwrap_or(("", field));
                let item_struct = item_type.trim_start_matches("chart.");
                l.iter().try_for_each(|item| match item {
                    Value::Map(m) => fields.iter().try_for_each(|(key, kind)| match m.get(key) {
                        Some(v) => check(&v, *kind, &format!("{item_struct}.{path}.{key}")),
                        None => Ok(()),
                    }),
                    item => check(item, Kind::Item(item_type), field),
                })
            }
            (Kind::Structs(list_type, ..), _) => wrong(list_type),
            // A list's item that is not an object.
            (Kind::Item(item_type), _) => wrong(item_type),
        }
    }
    for (key, kind) in METADATA {
        if let Some(v) = metadata.get(*key) {
            check(v, *kind, &format!("Metadata.{key}"))?;
        }
    }
    Ok(())
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Nil | Value::NoValue => String::new(),
        other => crate::template::sprint(std::slice::from_ref(other)),
    }
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(bytes)
}

/// A file the loader reads as text: its BOM removed, bytes that are not UTF-8 replaced.
fn text(bytes: &[u8]) -> String {
    let bytes = strip_bom(bytes);
    // `from_utf8` checks a word at a time; the lossy decoder, a character at a time.
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// A template's text, its BOM removed and bytes that are not UTF-8 replaced (U+FFFD), sharing
/// the file's bytes when it has neither.
fn template_text(file: Bytes) -> Arc<str> {
    if file.len() != strip_bom(&file).len() {
        return Arc::from(String::from_utf8_lossy(strip_bom(&file)));
    }
    crate::template::gostr::shared_utf8(file)
        .unwrap_or_else(|bytes| Arc::from(String::from_utf8_lossy(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn template_texts_share_utf8_bytes_and_replace_the_rest() {
        let plain: Arc<[u8]> = Arc::from(&b"a: {{ .x }}\n"[..]);
        let shared = template_text(plain.clone());
        assert_eq!(shared.as_ptr(), plain.as_ptr());
        assert_eq!(
            &*template_text(Bytes::from(&b"\xef\xbb\xbfa: 1"[..])),
            "a: 1"
        );
        assert_eq!(&*template_text(Bytes::from(&b"a: \xff"[..])), "a: \u{fffd}");
    }

    fn tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, data) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            // Written raw so that hostile names (`..`, absolute) survive.
            header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_cksum();
            builder.append(&header, *data).unwrap();
        }
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar).unwrap();
        gz.finish().unwrap()
    }

    const CHART: &[u8] = b"apiVersion: v2\nname: c\nversion: 1.0.0\n";

    #[test]
    fn a_packed_chart_loads_without_its_directory() {
        let c = Chart::from_archive(&tgz(&[
            ("c/Chart.yaml", CHART),
            ("c/templates/a.yaml", b"kind: A\n"),
        ]))
        .unwrap();
        assert_eq!(c.name, "c");
        assert!(c.templates.contains_key("templates/a.yaml"));
    }

    #[test]
    fn hostile_archives_are_refused_as_helm_refuses_them() {
        let err =
            |entries: &[(&str, &[u8])]| Chart::from_archive(&tgz(entries)).unwrap_err().to_string();
        assert_eq!(
            err(&[("c/Chart.yaml", CHART), ("c/../../etc/passwd", b"x")]),
            "chart illegally references parent directory"
        );
        assert_eq!(
            err(&[("Chart.yaml", CHART)]),
            "chart yaml not in base directory"
        );
        let big = vec![0u8; (MAX_ARCHIVE_FILE_BYTES + 1) as usize];
        assert!(err(&[("c/Chart.yaml", CHART), ("c/big.bin", &big)])
            .contains("larger than the maximum file size"));
        assert!(Chart::from_archive(b"not gzip").is_err());
    }
}
