//! `generators:` and `transformers:` entries: plugin configs (inline YAML, files, or
//! kustomization directories producing configs). Builtin kinds (`apiVersion: builtin`) run
//! natively; exec plugins run only with `--enable-exec-plugins`; KRM functions never run.

use super::builtins::{self, BuiltinError, Transformer};
use super::error::KError;
use super::exec;
use super::origin::{self, Origin};
use super::res::Res;
use super::resmap::ResMap;
use super::target::{Acc, Builder, Kt};
use super::transform::patch;
use crate::finding::{rules, Finding, Incomplete, Severity};

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
                Some(_) => builtins::generate_from_config(self, kt, &cfg)?,
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
                // A builtin (a patch, a replacement) may look objects up.
                Some(_) => self.lookup_step(acc, |b, acc| b.builtin_transformer(kt, acc, &cfg))?,
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
                BuiltinError::Transform(e) => {
                    e.into_kerror(rules::KUSTOMIZE_TRANSFORM).at(file, span)
                }
                BuiltinError::Placed(e) if patches => e.at(file, span),
                BuiltinError::Placed(e) => e,
            })
    }

    /// A non-builtin plugin: a KRM function is reported and skipped (the output is then
    /// incomplete), an exec plugin runs only when enabled. `None` means "skipped".
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
                    krm_function_runtime(f)
                ),
            )
            .at(
                cfg.origin.file.to_string(),
                cfg.origin.span.line,
                cfg.origin.span.column,
            )
            .incomplete(Incomplete::Other);
            finding.severity = Severity::Notice;
            self.findings.push(finding);
            return Ok(None);
        }
        let input = if role == Role::Transformer {
            input
        } else {
            None
        };
        exec::run_plugin(&kt.ldr, cfg, input, self.exec_plugins.as_ref())
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

/// What runs a KRM function, from its `config.kubernetes.io/function` annotation: the
/// container's image, the executable's path, or else the annotation's first line.
fn krm_function_runtime(annotation: &str) -> String {
    let node = crate::yaml::parse_one(annotation.as_bytes(), &crate::yaml::ParseOptions::default());
    let found = node.ok().and_then(|n| {
        n.str_at(&["container", "image"])
            .map(|i| format!("container image {i}"))
            .or_else(|| {
                n.str_at(&["exec", "path"])
                    .map(|p| format!("executable {p}"))
            })
    });
    found.unwrap_or_else(|| annotation.lines().next().unwrap_or("").to_string())
}
