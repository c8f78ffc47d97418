//! Helm's dependency processing (`pkg/chartutil/dependencies.go`), as `helm template` runs it
//! (`ProcessDependenciesWithMerge`): which subcharts stay — aliases copy a chart, tags first,
//! then conditions (the first condition path holding a bool wins), a disabled chart taking its
//! subtree with it — and import-values, children first, the parent's own values winning.

use super::chart::{Chart, Dependency, ImportValue};
use super::values::{self, CoalesceError, Table};
use crate::template::Value;

/// A subchart left out, and why (for `kdelta tree` and findings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pruned {
    /// The chart path (`parentchart.subchart1`).
    pub path: String,
    /// `tags.front-end=false`, `condition subchart1.enabled=false`.
    pub reason: String,
    /// The dependency entry's 1-based position in its chart's list.
    pub index: usize,
}

/// A condition path that holds a value other than a bool (Helm warns and tries the next).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonBool {
    /// The chart path of the dependency (`parentchart.subchart1`).
    pub path: String,
    /// The condition path (`subchart1.enabled`).
    pub condition: String,
    /// The dependency entry's 1-based position in its chart's list.
    pub index: usize,
}

/// What dependency processing decided beyond the chart it leaves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Processed {
    pub pruned: Vec<Pruned>,
    pub non_bool: Vec<NonBool>,
}

/// Processes `chart`'s dependencies with the user's values; says what was pruned.
pub fn process(chart: &mut Chart, user: &Table) -> Result<Processed, CoalesceError> {
    let mut out = Processed::default();
    let name = chart.name.clone();
    process_enabled(chart, user, "", &name, &mut out)?;
    process_import_values(chart)?;
    Ok(out)
}

/// `IsCompatibleRange`.
fn compatible(constraint: &str, version: &str) -> bool {
    crate::template::semver_satisfies(constraint, version).unwrap_or(false)
}

fn process_enabled(
    chart: &mut Chart,
    v: &Table,
    path: &str,
    chart_path: &str,
    out: &mut Processed,
) -> Result<(), CoalesceError> {
    if chart.requirements.is_empty() {
        return Ok(());
    }
    // Loaded charts no entry asks for stay; each entry takes the first compatible chart of
    // its name, renamed to its alias.
    let mut kept: Vec<Chart> = chart
        .dependencies
        .iter()
        .filter(|c| {
            !chart
                .requirements
                .iter()
                .any(|r| r.name == c.name && compatible(&r.version, &c.version()))
        })
        .cloned()
        .collect();
    for req in &mut chart.requirements {
        if let Some(found) = chart
            .dependencies
            .iter()
            .find(|c| c.name == req.name && compatible(&req.version, &c.version()))
        {
            let mut copy = found.clone();
            if !req.alias.is_empty() {
                copy.name = req.alias.clone();
                copy.metadata
                    .insert("name".into(), Value::str(req.alias.as_str()));
            }
            kept.push(copy);
        }
        if !req.alias.is_empty() {
            req.name = req.alias.clone();
        }
    }
    chart.dependencies = kept;
    // Read only, for conditions and tags.
    let cvals = values::coalesce_values_for(chart, v, values::Copies::Shared)?;
    let mut enabled: Vec<(bool, Option<String>)> = chart
        .requirements
        .iter()
        .map(|r| tags_enable(r, &cvals))
        .collect();
    for (r, state) in chart.requirements.iter().zip(enabled.iter_mut()) {
        let (decided, non_bool) = condition(r, &cvals, path);
        if let Some(c) = decided {
            *state = c;
        }
        out.non_bool
            .extend(non_bool.into_iter().map(|condition| NonBool {
                path: format!("{chart_path}.{}", r.name),
                condition,
                index: r.index,
            }));
    }
    // Disabled charts go by name (alias), from both lists.
    let mut removed = Vec::new();
    for (r, (on, reason)) in chart.requirements.iter().zip(enabled) {
        if !on {
            out.pruned.push(Pruned {
                path: format!("{chart_path}.{}", r.name),
                reason: reason.unwrap_or_default(),
                index: r.index,
            });
            removed.push(r.name.clone());
        }
    }
    chart.dependencies.retain(|c| !removed.contains(&c.name));
    chart.requirements.retain(|r| !removed.contains(&r.name));
    for sub in &mut chart.dependencies {
        let subpath = format!("{path}{}.", sub.name);
        let sub_chart_path = format!("{chart_path}.{}", sub.name);
        process_enabled(sub, &cvals, &subpath, &sub_chart_path, out)?;
    }
    Ok(())
}

/// `processDependencyTags`: any true tag enables, else any false tag disables.
fn tags_enable(r: &Dependency, cvals: &Table) -> (bool, Option<String>) {
    let Some(Value::Map(tags)) = values::value_at(cvals, "tags") else {
        return (true, None);
    };
    let (mut yes, mut no) = (None, None);
    for t in &r.tags {
        match tags.get(t) {
            Some(Value::Bool(true)) => yes = yes.or(Some(t.clone())),
            Some(Value::Bool(false)) => no = no.or(Some(t.clone())),
            _ => {}
        }
    }
    match (yes, no) {
        (None, Some(t)) => (false, Some(format!("tags.{t}=false"))),
        _ => (true, None),
    }
}

