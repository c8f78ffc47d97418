//! `kdelta explain RESOURCE`: where a rendered object comes from. The file (and line) it was
//! read from; for kustomize, the kustomizations it passed through (base → overlay) and every
//! step that changed it — patch, builtin transformer, replacement, the build's final passes —
//! with the entry that configured the step and the fields it changed; for Helm, the chart, its
//! values and the template; for Argo CD, the generator and parameters behind an Application;
//! for Flux, the controller that applied it. Each engine says what it knows through
//! `engine::Spec` (`history`, `explain`).

use crate::diff::diff_values;
use crate::engine::Stage;
use crate::render::{render_target, Rendered};
use crate::report::provenance::{Provenance, StepChange};
use crate::resource::{ResId, Resource};
use crate::source::Snapshot;
use crate::target::Target;
use crate::yaml::{to_value_lossy, Dialect, Node};
use serde_json::Value;

/// True when the object id `id` (`group/version/Kind/namespace/name`) is named by `query`:
/// the whole id, `Kind/namespace/name`, `Kind/name` or `name` (kinds in any case, as kubectl
/// takes them; a generated name with or without its hash suffix).
pub fn matches(id: &str, query: &str) -> bool {
    let parts: Vec<&str> = id.split('/').collect();
    let [_, _, kind, namespace, name] = parts.as_slice() else {
        return false;
    };
    if let Some(stem) = crate::diff::strip_hash_suffix(name) {
        let unhashed = format!("{}/{}/{kind}/{namespace}/{stem}", parts[0], parts[1]);
        if matches(&unhashed, query) {
            return true;
        }
    }
    let q: Vec<&str> = query.split('/').collect();
    let kind_is = |k: &str| k.eq_ignore_ascii_case(kind);
    match q.as_slice() {
        [n] => n == name,
        [k, n] => kind_is(k) && n == name,
        [k, ns, n] => {
            kind_is(k) && (ns == namespace || (ns.is_empty() && *namespace == "_")) && n == name
        }
        _ => id == query,
    }
}

/// Renders `targets` (with what each engine can record of its steps, as a kustomize build's
/// trace) and explains every object `query` names. Secret values are redacted in the field
/// changes unless `show_secrets`.
pub fn explain(
    snapshot: &dyn Snapshot,
    targets: &[Target],
    query: &str,
    opts: &super::Options,
) -> (Vec<Provenance>, Vec<Rendered>) {
    let render = opts.render.traced();
    let cache = opts.parse_cache();
    let mut found = Vec::new();
    let mut failed = Vec::new();
    for target in targets {
        let rendered = render_target(snapshot, target, &render, &cache);
        if !rendered.ok {
            failed.push(rendered);
            continue;
        }
        for (i, r) in rendered.resources.iter().enumerate() {
            let id = r.id().to_string();
            // Named as it is in the output, or as it was read (before a prefix or namespace).
            let read_as = first_state(&rendered, i).map(|n| ResId::of(n).to_string());
            if matches(&id, query) || read_as.is_some_and(|first| matches(&first, query)) {
                found.push(provenance(target, &rendered, i, r, id, opts.show_secrets));
            }
        }
    }
    (found, failed)
}

/// The object `index` of a render as it was first read, when the engine recorded its steps.
fn first_state(rendered: &Rendered, index: usize) -> Option<&Node> {
    let details = rendered.details.as_ref()?;
    details.history(index).next().map(|s| s.object)
}

fn provenance(
    target: &Target,
    rendered: &Rendered,
    index: usize,
    r: &Resource,
    id: String,
    show_secrets: bool,
) -> Provenance {
    let mut p = Provenance {
        target: target.id(),
        resource: id,
        file: r.origin.file.to_string(),
        line: (r.origin.span.line > 0).then_some(r.origin.span.line),
        kustomizations: Vec::new(),
        steps: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(details) = &rendered.details {
        history(&mut p, details.history(index), &r.node, show_secrets);
        p.notes.extend(target.explain(details, r));
    }
    // The object may be shaped by what the render lacks: say what, in one line.
    if let Some(why) = rendered.findings.iter().find(|f| f.is_incomplete()) {
        p.notes.push(format!(
            "{} is incomplete: {}",
            target.id(),
            why.message.lines().next().unwrap_or_default()
        ));
    }
    p
}

/// The object's way through the render: where it first appears (the kustomizations it passes
/// through, in order), then each step after which it differs, then the output itself (a
/// kustomize build's final cleanup).
fn history<'a>(
    p: &mut Provenance,
    stages: impl Iterator<Item = Stage<'a>>,
    output: &Node,
    show_secrets: bool,
) {
    let value = |n: &Node| {
        let mut v = to_value_lossy(n, Dialect::Yaml12);
        if !show_secrets {
            crate::redact::redact_secret(&mut v);
        }
        v
    };
    let mut last: Option<Value> = None;
    let mut files_before = Vec::new();
    for stage in stages {
        let file = stage.file.to_string();
        if !p.kustomizations.contains(&file) {
            p.kustomizations.push(file.clone());
        }
        let now = value(stage.object);
        let files = stage.object.files();
        if let Some(before) = &last {
            let fields = diff_values(before, &now);
            if !fields.is_empty() {
                // The files whose fields the step brought in (a patch's).
                let from = files
                    .iter()
                    .filter(|f| !files_before.contains(*f))
                    .filter_map(|f| f.name())
                    .map(|f| f.to_string())
                    .filter(|f| *f != file)
                    .collect();
                p.steps.push(StepChange {
                    file,
                    line: (stage.line > 0).then_some(stage.line),
                    step: stage.step.to_string(),
                    from,
                    fields,
                });
            }
        }
        files_before = files;
        last = Some(now);
    }
    if let Some(before) = last {
        let fields = diff_values(&before, &value(output));
        if !fields.is_empty() {
            p.steps.push(StepChange {
                file: p.kustomizations.last().cloned().unwrap_or_default(),
                line: None,
                step: "output (build annotations removed, values printed)".to_string(),
                from: Vec::new(),
                fields,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn a_query_names_objects_as_kubectl_and_the_reports_do() {
        let id = "apps/v1/Deployment/prod/web";
        for q in [
            id,
            "Deployment/prod/web",
            "deployment/prod/web",
            "Deployment/web",
            "web",
        ] {
            assert!(matches(id, q), "{q}");
        }
        for q in [
            "Service/web",
            "Deployment/dev/web",
            "api",
            "v1/Deployment/prod/web",
        ] {
            assert!(!matches(id, q), "{q}");
        }
        assert!(matches(
            "rbac.authorization.k8s.io/v1/ClusterRole/_/admin",
            "ClusterRole//admin"
        ));
        assert!(matches(
            "rbac.authorization.k8s.io/v1/ClusterRole/_/admin",
            "ClusterRole/admin"
        ));
        // A generated name, with or without its hash; the namespace may spell the same.
        let generated = "core/v1/ConfigMap/settings-kdkkf5f9gt/settings-kdkkf5f9gt";
        assert!(matches(generated, "ConfigMap/settings"));
        assert!(matches(generated, "ConfigMap/settings-kdkkf5f9gt/settings"));
        assert!(!matches(generated, "ConfigMap/settings/settings"));
    }
}
