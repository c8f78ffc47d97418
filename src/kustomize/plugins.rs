//! `generators:` and `transformers:` entries: plugin configs (inline YAML, files, or
//! kustomization directories producing configs). Builtin kinds (`apiVersion: builtin`) run
//! natively; exec plugins run only with `--enable-exec-plugins`; KRM functions never run.

use super::builtins::{self, BuiltinError, Transformer};
use super::error::KError;
use super::exec;
use super::generate::{self, GenKind};
use super::origin::{self, Origin};
use super::res::Res;
use super::resmap::ResMap;
use super::target::{Acc, Builder, Kt};
use super::transform::patch;
use super::types::{self, GeneratorArgs, PluginMeta};
use crate::finding::{rules, Finding, Severity};
use serde::Deserialize;

/// Generator or transformer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Generator,
    Transformer,
}

impl Role {
    fn field(self) -> &'static str {
        match self {
            Role::Generator => "generators",
            Role::Transformer => "transformers",
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct GeneratorConfig {
    #[serde(default)]
    metadata: PluginMeta,
    #[serde(flatten)]
    args: GeneratorArgsLenient,
}

/// GeneratorArgs without `deny_unknown_fields` (plugin configs are read leniently).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct GeneratorArgsLenient {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    behavior: String,
    #[serde(default)]
    literals: Vec<String>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    envs: Vec<String>,
    #[serde(default)]
    env: String,
    #[serde(default)]
    options: Option<types::GeneratorOptions>,
    #[serde(default, rename = "type")]
    secret_type: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IamConfig {
    #[serde(default)]
    cloud: String,
    #[serde(default)]
    kubernetes_service: PluginMeta,
    #[serde(default)]
    service_account: IamAccount,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IamAccount {
    #[serde(default)]
    name: String,
    #[serde(default)]
    project_id: String,
}

impl Builder {
    /// Loads the plugin configs of `generators:` or `transformers:`.
    fn plugin_configs(&mut self, kt: &Kt, role: Role) -> Result<Vec<Res>, KError> {
        let entries = match role {
            Role::Generator => &kt.k.generators,
            Role::Transformer => &kt.k.transformers,
        };
        let mut inline = ResMap::new();
        let mut paths: Vec<(usize, &str)> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let parsed = patch::parse_smp(entry, &kt.ldr.schema);
            if let Some(e) = parsed.as_ref().err().and_then(|_| patch::yaml_limit(entry)) {
                return Err(kt.err_at(e, role.field(), Some(i)));
            }
            match parsed {
                Ok(rs) if !rs.is_empty() => {
                    for mut r in rs {
                        r.origin = crate::resource::Origin {
                            file: kt.file.clone(),
                            span: kt.span(role.field(), Some(i)),
                        };
                        if let Some(prefix) = &kt.origin {
                            let o = Origin {
                                path: origin::join(prefix, kt.file.file_name()),
                                ..Origin::default()
                            };
                            r.set_annotation(super::res::anno::ORIGIN, &o.to_yaml());
                        }
                        inline.append(r).map_err(|e| {
                            kt.err_at(
                                e.context("configuring external plugin"),
                                role.field(),
                                Some(i),
                            )
                        })?;
                    }
                }
                _ => paths.push((i, entry)),
            }
        }
        let mut acc = Acc::new();
        acc.rm = inline;
        let acc = self.accumulate_paths(kt, acc, role.field(), &paths)?;
        Ok(acc.rm.list)
    }

    /// Runs `generators:`.
    pub fn run_generator_plugins(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        if kt.k.generators.is_empty() {
            return Ok(());
        }
        for cfg in self.plugin_configs(kt, Role::Generator)? {
            let mut produced = match builtin_kind(&cfg) {
                Some(kind) => self.builtin_generator(kt, &cfg, kind)?,
                None => match self.external(kt, &cfg, Role::Generator, None)? {
                    Some(rm) => rm,
                    None => continue,
                },
            };
            if let Some(o) = plugin_origin(&cfg) {
                origin::add_origin(&mut produced, &o);
            }
            acc.rm.absorb_all(produced).map_err(|e| {
                e.context(format!("merging from generator {}", cfg.cur_id()))
                    .at(&cfg.origin.file, cfg.origin.span)
            })?;
        }
        Ok(())
    }

    /// Runs `transformers:`.
    pub fn run_transformer_plugins(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        if kt.k.transformers.is_empty() {
            return Ok(());
        }
        for cfg in self.plugin_configs(kt, Role::Transformer)? {
            match builtin_kind(&cfg) {
                Some(_) => self.builtin_transformer(kt, acc, &cfg)?,
                None => {
                    let input = std::mem::take(&mut acc.rm);
                    match self.external(kt, &cfg, Role::Transformer, Some(&input))? {
                        Some(rm) => acc.rm = rm,
                        None => acc.rm = input,
                    }
                }
            }
            if let Some(o) = plugin_origin(&cfg) {
                origin::add_transformation(&mut acc.rm, &o);
            }
        }
        Ok(())
    }

    fn builtin_generator(&mut self, kt: &Kt, cfg: &Res, kind: &str) -> Result<ResMap, KError> {
        let at = |e: KError| e.at(&cfg.origin.file, cfg.origin.span);
        let mut rm = ResMap::new();
        match kind {
            "ConfigMapGenerator" | "SecretGenerator" => {
                let c: GeneratorConfig = builtins::read(cfg)?;
                let a = c.args;
                let args = GeneratorArgs {
                    name: if a.name.is_empty() {
                        c.metadata.name
                    } else {
                        a.name
                    },
                    namespace: if a.namespace.is_empty() {
                        c.metadata.namespace
                    } else {
                        a.namespace
                    },
                    behavior: a.behavior,
                    literal_sources: a.literals,
                    file_sources: a.files,
                    env_sources: a.envs,
                    env_source: a.env,
                    options: a.options,
                    secret_type: a.secret_type,
                    merge_values: Vec::new(),
                };
                let gk = if kind == "SecretGenerator" {
                    GenKind::Secret
                } else {
                    GenKind::ConfigMap
                };
                let origin = cfg.origin.clone();
                let mut warnings = Vec::new();
                let res = generate::generate(
                    &kt.ldr,
                    gk,
                    &args,
                    args.options.as_ref(),
                    origin.clone(),
                    &mut warnings,
                )
                .map_err(at)?;
                self.generator_warnings(&origin.file, origin.span, warnings);
                rm.append(res).map_err(at)?;
            }
            "IAMPolicyGenerator" => {
                let c: IamConfig = builtins::read(cfg)?;
                if c.cloud != "gke" {
                    return Err(at(KError::new(
                        rules::KUSTOMIZE_PLUGIN_CONFIG,
                        format!("cloud provider {} not supported yet", c.cloud),
                    )));
                }
                let mut text = format!(
                    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  annotations:\n    iam.gke.io/gcp-service-account: {}@{}.iam.gserviceaccount.com\n  name: {}\n",
                    c.service_account.name, c.service_account.project_id, c.kubernetes_service.name
                );
                if !c.kubernetes_service.namespace.is_empty() {
                    text.push_str(&format!(
                        "  namespace: {}\n",
                        c.kubernetes_service.namespace
                    ));
                }
                let node = crate::yaml::parse_one(text.as_bytes(), &Default::default())
                    .map_err(|e| at(KError::new(rules::KUSTOMIZE_PLUGIN_CONFIG, e.message)))?;
                rm.append(Res::new(node, cfg.origin.clone(), cfg.schema.clone()))
                    .map_err(at)?;
            }
            "HelmChartInflationGenerator" => {
                self.findings.push(
                    Finding::notice(rules::KUSTOMIZE_HELM_NOT_RENDERED_YET, "HelmChartInflationGenerator charts are not inflated by this kdelta version yet")
                        .at(cfg.origin.file.to_string(), cfg.origin.span.line, cfg.origin.span.column)
                        .incomplete(),
                );
            }
            _ => {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_PLUGIN_UNKNOWN,
                    format!(
                        "unable to load builtin {}: it is not a builtin generator",
                        cfg.gvk()
                    ),
                )))
            }
        }
        Ok(rm)
    }

    /// A builtin transformer configured by a plugin config; its errors point at the config.
    fn builtin_transformer(&mut self, kt: &Kt, acc: &mut Acc, cfg: &Res) -> Result<(), KError> {
        let t = builtins::transformer_from_config(cfg)?;
        let (file, span) = (&cfg.origin.file, cfg.origin.span);
        let patches = matches!(
            t,
            Transformer::Patch(_)
                | Transformer::PatchJson6902(_)
                | Transformer::PatchStrategicMerge(_)
        );
        self.apply_transformer(kt, acc, &t, file, span)
            .map_err(|e| match e {
                BuiltinError::Transform(m) => {
                    KError::new(rules::KUSTOMIZE_TRANSFORM, m).at(file, span)
                }
                BuiltinError::Placed(e) if patches => e.at(file, span),
                BuiltinError::Placed(e) => e,
            })
    }

    /// A non-builtin plugin: a KRM function is reported and skipped, an exec plugin runs only
    /// when enabled. `None` means "skipped".
    fn external(
        &mut self,
        kt: &Kt,
        cfg: &Res,
        role: Role,
        input: Option<&ResMap>,
    ) -> Result<Option<ResMap>, KError> {
        let id = cfg.cur_id();
        let annotations = cfg.annotations();
        if let Some(f) = annotations.get("config.kubernetes.io/function") {
            let mut finding = Finding::notice(
                rules::KUSTOMIZE_PLUGIN_KRM_FUNCTION,
                format!(
                    "KRM function {} ({}) is not run by kdelta; its output is missing",
                    id,
                    f.lines().next().unwrap_or("")
                ),
            )
            .at(
                cfg.origin.file.to_string(),
                cfg.origin.span.line,
                cfg.origin.span.column,
            );
            finding.severity = Severity::Notice;
            self.findings.push(finding);
            return Ok(None);
        }
        let input = if role == Role::Transformer {
            input
        } else {
            None
        };
        exec::run_plugin(&kt.ldr, cfg, input, self.exec_plugins)
            .map(Some)
            .map_err(|e| e.at(&cfg.origin.file, cfg.origin.span))
    }
}

/// The builtin kind of a plugin config (`apiVersion: builtin`).
fn builtin_kind(cfg: &Res) -> Option<&str> {
    (cfg.api_version() == "builtin").then(|| cfg.kind())
}

/// kustomize `OriginFromCustomPlugin`: when the config itself has an origin, the plugin is
/// recorded as configured in that file.
fn plugin_origin(cfg: &Res) -> Option<Origin> {
    let text = cfg.annotations().get(super::res::anno::ORIGIN)?.clone();
    let path = text
        .lines()
        .find_map(|l| l.strip_prefix("path: "))
        .unwrap_or("")
        .to_string();
    Some(Origin {
        path: String::new(),
        configured_in: path,
        configured_by: Some(origin::ConfiguredBy {
            api_version: cfg.api_version().to_string(),
            kind: cfg.kind().to_string(),
            name: cfg.name().to_string(),
            namespace: cfg.namespace().to_string(),
        }),
    })
}