/// `processDependencyConditions`: the first path holding a bool decides; the paths before it
/// that hold something else are returned (Helm warns about each).
fn condition(
    r: &Dependency,
    cvals: &Table,
    path: &str,
) -> (Option<(bool, Option<String>)>, Vec<String>) {
    let mut non_bool = Vec::new();
    for c in r.condition.trim().split(',') {
        if c.is_empty() {
            continue;
        }
        match values::value_at(cvals, &format!("{path}{c}")) {
            Some(Value::Bool(b)) => {
                let reason = (!b).then(|| format!("condition {c}=false"));
                return (Some((b, reason)), non_bool);
            }
            // A missing key or a table is no value to Helm's PathValue (a null is one).
            None | Some(Value::Map(_)) => {}
            Some(_) => non_bool.push(c.to_string()),
        }
    }
    (None, non_bool)
}

/// `processDependencyImportValues`: children first.
fn process_import_values(chart: &mut Chart) -> Result<(), CoalesceError> {
    for sub in &mut chart.dependencies {
        process_import_values(sub)?;
    }
    if chart.requirements.is_empty() {
        return Ok(());
    }
    // What becomes the chart's values, copied by the render's coalesce before any template
    // sees it.
    let cvals = values::merge_values_for(chart, &Table::new(), values::Copies::Shared)?;
    let mut imported = Table::new();
    for r in &mut chart.requirements {
        let mut normalised = Vec::new();
        for iv in &r.import_values {
            let (child, parent) = iv.child_parent();
            normalised.push(ImportValue::Map {
                child: child.clone(),
                parent: parent.clone(),
            });
            // A missing table is skipped (Helm warns).
            if let Some(t) = values::table_at_shared(&cvals, &format!("{}.{child}", r.name)) {
                imported = values::merge_tables_shared(imported, &values::path_to_map(&parent, t));
            }
        }
        r.import_values = normalised;
    }
    chart.values = Value::map(values::merge_tables_shared(cvals, &imported));
    Ok(())
}

/// The chart paths of `chart`'s tree (`parentchart`, `parentchart.subchart1`, …), sorted.
pub fn chart_paths(chart: &Chart) -> Vec<String> {
    fn walk(c: &Chart, prefix: &str, out: &mut Vec<String>) {
        let path = if prefix.is_empty() {
            c.name.clone()
        } else {
            format!("{prefix}.{}", c.name)
        };
        for d in &c.dependencies {
            walk(d, &path, out);
        }
        out.push(path);
    }
    let mut out = Vec::new();
    walk(chart, "", &mut out);
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart {
        let files = [
            (
                "Chart.yaml",
                "apiVersion: v2\nname: top\nversion: 1.0.0\ndependencies:\n- name: a\n  version: 1.x\n  tags: [front]\n- name: b\n  version: 1.0.0\n  condition: b.enabled,never.there\n- name: b\n  alias: c\n  version: 1.0.0\n  condition: c.enabled\n",
            ),
            ("values.yaml", "tags:\n  front: false\nb:\n  enabled: true\nc:\n  enabled: false\n"),
            ("charts/a/Chart.yaml", "apiVersion: v2\nname: a\nversion: 1.2.0\n"),
            ("charts/b/Chart.yaml", "apiVersion: v2\nname: b\nversion: 1.0.0\n"),
        ];
        Chart::from_files(files.map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))).unwrap()
    }

    #[test]
    fn tags_and_conditions_prune_with_reasons() {
        let mut c = chart();
        let pruned = process(&mut c, &Table::new()).unwrap().pruned;
        assert_eq!(chart_paths(&c), ["top", "top.b"]);
        let reasons: Vec<(&str, &str, usize)> = pruned
            .iter()
            .map(|p| (p.path.as_str(), p.reason.as_str(), p.index))
            .collect();
        assert_eq!(
            reasons,
            [
                ("top.a", "tags.front=false", 1),
                ("top.c", "condition c.enabled=false", 3)
            ]
        );
    }

    #[test]
    fn the_users_values_decide() {
        let mut c = chart();
        let user = values::table(
            &crate::template::helm_values("tags:\n  front: true\nc:\n  enabled: true\n").unwrap(),
        )
        .unwrap();
        process(&mut c, &user).unwrap();
        assert_eq!(chart_paths(&c), ["top", "top.a", "top.b", "top.c"]);
    }

    #[test]
    fn conditions_that_are_not_bools_are_skipped_with_a_warning() {
        let mut c = chart();
        let user = values::table(
            &crate::template::helm_values("b:\n  enabled: \"no\"\nnever:\n  there: false\n")
                .unwrap(),
        )
        .unwrap();
        let processed = process(&mut c, &user).unwrap();
        assert_eq!(
            processed.non_bool,
            [NonBool {
                path: "top.b".into(),
                condition: "b.enabled".into(),
                index: 2
            }]
        );
        // The next path decides.
        assert!(processed
            .pruned
            .iter()
            .any(|p| p.path == "top.b" && p.reason == "condition never.there=false"));
    }

    #[test]
    fn semver_ranges_match() {
        assert!(super::compatible("0.1.0", "0.1.0"));
        assert!(super::compatible("^1.2.0", "1.4.0"));
        assert!(!super::compatible("~1.2.0", "1.4.0"));
    }
}
