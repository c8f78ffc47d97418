//! A chart's dependency tree as `kdelta tree` prints it: every subchart the chart declares (or
//! has in `charts/` without declaring), enabled or pruned with the reason, built from the chart
//! as loaded and what dependency processing pruned.

use super::chart::{Chart, Dependency};
use super::deps::{NonBool, Pruned};
use serde::Serialize;

/// One chart of the tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Node {
    /// The name the chart renders under: its alias, or its name.
    pub name: String,
    /// `Chart.yaml`'s name (the dependency entry's, when the chart is missing).
    pub chart: String,
    /// The loaded chart's version; the entry's version constraint when it is missing.
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// The dependency entry's `repository`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub repository: String,
    #[serde(flatten)]
    pub state: State,
    /// Where the chart was loaded from, relative to the top chart (empty for it).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// The dependency entry that declares it: the file relative to the top chart and the
    /// entry's 1-based position (none for the top chart or an undeclared `charts/` entry).
    #[serde(skip)]
    pub declared_in: Option<(String, usize)>,
    /// That entry in the repository: file, line and column (filled in by the engine, which
    /// reads the files).
    #[serde(skip)]
    pub entry: Option<(String, u32, u32)>,
    /// Condition paths of its entry that held something other than a bool (Helm warns).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub non_bool: Vec<String>,
    /// The entry's version constraint, when the chart of its name in `charts/` is outside it
    /// (Helm renders that chart anyway, under its own name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside_constraint: Option<String>,
    pub children: Vec<Node>,
}

/// Whether a chart renders.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "reason", rename_all = "kebab-case")]
pub enum State {
    Enabled,
    /// Left out: `tags.back-end=false`, `condition subchart1.enabled=false`,
    /// `parent subchart2 pruned`.
    Pruned(String),
    /// Declared but no chart of its name is in `charts/` (Helm's `CheckDependencies` matches
    /// by name only).
    Missing(String),
}

impl Node {
    /// Every node below this one, depth first, with its chart path (`top.sub.inner`).
    pub fn paths(&self) -> Vec<(String, &Node)> {
        fn walk<'a>(n: &'a Node, path: &str, out: &mut Vec<(String, &'a Node)>) {
            for c in &n.children {
                let p = format!("{path}.{}", c.name);
                out.push((p.clone(), c));
                walk(c, &p, out);
            }
        }
        let mut out = Vec::new();
        walk(self, &self.name, &mut out);
        out
    }

    /// Every node below this one, mutably, depth first.
    pub fn for_each_mut(&mut self, f: &mut impl FnMut(&mut Node)) {
        for c in &mut self.children {
            f(c);
            c.for_each_mut(f);
        }
    }

    /// Every node below this one, depth first, with its depth (1 for children).
    pub fn descendants(&self) -> Vec<(usize, &Node)> {
        fn walk<'a>(n: &'a Node, depth: usize, out: &mut Vec<(usize, &'a Node)>) {
            for c in &n.children {
                out.push((depth, c));
                walk(c, depth + 1, out);
            }
        }
        let mut out = Vec::new();
        walk(self, 1, &mut out);
        out
    }
}

impl Node {
    /// The tree drawn for a terminal: one line per chart, `name version`, the chart's own
    /// name when an alias renames it, and why it does not render.
    pub fn to_text(&self) -> String {
        fn line(n: &Node) -> String {
            let mut s = format!("{} {}", n.name, n.version);
            if n.alias.is_some() {
                s.push_str(&format!(" (alias of {})", n.chart));
            }
            if let Some(c) = &n.outside_constraint {
                s.push_str(&format!(" (outside {c})"));
            }
            match &n.state {
                State::Enabled => {}
                State::Pruned(reason) => s.push_str(&format!("  pruned: {reason}")),
                State::Missing(reason) => {
                    s.push_str(&format!("  missing: {reason}"));
                    if !n.repository.is_empty() {
                        s.push_str(&format!(" ({})", n.repository));
                    }
                }
            }
            s
        }
        fn walk(n: &Node, indent: &str, out: &mut String) {
            for (i, c) in n.children.iter().enumerate() {
                let last = i + 1 == n.children.len();
                out.push_str(&format!(
                    "{indent}{}{}\n",
                    if last { "└── " } else { "├── " },
                    line(c)
                ));
                walk(
                    c,
                    &format!("{indent}{}", if last { "    " } else { "│   " }),
                    out,
                );
            }
        }
        let mut out = format!("{}\n", line(self));
        walk(self, "", &mut out);
        out
    }
}

