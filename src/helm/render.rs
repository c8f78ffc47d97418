//! `helm template` of one chart: values merged and coalesced as Helm does, every template
//! parsed into one set in Helm's order (deeper paths first, reverse lexical order, so a
//! parent's `define` wins), each manifest template executed with Helm's top-level dot, and
//! the output stage of [`super::output`]. Charts with subcharts are refused for now.

use super::chart::Chart;
use super::objects::{self, KubeVersion};
use super::output::{self, OutputOptions};
use crate::template::{self, Funcs, MissingKey, TemplateSet, Value};
use std::collections::BTreeMap;

/// `helm template`'s options.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// The release name (`helm template NAME CHART`; `release-name` by default).
    pub release_name: String,
    /// `-n/--namespace`.
    pub namespace: String,
    /// `--is-upgrade`.
    pub is_upgrade: bool,
    /// `--kube-version`.
    pub kube_version: Option<String>,
    /// `-a/--api-versions`, added to the defaults.
    pub api_versions: Vec<String>,
    /// `--include-crds`.
    pub include_crds: bool,
    pub output: OutputOptions,
    /// The user's values (`-f` files, read as values files are), later ones winning.
    pub values: Vec<Value>,
    /// Stack bytes templates may use (see [`template::Options::max_stack`]).
    pub template_stack: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            is_upgrade: false,
            kube_version: None,
            api_versions: Vec::new(),
            include_crds: false,
            output: OutputOptions::default(),
            values: Vec::new(),
            template_stack: template::Options::default().max_stack,
        }
    }
}

