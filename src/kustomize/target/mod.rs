//! One kustomization being built (kustomize's `KustTarget`): load the file, accumulate
//! resources, bases and components, run generators and the builtin transformers in kustomize's
//! fixed order. The pipeline order is written here and nowhere else.

use super::builtins::{BuiltinError, Transformer};
use super::error::KError;
use super::fieldspec::FieldSpec;
use super::generate::{self, GenKind};
use super::loader::Loader;
use super::origin::{self, Origin};
use super::resmap::ResMap;
use super::tconfig::{self, TransformerConfig};
use super::transform;
use super::transform::{images, labels, namespace, prefix_suffix, replicas};
use super::types::{GeneratorOptions, Kustomization, Var};
use crate::finding::Finding;
use crate::finding::Rule;
use crate::finding::{rules, Incomplete};
use crate::resource::Origin as SourceOrigin;
use crate::source::RepoPath;
use crate::yaml::{Node, Span};
use std::borrow::Cow;
use std::sync::Arc;

mod accumulate;
mod config;
mod helm_charts;
mod load;
mod openapi;
mod patches;
mod replacements;

/// Where kustomize collapses duplicate keys, last one winning.
const ANNOTATIONS: &[&str] = &["metadata", "annotations"];

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

    /// [`Kt::span`] with the kustomization file named in it.
    pub fn span_in_file(&self, field: &str, index: Option<usize>) -> Span {
        self.span(field, index).in_file(self.file.as_str())
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
            tc: Arc::clone(TransformerConfig::empty()),
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
            .map_err(|e| KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e.to_string()))?;
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
    /// With `--enable-exec-plugins`, where to find exec plugins (and leave to run them); `None`
    /// otherwise.
    pub exec_plugins: Option<crate::kustomize::PluginEnv>,
    /// Each step's objects, when the build is traced (`kdelta explain`).
    pub trace: Option<crate::kustomize::trace::Trace>,
    /// See [`crate::kustomize::Options::helm_kube_version`].
    pub helm_kube_version: Option<String>,
    pub helm_api_versions: Vec<String>,
}

impl Builder {
    /// Records the objects after a step configured at `file:span`, when tracing.
    pub fn trace_step(&mut self, file: &RepoPath, span: Span, what: &str, rm: &ResMap) {
        if let Some(t) = &mut self.trace {
            t.steps.push(crate::kustomize::trace::Step {
                file: file.clone(),
                line: span.line,
                what: what.to_string(),
                objects: crate::kustomize::trace::objects(rm),
            });
        }
    }

    /// [`Builder::trace_step`] for the entry `field[index]` of `kt`.
    fn traced(&mut self, kt: &Kt, field: &str, index: Option<usize>, what: &str, rm: &ResMap) {
        if self.trace.is_some() {
            let span = kt.span(field, index);
            self.trace_step(&kt.file, span, what, rm);
        }
    }

    /// True once the build has gone on without an input it did not have: a remote base or
    /// file, a helmCharts chart neither vendored nor fetched, a fetch that failed (each is a
    /// finding marked incomplete).
    pub fn skipped_inputs(&self) -> bool {
        self.findings.iter().any(|f| f.is_incomplete())
    }

    /// Runs a step that looks objects up: a patch, a replacement, a merge or replace
    /// generator, a replica count. Once the build has gone on without an input, such a step
    /// may fail only because what it looks for is in that input (a patch on an object of a
    /// remote base; see [`may_follow_from_skipped_inputs`]): kdelta cannot tell, so the step
    /// is left out, the objects stay as they were before it, and a notice marks the output
    /// incomplete; the local objects and every other step still render. Any other failure,
    /// and any failure without a skipped input, stops the build as in kustomize.
    pub(crate) fn lookup_step(
        &mut self,
        acc: &mut Acc,
        step: impl FnOnce(&mut Builder, &mut Acc) -> Result<(), KError>,
    ) -> Result<(), KError> {
        if !self.skipped_inputs() {
            return step(self, acc);
        }
        let before = acc.rm.clone();
        if let Err(e) = step(self, acc) {
            if !may_follow_from_skipped_inputs(&e) {
                return Err(e);
            }
            acc.rm = before;
            let mut f = without_inputs(e);
            f.help = Some(
                "kdelta rendered the rest without this step; run `kdelta fetch` (or add --fetch) to render it whole"
                    .to_string(),
            );
            self.findings.push(f);
        }
        Ok(())
    }