/// The tree of `chart` (as loaded, before dependency processing) given what processing
/// pruned (chart paths such as `top.sub`).
pub fn build(chart: &Chart, pruned: &[Pruned], non_bool: &[NonBool]) -> Node {
    let mut top = node(chart, chart.name.clone(), None, None);
    top.children = children(chart, &chart.name, pruned, None);
    // Each warning belongs to the node of its chart path.
    for w in non_bool {
        if let Some(n) = find_mut(&mut top, &w.path) {
            n.non_bool.push(w.condition.clone());
        }
    }
    top
}

/// The node at a chart path (`top.sub.inner`).
fn find_mut<'a>(top: &'a mut Node, path: &str) -> Option<&'a mut Node> {
    let mut parts = path.split('.');
    if parts.next() != Some(top.name.as_str()) {
        return None;
    }
    let mut node = top;
    for part in parts {
        node = node.children.iter_mut().find(|c| c.name == part)?;
    }
    Some(node)
}

fn node(
    chart: &Chart,
    name: String,
    alias: Option<String>,
    declared: Option<(String, usize)>,
) -> Node {
    Node {
        name,
        chart: chart.name.clone(),
        version: chart.version(),
        alias,
        repository: String::new(),
        state: State::Enabled,
        source: chart.source.clone(),
        declared_in: declared,
        entry: None,
        non_bool: Vec::new(),
        outside_constraint: None,
        children: Vec::new(),
    }
}

/// The children of `chart` at chart path `path`; `pruned_parent` names the pruned ancestor.
fn children(
    chart: &Chart,
    path: &str,
    pruned: &[Pruned],
    pruned_parent: Option<&str>,
) -> Vec<Node> {
    let file = if chart.source.is_empty() {
        chart.requirements_file.to_string()
    } else {
        format!("{}/{}", chart.source, chart.requirements_file)
    };
    let mut out = Vec::new();
    let mut kept_outside: Vec<&Chart> = Vec::new();
    for r in &chart.requirements {
        let name = if r.alias.is_empty() {
            r.name.clone()
        } else {
            r.alias.clone()
        };
        let declared = Some((file.clone(), r.index));
        let Some((found, outside)) = taken(chart, r) else {
            out.push(Node {
                name,
                chart: r.name.clone(),
                version: r.version.clone(),
                alias: (!r.alias.is_empty()).then(|| r.alias.clone()),
                repository: r.repository.clone(),
                state: State::Missing("not found in charts/".to_string()),
                source: String::new(),
                declared_in: declared,
                entry: None,
                non_bool: Vec::new(),
                outside_constraint: None,
                children: Vec::new(),
            });
            continue;
        };
        // A chart outside the constraint keeps its own name: Helm applies no alias to it, and
        // renders it once however many entries name it.
        if outside {
            if kept_outside.iter().any(|k| std::ptr::eq(*k, found)) {
                continue;
            }
            kept_outside.push(found);
        }
        let (name, alias) = match outside {
            true => (found.name.clone(), None),
            false => (name, (!r.alias.is_empty()).then(|| r.alias.clone())),
        };
        let sub_path = format!("{path}.{name}");
        let mut n = node(found, name.clone(), alias, declared);
        n.outside_constraint = outside.then(|| r.version.clone());
        n.state = match (pruned_parent, pruned.iter().find(|p| p.path == sub_path)) {
            (Some(parent), _) => State::Pruned(format!("parent {parent} pruned")),
            (None, Some(p)) => State::Pruned(p.reason.clone()),
            (None, None) => State::Enabled,
        };
        let below = match &n.state {
            State::Pruned(_) => Some(pruned_parent.unwrap_or(&name)),
            _ => None,
        };
        n.children = children(found, &sub_path, pruned, below);
        out.push(n);
    }
    // Charts in `charts/` that no entry asks for render as they are.
    for d in &chart.dependencies {
        if chart
            .requirements
            .iter()
            .any(|r| taken(chart, r).is_some_and(|(m, _)| std::ptr::eq(m, d)))
        {
            continue;
        }
        let sub_path = format!("{path}.{}", d.name);
        let mut n = node(d, d.name.clone(), None, None);
        if let Some(parent) = pruned_parent {
            n.state = State::Pruned(format!("parent {parent} pruned"));
        }
        let below = pruned_parent.map(|p| p.to_string());
        n.children = children(d, &sub_path, pruned, below.as_deref());
        out.push(n);
    }
    out
}

