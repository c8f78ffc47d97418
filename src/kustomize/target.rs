//! One kustomization being built (kustomize's `KustTarget`): load the file, accumulate
//! resources, bases and components, run generators and the builtin transformers in kustomize's
//! fixed order. The pipeline order is written here and nowhere else.

use super::builtins::{BuiltinError, Transformer};
use super::error::KError;
use super::fieldspec::FieldSpec;
use super::generate::{self, GenKind};
use super::loader::Loader;
use super::origin::{self, Origin};
use super::res::Res;
use super::resmap::ResMap;
use super::tconfig::{self, TransformerConfig};
use super::transform;
use super::transform::patch;
use super::transform::{images, labels, namespace, prefix_suffix, replicas};
use super::types::{self, GeneratorOptions, Kustomization, Var};
use super::KUSTOMIZATION_FILES;
use crate::finding::rules;
use crate::finding::Finding;
use crate::finding::Rule;
use crate::resource::Origin as SourceOrigin;
use crate::source::{EntryKind, RepoPath};
use crate::yaml::{self, de::from_node_go_json, Dialect, Node, ParseOptions, Span};
use std::borrow::Cow;
use std::sync::Arc;

/// How resource files are read. kyaml reads a node tree (no duplicate-key check) and kustomize
/// rewrites every object's `metadata.annotations` as a map before anything decodes the object:
/// a key given twice there keeps its last value, while a duplicate anywhere else fails when
/// the object is decoded.
const RESOURCE_PARSE: ParseOptions = ParseOptions {
    limits: yaml::Limits::DEFAULT,
    duplicate_keys: yaml::DuplicateKeys::LastWinsAt {
        path: ANNOTATIONS,
        otherwise: yaml::Otherwise::Error,
    },
    go_yaml_v3_comments: true,
};

/// kustomize's `inlineAnyEmbeddedLists`: the list is decoded (go-yaml v3) and each item
/// encoded with Go's JSON and read back, which types every value anew (`0x1F` becomes `31`,
/// `~` becomes `null`).
fn list_items_through_json(kind: &str, items: &[Node]) -> Result<Vec<Node>, String> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if let Some((key, _)) = yaml::non_string_key(item) {
            return Err(format!(
                "trouble expanding list of {kind}: the key {:?} is not a string: json: unsupported type: map[interface {{}}]interface {{}}",
                yaml::key_text(key)
            ));
        }
        let value = yaml::to_value(item, Dialect::Yaml12)
            .map_err(|e| format!("trouble expanding list of {kind}; {e}"))?;
        out.push(yaml::from_json_text(&value).at(item.span));
    }
    Ok(out)
}

/// Where kustomize collapses duplicate keys, last one winning.
pub(super) const ANNOTATIONS: &[&str] = &["metadata", "annotations"];

/// A loaded kustomization.
pub struct Kt<'a> {
    pub ldr: Loader<'a>,
    pub k: Kustomization,
    /// The kustomization file.
    pub file: RepoPath,
    /// Its parsed YAML (for the lines of entries in findings).
    pub doc: Node,
    /// With `buildMetadata`: this kustomization's path relative to the top one.
    pub origin: Option<String>,
    /// The top kustomization's `buildMetadata` (it applies to the whole build).
    pub build_metadata: Vec<String>,
}

impl Kt<'_> {
    /// The position of `field[index]` (or of `field` itself) in the kustomization file.
    pub fn span(&self, field: &str, index: Option<usize>) -> Span {
        let Some((key, value)) = self.doc.get_entry(field) else {
            return Span::default();
        };
        match index.and_then(|i| value.as_seq().and_then(|s| s.get(i))) {
            Some(item) => item.span,
            None => key.span,
        }
    }

    pub fn err_at(&self, e: KError, field: &str, index: Option<usize>) -> KError {
        e.at(&self.file, self.span(field, index))
    }

    /// The origin of a builtin generator or transformer configured here.
    fn builtin_origin(&self, kind: &str) -> Option<Origin> {
        let prefix = self.origin.as_ref()?;
        Some(Origin::builtin(
            &super::origin::join(prefix, self.file.file_name()),
            kind,
        ))
    }
}

/// What a build accumulates (kustomize's `ResAccumulator`).
pub struct Acc {
    pub rm: ResMap,
    /// Shared: most kustomizations contribute the same (default) config.
    pub tc: Arc<TransformerConfig>,
    pub vars: Vec<Var>,
}

impl Acc {
    /// An empty accumulator.
    pub fn new() -> Acc {
        Acc {
            rm: ResMap::new(),
            tc: Arc::default(),
            vars: Vec::new(),
        }
    }

    fn merge(&mut self, other: Acc) -> Result<(), KError> {
        self.rm.append_all(other.rm)?;
        self.merge_config(&other.tc)?;
        for v in other.vars {
            self.merge_var(v)?;
        }
        Ok(())
    }

    fn merge_config(&mut self, tc: &Arc<TransformerConfig>) -> Result<(), KError> {
        self.tc = TransformerConfig::merged(&self.tc, tc)
            .map_err(|e| KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e))?;
        Ok(())
    }

    fn merge_var(&mut self, v: Var) -> Result<(), KError> {
        if self.vars.iter().any(|x| x.name == v.name) {
            return Err(KError::new(
                rules::KUSTOMIZE_VARS_DUPLICATE,
                format!("var '{}' already encountered", v.name),
            ));
        }
        self.vars.push(v);
        Ok(())
    }
}

