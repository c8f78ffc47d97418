//! A source with a config management plugin: the plugin the Application names (or the one
//! whose `discover` rule claims the path), its `generate` command read as a
//! [`plugin::Recipe`] and rendered by kdelta's own engines with the environment Argo CD gives
//! a plugin (`ARGOCD_APP_*`, `ARGOCD_ENV_*` from `plugin.env`, `PARAM_*` from
//! `plugin.parameters`).

use super::{relative_to, Output, Source};
use crate::argocd::plugin::{self, Filter, Generator, Recipe};
use crate::argocd::settings::{Discover, Plugin};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::{EntryKind, RepoPath};
use crate::yaml::{self, ParseOptions};
use serde_json::Value as Json;
use std::collections::BTreeMap;

impl Source<'_> {
    pub(super) fn plugin(&self, block: &Json, dir: &RepoPath) -> Output {
        let app = self.name;
        let env = self.plugin_env(block);
        let plugin = match block["name"].as_str().filter(|n| !n.is_empty()) {
            Some(name) => match self.opts.settings.plugins.get(name) {
                Some(p) => p,
                None => {
                    let mut f = self.incomplete(Incomplete::Plugin, format!(
                        "Application {app} uses the config management plugin {name}, which neither the repository (a ConfigManagementPlugin, argocd-cmp-cm, the argo-cd chart's configs.cmp) nor .kdelta.yaml defines"
                    ));
                    f.help = Some(format!(
                        "declare it in .kdelta.yaml as argocd.plugins.{name}: \"<the command it runs>\" (docs/argocd.md lists the commands kdelta renders natively)"
                    ));
                    return EngineOutput::new(Vec::new(), vec![f], true);
                }
            },
            None => match self.discover_plugin(dir, &env) {
                Ok(p) => p,
                Err(out) => return out,
            },
        };
        let recipe = match plugin::recipe(&plugin.generate, &env) {
            Ok(r) => r,
            Err(_) if self.opts.run_plugins => return self.run_plugin(plugin, dir, &env),
            Err(why) => {
                let mut f = self.incomplete(
                    Incomplete::Plugin,
                    format!(
                    "Application {app}: the config management plugin {} ({}) is not rendered: {}",
                    plugin.name, plugin.place, why.0
                ),
                );
                f.help = Some(format!(
                    "map it to a command kdelta renders natively in .kdelta.yaml (argocd.plugins.{}: \"kustomize build .\"; docs/argocd.md lists them), or pass --run-plugins to run its command",
                    plugin.name
                ));
                return EngineOutput::new(Vec::new(), vec![f], true);
            }
        };
        let mut out = self.render_recipe(&recipe, dir, &env);
        if plugin.legacy {
            out.findings.push(
                Finding::warning(
                    rules::ARGOCD_SETTINGS_INVALID,
                    format!(
                        "Application {app} uses the plugin {} of argocd-cm's configManagementPlugins, which Argo CD 2.8 and later no longer run (they need a sidecar plugin)",
                        plugin.name
                    ),
                )
                .at(plugin.place.file.clone(), plugin.place.line, 0),
            );
        }
        out
    }

    /// The plugin's own commands (`init`, then `generate`), run in a temporary checkout of
    /// the revision with the plugin's environment added to kdelta's (`--run-plugins`); what
    /// `generate` prints is the output. The whole checkout joins the read set.
    fn run_plugin(
        &self,
        plugin: &Plugin,
        dir: &RepoPath,
        env: &BTreeMap<String, String>,
    ) -> Output {
        let fail = |m: String| {
            EngineOutput::failed(vec![self.error(
                rules::APP_PLUGIN_FAILED,
                format!(
                    "config management plugin {} ({}): {m}",
                    plugin.name, plugin.place
                ),
            )])
        };
        let checkout = match self.checkout() {
            Ok(c) => c,
            Err(e) => return fail(e.to_string()),
        };
        let cwd = checkout.path().join(dir.as_str());
        let mut printed = Vec::new();
        for (step, cmd) in [("init", &plugin.init), ("generate", &plugin.generate)] {
            let Some((program, args)) = cmd.split_first() else {
                continue;
            };
            let done = match crate::process::run(
                std::process::Command::new(program)
                    .args(args)
                    .current_dir(&cwd)
                    .envs(env),
                b"",
                PLUGIN_TIMEOUT,
            ) {
                Ok(d) => d,
                Err(e) => return fail(format!("{step}: {e}")),
            };
            if !done.status.success() {
                return fail(format!(
                    "{step} failed ({}): {}",
                    done.status,
                    String::from_utf8_lossy(&done.stderr).trim()
                ));
            }
            printed = done.stdout;
        }
        let at = RepoPath::new(self.at).unwrap_or_else(|_| RepoPath::root());
        match yaml::parse_stream(&printed, &ParseOptions::default()) {
            Ok(docs) => EngineOutput::new(
                docs.into_iter()
                    .filter(|d| !d.is_null())
                    .map(|d| Resource::new(d, at.clone()))
                    .collect(),
                Vec::new(),
                true,
            ),
            Err(e) => fail(format!("generate printed what is not YAML: {e}")),
        }
    }

    /// The revision's files written to a temporary directory, as Argo CD checks the
    /// repository out for a plugin.
    fn checkout(&self) -> Result<crate::process::TempDir, CheckoutError> {
        let dir =
            crate::process::TempDir::new("kdelta-argocd-plugin").map_err(CheckoutError::TempDir)?;
        let mut total = 0usize;
        let mut stack = vec![RepoPath::root()];
        while let Some(d) = stack.pop() {
            let entries = match self.files.list(&d) {
                Ok(entries) => entries,
                Err(error) => return Err(CheckoutError::List { dir: d, error }),
            };
            for e in entries {
                let p = d.child(&e.name);
                match e.kind {
                    EntryKind::Dir if e.name == ".git" => {}
                    EntryKind::Dir => stack.push(p),
                    _ => {
                        // A link that leads nowhere or out of the repository is left out.
                        let Ok(bytes) = self.files.read(&p) else {
                            continue;
                        };
                        total += bytes.len();
                        if total > CHECKOUT_LIMIT {
                            return Err(CheckoutError::TooLarge {
                                limit: CHECKOUT_LIMIT,
                            });
                        }
                        if let Err(error) = dir.write(p.as_str(), &bytes) {
                            return Err(CheckoutError::Write { path: p, error });
                        }
                    }
                }
            }
        }
        Ok(dir)
    }

    /// The environment of a plugin's commands: Argo CD's build variables, `plugin.env` as
    /// `ARGOCD_ENV_NAME`, and `plugin.parameters` as `PARAM_NAME` (arrays as `PARAM_NAME_0`…,
    /// maps as `PARAM_NAME_KEY`) and `ARGOCD_APP_PARAMETERS`.
    fn plugin_env(&self, block: &Json) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> = self
            .env
            .vars()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for e in block["env"].as_array().into_iter().flatten() {
            if let Some(name) = e["name"].as_str() {
                let value = self.env.subst(e["value"].as_str().unwrap_or_default());
                env.insert(format!("ARGOCD_ENV_{name}"), value);
            }
        }
        let params = block["parameters"].as_array();
        for p in params.into_iter().flatten() {
            let Some(name) = p["name"].as_str() else {
                continue;
            };
            let key = format!("PARAM_{}", env_name(name));
            if let Some(s) = p["string"].as_str() {
                env.insert(key.clone(), s.to_string());
            }
            for (i, v) in p["array"].as_array().into_iter().flatten().enumerate() {
                env.insert(
                    format!("{key}_{i}"),
                    v.as_str().unwrap_or_default().to_string(),
                );
            }
            for (k, v) in p["map"].as_object().into_iter().flatten() {
                env.insert(
                    format!("{key}_{}", env_name(k)),
                    v.as_str().unwrap_or_default().to_string(),
                );
            }
        }
        if let Some(params) = params {
            env.insert(
                "ARGOCD_APP_PARAMETERS".to_string(),
                Json::Array(params.clone()).to_string(),
            );
        }
        env
    }

    /// The plugin whose `discover` rule claims `dir`, in name order (the order of the
    /// sidecars' sockets); a rule kdelta cannot evaluate, or none matching, is a finding.
    fn discover_plugin(
        &self,
        dir: &RepoPath,
        env: &BTreeMap<String, String>,
    ) -> Result<&Plugin, Output> {
        let app = self.name;
        let below = self.files_below(dir);
        let has_file =
            |name: &str, recursive: bool| plugin::glob_discovers(name, &below, dir, recursive);
        let mut undecided = Vec::new();
        for p in self.opts.settings.plugins.values() {
            let claims = match &p.discover {
                Discover::Named => Some(false),
                Discover::FileName(g) => Some(has_file(g, false)),
                Discover::Glob(g) => Some(has_file(g, true)),
                Discover::Command(c) => plugin::discovers(c, env, &has_file),
            };
            match claims {
                Some(true) if undecided.is_empty() => return Ok(p),
                Some(true) => break,
                Some(false) => {}
                None => undecided.push(p.name.as_str()),
            }
        }
        let f = if !undecided.is_empty() {
            let mut f = self.incomplete(Incomplete::Plugin, format!(
                "Application {app} names no config management plugin, and kdelta cannot tell whether the discover command of {} claims {dir}",
                undecided.join(", ")
            ));
            f.help = Some("name the plugin in the Application (plugin.name), or map it in argocd.plugins of .kdelta.yaml".into());
            f
        } else if self.opts.settings.plugins.is_empty() {
            let mut f = self.incomplete(Incomplete::Plugin, format!(
                "Application {app} uses a config management plugin, and neither the repository nor .kdelta.yaml defines any"
            ));
            f.help = Some(
                "declare the plugin in argocd.plugins of .kdelta.yaml, with the command it runs"
                    .into(),
            );
            f
        } else {
            self.error(
                rules::APP_SOURCE_INVALID,
                format!("could not find plugin supporting the given repository ({dir}): no plugin's discover rule matches"),
            )
        };
        Err(EngineOutput::new(Vec::new(), vec![f], true))
    }

    /// Every file at or below `dir`.
    fn files_below(&self, dir: &RepoPath) -> Vec<RepoPath> {
        let mut out = Vec::new();
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for e in self.files.list(&d).unwrap_or_default() {
                let p = d.child(&e.name);
                match e.kind {
                    EntryKind::Dir => stack.push(p),
                    _ => out.push(p),
                }
            }
        }
        out
    }

    /// What a recipe renders: its generator through kdelta's engine, then its filters.
    fn render_recipe(
        &self,
        recipe: &Recipe,
        app_dir: &RepoPath,
        env: &BTreeMap<String, String>,
    ) -> Output {
        let app = self.name;
        let (Ok(dir), Ok(cwd)) = (app_dir.join(&recipe.dir), app_dir.join(&recipe.cwd)) else {
            return EngineOutput::failed(vec![self.error(
                rules::SOURCE_OUTSIDE_REPOSITORY,
                format!("the plugin reads {}, outside the repository", recipe.dir),
            )]);
        };
        let mut notices = Vec::new();
        let mut out = match &recipe.generator {
            Generator::Kustomize(flags) => {
                let (opts, unknown) = crate::argocd::settings::kustomize_options(&flags.join(" "));
                if !unknown.is_empty() {
                    notices.push(self.incomplete(
                        Incomplete::Plugin,
                        format!(
                        "Application {app}: the plugin's kustomize build flags {} are not applied",
                        unknown.join(" ")
                    ),
                    ));
                }
                self.kustomize_with(&Json::Null, &dir, &opts, Vec::new())
            }
            Generator::Helm { options, secrets } => {
                let mut options = options.clone();
                // helm reads value files from where it runs, Argo CD from the chart.
                if let Some(files) = options["valueFiles"].as_array_mut() {
                    for f in files {
                        let Some(raw) = f.as_str() else { continue };
                        if raw.starts_with('/') || raw.contains("://") {
                            continue;
                        }
                        if let Ok(p) = cwd.join(raw) {
                            *f = relative_to(&dir, &p).into();
                        }
                    }
                }
                if *secrets {
                    notices.push(Finding::notice(
                        rules::APP_SOURCE_NOT_RENDERED,
                        format!("Application {app}: helm-secrets decrypts value files with sops; kdelta reads them as written"),
                    ).in_file(self.at.to_string()));
                }
                self.helm(&options, &dir, None)
            }
            Generator::Directory { .. } => {
                super::super::directory::render(app, &Json::Null, self.files, &dir)
            }
        };
        for filter in &recipe.filters {
            match filter {
                Filter::Envsubst(only) => match envsubst_resources(
                    std::mem::take(&mut out.resources),
                    env,
                    only.as_deref(),
                ) {
                    Ok((resources, unset)) => {
                        out.resources = resources;
                        if !unset.is_empty() {
                            notices.push(self.incomplete(Incomplete::Plugin, format!(
                                "Application {app}: envsubst replaces variables kdelta does not know ({}) with nothing; the plugin's container may set them",
                                unset.into_iter().collect::<Vec<_>>().join(", ")
                            )));
                        }
                    }
                    Err(e) => {
                        return EngineOutput::failed(vec![self.error(
                            rules::YAML_PARSE,
                            format!("the plugin's envsubst output is not valid YAML: {e}"),
                        )])
                    }
                },
                Filter::SecretPlaceholders(tool) => notices.push(
                    Finding::notice(
                        rules::APP_SOURCE_NOT_RENDERED,
                        format!("Application {app}: {tool} fills secret placeholders from a store kdelta does not read; they are left as written"),
                    )
                    .in_file(self.at.to_string()),
                ),
                Filter::Unknown(cmd) => notices.push(self.incomplete(Incomplete::Plugin, format!(
                    "Application {app}: the plugin pipes the manifests through `{cmd}`, which kdelta does not run; the output is what comes before it"
                ))),
            }
        }
        let unknown: Vec<&str> = recipe.unknown_vars.iter().map(String::as_str).collect();
        if !unknown.is_empty() {
            notices.push(self.incomplete(Incomplete::Plugin, format!(
                "Application {app}: the plugin's command uses {} , which kdelta does not know; they expand to nothing",
                unknown.join(", ")
            )));
        }
        out.findings.extend(notices);
        out
    }
}