/// The loaded chart an entry takes: the first of its name whose version the entry accepts,
/// else (`true`) the first of its name, which Helm renders although the entry rejects its
/// version (`helm template` checks dependencies by name; only `helm dependency build` looks
/// at versions).
fn taken<'a>(chart: &'a Chart, r: &Dependency) -> Option<(&'a Chart, bool)> {
    let compatible =
        |c: &&Chart| crate::template::semver_satisfies(&r.version, &c.version()).unwrap_or(false);
    let named = || chart.dependencies.iter().filter(|c| c.name == r.name);
    named()
        .find(compatible)
        .map(|c| (c, false))
        .or_else(|| named().next().map(|c| (c, true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(files: &[(&str, &str)]) -> Chart {
        Chart::from_files(
            files
                .iter()
                .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())),
        )
        .expect("a chart")
    }

    #[test]
    fn pruned_parents_take_their_subtree_and_missing_entries_say_why() {
        let c = chart(&[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: top\nversion: 1.0.0\ndependencies:\n- name: a\n  version: 1.x\n  condition: a.enabled\n- name: b\n  version: 1.x\n  alias: bee\n- name: gone\n  version: 2.0.0\n  repository: https://charts.example.com\n- name: old\n  version: '>=2'\n",
            ),
            (
                "charts/a/Chart.yaml",
                "apiVersion: v2\nname: a\nversion: 1.2.0\ndependencies:\n- name: inner\n  version: '*'\n",
            ),
            ("charts/a/charts/inner/Chart.yaml", "apiVersion: v2\nname: inner\nversion: 0.1.0\n"),
            ("charts/b/Chart.yaml", "apiVersion: v2\nname: b\nversion: 1.0.0\n"),
            ("charts/old/Chart.yaml", "apiVersion: v2\nname: old\nversion: 1.0.0\n"),
        ]);
        let pruned = vec![Pruned {
            path: "top.a".into(),
            reason: "condition a.enabled=false".into(),
            index: 1,
        }];
        let t = build(&c, &pruned, &[]);
        let got: Vec<(usize, String, State)> = t
            .descendants()
            .into_iter()
            .map(|(d, n)| (d, n.name.clone(), n.state.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    1,
                    "a".into(),
                    State::Pruned("condition a.enabled=false".into())
                ),
                (2, "inner".into(), State::Pruned("parent a pruned".into())),
                (1, "bee".into(), State::Enabled),
                (
                    1,
                    "gone".into(),
                    State::Missing("not found in charts/".into())
                ),
                // As in Helm, a chart of the entry's name renders whatever its version.
                (1, "old".into(), State::Enabled),
            ]
        );
        assert_eq!(
            t.to_text(),
            "top 1.0.0\n\
             ├── a 1.2.0  pruned: condition a.enabled=false\n\
             │   └── inner 0.1.0  pruned: parent a pruned\n\
             ├── bee 1.0.0 (alias of b)\n\
             ├── gone 2.0.0  missing: not found in charts/ (https://charts.example.com)\n\
             └── old 1.0.0 (outside >=2)\n"
        );
        let a = &t.children[0];
        assert_eq!(a.source, "charts/a");
        assert_eq!(a.declared_in, Some(("Chart.yaml".into(), 1)));
        assert_eq!(
            a.children[0].declared_in,
            Some(("charts/a/Chart.yaml".into(), 1))
        );
        assert_eq!(t.children[1].alias.as_deref(), Some("bee"));
        assert_eq!(t.children[3].outside_constraint.as_deref(), Some(">=2"));
        assert_eq!(t.children[3].declared_in, Some(("Chart.yaml".into(), 4)));
    }
}