/// Build-wide state: options and the notices collected on the way.
pub struct Builder {
    pub root_only: bool,
    pub findings: Vec<Finding>,
    /// `--enable-exec-plugins`: run exec plugins found in the plugin home.
    pub exec_plugins: bool,
}

impl Builder {
    /// Loads the kustomization in the loader's root (kustomize `KustTarget.Load`).
    pub fn load<'a>(&mut self, ldr: Loader<'a>) -> Result<Kt<'a>, KError> {
        let root = ldr.root().clone();
        if ldr.files.kind(&root) != EntryKind::Dir {
            return Err(KError::new(
                rules::KUSTOMIZE_FILE_NOT_FOUND,
                format!("must build at directory: '{root}' doesn't exist"),
            ));
        }
        let found: Vec<&str> = KUSTOMIZATION_FILES
            .iter()
            .copied()
            .filter(|f| ldr.files.kind(&root.child(f)) == EntryKind::File)
            .collect();
        let name = match found.as_slice() {
            [] => {
                // A kustomization that is there but cannot be read (a link out of the
                // repository, a link loop) says so.
                for f in KUSTOMIZATION_FILES {
                    let path = root.child(f);
                    if let Some(e) = ldr.unusable(&path) {
                        return Err(e.at(&path, Span::default()));
                    }
                }
                return Err(KError::new(
                    rules::KUSTOMIZE_MISSING_KUSTOMIZATION,
                    format!("unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{root}'"),
                ));
            }
            [one] => *one,
            _ => {
                return Err(KError::new(
                    rules::KUSTOMIZE_MULTIPLE_KUSTOMIZATIONS,
                    format!("Found multiple kustomization files under: {root}"),
                ))
            }
        };
        let file = root.child(name);
        let bytes = ldr.files.read(&file).map_err(|e| {
            KError::new(rules::SOURCE_READ, e.to_string()).at(&file, Span::default())
        })?;
        let opts = ParseOptions {
            duplicate_keys: yaml::DuplicateKeys::LastWins,
            ..ParseOptions::default()
        };
        let doc = yaml::parse_one(&bytes, &opts).map_err(|e| {
            let message = e.go_message.as_deref().unwrap_or(&e.message);
            KError::new(
                rules::YAML_PARSE,
                format!("invalid Kustomization: {message}"),
            )
            .at(&file, e.span)
        })?;
        let mut k: Kustomization = if doc.is_null() {
            Kustomization::default()
        } else {
            from_node_go_json(&doc, Dialect::Yaml11).map_err(|e| {
                KError::new(
                    rules::KUSTOMIZE_INVALID_KUSTOMIZATION,
                    format!("invalid Kustomization: {}", e.message),
                )
                .at(&file, e.span)
            })?
        };
        for (field, warning) in types::deprecation_warnings(&k) {
            let span = doc
                .get_entry(field)
                .map(|(k, _)| k.span)
                .unwrap_or_default();
            self.findings
                .push(Finding::notice(rules::KUSTOMIZE_DEPRECATED, warning).at(
                    file.to_string(),
                    span.line,
                    span.column,
                ));
        }
        fix_kustomization(&mut k);
        if is_empty(&doc) {
            return Err(KError::new(
                rules::KUSTOMIZE_EMPTY_KUSTOMIZATION,
                "kustomization.yaml is empty",
            )
            .at(&file, Span::default()));
        }
        let mut errs = Vec::new();
        if !k.kind.is_empty() && k.kind != "Kustomization" && k.kind != "Component" {
            errs.push("kind should be Kustomization or Component".to_string());
        }
        let required = if k.kind == "Component" {
            types::COMPONENT_VERSION
        } else {
            types::KUSTOMIZATION_VERSION
        };
        if !k.api_version.is_empty() && k.api_version != required {
            errs.push(format!("apiVersion for {} should be {required}", k.kind));
        }
        if !errs.is_empty() {
            let span = doc
                .get_entry("apiVersion")
                .or_else(|| doc.get_entry("kind"))
                .map(|(k, _)| k.span)
                .unwrap_or_default();
            return Err(KError::new(
                rules::KUSTOMIZE_INVALID_KUSTOMIZATION,
                format!(
                    "Failed to read kustomization file under {root}:\n{}",
                    errs.join("\n")
                ),
            )
            .at(&file, span));
        }
        if k.kind.is_empty() {
            k.kind = "Kustomization".into();
        }
        let build_metadata = k.build_metadata.clone();
        Ok(Kt {
            ldr,
            k,
            file,
            doc,
            origin: None,
            build_metadata,
        })
    }

    /// kustomize `accumulateTarget`: resources, configurations, generators, components,
    /// transformers, vars — in that order.
    pub fn accumulate_target(&mut self, kt: &Kt, mut acc: Acc) -> Result<Acc, KError> {
        self.check_supported(kt)?;
        acc = self
            .accumulate_resources(kt, acc)
            .map_err(|e| e.context("accumulating resources"))?;
        let tc = self.transformer_config(kt)?;
        acc.merge_config(&tc)?;
        let crd_tc = self.crd_config(kt)?;
        acc.merge_config(&crd_tc)?;
        self.run_generators(kt, &mut acc)?;
        acc = self
            .accumulate_components(kt, acc)
            .map_err(|e| e.context("accumulating components"))?;
        self.run_transformers(kt, &mut acc)?;
        if let Some(vars) = &kt.k.vars {
            for (i, v) in vars.iter().enumerate() {
                transform::vars::bind(&mut acc.rm, v).map_err(|e| {
                    kt.err_at(
                        KError::new(rules::KUSTOMIZE_VARS_AMBIGUOUS, e),
                        "vars",
                        Some(i),
                    )
                })?;
            }
            for (i, v) in vars.iter().enumerate() {
                acc.merge_var(v.clone())
                    .map_err(|e| kt.err_at(e, "vars", Some(i)))?;
            }
        }
        Ok(acc)
    }

    /// Features not implemented yet fail the build loudly instead of rendering wrong output.
    fn check_supported(&self, kt: &Kt) -> Result<(), KError> {
        let k = &kt.k;
        let unsupported: [(&str, bool); 1] = [("validators", !k.validators.is_empty())];
        for (field, used) in unsupported {
            if used {
                return Err(kt.err_at(
                    KError::new(
                        rules::KUSTOMIZE_UNSUPPORTED,
                        format!("'{field}' is not supported by this kdelta version yet"),
                    ),
                    field,
                    None,
                ));
            }
        }
        Ok(())
    }

    fn transformer_config(&mut self, kt: &Kt) -> Result<Arc<TransformerConfig>, KError> {
        if kt.k.configurations.is_empty() {
            return Ok(Arc::clone(TransformerConfig::defaults()));
        }
        let mut tc = TransformerConfig::clone(TransformerConfig::defaults());
        let mut extra = TransformerConfig::default();
        for (i, path) in kt.k.configurations.iter().enumerate() {
            let (file, bytes) = kt
                .ldr
                .load(path)
                .map_err(|e| kt.err_at(e, "configurations", Some(i)))?;
            let node = yaml::parse_one(&bytes, &ParseOptions::default())
                .map_err(|e| KError::new(rules::YAML_PARSE, e.message.clone()).at(&file, e.span))?;
            let t = TransformerConfig::from_yaml(&node).map_err(|e| {
                KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e.message.clone()).at(&file, e.span)
            })?;
            extra = extra.merge(&t).map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e),
                    "configurations",
                    Some(i),
                )
            })?;
        }
        if !kt.k.configurations.is_empty() {
            tc = tc.merge(&extra).map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e),
                    "configurations",
                    None,
                )
            })?;
        }
        Ok(Arc::new(tc))
    }

    /// `crds:` files: transformer config from their OpenAPI definitions.
    fn crd_config(&mut self, kt: &Kt) -> Result<Arc<TransformerConfig>, KError> {
        let mut tc = TransformerConfig::default();
        for (i, path) in kt.k.crds.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "crds", Some(i));
            let (file, bytes) = kt.ldr.load(path).map_err(at)?;
            let node = yaml::parse_one(&bytes, &ParseOptions::default())
                .map_err(|e| KError::new(rules::YAML_PARSE, e.message.clone()).at(&file, e.span))?;
            let value = yaml::to_value_lossy(&node, Dialect::Yaml12);
            let more = super::crds::config_from_definitions(&value).map_err(|e| {
                at(KError::new(
                    rules::KUSTOMIZE_CRDS,
                    format!("unable to parse open API definition from '{path}': {e}"),
                ))
            })?;
            tc = tc
                .merge(&more)
                .map_err(|e| at(KError::new(rules::KUSTOMIZE_CRDS, e)))?;
        }
        Ok(Arc::new(tc))
    }

    fn accumulate_resources(&mut self, kt: &Kt, acc: Acc) -> Result<Acc, KError> {
        let entries: Vec<(usize, &str)> =
            kt.k.resources
                .iter()
                .map(String::as_str)
                .enumerate()
                .collect();
        self.accumulate_paths(kt, acc, "resources", &entries)
    }

    /// Accumulates files and kustomization directories listed under `field` (resources, or the
    /// plugin configs of generators/transformers).
    pub fn accumulate_paths(
        &mut self,
        kt: &Kt,
        mut acc: Acc,
        field: &str,
        entries: &[(usize, &str)],
    ) -> Result<Acc, KError> {
        for &(i, path) in entries {
            let at = |e: KError| kt.err_at(e, field, Some(i));
            if super::loader::is_remote_file(path) || super::loader::is_remote_target(path) {
                let e = at(KError::remote(path));
                let mut f = e.into_finding().incomplete();
                f.severity = crate::finding::Severity::Notice;
                self.findings.push(f);
                continue;
            }
            let resolved = kt.ldr.resolve(path).map_err(at)?;
            match kt.ldr.files.kind(&resolved) {
                EntryKind::Dir => {
                    let child = kt.ldr.child(path).map_err(|e| {
                        at(e.context(format!(
                            "accumulation err='accumulating resources from '{path}''"
                        )))
                    })?;
                    acc = self
                        .accumulate_directory(kt, path, acc, child, false)
                        .map_err(|e| {
                            at(e.context(format!(
                                "accumulation err='accumulating resources from '{path}''"
                            )))
                        })?;
                }
                EntryKind::Missing => {
                    if let Some(e) = kt.ldr.unusable(&resolved) {
                        return Err(at(
                            e.context(format!("accumulating resources from '{path}'"))
                        ));
                    }
                    return Err(at(KError::new(
                        rules::KUSTOMIZE_FILE_NOT_FOUND,
                        format!("accumulation err='accumulating resources from '{path}': '{resolved}': no such file or directory': must build at directory: not a valid directory"),
                    )));
                }
                _ => {
                    let mut rm = self.load_resources(kt, path).map_err(|e| {
                        at(e.context(format!("accumulating resources from '{path}'")))
                    })?;
                    if let Some(prefix) = &kt.origin {
                        let o = Origin {
                            path: origin::join(prefix, path),
                            ..Origin::default()
                        };
                        origin::annotate_all(&mut rm, &o);
                    }
                    acc.rm
                        .append_all(rm)
                        .map_err(|e| at(e.context(format!("merging resources from '{path}'"))))?;
                }
            }
        }
        Ok(acc)
    }

    fn accumulate_components(&mut self, kt: &Kt, mut acc: Acc) -> Result<Acc, KError> {
        for (i, path) in kt.k.components.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "components", Some(i));
            let child = kt
                .ldr
                .child(path)
                .map_err(|e| at(e.context("loader.New")))?;
            acc = self
                .accumulate_directory(kt, path, acc, child, true)
                .map_err(|e| at(e.context("accumulateDirectory")))?;
        }
        Ok(acc)
    }

    fn accumulate_directory<'a>(
        &mut self,
        parent: &Kt,
        rel: &str,
        acc: Acc,
        ldr: Loader<'a>,
        is_component: bool,
    ) -> Result<Acc, KError> {
        let root = ldr.root().clone();
        let mut sub = self
            .load(ldr)
            .map_err(|e| e.context(format!("couldn't make target for path '{root}'")))?;
        sub.build_metadata = parent.build_metadata.clone();
        self.set_openapi(&sub, false)?;
        sub.origin = parent.origin.as_ref().map(|o| origin::join(o, rel));
        if is_component && sub.k.kind != "Component" {
            return Err(KError::new(
                rules::KUSTOMIZE_COMPONENT_KIND,
                format!(
                    "expected kind 'Component' for path '{root}' but got '{}'",
                    sub.k.kind
                ),
            )
            .at(&sub.file, sub.span("kind", None)));
        }
        if !is_component && sub.k.kind == "Component" {
            return Err(KError::new(
                rules::KUSTOMIZE_COMPONENT_KIND,
                format!("expected kind != 'Component' for path '{root}'"),
            )
            .at(&sub.file, sub.span("kind", None)));
        }
        if is_component {
            // A component transforms everything accumulated so far.
            self.accumulate_target(&sub, acc)
                .map_err(|e| e.context(format!("recursed accumulation of path '{root}'")))
        } else {
            let sub_acc = self
                .accumulate_target(&sub, Acc::new())
                .map_err(|e| e.context(format!("recursed accumulation of path '{root}'")))?;
            let mut acc = acc;
            acc.merge(sub_acc)
                .map_err(|e| e.context(format!("recursed merging from path '{root}'")))?;
            Ok(acc)
        }
    }

    /// Reads a resource file: every non-empty document, `*List` kinds expanded.
    pub fn load_resources(&mut self, kt: &Kt, rel: &str) -> Result<ResMap, KError> {
        let (file, bytes) = kt.ldr.load(rel)?;
        let (docs, pieces) = super::documents::read_documents_counted(&bytes, &RESOURCE_PARSE)
            .map_err(|e| {
                KError::new(
                    match e.kind {
                        yaml::YamlErrorKind::Limit => rules::YAML_LIMIT,
                        yaml::YamlErrorKind::DuplicateKey => rules::YAML_DUPLICATE_KEY,
                        _ => rules::YAML_PARSE,
                    },
                    format!(
                        "MalformedYAMLError: {} in File: {rel}",
                        e.go_message.clone().unwrap_or_else(|| format!(
                            "yaml: line {}: {}",
                            e.span.line, e.message
                        ))
                    ),
                )
                .at(&file, e.span)
            })?;
        // kyaml's ByteReader unwraps a lone `List` (or `ResourceList`) keeping its items as
        // written; kustomize expands any other `*List` through Go's JSON.
        let lone_list = pieces == 1
            && docs.len() == 1
            && matches!(docs[0].str_at(&["kind"]), Some("List" | "ResourceList"))
            && (docs[0].get("items").is_some() || docs[0].get("functionConfig").is_some());
        let docs = if lone_list {
            match docs[0].get("items").and_then(Node::as_seq) {
                Some(items) => items.to_vec(),
                None => Vec::new(),
            }
        } else {
            docs
        };
        let mut queue: std::collections::VecDeque<Node> = docs.into_iter().collect();
        let mut rm = ResMap::new();
        let mut ids = rm.ids();
        while let Some(doc) = queue.pop_front() {
            if doc.is_nil_or_empty() {
                continue;
            }
            let span = doc.span;
            if !doc.is_map() {
                return Err(KError::new(
                    rules::RESOURCE_INVALID,
                    "wrong node kind: expected MappingNode; a resource must be a mapping",
                )
                .at(&file, span));
            }
            let kind = doc.str_at(&["kind"]).unwrap_or("").to_string();
            if kind.is_empty() {
                return Err(
                    KError::new(rules::RESOURCE_INVALID, "missing kind in object").at(&file, span),
                );
            }
            if kind.ends_with("List") {
                match doc.get("items") {
                    None => {}
                    Some(items) if items.is_null() => continue,
                    Some(items) => match items.as_seq() {
                        Some(items) => {
                            let items = list_items_through_json(&kind, items).map_err(|e| {
                                KError::new(rules::RESOURCE_INVALID, e).at(&file, span)
                            })?;
                            queue.extend(items);
                            continue;
                        }
                        None => {
                            return Err(KError::new(
                                rules::RESOURCE_INVALID,
                                format!("expected array in {kind}/items"),
                            )
                            .at(&file, items.span))
                        }
                    },
                }
            } else if doc.str_at(&["metadata", "name"]).unwrap_or("").is_empty() {
                return Err(KError::new(
                    rules::RESOURCE_INVALID,
                    format!("missing metadata.name in object of kind {kind}"),
                )
                .at(&file, span));
            }
            rm.append_to(
                Res::new(
                    doc,
                    SourceOrigin {
                        file: file.clone(),
                        span,
                    },
                    kt.ldr.schema.clone(),
                ),
                &mut ids,
            )?;
        }
        Ok(rm)
    }

    fn run_generators(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        let global = kt.k.generator_options.as_ref();
        let gens =
            kt.k.config_map_generator
                .iter()
                .enumerate()
                .map(|(i, a)| (GenKind::ConfigMap, "configMapGenerator", i, a))
                .chain(
                    kt.k.secret_generator
                        .iter()
                        .enumerate()
                        .map(|(i, a)| (GenKind::Secret, "secretGenerator", i, a)),
                );
        for (kind, field, i, args) in gens {
            let opts = GeneratorOptions::merge_global(args.options.as_ref(), global);
            let span = kt.span(field, Some(i));
            let origin = SourceOrigin {
                file: kt.file.clone(),
                span,
            };
            let mut warnings = Vec::new();
            let res = generate::generate(&kt.ldr, kind, args, opts.as_ref(), origin, &mut warnings)
                .map_err(|e| kt.err_at(e, field, Some(i)))?;
            self.generator_warnings(&kt.file, span, warnings);
            let mut rm = ResMap::new();
            rm.append(res)?;
            let gen_kind = match kind {
                GenKind::ConfigMap => "ConfigMapGenerator",
                GenKind::Secret => "SecretGenerator",
            };
            if let Some(o) = kt.builtin_origin(gen_kind) {
                origin::add_origin(&mut rm, &o);
            }
            acc.rm.absorb_all(rm).map_err(|e| {
                kt.err_at(
                    e.context(format!("merging from generator {}", args.name)),
                    field,
                    Some(i),
                )
            })?;
        }
        self.note_helm_charts(kt)?;
        self.run_generator_plugins(kt, acc)?;
        Ok(())
    }

    fn run_transformers(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        let k = &kt.k;
        let tc = acc.tc.clone();
        let fail = |field: &str, e: String| {
            kt.err_at(KError::new(rules::KUSTOMIZE_TRANSFORM, e), field, None)
        };
        // After each configured builtin, kustomize records it on every resource.
        let record = |rm: &mut ResMap, kind: &str| {
            if let Some(o) = kt.builtin_origin(kind) {
                origin::add_transformation(rm, &o);
            }
        };
        self.run_patches_strategic_merge(kt, acc)?;
        if k.patches_strategic_merge
            .as_ref()
            .is_some_and(|p| !p.is_empty())
        {
            record(&mut acc.rm, "PatchStrategicMergeTransformer");
        }
        for (i, entry) in k.patches.iter().enumerate() {
            self.run_patch(kt, acc, entry, i)?;
            record(&mut acc.rm, "PatchTransformer");
        }
        let transform = rules::KUSTOMIZE_TRANSFORM;
        if !k.namespace.is_empty() {
            let t = Transformer::Namespace(namespace::Config {
                namespace: Cow::Borrowed(&k.namespace),
                specs: Cow::Borrowed(&tc.namespace),
                unset_only: false,
                mode: namespace::SubjectMode::DefaultOnly,
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "NamespaceTransformer",
                ("namespace", None),
                transform,
            )?;
        }
        if !k.name_prefix.is_empty() {
            let t = Transformer::Affix(prefix_suffix::Config {
                prefix: Cow::Borrowed(&k.name_prefix),
                suffix: Cow::Borrowed(""),
                specs: Cow::Borrowed(&tc.name_prefix),
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "PrefixTransformer",
                ("namePrefix", None),
                transform,
            )?;
        }
        if !k.name_suffix.is_empty() {
            let t = Transformer::Affix(prefix_suffix::Config {
                prefix: Cow::Borrowed(""),
                suffix: Cow::Borrowed(&k.name_suffix),
                specs: Cow::Borrowed(&tc.name_suffix),
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "SuffixTransformer",
                ("nameSuffix", None),
                transform,
            )?;
        }
        let common = k.common_labels.clone().unwrap_or_default();
        if !k.labels.is_empty() || !common.is_empty() {
            for label in &k.labels {
                let mut fss: Vec<FieldSpec> =
                    label.field_specs.iter().map(FieldSpec::from).collect();
                let merge = |fss: &mut Vec<FieldSpec>, more: &[FieldSpec]| {
                    tconfig::merge_all(fss, more)
                        .map_err(|e| fail("labels", format!("failed to merge labels: {e}")))
                };
                merge(&mut fss, &tc.labels)?;
                if label.include_selectors {
                    merge(&mut fss, &tc.common_labels)?;
                } else {
                    if label.include_templates {
                        merge(&mut fss, &tc.template_labels)?;
                    }
                    merge(&mut fss, &[FieldSpec::any("metadata/labels", true)])?;
                }
                let t = Transformer::Pairs(labels::Config {
                    pairs: Cow::Borrowed(&label.pairs),
                    specs: Cow::Owned(fss),
                });
                self.run_field_builtin(
                    kt,
                    acc,
                    &t,
                    "LabelTransformer",
                    ("labels", None),
                    transform,
                )?;
            }
            let t = Transformer::Pairs(labels::Config {
                pairs: Cow::Borrowed(&common),
                specs: Cow::Borrowed(&tc.common_labels),
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "LabelTransformer",
                ("commonLabels", None),
                transform,
            )?;
        }
        if !k.common_annotations.is_empty() {
            let t = Transformer::Pairs(labels::Config {
                pairs: Cow::Borrowed(&k.common_annotations),
                specs: Cow::Borrowed(&tc.common_annotations),
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "AnnotationsTransformer",
                ("commonAnnotations", None),
                transform,
            )?;
        }
        for (i, entry) in k.patches_json6902.iter().flatten().enumerate() {
            self.run_legacy_json6902(kt, acc, entry, i)?;
            record(&mut acc.rm, "PatchJson6902Transformer");
        }
        for (i, r) in k.replicas.iter().enumerate() {
            let t = Transformer::ReplicaCount(replicas::Config {
                replica: Cow::Borrowed(r),
                specs: Cow::Borrowed(&tc.replicas),
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "ReplicaCountTransformer",
                ("replicas", Some(i)),
                rules::KUSTOMIZE_REPLICAS,
            )?;
        }
        for (i, image) in k.images.iter().enumerate() {
            let t = Transformer::ImageTag(images::Config {
                image: Cow::Borrowed(image),
                specs: Cow::Borrowed(&tc.images),
            });
            self.run_field_builtin(
                kt,
                acc,
                &t,
                "ImageTagTransformer",
                ("images", Some(i)),
                rules::KUSTOMIZE_IMAGES,
            )?;
        }
        if !k.replacements.is_empty() {
            self.run_replacements(kt, acc)?;
            record(&mut acc.rm, "ReplacementTransformer");
        }
        self.run_transformer_plugins(kt, acc)?;
        Ok(())
    }
}

impl Builder {
    /// Runs a builtin configured by a kustomization field (`field`, entry `index`): a plain
    /// failure is reported as `rule` at that entry; then kustomize records the builtin
    /// (`kind`) on every resource.
    fn run_field_builtin(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        t: &Transformer<'_>,
        kind: &str,
        (field, index): (&str, Option<usize>),
        rule: Rule,
    ) -> Result<(), KError> {
        let span = kt.span(field, index);
        self.apply_transformer(kt, acc, t, &kt.file, span)
            .map_err(|e| match e {
                BuiltinError::Transform(m) => kt.err_at(KError::new(rule, m), field, index),
                BuiltinError::Placed(e) => e,
            })?;
        if let Some(o) = kt.builtin_origin(kind) {
            origin::add_transformation(&mut acc.rm, &o);
        }
        Ok(())
    }
}

impl Builder {
    /// `patchesStrategicMerge:`: inline patches or files of patches, each applied to the
    /// resource with the patch's id.
    fn run_patches_strategic_merge(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        let Some(entries) =
            kt.k.patches_strategic_merge
                .as_ref()
                .filter(|e| !e.is_empty())
        else {
            return Ok(());
        };
        self.apply_psm_entries(kt, acc, entries)
            .map_err(|e| kt.err_at(e, "patchesStrategicMerge", None))
    }

    /// Loads strategic merge patches (inline or files) and applies each to its resource.
    pub fn apply_psm_entries(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entries: &[String],
    ) -> Result<(), KError> {
        let field = "patchesStrategicMerge";
        let mut patches = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, field, Some(i));
            let inline = match patch::parse_smp(entry, &kt.ldr.schema) {
                Ok(p) => Some(p).filter(|p| !p.is_empty()),
                // Not a path either: refuse it without echoing it as a file name.
                Err(_) => match patch::yaml_limit(entry) {
                    Some(e) => return Err(at(e)),
                    None => None,
                },
            };
            let loaded = match inline {
                Some(p) => p,
                None => {
                    let (file, bytes) = kt.ldr.load(entry).map_err(|e| {
                        at(e.context(format!(
                            "trouble configuring builtin PatchStrategicMergeTransformer with config: `\npaths:\n- {entry}\n`"
                        )))
                    })?;
                    let text = super::documents::patch_text(&bytes);
                    patch::parse_smp(&text, &kt.ldr.schema).map_err(|e| {
                        KError::new(rules::KUSTOMIZE_PATCH, format!("{e} in File: {entry}"))
                            .at(&file, Default::default())
                    })?
                }
            };
            patches.extend(loaded);
        }
        if patches.is_empty() {
            return Err(KError::new(
                rules::KUSTOMIZE_PATCH,
                "patch appears to be empty",
            ));
        }
        patch::apply_patches_strategic_merge(&mut acc.rm, &patches).map_err(patch::err)
    }

    /// Warnings about a generator (keys the API server will reject, an unknown behavior), at
    /// the generator's entry.
    pub fn generator_warnings(
        &mut self,
        file: &RepoPath,
        span: Span,
        warnings: Vec<generate::Warning>,
    ) {
        for (rule, w) in warnings {
            self.findings.push(Finding::warning(rule, w).at(
                file.to_string(),
                span.line,
                span.column,
            ));
        }
    }

    /// One `patches:` entry.
    fn run_patch(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
        i: usize,
    ) -> Result<(), KError> {
        self.apply_patch_entry(kt, acc, entry)
            .map_err(|e| kt.err_at(e, "patches", Some(i)))
    }

    /// A PatchTransformer: strategic merge or JSON 6902, inline or from a file.
    pub fn apply_patch_entry(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
    ) -> Result<(), KError> {
        let inline = entry.patch.trim();
        let (text, source) = match (inline.is_empty(), entry.path.is_empty()) {
            (true, true) => return Err(patch::err(format!(
                "trouble configuring builtin PatchTransformer with config: must specify one of patch and path in\n{}", describe_patch(entry)))),
            (false, false) => return Err(patch::err(format!(
                "trouble configuring builtin PatchTransformer with config: patch and path can't be set at the same time\n{}", describe_patch(entry)))),
            (false, true) => (inline.to_string(), format!("[patch: {:?}]", inline)),
            (true, false) => {
                let (_, bytes) = kt.ldr.load(&entry.path).map_err(|e| {
                    e.context(format!("failed to get the patch file from path({})", entry.path))
                })?;
                (super::documents::patch_text(&bytes), format!("[path: {:?}]", entry.path))
            }
        };
        let mut body = patch::parse_patch(&text, &source, &kt.ldr.schema)?;
        if let patch::PatchBody::Smp(patches) = &mut body {
            for p in patches.iter_mut() {
                if entry
                    .options
                    .get("allowNameChange")
                    .copied()
                    .unwrap_or(false)
                {
                    p.set_annotation(super::res::anno::ALLOW_NAME_CHANGE, "enabled");
                }
                if entry
                    .options
                    .get("allowKindChange")
                    .copied()
                    .unwrap_or(false)
                {
                    p.set_annotation(super::res::anno::ALLOW_KIND_CHANGE, "enabled");
                }
            }
        }
        patch::apply_patch(&mut acc.rm, &body, entry.target.as_ref(), &source).map_err(patch::err)
    }

    /// One `patchesJson6902:` entry.
    fn run_legacy_json6902(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
        i: usize,
    ) -> Result<(), KError> {
        self.apply_legacy_json6902_entry(kt, acc, entry)
            .map_err(|e| kt.err_at(e, "patchesJson6902", Some(i)))
    }

    /// A PatchJson6902Transformer.
    pub fn apply_legacy_json6902_entry(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
    ) -> Result<(), KError> {
        let Some(target) = &entry.target else {
            return Err(patch::err(
                "must specify a target for patch (patchesJson6902 entries need `target`)".into(),
            ));
        };
        if target.name.is_empty() {
            return Err(patch::err("trouble configuring builtin PatchJson6902Transformer: must specify the target name".into()));
        }
        let text = match (entry.path.is_empty(), entry.patch.is_empty()) {
            (true, true) => return Err(patch::err("empty file path and empty jsonOp".into())),
            (false, false) => {
                return Err(patch::err(
                    "must specify a file path or jsonOp, not both".into(),
                ))
            }
            (true, false) => entry.patch.clone(),
            (false, true) => {
                let (_, bytes) = kt.ldr.load(&entry.path)?;
                let text = super::documents::patch_text(&bytes);
                if text.is_empty() {
                    return Err(patch::err(format!(
                        "patch file '{}' empty seems to be empty",
                        entry.path
                    )));
                }
                text
            }
        };
        let ops = patch::parse_json_patch(&text).map_err(|e| {
            patch::yaml_limit(&text).unwrap_or_else(|| patch::err(format!("decoding {text}: {e}")))
        })?;
        if ops.is_empty() {
            return Err(patch::err(format!(
                "patch appears to be empty; file={}, JsonOp={}",
                entry.path, entry.patch
            )));
        }
        patch::apply_legacy_json6902(&mut acc.rm, &ops, target).map_err(patch::err)
    }
}

fn describe_patch(p: &types::Patch) -> String {
    let mut s = String::new();
    if !p.path.is_empty() {
        s.push_str(&format!("path: {}\n", p.path));
    }
    if !p.patch.is_empty() {
        s.push_str(&format!("patch: {:?}\n", p.patch));
    }
    s
}

impl Builder {
    /// `replacements:` — inline entries and `path:` files, applied in order.
    fn run_replacements(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        use super::transform::replacement;
        let mut list: Vec<(usize, types::ReplacementField)> = Vec::new();
        for (i, r) in kt.k.replacements.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "replacements", Some(i));
            if r.path.is_empty() {
                list.push((i, r.clone()));
                continue;
            }
            if r.source.is_some() || !r.targets.is_empty() || r.source_value.is_some() {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_REPLACEMENT_INVALID,
                    "cannot specify both path and inline replacement",
                )));
            }
            let (file, bytes) = kt.ldr.load(&r.path).map_err(at)?;
            let node = yaml::parse_one(&bytes, &ParseOptions::default())
                .map_err(|e| KError::new(rules::YAML_PARSE, e.message.clone()).at(&file, e.span))?;
            let loaded = replacement::parse_file(&node).map_err(|e| {
                KError::new(rules::KUSTOMIZE_REPLACEMENT_INVALID, e).at(&file, Default::default())
            })?;
            list.extend(loaded.into_iter().map(|r| (i, r)));
        }
        for (i, r) in &list {
            let warnings = replacement::apply(&mut acc.rm, r)
                .map_err(|e| kt.err_at(KError::new(e.rule, e.message), "replacements", Some(*i)))?;
            let span = kt.span("replacements", Some(*i));
            for w in warnings {
                self.findings.push(
                    crate::finding::Finding::warning(
                        rules::KUSTOMIZE_REPLACEMENT_VERSION_DIVERGENCE,
                        w,
                    )
                    .at(kt.file.to_string(), span.line, span.column),
                );
            }
        }
        Ok(())
    }
}