/// How long one plugin command may run.
const PLUGIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// The most a checkout for a plugin may hold.
const CHECKOUT_LIMIT: usize = 512 << 20;

/// A parameter or env name as a variable name: uppercased, other characters as `_`.
fn env_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Why the repository cannot be written out for a plugin.
#[derive(Debug, thiserror::Error)]
enum CheckoutError {
    #[error("cannot create a temporary directory: {0}")]
    TempDir(std::io::Error),
    /// A directory of the revision that does not list.
    #[error("{error}")]
    List {
        dir: RepoPath,
        error: crate::source::SourceError,
    },
    /// The files written add up to more than `limit` bytes.
    #[error("the repository is larger than {} MiB", limit >> 20)]
    TooLarge { limit: usize },
    /// A file that could not be written to the checkout.
    #[error("{error}")]
    Write {
        path: RepoPath,
        error: std::io::Error,
    },
}

/// A manifest that `envsubst` made into what is not YAML: the file it came from.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {error}")]
struct EnvsubstError {
    file: RepoPath,
    error: yaml::YamlError,
}

/// `envsubst` over the manifests as the generator printed them, read back.
fn envsubst_resources(
    resources: Vec<Resource>,
    env: &BTreeMap<String, String>,
    only: Option<&[String]>,
) -> Result<(Vec<Resource>, std::collections::BTreeSet<String>), EnvsubstError> {
    let mut out = Vec::with_capacity(resources.len());
    let mut unset = std::collections::BTreeSet::new();
    for r in resources {
        let text = yaml::emit::node_to_string(&r.node);
        let (text, missing) = plugin::envsubst(&text, env, only);
        unset.extend(missing);
        let docs = match yaml::parse_stream(text.as_bytes(), &ParseOptions::default()) {
            Ok(docs) => docs,
            Err(error) => {
                return Err(EnvsubstError {
                    file: r.origin.file,
                    error,
                })
            }
        };
        for node in docs.into_iter().filter(|d| !d.is_null()) {
            out.push(Resource {
                node,
                origin: r.origin.clone(),
            });
        }
    }
    Ok((out, unset))
}
