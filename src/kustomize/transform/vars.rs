//! vars (deprecated): `$(NAME)` in the varReference fields is replaced by a field of the object
//! the var points at. Bound per kustomization, resolved once at the top of the build.

use super::super::fieldspec::{apply, CreateKind, FieldSpec, FieldSpecError};
use super::super::kid::{Gvk, KId};
use super::super::pathmatch;
use super::super::resmap::ResMap;
use super::super::types::Var;
use crate::yaml::{
    plain_tag, resolve_scalar, Dialect, Node, NodeKind, Resolved, ScalarStyle, Span,
};
use std::collections::BTreeMap;

/// Why a var cannot be bound to the object it names (kustomize's `MergeVars`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("found {matches} resId matches for var {var} (unable to disambiguate)")]
pub struct BindError {
    /// How many objects match the var's target.
    pub matches: usize,
    /// The var as kustomize prints it ([`go_var`]).
    pub var: String,
}

/// Why the vars cannot be resolved or substituted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VarError {
    /// No object was bound to the var.
    #[error("var '{var}' cannot be mapped to a field in the set of known resources")]
    Unmapped {
        /// The var as kustomize prints it ([`go_var`]).
        var: String,
    },
    /// The object has no such field.
    #[error("field specified in var '{name}' not found in corresponding resource")]
    FieldNotFound { name: String },
    /// A varReference field holds what vars cannot be substituted into.
    #[error(transparent)]
    Substitute(#[from] FieldSpecError<SubstituteError>),
}

/// A varReference field whose value is not a string or a map or list of strings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubstituteError {
    /// A map key that is not a string.
    #[error("invalid map key: value='{key}'")]
    MapKey { key: String, span: Span },
    /// A list item that is not a string.
    #[error("invalid value type expect a string")]
    NotAString { span: Span },
}

fn objref_id(v: &Var) -> KId {
    let o = &v.objref;
    let (mut group, mut version) = (o.group.clone(), o.version.clone());
    if !o.api_version.is_empty() {
        match o.api_version.split_once('/') {
            Some((g, ver)) => {
                group = g.to_string();
                version = ver.to_string();
            }
            None => version = o.api_version.clone(),
        }
    }
    KId {
        gvk: Gvk {
            group,
            version,
            kind: o.kind.clone(),
            cluster_scoped: false,
        },
        name: o.name.clone(),
        namespace: o.namespace.clone(),
    }
}

/// Go's `%v` of a kustomize `types.Var`, as its errors print one: `{NAME KIND.VERSION.GROUP
/// {FIELDPATH}}` (the target prints as its Gvk alone). `resolved` is the var after
/// `MergeVars` read its target (`Target.GVK()` fills the version and group from
/// `apiVersion` into the var it has); before, they are the fields as written.
pub fn go_var(v: &Var, resolved: bool, field_path: &str) -> String {
    let (group, version) = if resolved {
        let id = objref_id(v);
        (id.gvk.group, id.gvk.version)
    } else {
        (v.objref.group.clone(), v.objref.version.clone())
    };
    let or = |s: String, none: &str| if s.is_empty() { none.to_string() } else { s };
    format!(
        "{{{} {}.{}.{} {{{field_path}}}}}",
        v.name,
        or(v.objref.kind.clone(), "[noKind]"),
        or(version, "[noVer]"),
        or(group, "[noGrp]"),
    )
}

/// kustomize `MergeVars`: remembers on the object a var refers to that it is referred to.
pub fn bind(rm: &mut ResMap, v: &Var) -> Result<(), BindError> {
    let target = objref_id(v);
    let matched = rm.matching_any_id(|id| {
        if target.namespace.is_empty() {
            id.gvkn_equals(&target)
        } else {
            id.equals(&target)
        }
    });
    match matched.as_slice() {
        [] => Ok(()),
        [i] => {
            rm.list[*i].ref_var_names.push(v.name.clone());
            Ok(())
        }
        _ => Err(BindError {
            matches: matched.len(),
            var: go_var(v, true, &v.fieldref.field_path),
        }),
    }
}