/// Renders `chart` as `helm template` does: its stdout, or the first line of the error it
/// prints after `Error: `.
pub fn render_chart(chart: &Chart, options: &RenderOptions) -> Result<String, String> {
    if !chart.subcharts.is_empty() {
        return Err(format!(
            "{}: charts with subcharts ({}) are not rendered by kdelta yet",
            chart.name,
            chart.subcharts.join(", ")
        ));
    }
    let kube = match &options.kube_version {
        None => KubeVersion::parse(objects::DEFAULT_KUBE_VERSION).expect("a valid default"),
        Some(v) => KubeVersion::parse(v)
            .ok_or_else(|| format!("invalid kube version '{v}': invalid semantic version"))?,
    };
    let mut api_versions: Vec<String> = objects::DEFAULT_API_VERSIONS
        .iter()
        .map(|s| s.to_string())
        .collect();
    api_versions.extend(options.api_versions.iter().cloned());

    let mut user = BTreeMap::new();
    for v in &options.values {
        if let Value::Map(m) = v {
            user = merge_maps(user, m.read().clone());
        }
    }
    let values = coalesce(user, &chart.values);

    let release = map([
        ("Name", Value::str(options.release_name.as_str())),
        ("Namespace", Value::str(options.namespace.as_str())),
        ("IsUpgrade", Value::Bool(options.is_upgrade)),
        ("IsInstall", Value::Bool(!options.is_upgrade)),
        ("Revision", Value::Int(1)),
        ("Service", Value::str("Helm")),
    ]);
    let top = BTreeMap::from([
        (
            "Values".to_string(),
            template::chart_values(Value::map(values)),
        ),
        ("Release".to_string(), release),
        ("Chart".to_string(), chart.dot_value(true)),
        (
            "Capabilities".to_string(),
            objects::capabilities(kube, api_versions),
        ),
        ("Files".to_string(), objects::files_value(&chart.files)),
        ("Subcharts".to_string(), Value::map(BTreeMap::new())),
    ]);

    let mut set = TemplateSet::new(
        Funcs::helm(),
        template::Options {
            missing_key: MissingKey::Zero,
            root_name: "gotpl".into(),
            max_stack: options.template_stack,
            ..template::Options::default()
        },
    );
    let names = parse_order(
        chart
            .templates
            .keys()
            .map(|p| format!("{}/{p}", chart.name)),
    );
    for name in &names {
        let path = &name[chart.name.len() + 1..];
        set.parse(name, &chart.templates[path])
            .map_err(|e| parse_error(name, &e.to_string()))?;
    }
    let base_path = format!("{}/templates", chart.name);
    let mut rendered = Vec::new();
    if !chart.is_library() {
        for name in &names {
            if name.rsplit('/').next().unwrap_or_default().starts_with('_') {
                continue;
            }
            let mut dot = top.clone();
            dot.insert(
                "Template".to_string(),
                template::chart_values(map([
                    ("Name", Value::str(name.as_str())),
                    ("BasePath", Value::str(base_path.as_str())),
                ])),
            );
            let text = set
                .execute(name, &template::chart_values(Value::map(dot)))
                .map_err(|e| template::helm_error(&e.to_string()))?;
            rendered.push((name.clone(), text.replace("<no value>", "")));
        }
    }
    rendered.retain(|(name, _)| !name.ends_with("NOTES.txt"));
    let manifests = output::sort_manifests(&rendered)?;
    let crds: Vec<(String, String)> = if options.include_crds {
        chart
            .crds
            .iter()
            .map(|(p, t)| (format!("{}/{p}", chart.name), t.clone()))
            .collect()
    } else {
        Vec::new()
    };
    Ok(output::print(&crds, &manifests, &options.output))
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::map(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Helm's `sortTemplates`: more path segments first, then reverse lexical order.
fn parse_order(names: impl Iterator<Item = String>) -> Vec<String> {
    let mut names: Vec<String> = names.collect();
    names.sort_by(|a, b| {
        let depth = |s: &str| s.matches('/').count();
        depth(b).cmp(&depth(a)).then_with(|| b.cmp(a))
    });
    names
}

/// Helm's `cleanupParseError`: `parse error at (FILE:LINE): MESSAGE`, the message being the
/// last `: ` part of Go's error.
fn parse_error(file: &str, go: &str) -> String {
    let first = go.lines().next().unwrap_or_default();
    let tokens: Vec<&str> = first.split(": ").collect();
    if tokens.len() < 2 {
        return format!("parse error in ({file}): {first}");
    }
    format!(
        "parse error at ({}): {}",
        tokens[1],
        tokens[tokens.len() - 1]
    )
}

/// Helm's `mergeMaps` for values files: later maps merged into earlier ones, key by key.
fn merge_maps(
    mut base: BTreeMap<String, Value>,
    over: BTreeMap<String, Value>,
) -> BTreeMap<String, Value> {
    for (k, v) in over {
        if let (Value::Map(new), Some(Value::Map(old))) = (&v, base.get(&k)) {
            let merged = merge_maps(old.read().clone(), new.read().clone());
            base.insert(k, Value::map(merged));
            continue;
        }
        base.insert(k, v);
    }
    base
}

/// Helm's `coalesceValues` for a chart without dependencies: the user's values win, a user
/// `null` deletes the chart's key, tables merge recursively.
fn coalesce(mut user: BTreeMap<String, Value>, chart: &Value) -> BTreeMap<String, Value> {
    let Value::Map(chart) = chart else {
        return user;
    };
    for (key, default) in chart.entries() {
        match user.get(&key) {
            None => {
                user.insert(key, deep_copy(&default));
            }
            Some(Value::Nil) => {
                user.remove(&key);
            }
            Some(Value::Map(dest)) => {
                if let Value::Map(_) = default {
                    let merged = coalesce_tables(dest.read().clone(), &default);
                    user.insert(key, Value::map(merged));
                }
            }
            Some(_) => {}
        }
    }
    user
}

/// `coalesceTablesFullKey` without merge: `dst` wins; a `null` in `dst` deletes.
fn coalesce_tables(mut dst: BTreeMap<String, Value>, src: &Value) -> BTreeMap<String, Value> {
    let Value::Map(src) = src else {
        return dst;
    };
    for (key, val) in src.entries() {
        match dst.get(&key) {
            Some(Value::Nil) => {
                dst.remove(&key);
            }
            None => {
                dst.insert(key, deep_copy(&val));
            }
            Some(Value::Map(d)) if matches!(val, Value::Map(_)) => {
                let merged = coalesce_tables(d.read().clone(), &val);
                dst.insert(key, Value::map(merged));
            }
            Some(_) => {}
        }
    }
    dst
}

/// A copy that shares no map with the chart's values (templates may change maps in place).
fn deep_copy(v: &Value) -> Value {
    match v {
        Value::Map(m) => Value::map(
            m.entries()
                .into_iter()
                .map(|(k, v)| (k, deep_copy(&v)))
                .collect(),
        ),
        Value::List(l) => Value::list(l.iter().map(deep_copy).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> BTreeMap<String, Value> {
        match template::helm_values(text).unwrap() {
            Value::Map(m) => m.read().clone(),
            _ => BTreeMap::new(),
        }
    }

    #[test]
    fn user_values_win_and_null_deletes() {
        let chart = Value::map(values("a: 1\nb: {c: 2, d: 3}\ne: 4\n"));
        let out = coalesce(values("b: {c: 9, d: null}\ne: null\nf: x\n"), &chart);
        let text = template::sprint(&[Value::map(out)]);
        assert_eq!(text, "map[a:1 b:map[c:9] f:x]");
    }

    #[test]
    fn templates_parse_deepest_first_then_reverse_order() {
        let order = parse_order(
            [
                "c/templates/a.yaml",
                "c/templates/x/b.yaml",
                "c/templates/z.yaml",
            ]
            .into_iter()
            .map(String::from),
        );
        assert_eq!(
            order,
            [
                "c/templates/x/b.yaml",
                "c/templates/z.yaml",
                "c/templates/a.yaml"
            ]
        );
    }

    #[test]
    fn parse_errors_are_worded_as_helm_does() {
        assert_eq!(
            parse_error(
                "c/templates/a.yaml",
                "template: c/templates/a.yaml:1: function \"x\" not defined"
            ),
            "parse error at (c/templates/a.yaml:1): function \"x\" not defined"
        );
    }
}
