//! A chart in memory, as Helm's loader makes one from a chart directory's files: `Chart.yaml`
//! (the metadata `.Chart` shows), `values.yaml`, the templates, `crds/`, and every other file
//! for `.Files`; the subcharts in `charts/`, each a chart of its own. Loading checks what Helm's
//! loader checks, in its order, with its words.

use super::files::ChartFiles;
use crate::source::{Bytes, Contents};
use crate::template::{
    helm_values, Dict, Field, GoStruct, HelmYamlError, ListType, MapType, Value,
};
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

impl ImportValue {
    /// `(child, parent)`, as Helm's `processImportValues` rewrites every entry.
    pub fn child_parent(&self) -> (String, String) {
        match self {
            ImportValue::Map { child, parent } => (child.clone(), parent.clone()),
            ImportValue::Exports(s) => (format!("exports.{s}"), ".".to_string()),
        }
    }
}

/// Why a chart cannot be loaded, in Helm's loader's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("Chart.yaml file is missing")]
    NoChartYaml,
    /// A file the loader decodes (Chart.yaml, values.yaml, requirements.yaml, a lock file)
    /// that is not YAML sigs.k8s.io/yaml reads.
    #[error("cannot load {file}: {error}")]
    Yaml {
        file: &'static str,
        error: HelmYamlError,
    },
    /// A file whose document is not an object (`go_type` is the Go type it decodes into).
    #[error("cannot load {file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go value of type {go_type}")]
    NotAnObject {
        file: &'static str,
        got: &'static str,
        go_type: &'static str,
    },
    /// A field of another JSON type than its Go struct's (`description: [a]`).
    #[error("cannot load {file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go struct field {field} of type {want}")]
    Field {
        file: &'static str,
        got: &'static str,
        field: String,
        want: &'static str,
    },
    /// A field's own decoder refused it (`time.Time`'s).
    #[error("cannot load {file}: error unmarshaling JSON: while decoding JSON: {message}")]
    Decode { file: &'static str, message: String },
    /// `chart.Metadata.Validate`'s refusal (`chart.metadata.name is required`).
    #[error("validation: {0}")]
    Validation(String),
    /// A subchart (`charts/` entry) that cannot be loaded; `parent` is the chart's name.
    #[error("error unpacking subchart {entry} in {parent}: {error}")]
    Subchart {
        entry: String,
        parent: String,
        error: Box<LoadError>,
    },
    #[error("{0}")]
    Archive(String),
    /// A file the loader needs could not be read.
    #[error("{0}")]
    Unreadable(String),
}

