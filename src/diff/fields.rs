//! Field-level diff of two objects. Lists of objects are matched by a merge key (containers and
//! env by `name`, ports by `containerPort`/`port`, volume mounts by `mountPath`…), so a
//! reordered list is no change and a changed container shows as
//! `spec.template.spec.containers[name=app].image`.

use super::FieldChange;
use serde_json::Value;

/// Keys that identify list items, tried in order; the first one present and unique in every
/// item of both lists is used.
const LIST_KEYS: &[&str] = &[
    "name",
    "containerPort",
    "mountPath",
    "devicePath",
    "port",
    "ip",
    "topologyKey",
    "type",
];

/// The changes from `old` to `new`, in a stable order.
pub fn diff_values(old: &Value, new: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk("", old, new, &mut out);
    out
}

fn push_key(path: &str, key: &str) -> String {
    let simple = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if simple {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    } else {
        format!("{path}[{}]", serde_json::to_string(key).unwrap_or_default())
    }
}

fn walk(path: &str, old: &Value, new: &Value, out: &mut Vec<FieldChange>) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = push_key(path, k);
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => walk(&p, x, y, out),
                    (x, y) => out.push(FieldChange {
                        path: p,
                        old: x.cloned(),
                        new: y.cloned(),
                    }),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => diff_lists(path, a, b, out),
        _ => out.push(FieldChange {
            path: path.to_string(),
            old: Some(old.clone()),
            new: Some(new.clone()),
        }),
    }
}

fn item_key<'a>(item: &'a Value, key: &str) -> Option<&'a Value> {
    item.as_object()?
        .get(key)
        .filter(|v| v.is_string() || v.is_number())
}

fn list_key(a: &[Value], b: &[Value]) -> Option<&'static str> {
    LIST_KEYS.iter().copied().find(|key| {
        [a, b].iter().all(|items| {
            let mut seen = std::collections::HashSet::new();
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| item_key(i, key).is_some_and(|v| seen.insert(v.to_string())))
        })
    })
}

fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn diff_lists(path: &str, a: &[Value], b: &[Value], out: &mut Vec<FieldChange>) {
    if let Some(key) = list_key(a, b) {
        let find = |items: &[Value], v: &Value| {
            items.iter().find(|i| item_key(i, key) == Some(v)).cloned()
        };
        let mut seen = Vec::new();
        for item in a.iter().chain(b) {
            let Some(k) = item_key(item, key) else {
                continue;
            };
            if seen.contains(&k) {
                continue;
            }
            seen.push(k);
            let p = format!("{path}[{key}={}]", key_text(k));
            match (find(a, k), find(b, k)) {
                (Some(x), Some(y)) => walk(&p, &x, &y, out),
                (x, y) => out.push(FieldChange {
                    path: p,
                    old: x,
                    new: y,
                }),
            }
        }
        return;
    }
    let all_scalars = a.iter().chain(b).all(|v| !v.is_object() && !v.is_array());
    if all_scalars || a.len() != b.len() {
        out.push(FieldChange {
            path: path.to_string(),
            old: Some(Value::Array(a.to_vec())),
            new: Some(Value::Array(b.to_vec())),
        });
        return;
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        walk(&format!("{path}[{i}]"), x, y, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(c: &[FieldChange]) -> Vec<&str> {
        c.iter().map(|c| c.path.as_str()).collect()
    }

    #[test]
    fn scalar_and_nested_changes() {
        let c = diff_values(
            &json!({"spec": {"replicas": 2, "x": 1}, "metadata": {"labels": {"app.kubernetes.io/name": "a"}}}),
            &json!({"spec": {"replicas": 3}, "metadata": {"labels": {"app.kubernetes.io/name": "b"}}}),
        );
        assert_eq!(
            paths(&c),
            [
                "metadata.labels[\"app.kubernetes.io/name\"]",
                "spec.replicas",
                "spec.x"
            ]
        );
        assert_eq!(c[1].old, Some(json!(2)));
        assert_eq!(c[1].new, Some(json!(3)));
        assert_eq!(c[2].new, None);
    }

    #[test]
    fn keyed_lists_ignore_order() {
        let a = json!({"c": [{"name": "app", "image": "a:1"}, {"name": "side", "image": "s:1"}]});
        let b = json!({"c": [{"name": "side", "image": "s:1"}, {"name": "app", "image": "a:2"}]});
        let c = diff_values(&a, &b);
        assert_eq!(paths(&c), ["c[name=app].image"]);
        let b2 = json!({"c": [{"name": "app", "image": "a:1"}]});
        let c = diff_values(&a, &b2);
        assert_eq!(paths(&c), ["c[name=side]"]);
        assert!(c[0].new.is_none());
    }

    #[test]
    fn ports_and_scalar_lists() {
        let a = json!({"ports": [{"containerPort": 80, "protocol": "TCP"}], "args": ["a", "b"]});
        let b = json!({"ports": [{"containerPort": 80, "protocol": "UDP"}], "args": ["a"]});
        assert_eq!(
            paths(&diff_values(&a, &b)),
            ["args", "ports[containerPort=80].protocol"]
        );
    }
}
