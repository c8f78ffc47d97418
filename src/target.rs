//! What kdelta renders: the [`Target`] of every engine, and the dispatch table that is the only
//! place listing the engines. Adding an engine means adding its module (with a type
//! implementing [`engine::Spec`]) and one line in [`engines!`]'s invocation below.

use crate::config::Config;
use crate::engine::{self, Detected, DirListing, EngineOutput, Spec as _};
use crate::finding::Finding;
use crate::resource::Resource;
use crate::source::{Files, RepoPath, Snapshot};
use crate::{argocd, directory, flux, helm, kustomize};

/// Generates [`Target`], [`Details`], [`RenderOptions`] and the dispatch from one line per
/// engine: `Variant(spec type: its kinds) => options field`. Detection asks the engines in
/// this order.
macro_rules! engines {
    ($($variant:ident($spec:ty: $($kind:literal)|+) => $options:ident,)*) => {
        /// Something kdelta renders into Kubernetes objects. Ordered by engine, then by spec
        /// (reports list targets in this order).
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Target {
            $($variant($spec),)*
        }

        /// What an engine reported about a render beyond its resources.
        #[derive(Clone, Debug)]
        pub enum Details {
            $($variant(<$spec as engine::Spec>::Details),)*
        }

        /// What the files of a revision say of the tools' own configuration, per engine, in
        /// path order (see [`engine::Spec::settings_in`]).
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct RevisionSettings {
            $(pub $options: Vec<<$spec as engine::Spec>::Setting>,)*
        }

        impl RevisionSettings {
            /// What the YAML file `path` says, to every engine.
            pub fn in_file(path: &RepoPath, bytes: &[u8]) -> RevisionSettings {
                RevisionSettings {
                    $($options: <$spec as engine::Spec>::settings_in(path, bytes),)*
                }
            }

            /// True when no engine found a setting.
            pub fn is_empty(&self) -> bool {
                true $(&& self.$options.is_empty())*
            }

            /// Adds what `other` says after what these say.
            pub fn extend(&mut self, other: RevisionSettings) {
                $(self.$options.extend(other.$options);)*
            }
        }

        /// Options that change rendered output, per engine (part of every cache key).
        #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub struct RenderOptions {
            $(pub $options: <$spec as engine::Spec>::Options,)*
            /// The cluster and this repository, which every engine takes from.
            pub shared: engine::Shared,
        }

        impl RenderOptions {
            /// These options with every engine recording what `kdelta explain` shows (see
            /// [`engine::Spec::trace`]).
            pub fn traced(&self) -> RenderOptions {
                let mut out = self.clone();
                $(<$spec as engine::Spec>::trace(&mut out.$options);)*
                out
            }

            /// These options for a render that is only printed (see [`engine::Spec::printing`]).
            pub fn printing(&self) -> RenderOptions {
                let mut out = self.clone();
                $(<$spec as engine::Spec>::printing(&mut out.$options);)*
                out
            }

            /// These options without a second render for regenerated values (see
            /// [`engine::Spec::without_regenerated_probe`]).
            pub fn without_regenerated_probe(&self) -> RenderOptions {
                let mut out = self.clone();
                $(<$spec as engine::Spec>::without_regenerated_probe(&mut out.$options);)*
                out
            }

            /// These options for the renders of a diff (see [`engine::Spec::diffing`]).
            pub fn diffing(&self) -> RenderOptions {
                let mut out = self.clone();
                $(<$spec as engine::Spec>::diffing(&mut out.$options);)*
                out
            }

            /// These options with `.kdelta.yaml`'s settings: the shared ones completed, then
            /// each engine's own ([`engine::Spec::configure`]).
            pub fn configured(&self, config: &Config) -> RenderOptions {
                let mut out = self.clone();
                out.shared.complete(config);
                $(<$spec as engine::Spec>::configure(&mut out.$options, config, &out.shared);)*
                out
            }

            /// These options (configured) with the settings of one revision: each engine
            /// takes its own and offers the others theirs ([`engine::Spec::apply_settings`]),
            /// then takes what the others offered ([`engine::Spec::configure`]); with what is
            /// wrong with the settings, engines in table order.
            pub fn with_settings(
                &self,
                config: &Config,
                settings: RevisionSettings,
            ) -> (RenderOptions, Vec<Finding>) {
                let mut out = self.clone();
                let mut findings = Vec::new();
                $(findings.extend(<$spec as engine::Spec>::apply_settings(
                    &mut out.$options,
                    config,
                    settings.$options,
                    &mut out.shared,
                ));)*
                $(<$spec as engine::Spec>::configure(&mut out.$options, config, &out.shared);)*
                (out, findings)
            }
        }

        impl Details {
            /// The documents of a render's printed text (see
            /// [`engine::Spec::printed_documents`]).
            pub fn printed_documents<'a>(&self, printed: &'a str) -> Vec<&'a str> {
                match self { $(Details::$variant(_) => <$spec as engine::Spec>::printed_documents(printed),)* }
            }

            /// The states the object at `index` of the render's output passed through, oldest
            /// first (see [`engine::Spec::history`]).
            pub fn history(&self, index: usize) -> Box<dyn Iterator<Item = engine::Stage<'_>> + '_> {
                match self { $(Details::$variant(d) => Box::new(<$spec as engine::Spec>::history(d, index)),)* }
            }
        }

        $(
            impl From<$spec> for Target {
                fn from(spec: $spec) -> Target {
                    Target::$variant(spec)
                }
            }
        )*

        impl Target {
            /// The prefixes of every engine's target ids (see [`engine::Spec::ID_PREFIXES`]).
            pub fn id_prefixes() -> impl Iterator<Item = &'static str> {
                std::iter::empty()
                    $(.chain(<$spec as engine::Spec>::ID_PREFIXES.iter().copied()))*
            }

            /// Every engine's [`engine::Spec::MARKER_FILES`].
            pub fn marker_files() -> impl Iterator<Item = &'static str> {
                std::iter::empty()
                    $(.chain(<$spec as engine::Spec>::MARKER_FILES.iter().copied()))*
            }

            /// Every engine's [`engine::Spec::CLAIMING_FILES`].
            pub fn claiming_files() -> impl Iterator<Item = &'static str> {
                std::iter::empty()
                    $(.chain(<$spec as engine::Spec>::CLAIMING_FILES.iter().copied()))*
            }

            /// See [`engine::Spec::cost`].
            pub fn cost(&self) -> u8 {
                match self { $(Target::$variant(s) => s.cost(),)* }
            }

            /// See [`engine::Spec::coverage`].
            pub fn coverage(&self) -> Option<engine::Coverage> {
                match self { $(Target::$variant(s) => s.coverage(),)* }
            }

            /// See [`engine::Spec::READS_REVISION_SETTINGS`].
            pub fn reads_revision_settings(&self) -> bool {
                match self { $(Target::$variant(_) => <$spec as engine::Spec>::READS_REVISION_SETTINGS,)* }
            }

            /// See [`engine::Spec::DUPLICATE`].
            pub fn duplicate_rule(&self) -> (crate::finding::Rule, &'static str) {
                match self { $(Target::$variant(_) => <$spec as engine::Spec>::DUPLICATE,)* }
            }

            /// The stable id used in reports: `kustomize:apps/web/overlays/prod`.
            pub fn id(&self) -> String {
                match self { $(Target::$variant(s) => s.id(),)* }
            }

            /// `kustomize`, `helm`, `appset`, `app`, `flux-ks`, `flux-hr` or `directory`: one
            /// of the kinds of the engine's line in the table.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Target::$variant(s) => {
                        let kind = s.kind();
                        debug_assert!(
                            [$($kind),+].contains(&kind),
                            "{kind} is not listed in the engines! table's line of {}",
                            stringify!($variant),
                        );
                        kind
                    })*
                }
            }

            /// Every engine's [`engine::Spec::CONFIG_KEYS`].
            #[cfg(test)]
            fn every_config_key() -> impl Iterator<Item = &'static str> {
                std::iter::empty()
                    $(.chain(<$spec as engine::Spec>::CONFIG_KEYS.iter().copied()))*
            }

            /// See [`engine::Spec::CONFIG_KEYS`].
            pub fn config_keys(&self) -> &'static [&'static str] {
                match self { $(Target::$variant(_) => <$spec as engine::Spec>::CONFIG_KEYS,)* }
            }

            /// See [`engine::Spec::PATH_IS_INPUT_DIR`].
            pub fn path_is_input_dir(&self) -> bool {
                match self { $(Target::$variant(_) => <$spec as engine::Spec>::PATH_IS_INPUT_DIR,)* }
            }

            /// See [`engine::Spec::TAKES_RELEASE_NAME`].
            pub fn takes_release_name(&self) -> bool {
                match self { $(Target::$variant(_) => <$spec as engine::Spec>::TAKES_RELEASE_NAME,)* }
            }

            /// The path the target lives at (its directory or defining file).
            pub fn path(&self) -> &RepoPath {
                match self { $(Target::$variant(s) => s.path(),)* }
            }

            /// The file that defines the target (kustomization, Chart.yaml, the Argo CD
            /// manifest), where reports anchor the target's annotations.
            pub fn defining_file(&self, snapshot: &dyn Snapshot) -> RepoPath {
                match self { $(Target::$variant(s) => s.defining_file(snapshot),)* }
            }

            /// What `kdelta explain` says made `object`, one of the target's rendered objects
            /// (see [`engine::Spec::explain`]); `details` are the render's.
            pub fn explain(&self, details: &Details, object: &Resource) -> Vec<String> {
                match (self, details) {
                    $((Target::$variant(s), Details::$variant(d)) => s.explain(d, object),)*
                    #[allow(unreachable_patterns)]
                    _ => Vec::new(),
                }
            }

            /// See [`engine::Spec::compared`]; `head` are the details of the head's render.
            pub fn compared(
                &self,
                head: &Details,
                base_objects: &[Resource],
                head_objects: &[Resource],
            ) -> Option<(Vec<Resource>, Vec<Resource>)> {
                match (self, head) {
                    $((Target::$variant(s), Details::$variant(h)) => s.compared(h, base_objects, head_objects),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// See [`engine::Spec::annotate`].
            pub fn annotate<'a>(
                &self,
                base: engine::Render<'a, Details>,
                head: engine::Render<'a, Details>,
            ) -> engine::Annotations<'a> {
                match (self, base.details, head.details) {
                    $((Target::$variant(s), Details::$variant(b), Details::$variant(h)) => {
                        s.annotate(base.with_details(b), head.with_details(h))
                    })*
                    #[allow(unreachable_patterns)]
                    _ => engine::Annotations::default(),
                }
            }

            /// See [`engine::Spec::reason`].
            pub fn reason(&self, details: &Details, id: &str, appearance: engine::Appearance) -> Option<String> {
                match (self, details) {
                    $((Target::$variant(s), Details::$variant(d)) => s.reason(d, id, appearance),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// The spec when the target is of engine `S` (`kdelta tree` takes Helm's).
            pub fn spec<S: 'static>(&self) -> Option<&S> {
                match self { $(Target::$variant(s) => (s as &dyn std::any::Any).downcast_ref::<S>(),)* }
            }

            /// See [`engine::Spec::input_dirs`].
            pub fn input_dirs(&self, files: &Files, opts: &RenderOptions) -> Option<Vec<RepoPath>> {
                match self { $(Target::$variant(s) => s.input_dirs(files, &opts.$options),)* }
            }

            /// Renders the target with its engine.
            pub fn render(&self, files: &Files, opts: &RenderOptions) -> EngineOutput<Details> {
                match self {
                    $(Target::$variant(s) => s.render(files, &opts.$options).map_details(Details::$variant),)*
                }
            }

            /// The targets this one generates (see [`engine::Spec::expand`]).
            pub fn expand(&self, files: &Files, opts: &RenderOptions) -> (Vec<Target>, Vec<Finding>) {
                match self {
                    $(Target::$variant(s) => {
                        let (specs, findings) = s.expand(files, &opts.$options);
                        (specs.into_iter().map(Target::$variant).collect(), findings)
                    })*
                }
            }
        }

        /// Every engine's targets in a directory. When an engine claims the directory (a
        /// Helm chart), only its targets count and discovery does not descend.
        pub fn detect_dir(listing: &DirListing) -> Detected<Target> {
            let mut all = Detected::default();
            $(
                let found = <$spec as engine::Spec>::detect_dir(listing);
                let specs = found.specs.into_iter().map(Target::$variant);
                if found.claims_dir {
                    return Detected { specs: specs.collect(), claims_dir: true, lists: found.lists };
                }
                all.specs.extend(specs);
                all.lists.extend(found.lists);
            )*
            all
        }

        /// Every engine's targets defined in a YAML file that is a part of the top-level
        /// targets of the directories `included_by`.
        pub fn detect_file(
            snapshot: &dyn Snapshot,
            path: &RepoPath,
            config: &Config,
            included_by: &[RepoPath],
        ) -> (Vec<Target>, Vec<Finding>) {
            let mut targets = Vec::new();
            let mut findings = Vec::new();
            $(
                let (specs, found) =
                    <$spec as engine::Spec>::detect_file(snapshot, path, config, included_by);
                targets.extend(specs.into_iter().map(Target::$variant));
                findings.extend(found);
            )*
            (targets, findings)
        }

        /// What `kdelta render DIR` renders: the first engine's target there (see
        /// [`engine::Spec::at_dir`]).
        pub fn at_dir(snapshot: &dyn Snapshot, dir: &RepoPath) -> Option<Target> {
            $(
                if let Some(spec) = <$spec as engine::Spec>::at_dir(snapshot, dir) {
                    return Some(Target::$variant(spec));
                }
            )*
            None
        }

        /// The targets discovery keeps of those detected (see [`engine::Spec::settle`]).
        pub fn settle(snapshot: &dyn Snapshot, targets: Vec<Target>) -> (Vec<Target>, Vec<Finding>) {
            let mut out = Vec::new();
            let mut findings = Vec::new();
            $(
                let specs: Vec<$spec> = targets
                    .iter()
                    .filter_map(|t| match t { Target::$variant(s) => Some(s.clone()), #[allow(unreachable_patterns)] _ => None })
                    .collect();
                if !specs.is_empty() {
                    let (kept, found) = <$spec as engine::Spec>::settle(snapshot, specs);
                    out.extend(kept.into_iter().map(Target::$variant));
                    findings.extend(found);
                }
            )*
            (out, findings)
        }
    };
}

engines! {
    Kustomize(kustomize::Spec: "kustomize") => kustomize,
    Helm(helm::Spec: "helm") => helm,
    Argo(argocd::Spec: "appset" | "app") => argocd,
    Flux(flux::Spec: "flux-ks" | "flux-hr") => flux,
    Directory(directory::Spec: "directory") => directory,
}

#[cfg(test)]
mod tests {
    use super::{RenderOptions, RevisionSettings};
    use crate::argocd::settings::{Entry, Place, Sourced};
    use crate::config::Config;

    /// argocd-cm's `kustomize.buildOptions`, as the Argo CD engine reads it from the revision.
    fn build_options(flags: &str) -> RevisionSettings {
        RevisionSettings {
            argocd: vec![Entry::Cm {
                key: "kustomize.buildOptions".to_string(),
                value: Sourced {
                    value: flags.to_string(),
                    place: Place {
                        file: "argocd/argocd-cm.yaml".to_string(),
                        line: 7,
                    },
                },
            }],
            ..RevisionSettings::default()
        }
    }

    /// The Argo CD engine offers the build options argocd-cm imposes through
    /// `engine::Shared`; the kustomize targets and the kustomizations that include Argo CD
    /// manifests take them, beside the command line's; flags kdelta does not apply are one
    /// finding at the setting.
    #[test]
    fn the_kustomize_targets_take_the_build_options_argo_cd_offers() {
        let config = Config::default();
        let mut opts = RenderOptions::default().configured(&config);
        opts.kustomize.reorder_none = true;
        opts.argocd.kustomize.reorder_none = true;
        let (out, findings) = opts.with_settings(
            &config,
            build_options(
                "--load-restrictor LoadRestrictionsNone --enable-managedby-label --frobnicate",
            ),
        );
        assert!(out.kustomize.load_restrictor_none && out.kustomize.add_managed_by_label);
        assert!(out.kustomize.reorder_none, "the command line's flags stay");
        assert_eq!(out.argocd.kustomize, out.kustomize);
        assert!(out.shared.kustomize_build_options.load_restrictor_none);
        assert!(out
            .argocd
            .settings
            .cm
            .contains_key("kustomize.buildOptions"));
        let said: Vec<_> = findings
            .iter()
            .map(|f| (f.rule.id, f.message.as_str(), f.file.as_deref(), f.line))
            .collect();
        assert_eq!(
            said,
            [(
                "argocd.settings.invalid",
                "kustomize build options kdelta does not apply: --frobnicate",
                Some("argocd/argocd-cm.yaml"),
                Some(7),
            )]
        );
    }

    /// A revision without settings leaves the configured options as they were: taking the
    /// engines' offers applies `configure` again, which changes nothing twice.
    #[test]
    fn a_revision_without_settings_changes_no_option() {
        let config = Config::default();
        let mut opts = RenderOptions::default().configured(&config);
        opts.kustomize.load_restrictor_none = true;
        opts.argocd.kustomize.load_restrictor_none = true;
        let (out, findings) = opts.with_settings(&config, RevisionSettings::default());
        assert_eq!(out, opts);
        assert!(findings.is_empty());
        let (out, _) = opts.with_settings(&config, build_options("--enable-helm"));
        assert!(!out.kustomize.add_managed_by_label);
        assert_eq!(out.kustomize, opts.kustomize);
    }

    /// Every key an engine names in [`crate::engine::Spec::CONFIG_KEYS`] is one of
    /// `.kdelta.yaml`'s.
    #[test]
    fn the_engines_config_keys_are_keys_of_the_configuration() {
        let schema: serde_json::Value =
            serde_json::from_str(crate::config::CONFIG_SCHEMA).expect("JSON");
        for key in super::Target::every_config_key() {
            assert!(
                schema["properties"].get(key).is_some(),
                "{key} is no key of docs/kdelta-config.schema.json"
            );
        }
    }
}