impl LoadError {
    /// The file (relative to the chart) the error is about, when it is one file.
    pub fn file(&self) -> Option<&'static str> {
        match self {
            LoadError::NoChartYaml | LoadError::Validation(_) => Some("Chart.yaml"),
            LoadError::Yaml { file, .. }
            | LoadError::NotAnObject { file, .. }
            | LoadError::Field { file, .. }
            | LoadError::Decode { file, .. } => Some(file),
            LoadError::Subchart { .. } | LoadError::Archive(_) | LoadError::Unreadable(_) => None,
        }
    }
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
    /// chart's `Chart.yaml`, lock files, values, schema, `requirements.yaml` and templates,
    /// and packed subcharts, at any depth. The others are `.Files`, read when a template asks.
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
            "Chart.yaml"
                | "Chart.lock"
                | "values.yaml"
                | "values.schema.json"
                | "requirements.yaml"
                | "requirements.lock"
        ) || rest.starts_with("templates/")
    }

    /// Whether `path` (relative to a chart) is one of the chart's own templates: a file below
    /// `templates/` that Helm's default ignore rule (`templates/.?*`) keeps.
    pub fn is_template(path: &str) -> bool {
        path.starts_with("templates/")
            && !path.rsplit('/').next().unwrap_or_default().starts_with('.')
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
        let (mut chart_lock, mut requirements_lock) = (None, None);
        let mut subchart_files: BTreeMap<String, Vec<(String, Contents)>> = BTreeMap::new();
        let mut other_files = Vec::new();
        for (path, file) in files {
            // What the loader reads itself.
            let read = |file: Contents| match file {
                Contents::Read(bytes) => Ok(bytes),
                Contents::Later(later) => later().map_err(|e| LoadError::Unreadable(e.to_string())),
            };
            match path.as_str() {
                "Chart.yaml" => chart_yaml = Some(yaml_text(&read(file)?)),
                "values.yaml" => values_yaml = Some(yaml_text(&read(file)?)),
                "requirements.yaml" => requirements_yaml = Some(read(file)?),
                "values.schema.json" => chart.schema = Some(Arc::from(text(&read(file)?))),
                "Chart.lock" => chart_lock = Some(yaml_text(&read(file)?)),
                "requirements.lock" => requirements_lock = Some(read(file)?),
                p if p.starts_with("templates/") => {
                    if Chart::is_template(p) {
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
        // Helm's loader decodes Chart.yaml first, then the other files it reads in name
        // order (Chart.lock, requirements.lock, requirements.yaml, values.yaml); then it
        // validates the metadata, then loads the subcharts. The first error is reported.
        let has_metadata = chart_yaml.is_some() || requirements_yaml.is_some();
        if let Some(text) = &chart_yaml {
            chart.metadata = decode_object(text, "Chart.yaml", "chart.Metadata")?;
            go_types::metadata("Chart.yaml", &chart.metadata)?;
            // Helm 2 charts had no apiVersion: Helm takes them as v1.
            let api_version = chart.metadata.get("apiVersion").map(scalar_text);
            if api_version.is_none_or(|v| v.is_empty()) {
                chart.metadata.insert("apiVersion".into(), Value::str("v1"));
            }
        }
        if let Some(text) = &chart_lock {
            go_types::lock(
                "Chart.lock",
                &decode_object(text, "Chart.lock", "chart.Lock")?,
            )?;
        }
        if let Some(bytes) = requirements_lock {
            let lock = decode_object(&yaml_text(&bytes), "requirements.lock", "chart.Lock")?;
            go_types::lock("requirements.lock", &lock)?;
            // apiVersion v1 keeps its requirements files in `.Files` too.
            if chart.api_version() == "v1" {
                other_files.push(("requirements.lock".into(), Contents::Read(bytes)));
            }
        }
        if let Some(bytes) = requirements_yaml {
            let fields = decode_object(&yaml_text(&bytes), "requirements.yaml", "chart.Metadata")?;
            go_types::metadata("requirements.yaml", &fields)?;
            // Decoded into the same `chart.Metadata`: its fields replace Chart.yaml's (a
            // map's keys are added to it).
            for (key, value) in fields {
                let value = match (chart.metadata.get(&key), value) {
                    (Some(Value::Map(old)), Value::Map(new)) => {
                        let mut merged = old.read().clone();
                        merged.extend(new.read().iter().map(|(k, v)| (k.clone(), v.clone())));
                        Value::map(merged)
                    }
                    (_, value) => value,
                };
                chart.metadata.insert(key, value);
            }
            chart.requirements_file = "requirements.yaml";
            // Asked after the decoding, which may have set the apiVersion.
            if chart.api_version() == "v1" {
                other_files.push(("requirements.yaml".into(), Contents::Read(bytes)));
            }
        }
        // Subcharts load on every core (their values files are most of a big chart's YAML),
        // beside this chart's own values and files.
        chart.files = Arc::new(ChartFiles::new(other_files));
        let (subcharts, values) = rayon::join(
            || {
                use rayon::prelude::*;
                let packed = archives.into_par_iter().map(|(name, bytes)| {
                    let mut sub =
                        Chart::from_archive(bytes.as_ref()).map_err(|e| (name.clone(), e))?;
                    sub.set_source(&format!("charts/{name}"));
                    Ok(sub)
                });
                let unpacked = subchart_files.into_par_iter().map(|(dir, files)| {
                    let mut sub = Chart::load(files).map_err(|e| (dir.clone(), e))?;
                    sub.set_source(&format!("charts/{dir}"));
                    Ok(sub)
                });
                packed
                    .chain(unpacked)
                    .collect::<Vec<Result<Chart, (String, LoadError)>>>()
            },
            || values_yaml.map(|text| helm_values(&text)),
        );
        if let Some(values) = values {
            chart.values = match values.map_err(|error| LoadError::Yaml {
                file: "values.yaml",
                error,
            })? {
                Value::Nil | Value::NoValue => Value::map(BTreeMap::new()),
                v @ Value::Map(_) => v,
                other => {
                    return Err(LoadError::NotAnObject {
                        file: "values.yaml",
                        got: json_type(&other).unwrap_or("null"),
                        go_type: "map[string]interface {}",
                    })
                }
            };
        }
        if !has_metadata {
            return Err(LoadError::NoChartYaml);
        }
        validate(&mut chart.metadata)?;
        chart.name = scalar_text(chart.metadata.get("name").unwrap_or(&Value::Nil));
        if let Some(Value::List(items)) = chart.metadata.get("dependencies") {
            chart.requirements = items
                .iter()
                .enumerate()
                .map(|(i, d)| dependency(d, i + 1))
                .collect();
        }
        for sub in subcharts {
            chart
                .dependencies
                .push(sub.map_err(|(entry, error)| LoadError::Subchart {
                    entry,
                    parent: chart.name.clone(),
                    error: Box::new(error),
                })?);
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
        // Go's `gzip.NewReader` reads a 10-byte header first (a Git LFS pointer committed in
        // place of the archive is "gzip: invalid header").
        if bytes.is_empty() {
            return Err(fail("EOF"));
        }
        if bytes.len() < 10 {
            return Err(fail("unexpected EOF"));
        }
        if bytes[..3] != [0x1f, 0x8b, 8] {
            return Err(fail("gzip: invalid header"));
        }
        // An archive that ends early is Go's io.ErrUnexpectedEOF, whichever layer meets it.
        let read_error = |e: std::io::Error| {
            let message = e.to_string();
            if e.kind() == std::io::ErrorKind::UnexpectedEof || message.contains("incomplete") {
                LoadError::Archive("unexpected EOF".into())
            } else {
                LoadError::Archive(message)
            }
        };
        let gz = flate2::read::GzDecoder::new(bytes);
        let mut archive = tar::Archive::new(gz.take(MAX_ARCHIVE_BYTES + 1));
        let mut files = Vec::new();
        let mut total = 0u64;
        let entries = archive.entries().map_err(read_error)?;
        for entry in entries {
            let mut entry = entry.map_err(read_error)?;
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
                .map_err(read_error)? as u64;
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
    /// (zero when unset, printed and marshalled as Go does: a list or map Chart.yaml does not
    /// give, or gives as null, is a nil slice or map, `null` in JSON) and `IsRoot`.
    pub fn dot_value(&self, is_root: bool) -> Value {
        let text = |key: &str| Value::str(self.text_field(key).unwrap_or_default());
        let list = |key: &str| match self.metadata.get(key) {
            Some(Value::List(l)) => Value::strings(l.iter().map(scalar_text)),
            _ => Value::nil_list(ListType::String),
        };
        let annotations = match self.metadata.get("annotations") {
            Some(Value::Map(m)) => Value::Map(Dict::typed(
                m.entries()
                    .into_iter()
                    .map(|(k, v)| (k, Value::str(scalar_text(&v))))
                    .collect(),
                MapType::String,
            )),
            _ => Value::Map(Dict::nil(MapType::String)),
        };
        const MAINTAINERS: ListType = ListType::Named("[]*chart.Maintainer");
        let maintainers = match self.metadata.get("maintainers") {
            Some(Value::List(l)) => Value::typed_list(
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
                MAINTAINERS,
            ),
            _ => Value::nil_list(MAINTAINERS),
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
    /// `.Chart.Dependencies`: the entries that survived dependency processing; a nil slice
    /// when none did (`processDependencyEnabled` appends them to nil).
    fn dependencies_value(&self) -> Value {
        const DEPENDENCIES: ListType = ListType::Named("[]*chart.Dependency");
        if self.requirements.is_empty() {
            return Value::nil_list(DEPENDENCIES);
        }
        let items = self
            .requirements
            .iter()
            .map(|d| {
                GoStruct {
                    type_name: "*chart.Dependency",
                    fields: vec![
                        // `name` and `repository` have no `omitempty`.
                        Field {
                            omit_empty: false,
                            ..field("Name", "name", Value::str(d.name.as_str()))
                        },
                        field("Version", "version", Value::str(d.version.as_str())),
                        Field {
                            omit_empty: false,
                            ..field(
                                "Repository",
                                "repository",
                                Value::str(d.repository.as_str()),
                            )
                        },
                        field("Condition", "condition", Value::str(d.condition.as_str())),
                        field("Tags", "tags", Value::strings(d.tags.clone())),
                        field("Enabled", "enabled", Value::Bool(true)),
                        field(
                            "ImportValues",
                            "import-values",
                            import_values(&d.import_values),
                        ),
                        field("Alias", "alias", Value::str(d.alias.as_str())),
                    ],
                }
                .value()
            })
            .collect();
        Value::typed_list(items, DEPENDENCIES)
    }
}

/// A dependency's `import-values` as Helm's `processImportValues` leaves them: each a
/// `{child, parent}` map.
fn import_values(values: &[ImportValue]) -> Value {
    Value::list(
        values
            .iter()
            .map(|iv| {
                let (child, parent) = iv.child_parent();
                Value::map(BTreeMap::from([
                    ("child".to_string(), Value::str(child)),
                    ("parent".to_string(), Value::str(parent)),
                ]))
            })
            .collect(),
    )
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
pub(crate) fn json_type(v: &Value) -> Option<&'static str> {
    match v {
        Value::Nil | Value::NoValue => None,
        Value::Bool(_) => Some("bool"),
        Value::String(_) => Some("string"),
        Value::List(_) => Some("array"),
        Value::Map(_) => Some("object"),
        _ => Some("number"),
    }
}

/// The Go structs Helm decodes a chart's YAML files into (sigs.k8s.io/yaml, then
/// `encoding/json`): `chart.Metadata` (Chart.yaml, requirements.yaml) and `chart.Lock`
/// (Chart.lock, requirements.lock). A string field takes any scalar (as its text), a bool field
/// a bool, a list or map field its kind; the first field of another type, in the JSON's key
/// order (a Go map's JSON is sorted, as a BTreeMap iterates), is the error. Unknown keys are
/// ignored.
mod go_types {
    use super::{is_scalar, json_type, LoadError};
    use crate::template::{GoTime, Value};
    use std::collections::BTreeMap;

    #[derive(Clone, Copy)]
    enum Kind {
        Str,
        Bool,
        Strings,
        StringMap,
        Anys,
        /// `time.Time`: an RFC 3339 string (its own `UnmarshalJSON`).
        Time,
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
    const DEPENDENCIES: Kind = Kind::Structs("[]*chart.Dependency", "chart.Dependency", DEPENDENCY);
    const METADATA: &[(&str, Kind)] = &[
        ("annotations", Kind::StringMap),
        ("apiVersion", Kind::Str),
        ("appVersion", Kind::Str),
        ("condition", Kind::Str),
        ("dependencies", DEPENDENCIES),
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
    const LOCK: &[(&str, Kind)] = &[
        ("dependencies", DEPENDENCIES),
        ("digest", Kind::Str),
        ("generated", Kind::Time),
    ];

    /// `chart.Metadata` read from `file`.
    pub fn metadata(file: &'static str, map: &BTreeMap<String, Value>) -> Result<(), LoadError> {
        check_struct(file, "Metadata", METADATA, map)
    }

    /// `chart.Lock` read from `file`.
    pub fn lock(file: &'static str, map: &BTreeMap<String, Value>) -> Result<(), LoadError> {
        check_struct(file, "Lock", LOCK, map)
    }

    fn check_struct(
        file: &'static str,
        name: &str,
        fields: &[(&str, Kind)],
        map: &BTreeMap<String, Value>,
    ) -> Result<(), LoadError> {
        for (key, kind) in fields {
            if let Some(v) = map.get(*key) {
                check(file, v, *kind, &format!("{name}.{key}"))?;
            }
        }
        Ok(())
    }

    /// `field` is Go's `Struct.path.to.field`.
    fn check(file: &'static str, v: &Value, kind: Kind, field: &str) -> Result<(), LoadError> {
        let Some(got) = json_type(v) else {
            return Ok(());
        };
        let wrong = |want: &'static str| {
            Err(LoadError::Field {
                file,
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
            (Kind::Strings, Value::List(l)) => l
                .iter()
                .try_for_each(|item| check(file, item, Kind::Str, field)),
            (Kind::Strings, _) => wrong("[]string"),
            (Kind::StringMap, Value::Map(m)) => m
                .entries()
                .iter()
                .try_for_each(|(_, item)| check(file, item, Kind::Str, field)),
            (Kind::StringMap, _) => wrong("map[string]string"),
            (Kind::Anys, Value::List(_)) => Ok(()),
            (Kind::Anys, _) => wrong("[]interface {}"),
            (Kind::Time, Value::String(s)) => {
                // `parseStrictRFC3339`; the layout is time.RFC3339.
                GoTime::parse("2006-01-02T15:04:05Z07:00", s)
                    .map(|_| ())
                    .map_err(|message| LoadError::Decode { file, message })
            }
            (Kind::Time, _) => Err(LoadError::Decode {
                file,
                message: "Time.UnmarshalJSON: input is not a JSON string".into(),
            }),
            (Kind::Structs(_, item_type, fields), Value::List(l)) => {
                let (_, path) = field.split_once('.').unwrap_or(("", field));
                let item_struct = item_type.trim_start_matches("chart.");
                l.iter().try_for_each(|item| match item {
                    Value::Map(m) => fields.iter().try_for_each(|(key, kind)| match m.get(key) {
                        Some(v) => check(file, &v, *kind, &format!("{item_struct}.{path}.{key}")),
                        None => Ok(()),
                    }),
                    item => check(file, item, Kind::Item(item_type), field),
                })
            }
            (Kind::Structs(list_type, ..), _) => wrong(list_type),
            // A list's item that is not an object.
            (Kind::Item(item_type), _) => wrong(item_type),
        }
    }
}

/// A file the loader decodes into a Go struct: its top-level fields (none for an empty file).
fn decode_object(
    text: &str,
    file: &'static str,
    go_type: &'static str,
) -> Result<BTreeMap<String, Value>, LoadError> {
    match helm_values(text).map_err(|error| LoadError::Yaml { file, error })? {
        Value::Map(m) => Ok(m.read().clone()),
        Value::Nil | Value::NoValue => Ok(BTreeMap::new()),
        other => Err(LoadError::NotAnObject {
            file,
            got: json_type(&other).unwrap_or("null"),
            go_type,
        }),
    }
}

/// `chart.Metadata.Validate`: the strings `.Chart` shows sanitized, then Helm's checks in
/// its order (`chart.metadata.version "x" is invalid`, …).
fn validate(md: &mut BTreeMap<String, Value>) -> Result<(), LoadError> {
    let invalid = |m: String| Err(LoadError::Validation(m));
    let quote = crate::go::strconv::quote;
    for key in [
        "name",
        "description",
        "home",
        "icon",
        "condition",
        "tags",
        "appVersion",
        "kubeVersion",
        "sources",
        "keywords",
    ] {
        if let Some(v) = md.get_mut(key) {
            *v = sanitized(v);
        }
    }
    let text =
        |md: &BTreeMap<String, Value>, key: &str| md.get(key).map(scalar_text).unwrap_or_default();
    if text(md, "apiVersion").is_empty() {
        return invalid("chart.metadata.apiVersion is required".into());
    }
    let name = text(md, "name");
    if name.is_empty() {
        return invalid("chart.metadata.name is required".into());
    }
    if name != go_base(&name) {
        return invalid(format!("chart.metadata.name {} is invalid", quote(&name)));
    }
    let version = text(md, "version");
    if version.is_empty() {
        return invalid("chart.metadata.version is required".into());
    }
    if crate::semver::Version::parse(&version).is_err() {
        return invalid(format!(
            "chart.metadata.version {} is invalid",
            quote(&version)
        ));
    }
    if !matches!(text(md, "type").as_str(), "" | "application" | "library") {
        return invalid("chart.metadata.type must be application or library".into());
    }
    // The structs of a list are sanitized field by field; a null item is refused.
    let structs = |md: &mut BTreeMap<String, Value>, key: &str, fields: &[&str]| {
        let Some(Value::List(items)) = md.get(key) else {
            return Ok(());
        };
        let items = items
            .iter()
            .map(|item| match item {
                Value::Nil | Value::NoValue => Err(LoadError::Validation(format!(
                    "{key} must not contain empty or null nodes"
                ))),
                Value::Map(m) => {
                    let mut m = m.read().clone();
                    for field in fields {
                        if let Some(v) = m.get_mut(*field) {
                            *v = sanitized(v);
                        }
                    }
                    Ok(Value::map(m))
                }
                other => Ok(other.clone()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        md.insert(key.to_string(), Value::list(items));
        Ok(())
    };
    structs(md, "maintainers", &["name", "email", "url"])?;
    structs(
        md,
        "dependencies",
        &["name", "version", "repository", "condition", "tags"],
    )?;
    let mut seen = std::collections::HashSet::new();
    if let Some(Value::List(items)) = md.get("dependencies") {
        for item in items.iter() {
            let field = |key: &str| match item {
                Value::Map(m) => m.get(key).map(|v| scalar_text(&v)).unwrap_or_default(),
                _ => String::new(),
            };
            let (name, alias) = (field("name"), field("alias"));
            let alias_ok = alias
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !alias_ok {
                return invalid(format!(
                    "dependency {} has disallowed characters in the alias",
                    quote(&name)
                ));
            }
            let key = if alias.is_empty() { name } else { alias };
            if !seen.insert(key.clone()) {
                return invalid(format!(
                    "more than one dependency with name or alias {}",
                    quote(&key)
                ));
            }
        }
    }
    Ok(())
}

/// Go's `sanitizeString` of a string (each of a list's strings): a space for every space
/// character, unprintable characters dropped. Other values as they are.
fn sanitized(v: &Value) -> Value {
    match v {
        Value::String(s)
            if s.chars().any(|c| {
                c != ' ' && (c.is_whitespace() || !crate::go::strconv::is_printable(c))
            }) =>
        {
            Value::str(
                s.chars()
                    .filter_map(|c| match c {
                        c if c.is_whitespace() => Some(' '),
                        c if crate::go::strconv::is_printable(c) => Some(c),
                        _ => None,
                    })
                    .collect::<String>(),
            )
        }
        Value::List(l) => Value::list(l.iter().map(sanitized).collect()),
        other => other.clone(),
    }
}

/// Go's `filepath.Base` (Unix).
fn go_base(path: &str) -> &str {
    if path.is_empty() {
        return ".";
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
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

/// A YAML file the loader decodes, as the Go string of its bytes (BOM removed): one that is
/// not UTF-8 fails to load as go-yaml's reader fails on it.
fn yaml_text(bytes: &[u8]) -> String {
    crate::template::gostr::from_bytes(strip_bom(bytes))
}

/// A template's text, its BOM removed and bytes that are not UTF-8 replaced (U+FFFD), sharing
/// the file's bytes when it has neither.
pub(crate) fn template_text(file: Bytes) -> Arc<str> {
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
