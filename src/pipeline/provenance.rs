//! `kdelta explain RESOURCE`: where a rendered object comes from. The file (and line) it was
//! read from; for kustomize, the kustomizations it passed through (base → overlay) and every
//! step that changed it — patch, builtin transformer, replacement, the build's final passes —
//! with the entry that configured the step and the fields it changed; for Helm, the chart, its
//! values and the template; for Argo CD, the generator and parameters behind an Application.

use crate::diff::diff_values;
use crate::kustomize::trace::{ObjectKey, Trace};
use crate::render::{render_target, Details, Rendered};
use crate::report::provenance::{Provenance, StepChange};
use crate::resource::Resource;
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

/// Renders `targets` (kustomize builds traced) and explains every object `query` names.
/// Secret values are redacted in the field changes unless `show_secrets`.
pub fn explain(
    snapshot: &dyn Snapshot,
    targets: &[Target],
    query: &str,
    opts: &super::Options,
) -> (Vec<Provenance>, Vec<Rendered>) {
    let mut render = opts.render.clone();
    render.kustomize.trace = true;
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
            let read_as =
                first_state(&rendered, i).map(|n| crate::resource::ResId::of(n).to_string());
            if matches(&id, query) || read_as.is_some_and(|first| matches(&first, query)) {
                found.push(provenance(target, &rendered, i, r, id, opts.show_secrets));
            }
        }
    }
    (found, failed)
}

/// The object `index` of a traced kustomize build as it was first read.
fn first_state(rendered: &Rendered, index: usize) -> Option<&Node> {
    let Some(Details::Kustomize(trace)) = &rendered.details else {
        return None;
    };
    let key = trace.output.get(index)?;
    trace
        .steps
        .iter()
        .find_map(|s| s.objects.iter().find(|(k, _)| k == key).map(|(_, n)| n))
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
    if let Some(Details::Kustomize(trace)) = &rendered.details {
        if let Some(key) = trace.output.get(index) {
            kustomize_history(&mut p, trace, key, &r.node, show_secrets);
        }
    }
    p.notes.extend(target.made_from(&p.file));
    if let Some(Details::Argo(d)) = &rendered.details {
        if r.kind() == "Application" {
            let name = r.node.str_at(&["metadata", "name"]).unwrap_or_default();
            if let Some(made_by) = d.made_by.get(name) {
                p.notes.push(made_by.clone());
            }
        }
    }
    if let Some(Details::Flux(d)) = &rendered.details {
        if !d.steps.is_empty() {
            p.notes.push(format!(
                "applied by Flux's {}: {}",
                match target.kind() {
                    "flux-hr" => "helm-controller",
                    _ => "kustomize-controller",
                },
                d.steps.join("; ")
            ));
        }
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

/// The object's way through the build: where it first appears, then each step after which it
/// differs, then the output itself (kustomize's final cleanup).
fn kustomize_history(
    p: &mut Provenance,
    trace: &Trace,
    key: &ObjectKey,
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
    for step in &trace.steps {
        let Some((_, node)) = step.objects.iter().find(|(k, _)| k == key) else {
            continue;
        };
        let file = step.file.to_string();
        if !p.kustomizations.contains(&file) {
            p.kustomizations.push(file.clone());
        }
        let now = value(node);
        if let Some(before) = &last {
            let fields = diff_values(before, &now);
            if !fields.is_empty() {
                p.steps.push(StepChange {
                    file,
                    line: (step.line > 0).then_some(step.line),
                    step: step.what.clone(),
                    fields,
                });
            }
        }
        last = Some(now);
    }
    if let Some(before) = last {
        let fields = diff_values(&before, &value(output));
        if !fields.is_empty() {
            p.steps.push(StepChange {
                file: p.kustomizations.last().cloned().unwrap_or_default(),
                line: None,
                step: "output (build annotations removed, values printed)".to_string(),
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
