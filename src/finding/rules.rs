//! The rule registry: every rule id kdelta reports, with its usual severity and a one-line
//! summary. docs/rules.md documents exactly these (a test checks it); a rule id never changes
//! meaning once released.

use super::{Rule, Severity};

macro_rules! rules {
    ($($name:ident = $id:literal, $severity:ident, $summary:literal;)*) => {
        $(
            #[doc = $summary]
            pub const $name: Rule = Rule { id: $id, severity: Severity::$severity, summary: $summary };
        )*
        /// Every rule, in the order docs/rules.md lists them.
        pub const ALL: &[Rule] = &[$($name),*];
    };
}

rules! {
    CONFIG_INVALID = "config.invalid", Error, "the configuration file cannot be used";
    DISCOVER_UNREADABLE = "discover.unreadable", Warning, "a directory of the work tree could not be listed while looking for targets (unreadable, or its path too long)";

    SOURCE_NOT_FOUND = "source.not-found", Error, "a file or directory a target needs does not exist at that revision";
    SOURCE_OUTSIDE_REPOSITORY = "source.outside-repository", Error, "a path or symbolic link leaves the repository";
    SOURCE_TOO_LARGE = "source.too-large", Error, "a file is larger than 16 MiB";
    SOURCE_READ = "source.read", Error, "a file cannot be read (wrong entry type, link loop, FIFO, device, I/O error)";

    FETCH_FAILED = "fetch.failed", Error, "a remote source (a chart, another git repository) could not be fetched or used; the output lacks it";
    FETCH_DIGEST_MISMATCH = "fetch.digest-mismatch", Warning, "a Helm repository's index publishes a digest that the chart archive it serves does not have";
    FETCH_STALE = "fetch.stale", Warning, "a repository index could not be fetched again; the copy in kdelta's cache was used";

    YAML_PARSE = "yaml.parse", Error, "a file is not valid YAML or not text";
    YAML_LIMIT = "yaml.limit", Error, "a document exceeds a safety limit (aliases, depth, size)";
    YAML_DUPLICATE_KEY = "yaml.duplicate-key", Error, "a mapping has the same key twice";

    RESOURCE_INVALID = "resource.invalid", Error, "a document in a plain-manifest directory is not a Kubernetes object";
    RESOURCE_UNTYPABLE = "resource.untypable", Error, "a document in a plain-manifest directory has a value that cannot be typed";
    RENDER_OUTPUT = "render.output", Error, "a rendered object cannot be printed";

    KUSTOMIZE_MISSING_KUSTOMIZATION = "kustomize.missing-kustomization", Error, "a resource or component directory has no kustomization file";
    KUSTOMIZE_MULTIPLE_KUSTOMIZATIONS = "kustomize.multiple-kustomizations", Error, "a directory has more than one kustomization file";
    KUSTOMIZE_INVALID_KUSTOMIZATION = "kustomize.invalid-kustomization", Error, "a kustomization has an unknown field, a wrong type or a wrong kind/apiVersion";
    KUSTOMIZE_EMPTY_KUSTOMIZATION = "kustomize.empty-kustomization", Error, "a kustomization has nothing but apiVersion/kind";
    KUSTOMIZE_FILE_NOT_FOUND = "kustomize.file-not-found", Error, "a listed file or directory does not exist";
    KUSTOMIZE_NOT_A_FILE = "kustomize.not-a-file", Error, "a directory where a file is needed";
    KUSTOMIZE_NOT_A_DIRECTORY = "kustomize.not-a-directory", Error, "a file where a directory is needed";
    KUSTOMIZE_ABSOLUTE_PATH = "kustomize.absolute-path", Error, "an absolute path in a kustomization";
    KUSTOMIZE_LOAD_RESTRICTOR = "kustomize.load-restrictor", Error, "a file outside the kustomization's root under the rootOnly load restrictor";
    KUSTOMIZE_CYCLE = "kustomize.cycle", Error, "kustomizations that include each other";
    KUSTOMIZE_DUPLICATE_RESOURCE = "kustomize.duplicate-resource", Error, "two resources with the same id";
    KUSTOMIZE_COMPONENT_KIND = "kustomize.component-kind", Error, "a Component under resources, or a Kustomization under components";
    KUSTOMIZE_REMOTE_RESOURCE = "kustomize.remote-resource", Notice, "a remote base or file not in kdelta's cache; the build goes on without it";
    KUSTOMIZE_DEPRECATED = "kustomize.deprecated", Notice, "a deprecated kustomization field";
    KUSTOMIZE_GENERATOR_INVALID_KEY = "kustomize.generator.invalid-key", Warning, "a generated key the API server will reject, or an env-file line without =";
    KUSTOMIZE_GENERATOR_BEHAVIOR = "kustomize.generator.behavior", Warning, "an unknown generator behavior, read as create";
    KUSTOMIZE_GENERATOR_INVALID = "kustomize.generator.invalid", Error, "a configMap or secret generator that cannot be used";
    KUSTOMIZE_GENERATOR_DUPLICATE_KEY = "kustomize.generator.duplicate-key", Error, "a generator produces the same key twice";
    KUSTOMIZE_GENERATOR_NO_BASE = "kustomize.generator.no-base", Error, "a merge or replace generator with nothing to merge into";
    KUSTOMIZE_GENERATOR_EXISTS = "kustomize.generator.exists", Error, "a create generator over an existing object";
    KUSTOMIZE_GENERATOR_AMBIGUOUS = "kustomize.generator.ambiguous", Error, "a merge or replace generator matching several objects";
    KUSTOMIZE_GENERATOR_MERGE_VALUES = "kustomize.generator.merge-values", Error, "generator values that cannot be merged";
    KUSTOMIZE_PATCH = "kustomize.patch", Error, "a patch that cannot be parsed or applied";
    KUSTOMIZE_REPLACEMENT_SOURCE_NOT_FOUND = "kustomize.replacement.source-not-found", Error, "no resource matches the replacement source";
    KUSTOMIZE_REPLACEMENT_AMBIGUOUS_SOURCE = "kustomize.replacement.ambiguous-source", Error, "several resources match the replacement source";
    KUSTOMIZE_REPLACEMENT_SOURCE_FIELD_MISSING = "kustomize.replacement.source-field-missing", Error, "the replacement source object lacks fieldPath";
    KUSTOMIZE_REPLACEMENT_TARGET_NOT_FOUND = "kustomize.replacement.target-not-found", Error, "a replacement target field is missing and cannot be created";
    KUSTOMIZE_REPLACEMENT_INDEX_OUT_OF_RANGE = "kustomize.replacement.index-out-of-range", Error, "options.index outside the delimited source value";
    KUSTOMIZE_REPLACEMENT_SOURCE_FIELD = "kustomize.replacement.source-field", Error, "the replacement source fieldPath cannot be followed";
    KUSTOMIZE_REPLACEMENT_VERSION_DIVERGENCE = "kustomize.replacement.version-divergence", Warning, "a replacement target that kustomize v5.5.0 and v5.8 select differently";
    KUSTOMIZE_REPLACEMENT_DELIMITER = "kustomize.replacement.delimiter", Error, "a replacement delimiter on a non-scalar value";
    KUSTOMIZE_REPLACEMENT_INVALID = "kustomize.replacement.invalid", Error, "a replacement that cannot be used (both source and sourceValue, a bad entry)";
    KUSTOMIZE_REPLACEMENT_INVALID_SELECTOR = "kustomize.replacement.invalid-selector", Error, "a replacement target label or annotation selector that does not parse";
    KUSTOMIZE_VARS = "kustomize.vars", Error, "a var that cannot be resolved";
    KUSTOMIZE_VARS_AMBIGUOUS = "kustomize.vars.ambiguous", Error, "a var that matches several objects";
    KUSTOMIZE_VARS_DUPLICATE = "kustomize.vars.duplicate", Error, "a var declared twice";
    KUSTOMIZE_VARS_UNUSED = "kustomize.vars.unused", Warning, "vars that were never substituted";
    KUSTOMIZE_TRANSFORM = "kustomize.transform", Error, "a builtin transformer failed";
    KUSTOMIZE_IMAGES = "kustomize.images", Error, "the images transformer failed";
    KUSTOMIZE_REPLICAS = "kustomize.replicas", Error, "the replicas transformer failed";
    KUSTOMIZE_NAME_REFERENCE = "kustomize.name-reference", Error, "the name reference transformer failed";
    KUSTOMIZE_SORT_OPTIONS = "kustomize.sort-options", Error, "sortOptions that cannot be used";
    KUSTOMIZE_OUTPUT = "kustomize.output", Error, "an object kustomize cannot print";
    KUSTOMIZE_NON_STRING_KEY = "kustomize.non-string-key", Error, "an object has a mapping key that reads as a number, bool or null";
    KUSTOMIZE_CONFIGURATIONS = "kustomize.configurations", Error, "a configurations: file that cannot be used";
    KUSTOMIZE_CRDS = "kustomize.crds", Error, "a crds: file that cannot be used";
    KUSTOMIZE_PLUGIN_EXEC_DISABLED = "kustomize.plugin.exec-disabled", Error, "an exec plugin is configured but --enable-exec-plugins was not given";
    KUSTOMIZE_PLUGIN_NOT_FOUND = "kustomize.plugin.not-found", Error, "an exec plugin executable is missing or not executable";
    KUSTOMIZE_PLUGIN_FAILED = "kustomize.plugin.failed", Error, "an exec plugin failed or timed out";
    KUSTOMIZE_PLUGIN_OUTPUT = "kustomize.plugin.output", Error, "an exec plugin printed invalid output";
    KUSTOMIZE_PLUGIN_CONFIG = "kustomize.plugin.config", Error, "a builtin plugin config that cannot be read";
    KUSTOMIZE_PLUGIN_UNKNOWN = "kustomize.plugin.unknown", Error, "a plugin config naming an unknown kind";
    KUSTOMIZE_PLUGIN_KRM_FUNCTION = "kustomize.plugin.krm-function", Notice, "a KRM function, never run; its output is missing";
    KUSTOMIZE_HELM_NOT_FETCHED = "kustomize.helm.not-fetched", Notice, "a helmCharts chart that is not in chartHome and would be pulled; its resources are missing";
    KUSTOMIZE_HELM_INVALID = "kustomize.helm.invalid", Error, "a helmCharts entry without a name or with an invalid valuesMerge";
    KUSTOMIZE_OPENAPI = "kustomize.openapi", Error, "an openapi field kustomize rejects";
    KUSTOMIZE_UNSUPPORTED = "kustomize.unsupported", Error, "a kustomization field kdelta does not implement yet";

    INTERNAL_PANIC = "internal.panic", Error, "kdelta itself crashed (a bug in kdelta)";

    HELM_CHART_INVALID = "helm.chart.invalid", Error, "a chart (or a subchart in charts/) cannot be loaded";
    HELM_CHART_LIBRARY = "helm.chart.library", Error, "a library chart rendered on its own; helm template refuses it";
    HELM_VALUES = "helm.values", Error, "a values file or --set flag cannot be read";
    HELM_VALUES_SCHEMA = "helm.values.schema", Error, "the values break a chart's values.schema.json";
    HELM_SCHEMA_NOT_FETCHED = "helm.schema.not-fetched", Notice, "a values.schema.json references a document at a URL that is not fetched; that chart's values are not checked";
    HELM_KUBE_VERSION = "helm.kube-version", Error, "the chart's kubeVersion excludes the Kubernetes version rendered for";
    HELM_TEMPLATE = "helm.template", Error, "a template does not parse or fails (fail, required, a bad call)";
    HELM_OUTPUT = "helm.output", Error, "a template's output is not valid YAML";
    HELM_SHOW_ONLY = "helm.show-only", Error, "a --show-only pattern matches no template";
    HELM_SUBCHART_PRUNED = "helm.subchart.pruned", Notice, "a subchart is switched off by tags or a condition";
    HELM_CONDITION_NOT_BOOL = "helm.condition.not-bool", Warning, "a dependency's condition path holds a value that is not a bool";
    HELM_HOOK_UNKNOWN_EVENT = "helm.hook.unknown-event", Warning, "a rendered hook names an event Helm 3 does not know, so Helm skips the document";
    HELM_SUBCHART_TOGGLED = "helm.subchart.toggled", Warning, "a subchart is enabled at one revision and pruned at the other";
    HELM_DEPENDENCY_MISSING = "helm.dependency.missing", Notice, "a declared dependency is not vendored in charts/; its resources are missing";
    HELM_DEPENDENCY_OUTSIDE_CONSTRAINT = "helm.dependency.outside-constraint", Warning, "a dependency vendored in charts/ in a version its constraint rejects; Helm renders it anyway";
    HELM_LOCK_OUT_OF_SYNC = "helm.lock.out-of-sync", Error, "a chart's Chart.lock does not match its dependencies; helm dependency build refuses it";
    HELM_DEPENDENCY_FROM_CACHE = "helm.dependency.from-cache", Notice, "a dependency not vendored in charts/ was taken from Helm's local repository cache";
    HELM_REGENERATED = "helm.regenerated", Notice, "fields a chart regenerates on every render (random values, certificates), not shown as changes";
    APPSET_GENERATE = "appset.generate", Error, "an ApplicationSet's generators or template fail; no Application is generated";
    APPSET_VALIDATION = "appset.validation", Error, "a generated Application is invalid (a duplicate or empty name) and is not created";
    APPSET_GENERATOR_OFFLINE = "appset.generator.offline", Notice, "a generator that needs the network or a cluster; its Applications are missing";
    APP_SOURCE_NOT_RENDERED = "app.source.not-rendered", Notice, "an Application source kdelta does not render (another repository, a Helm repository chart, a plugin, Jsonnet, a remote value file, a revision variable); its resources are missing or may differ";
    APP_DUPLICATE = "app.duplicate", Warning, "two ApplicationSets (or Applications) make an Application of the same namespace and name; only the first is rendered";
    APP_IGNORE_DIFFERENCES = "app.ignore-differences", Notice, "an Application's ignoreDifferences entry kdelta cannot apply offline (a jq expression that is not a plain path); those differences are shown";
    APP_PLUGIN_FAILED = "app.plugin.failed", Error, "a config management plugin run with --run-plugins failed, timed out or printed what is not YAML";
    APP_RESOURCE_EXCLUDED = "app.resource.excluded", Warning, "an Application deploys objects argocd-cm's resource.exclusions or resource.inclusions keep Argo CD from managing; they are left out";
    ARGOCD_SETTINGS_CONFLICT = "argocd.settings.conflict", Warning, "two files of the repository set an argocd-cm key or a config management plugin differently";
    ARGOCD_SETTINGS_INVALID = "argocd.settings.invalid", Warning, "an argocd-cm setting or plugin kdelta cannot apply as written";
    APP_SOURCE_INVALID = "app.source.invalid", Error, "an Application's source cannot be used (several source types, a kustomize option kustomize edit refuses, a manifest that cannot be read)";

    FLUX_NOT_RENDERED = "flux.not-rendered", Notice, "part of what a Flux Kustomization or HelmRelease deploys is not rendered (a source or chart not fetched, a kind of source kdelta does not read, a ConfigMap or Secret only the cluster holds); the output is incomplete";
    FLUX_INVALID = "flux.invalid", Error, "a Flux Kustomization or HelmRelease cannot be rendered as written (no source, a path or chart that does not exist, a valuesFrom key that is missing)";
    FLUX_SUBSTITUTE = "flux.substitute", Error, "postBuild substitution fails: a variable used without a default is defined nowhere (the controller's strict mode), a bad variable name or syntax";
    FLUX_DUPLICATE = "flux.duplicate", Warning, "two Flux Kustomizations apply a Kustomization or HelmRelease of the same namespace and name; the first owns it";
    FLUX_DEPENDS_ON = "flux.depends-on", Warning, "a Flux Kustomization or HelmRelease depends on one this cluster's Kustomizations do not apply: Flux never reconciles it";
    FLUX_SUSPENDED = "flux.suspended", Notice, "a Flux Kustomization or HelmRelease is suspended: what it renders is not applied until it is resumed";

    SCHEMA_UNKNOWN_FIELD = "schema.unknown-field", Error, "a field the Kubernetes API schema (or the object's CRD) does not declare";
    SCHEMA_TYPE = "schema.type", Error, "a value of the wrong type for its field (a string where an integer belongs)";
    SCHEMA_REQUIRED = "schema.required", Error, "a required field is missing or null";
    SCHEMA_VALUE = "schema.value", Error, "a value the API server rejects: not in the field's enum, out of range, not matching its pattern or format";
    SCHEMA_DUPLICATE = "schema.duplicate", Error, "two list items with the same key (containers, ports, env), or a mapping key given twice";
    SCHEMA_METADATA = "schema.metadata", Error, "a name, namespace, label or annotation the API server rejects";
    SCHEMA_RULE = "schema.rule", Error, "a CRD's x-kubernetes-validations (CEL) rule rejects the object, fails, or does not compile";
    SCHEMA_RULE_SKIPPED = "schema.rule-skipped", Notice, "a CRD's x-kubernetes-validations rule kdelta cannot evaluate (a CEL function it lacks): objects are not checked against it";
    SCHEMA_UNKNOWN_KIND = "schema.unknown-kind", Error, "a kind the Kubernetes API group and version it names does not have, or a version its CRD does not serve";
    SCHEMA_NO_SCHEMA = "schema.no-schema", Notice, "a custom resource whose CRD the repository does not render, or a SOPS-encrypted object: it is not validated";
    API_REMOVED = "api.removed", Error, "an apiVersion the Kubernetes version validated for no longer serves";
    API_DEPRECATED = "api.deprecated", Warning, "an apiVersion the Kubernetes version validated for deprecates";
    REFERENCE_SERVICE_SELECTOR = "reference.service-selector", Warning, "a Service whose selector matches none of the pod templates its target renders";
    REFERENCE_MISSING = "reference.missing", Warning, "a pod template names a ServiceAccount, ConfigMap, Secret or PersistentVolumeClaim that no target of the revision renders (nor anything that makes it)";
    DEPLOY_DUPLICATE = "deploy.duplicate", Warning, "two Argo CD Applications deploy the same object to the same cluster";
    API_REMOVED_NEXT = "api.removed-next", Warning, "an apiVersion the next Kubernetes version (the upgrade checked) no longer serves";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The rules docs/rules.md defines: `### \`id\` (severity)` headings and table rows
    /// `| \`id\` | severity | … |`, before the section on errors that are not findings.
    fn documented() -> BTreeMap<String, String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md");
        let text = std::fs::read_to_string(path).expect("docs/rules.md exists");
        let mut out = BTreeMap::new();
        // The last section lists errors that are not findings (exit 2).
        let findings = text
            .split("\n## Errors that stop the run")
            .next()
            .unwrap_or_default();
        for line in findings.lines() {
            let entry = if let Some(rest) = line.strip_prefix("### `") {
                rest.split_once("` (")
                    .and_then(|(id, sev)| Some((id, sev.strip_suffix(')')?)))
            } else if let Some(rest) = line.strip_prefix("| `") {
                rest.split_once("` | ")
                    .and_then(|(id, rest)| Some((id, rest.split_once(" |")?.0)))
            } else {
                None
            };
            if let Some((id, severity)) = entry {
                let previous = out.insert(id.to_string(), severity.to_string());
                assert!(previous.is_none(), "docs/rules.md defines {id} twice");
            }
        }
        out
    }

    #[test]
    fn docs_list_exactly_the_registry() {
        let registry: BTreeMap<String, String> = ALL
            .iter()
            .map(|r| (r.id.to_string(), r.severity.as_str().to_string()))
            .collect();
        assert_eq!(registry.len(), ALL.len(), "a rule id is registered twice");
        assert_eq!(documented(), registry);
    }

    #[test]
    fn ids_are_dotted_lowercase() {
        for r in ALL {
            assert!(
                r.id.contains('.')
                    && r.id.bytes().all(|b| b.is_ascii_lowercase()
                        || b.is_ascii_digit()
                        || b"-.".contains(&b)),
                "{}",
                r.id
            );
            assert!(!r.summary.is_empty(), "{} has no summary", r.id);
        }
    }
}