impl Builder {
    /// `helmCharts:` entries are validated; until the Helm engine inflates them, each one is a
    /// notice naming the chart whose resources are missing.
    fn note_helm_charts(&mut self, kt: &Kt) -> Result<(), KError> {
        for (i, chart) in kt.k.helm_charts.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "helmCharts", Some(i));
            if chart.name.is_empty() {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    "helmCharts entry needs a name",
                )));
            }
            if !["", "merge", "override", "replace"].contains(&chart.values_merge.as_str()) {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    format!(
                        "valuesMerge must be one of 'override', 'replace', or 'merge', not '{}'",
                        chart.values_merge
                    ),
                )));
            }
            let version = if chart.version.is_empty() {
                String::new()
            } else {
                format!(" {}", chart.version)
            };
            let span = kt.span("helmCharts", Some(i));
            self.findings.push(
                crate::finding::Finding::notice(
                    rules::KUSTOMIZE_HELM_NOT_RENDERED_YET,
                    format!(
                        "helm chart '{}'{version} is not inflated by this kdelta version yet; its resources are missing from the output",
                        chart.name
                    ),
                )
                .at(kt.file.to_string(), span.line, span.column)
                .incomplete(),
            );
        }
        Ok(())
    }
}

impl Builder {
    /// kustomize `openapi.SetSchema` for a kustomization just loaded.
    pub fn set_openapi(&mut self, kt: &Kt, top_level: bool) -> Result<(), KError> {
        let custom = match kt.k.openapi.get("path") {
            Some(path) => {
                let (_, bytes) = kt
                    .ldr
                    .load(path)
                    .map_err(|e| kt.err_at(e, "openapi", None))?;
                Some((path.clone(), bytes))
            }
            None => None,
        };
        kt.ldr
            .schema
            .with_state(|s| {
                s.set(
                    &kt.k.openapi,
                    custom.as_ref().map(|(p, b)| (p.as_str(), &b[..])),
                    top_level,
                )
            })
            .map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_OPENAPI, e.to_string()),
                    "openapi",
                    None,
                )
            })
    }
}

/// kustomize `FixKustomization`: `bases` join `resources`, `imageTags` join `images`.
fn fix_kustomization(k: &mut Kustomization) {
    if let Some(bases) = k.bases.take() {
        k.resources.extend(bases);
    }
    if let Some(tags) = k.image_tags.take() {
        k.images.extend(tags);
    }
}

/// kustomize `CheckEmpty`: nothing but apiVersion/kind. Go compares against the zero value, so
/// a present empty list or map (`resources: []`) is content, an empty string or null is not.
fn is_empty(doc: &Node) -> bool {
    let Some(entries) = doc.as_map() else {
        return true;
    };
    entries.iter().all(|(k, v)| {
        matches!(k.as_str(), Some("apiVersion" | "kind"))
            || v.is_null()
            || matches!(v.as_scalar(), Some(s) if s.text.is_empty() || s.text == "false")
    })
}