    /// kustomize `accumulateTarget`: resources, configurations, generators, components,
    /// transformers, vars — in that order.
    pub fn accumulate_target(&mut self, kt: &Kt, mut acc: Acc) -> Result<Acc, KError> {
        self.check_supported(kt)?;
        acc = self
            .accumulate_resources(kt, acc)
            .map_err(|e| e.context("accumulating resources"))?;
        self.traced(kt, "resources", None, "resources", &acc.rm);
        let tc = self.transformer_config(kt)?;
        acc.merge_config(&tc)?;
        let crd_tc = self.crd_config(kt)?;
        acc.merge_config(&crd_tc)?;
        self.run_generators(kt, &mut acc)?;
        self.traced(kt, "configMapGenerator", None, "generators", &acc.rm);
        acc = self
            .accumulate_components(kt, acc)
            .map_err(|e| e.context("accumulating components"))?;
        self.traced(kt, "components", None, "components", &acc.rm);
        self.run_transformers(kt, &mut acc)?;
        if let Some(vars) = &kt.k.vars {
            // kustomize's MergeVars errors name the kustomization's vars as written.
            let merging = || {
                let written: Vec<String> = vars
                    .iter()
                    .map(|v| transform::vars::go_var(v, false, &v.fieldref.field_path))
                    .collect();
                format!("merging vars [{}]", written.join(" "))
            };
            for (i, v) in vars.iter().enumerate() {
                transform::vars::bind(&mut acc.rm, v).map_err(|e| {
                    kt.err_at(
                        KError::new(rules::KUSTOMIZE_VARS_AMBIGUOUS, e.to_string())
                            .context(merging()),
                        "vars",
                        Some(i),
                    )
                })?;
            }
            for (i, v) in vars.iter().enumerate() {
                acc.merge_var(v.clone())
                    .map_err(|e| kt.err_at(e.context(merging()), "vars", Some(i)))?;
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
            // A merge or replace generator looks up the object it changes.
            self.lookup_step(acc, |b, acc| {
                let mut warnings = Vec::new();
                let res =
                    generate::generate(&kt.ldr, kind, args, opts.as_ref(), origin, &mut warnings)
                        .map_err(|e| kt.err_at(e, field, Some(i)))?;
                b.generator_warnings(&kt.file, span, warnings);
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
                })
            })?;
        }
        self.inflate_helm_charts(kt, acc)?;
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
        self.lookup_step(acc, |b, acc| b.run_patches_strategic_merge(kt, acc))?;
        if k.patches_strategic_merge
            .as_ref()
            .is_some_and(|p| !p.is_empty())
        {
            record(&mut acc.rm, "PatchStrategicMergeTransformer");
            self.traced(
                kt,
                "patchesStrategicMerge",
                None,
                "patchesStrategicMerge",
                &acc.rm,
            );
        }
        for (i, entry) in k.patches.iter().enumerate() {
            self.lookup_step(acc, |b, acc| b.run_patch(kt, acc, entry, i))?;
            record(&mut acc.rm, "PatchTransformer");
            self.traced(kt, "patches", Some(i), &format!("patches[{i}]"), &acc.rm);
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
            self.lookup_step(acc, |b, acc| b.run_legacy_json6902(kt, acc, entry, i))?;
            record(&mut acc.rm, "PatchJson6902Transformer");
            let what = format!("patchesJson6902[{i}]");
            self.traced(kt, "patchesJson6902", Some(i), &what, &acc.rm);
        }
        for (i, r) in k.replicas.iter().enumerate() {
            let t = Transformer::ReplicaCount(replicas::Config {
                replica: Cow::Borrowed(r),
                specs: Cow::Borrowed(&tc.replicas),
            });
            self.lookup_step(acc, |b, acc| {
                b.run_field_builtin(
                    kt,
                    acc,
                    &t,
                    "ReplicaCountTransformer",
                    ("replicas", Some(i)),
                    rules::KUSTOMIZE_REPLICAS,
                )
            })?;
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
            self.traced(kt, "replacements", None, "replacements", &acc.rm);
        }
        self.run_transformer_plugins(kt, acc)?;
        if !k.transformers.is_empty() {
            self.traced(kt, "transformers", None, "transformers", &acc.rm);
        }
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
                BuiltinError::Transform(e) => kt.err_at(e.into_kerror(rule), field, index),
                BuiltinError::Placed(e) => e,
            })?;
        if let Some(o) = kt.builtin_origin(kind) {
            origin::add_transformation(&mut acc.rm, &o);
        }
        if self.trace.is_some() {
            let what = match index {
                Some(i) => format!("{field}[{i}] ({kind})"),
                None => format!("{field} ({kind})"),
            };
            self.traced(kt, field, index, &what, &acc.rm);
        }
        Ok(())
    }
}

impl Builder {
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
}

/// The failures an object missing from the build causes: a patch, a merge or replace
/// generator, a replica count or a var that finds nothing to change, a replacement whose
/// source or target (or the field a skipped patch would have set) is not there. Once an input
/// was skipped, such a failure may be for want of it. A file that is not there, a load
/// restrictor or a YAML error is the repository's own and stays an error.
const FOR_WANT_OF_AN_OBJECT: [Rule; 7] = [
    rules::KUSTOMIZE_PATCH,
    rules::KUSTOMIZE_GENERATOR_NO_BASE,
    rules::KUSTOMIZE_REPLICAS,
    rules::KUSTOMIZE_VARS,
    rules::KUSTOMIZE_REPLACEMENT_SOURCE_NOT_FOUND,
    rules::KUSTOMIZE_REPLACEMENT_SOURCE_FIELD_MISSING,
    rules::KUSTOMIZE_REPLACEMENT_TARGET_NOT_FOUND,
];

/// True when `e` may be caused by an object of an input the build went on without.
pub fn may_follow_from_skipped_inputs(e: &KError) -> bool {
    FOR_WANT_OF_AN_OBJECT.contains(&e.rule)
}

/// An error that may follow from inputs the build went on without (a patch whose object is in
/// a remote base that is not fetched): a notice that the output is incomplete, not an error.
pub fn without_inputs(e: KError) -> Finding {
    let mut f = e.into_finding().incomplete(Incomplete::NotFetched);
    f.severity = crate::finding::Severity::Notice;
    f.message = format!(
        "the build cannot complete without the remote inputs it did not fetch: {}",
        f.message
    );
    f
}