/// A var's value, typed as kyaml's `GetFieldValue` types it.
#[derive(Clone, Debug, PartialEq)]
enum VarValue {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl VarValue {
    /// Go's `%v`.
    fn text(&self) -> String {
        match self {
            VarValue::Str(s) => s.clone(),
            VarValue::Int(i) => i.to_string(),
            VarValue::Float(f) => crate::yaml::format_g(*f),
            VarValue::Bool(b) => b.to_string(),
        }
    }
}

fn field_value(node: &Node, path: &str) -> Option<VarValue> {
    // kyaml's GetFieldValue also accepts `ports[0]` for `ports.0`.
    let mut parts = Vec::new();
    for p in pathmatch::split(path) {
        match p.strip_suffix(']').and_then(|x| x.rsplit_once('[')) {
            Some((head, idx)) if !idx.is_empty() && idx.chars().all(|c| c.is_ascii_digit()) => {
                if !head.is_empty() {
                    parts.push(head.to_string());
                }
                parts.push(idx.to_string());
            }
            _ => parts.push(p),
        }
    }
    let n = pathmatch::lookup(node, &parts).ok()??;
    let NodeKind::Scalar(s) = &n.kind else {
        return None;
    };
    Some(match resolve_scalar(s, Dialect::Yaml12) {
        Ok(Resolved::Int(i)) => VarValue::Int(i),
        Ok(Resolved::Float(f)) => VarValue::Float(f),
        Ok(Resolved::Bool(b)) => VarValue::Bool(b),
        _ => VarValue::Str(s.text.clone()),
    })
}

/// Resolves every var and substitutes `$(NAME)` in the varReference fields. Returns the names
/// of vars that were never used.
pub fn resolve(
    rm: &mut ResMap,
    vars: &[Var],
    specs: &[FieldSpec],
) -> Result<Vec<String>, VarError> {
    let mut values: BTreeMap<String, VarValue> = BTreeMap::new();
    let mut sorted: Vec<&Var> = vars.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for v in sorted {
        let path = if v.fieldref.field_path.is_empty() {
            "metadata.name"
        } else {
            &v.fieldref.field_path
        };
        let owner = rm
            .list
            .iter()
            .find(|r| r.ref_var_names.contains(&v.name))
            .ok_or_else(|| VarError::Unmapped {
                var: go_var(v, true, path),
            })?;
        let value = field_value(&owner.node, path).ok_or_else(|| VarError::FieldNotFound {
            name: v.name.clone(),
        })?;
        values.insert(v.name.clone(), value);
    }
    if values.is_empty() {
        return Ok(Vec::new());
    }
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for r in &mut rm.list {
        for fs in specs {
            apply(&mut r.node, fs, CreateKind::Nothing, &mut |n| {
                substitute(n, &values, &mut used)
            })?;
        }
    }
    Ok(values
        .keys()
        .filter(|k| !used.contains_key(*k))
        .cloned()
        .collect())
}

fn is_string_node(n: &Node) -> bool {
    match &n.kind {
        NodeKind::Scalar(s) => match s.tag.as_deref() {
            Some("!!str") => true,
            Some(_) => false,
            None => {
                s.style != ScalarStyle::Plain
                    || !n.span.is_known()
                    || plain_tag(&s.text, Dialect::Yaml12) == "!!str"
            }
        },
        _ => false,
    }
}

fn substitute(
    n: &mut Node,
    values: &BTreeMap<String, VarValue>,
    used: &mut BTreeMap<String, usize>,
) -> Result<(), SubstituteError> {
    if n.is_null() {
        return Ok(());
    }
    match &mut n.kind {
        NodeKind::Scalar(_) => {
            if is_string_node(n) {
                replace_in(n, values, used);
            }
            Ok(())
        }
        NodeKind::Map(entries) => {
            for (k, v) in entries.iter_mut() {
                if !is_string_node(k) {
                    return Err(SubstituteError::MapKey {
                        key: k.as_str().unwrap_or("").to_string(),
                        span: k.span,
                    });
                }
                if is_string_node(v) {
                    replace_in(v, values, used);
                }
            }
            Ok(())
        }
        NodeKind::Seq(items) => {
            for item in items.iter_mut() {
                if !is_string_node(item) {
                    return Err(SubstituteError::NotAString { span: item.span });
                }
                replace_in(item, values, used);
            }
            Ok(())
        }
    }
}

/// kustomize `DoReplacements` + `updateNodeValue`: a value that is exactly `$(NAME)` takes the
/// var's type; otherwise vars are expanded into the string. `$$` escapes a `$`.
fn replace_in(
    n: &mut Node,
    values: &BTreeMap<String, VarValue>,
    used: &mut BTreeMap<String, usize>,
) {
    let NodeKind::Scalar(s) = &mut n.kind else {
        return;
    };
    let input = s.text.clone();
    let mut lookup = |name: &str| -> Option<VarValue> {
        let v = values.get(name)?.clone();
        *used.entry(name.to_string()).or_default() += 1;
        Some(v)
    };
    let bytes = input.as_bytes();
    let mut out = String::new();
    let mut checkpoint = 0;
    let mut cursor = 0;
    let mut whole: Option<VarValue> = None;
    while cursor < bytes.len() {
        if bytes[cursor] == b'$' && cursor + 1 < bytes.len() {
            out.push_str(&input[checkpoint..cursor]);
            let rest = &input[cursor + 1..];
            let (read, advance) = match rest.as_bytes()[0] {
                b'$' => ("$".to_string(), 1),
                b'(' => match rest.find(')') {
                    Some(close) => {
                        let name = &rest[1..close];
                        match lookup(name) {
                            Some(v) => {
                                if input == format!("$({name})") {
                                    whole = Some(v);
                                    break;
                                }
                                (v.text(), close + 1)
                            }
                            None => (format!("$({name})"), close + 1),
                        }
                    }
                    None => ("$(".to_string(), 1),
                },
                _ => {
                    let c = rest.chars().next().unwrap_or_default();
                    (format!("${c}"), c.len_utf8())
                }
            };
            out.push_str(&read);
            cursor += advance;
            checkpoint = cursor + 1;
        }
        cursor += 1;
    }
    let (text, tag) = match whole {
        Some(VarValue::Int(i)) => (i.to_string(), "!!int"),
        Some(VarValue::Bool(b)) => (b.to_string(), "!!bool"),
        Some(VarValue::Float(f)) => (format_f(f), "!!float"),
        Some(VarValue::Str(v)) => (v, "!!str"),
        None => {
            if checkpoint <= input.len() {
                out.push_str(&input[checkpoint.min(input.len())..]);
            }
            (out, "!!str")
        }
    };
    s.text = text;
    s.tag = Some(tag.into());
    s.style = ScalarStyle::Plain;
}

/// Go `strconv.FormatFloat(f, 'f', -1, 64)`.
fn format_f(f: f64) -> String {
    let s = format!("{f}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> (String, Option<String>) {
        let mut values = BTreeMap::new();
        values.insert("SVC".to_string(), VarValue::Str("web".into()));
        values.insert("PORT".to_string(), VarValue::Int(8080));
        let mut n = Node::plain(input);
        replace_in(&mut n, &values, &mut BTreeMap::new());
        let s = n.as_scalar().unwrap();
        (s.text.clone(), s.tag.as_deref().map(String::from))
    }

    #[test]
    fn expansion() {
        assert_eq!(
            run("http://$(SVC):$(PORT)/"),
            ("http://web:8080/".into(), Some("!!str".into()))
        );
        assert_eq!(run("$(PORT)"), ("8080".into(), Some("!!int".into())));
        assert_eq!(run("$$(SVC)"), ("$(SVC)".into(), Some("!!str".into())));
        assert_eq!(run("$(NOPE) x"), ("$(NOPE) x".into(), Some("!!str".into())));
        assert_eq!(run("cost $5"), ("cost $5".into(), Some("!!str".into())));
    }
}
