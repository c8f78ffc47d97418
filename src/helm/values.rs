//! Helm's values arithmetic (`pkg/chartutil/coalesce.go`): coalescing a chart's defaults and
//! its subcharts' under the user's values (a user `null` deletes a key, tables merge, `global`
//! flows down), merging values files, and the same with `merge` on (nulls kept), which
//! dependency processing and import-values use. No map is changed in place: each step makes
//! new ones. What goes to the templates (which may write to maps) is a copy sharing no map
//! with a chart's own values; what dependency processing only reads, or hands on to be
//! copied later, shares them ([`Copies::Shared`]).

use super::chart::Chart;
use crate::template::Value;
use std::collections::BTreeMap;

/// A table of values.
pub type Table = BTreeMap<String, Value>;

/// How a coalesce takes the values it does not own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copies {
    /// Copied: the result goes to the templates, which may write to its maps.
    Deep,
    /// Shared: the result is only read, or copied before templates see it (Helm's
    /// dependency processing coalesces the whole tree's values at every level for that).
    Shared,
}

impl Copies {
    fn of(self, v: &Value) -> Value {
        match self {
            Copies::Deep => deep_copy(v),
            Copies::Shared => v.clone(),
        }
    }

    /// The table inside `v`; `None` when `v` is not a table. The map's tree is cloned as it
    /// is (a rebuild from its entries sorts and links them again), then, for a deep copy, each
    /// map and list in it copied.
    fn table(self, v: &Value) -> Option<Table> {
        let Value::Map(m) = v else {
            return None;
        };
        let mut table = m.read().clone();
        if let Copies::Deep = self {
            for v in table.values_mut() {
                if matches!(v, Value::Map(_) | Value::List(_)) {
                    *v = deep_copy(v);
                }
            }
        }
        Some(table)
    }
}

/// The table inside `v`, copied; `None` when `v` is not a table.
pub fn table(v: &Value) -> Option<Table> {
    Copies::Deep.table(v)
}

/// The entries of the table `v`, not copied: for reading a table, or taking apart one this
/// module owns.
fn entries_of(v: &Value) -> Option<Table> {
    match v {
        Value::Map(m) => Some(m.read().clone()),
        _ => None,
    }
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(_))
}

/// A copy sharing no map.
pub fn deep_copy(v: &Value) -> Value {
    match v {
        Value::Map(_) => Value::map(Copies::Deep.table(v).unwrap_or_default()),
        Value::List(l) => Value::typed_list(l.iter().map(deep_copy).collect(), l.ty),
        other => other.clone(),
    }
}

/// `mergeMaps` (values files, `--set`): `over` into `base`, tables merged key by key.
pub fn merge_maps(mut base: Table, over: Table) -> Table {
    for (k, v) in over {
        if let (Some(new), Some(old)) = (table(&v), base.get(&k).and_then(table)) {
            base.insert(k, Value::map(merge_maps(old, new)));
            continue;
        }
        base.insert(k, v);
    }
    base
}

/// `coalesceTablesFullKey`: `src` under `dst` (`dst` wins); without `merge` a `null` in `dst`
/// deletes the key.
pub fn coalesce_tables(dst: Table, src: &Table, merge: bool) -> Table {
    coalesce_tables_in(dst, src, merge, Copies::Deep)
}

fn coalesce_tables_in(mut dst: Table, src: &Table, merge: bool, copies: Copies) -> Table {
    for (key, val) in src {
        match dst.get(key) {
            Some(Value::Nil) if !merge => {
                dst.remove(key);
            }
            None => {
                dst.insert(key.clone(), copies.of(val));
            }
            Some(dv) => {
                // `dst` is owned, and `src` only read: neither needs a copy to recurse.
                if let (Some(d), Some(s)) = (entries_of(dv), entries_of(val)) {
                    dst.insert(
                        key.clone(),
                        Value::map(coalesce_tables_in(d, &s, merge, copies)),
                    );
                }
            }
        }
    }
    dst
}

/// `MergeTables`: [`coalesce_tables`] keeping nulls, sharing what it takes from `src` (for
/// dependency processing, whose values are copied before templates see them).
pub fn merge_tables_shared(dst: Table, src: &Table) -> Table {
    coalesce_tables_in(dst, src, true, Copies::Shared)
}

/// A subchart's values that are not a table (Helm's `coalesceDeps`), in Helm's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("type mismatch on {subchart}: %!t({type_name}={value})")]
pub struct CoalesceError {
    /// The chart whose values hold the subchart's key.
    pub chart: String,
    /// The subchart's name (its alias, when it has one).
    pub subchart: String,
    /// The Go type of the value found.
    pub type_name: &'static str,
    /// The value, as Go's `%v` prints it.
    pub value: String,
}

/// `coalesce`: the chart's values, then its subcharts', under `dest`.
fn coalesce(
    chart: &Chart,
    dest: Table,
    merge: bool,
    copies: Copies,
) -> Result<Table, CoalesceError> {
    let dest = coalesce_values(chart, dest, merge, copies);
    coalesce_deps(chart, dest, merge, copies)
}

/// `CoalesceValues`: the user's values over the chart's (nulls delete), taken as `copies`
/// says.
pub fn coalesce_values_for(
    chart: &Chart,
    user: &Table,
    copies: Copies,
) -> Result<Table, CoalesceError> {
    coalesce(chart, copy_table(user, copies), false, copies)
}

/// `MergeValues`: as [`coalesce_values_for`], nulls kept.
pub fn merge_values_for(
    chart: &Chart,
    user: &Table,
    copies: Copies,
) -> Result<Table, CoalesceError> {
    coalesce(chart, copy_table(user, copies), true, copies)
}

fn copy_table(t: &Table, copies: Copies) -> Table {
    t.iter().map(|(k, v)| (k.clone(), copies.of(v))).collect()
}

/// `coalesceValues`: the chart's own values under `v`.
fn coalesce_values(chart: &Chart, mut v: Table, merge: bool, copies: Copies) -> Table {
    // The chart's values are only read; what is taken from them is copied (or shared).
    let Some(defaults) = entries_of(&chart.values) else {
        return v;
    };
    for (key, val) in defaults {
        match v.get(&key) {
            None => {
                v.insert(key, copies.of(&val));
            }
            Some(Value::Nil) if !merge => {
                v.remove(&key);
            }
            Some(dest) => {
                if let (Some(d), Some(s)) = (entries_of(dest), entries_of(&val)) {
                    // A subchart's table keeps its nulls until the subchart's own pass.
                    let child = chart.dependencies.iter().any(|c| c.name == key);
                    v.insert(
                        key,
                        Value::map(coalesce_tables_in(d, &s, merge || child, copies)),
                    );
                }
            }
        }
    }
    v
}

/// `coalesceDeps`: each subchart's values, with the globals copied down, at `dest[name]`.
fn coalesce_deps(
    chart: &Chart,
    mut dest: Table,
    merge: bool,
    copies: Copies,
) -> Result<Table, CoalesceError> {
    for sub in &chart.dependencies {
        let mine = match dest.get(&sub.name) {
            None => Table::new(),
            Some(v) => copies.table(v).ok_or_else(|| CoalesceError {
                chart: chart.name.clone(),
                subchart: sub.name.clone(),
                type_name: v.type_name(),
                value: crate::template::sprint(std::slice::from_ref(v)),
            })?,
        };
        let mine = coalesce_globals(mine, &dest, copies);
        let done = coalesce(sub, mine, merge, copies)?;
        dest.insert(sub.name.clone(), Value::map(done));
    }
    Ok(dest)
}

/// `coalesceGlobals`: `src.global` into `dest.global`, the parent's winning, tables merged
/// top-down.
fn coalesce_globals(mut dest: Table, src: &Table, copies: Copies) -> Table {
    let table = |v: &Value| copies.table(v);
    let mut dg = match dest.get("global") {
        None => Table::new(),
        Some(v) => match table(v) {
            Some(t) => t,
            None => return dest,
        },
    };
    let sg = match src.get("global") {
        None => Table::new(),
        Some(v) => match table(v) {
            Some(t) => t,
            None => return dest,
        },
    };
    for (key, val) in sg {
        match table(&val) {
            Some(vv) => match dg.get(&key) {
                None => {
                    dg.insert(key, Value::map(vv));
                }
                Some(existing) => {
                    if let Some(destv) = table(existing) {
                        dg.insert(
                            key,
                            Value::map(coalesce_tables_in(vv, &destv, true, copies)),
                        );
                    }
                }
            },
            None => {
                if !dg.get(&key).is_some_and(is_table) {
                    dg.insert(key, val);
                }
            }
        }
    }
    dest.insert("global".into(), Value::map(dg));
    dest
}

/// `pathToMap`: `data` placed at a dotted path (`.` is the root).
pub fn path_to_map(path: &str, data: Table) -> Table {
    if path == "." {
        return data;
    }
    let parts: Vec<&str> = path.split('.').filter(|p| !p.is_empty()).collect();
    let mut out = data;
    for p in parts.iter().rev() {
        out = Table::from([(p.to_string(), Value::map(out))]);
    }
    out
}

/// The value at the dotted `path` of `values`, every step but the last a table; shared, not
/// copied (for reading: a condition or a tag of a big subchart's values need no copy of them).
pub fn value_at(values: &Table, path: &str) -> Option<Value> {
    let mut keys = path.split('.');
    let mut current = values.get(keys.next()?)?.clone();
    for key in keys {
        current = match &current {
            Value::Map(m) => m.get(key)?,
            _ => return None,
        };
    }
    Some(current)
}

/// `Values.Table`: the table at a dotted path, shared, not copied (for import-values, whose
/// result is copied before templates see it).
pub fn table_at_shared(values: &Table, path: &str) -> Option<Table> {
    let mut current = values.clone();
    for key in path.split('.') {
        current = entries_of(current.get(key)?)?;
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Table {
        table(&crate::template::helm_values(text).unwrap()).unwrap()
    }

    #[test]
    fn a_deep_copy_shares_no_map() {
        let text = "a:\n  b: 1\n  l:\n  - m: x\nc: s\n";
        let original = crate::template::helm_values(text).unwrap();
        let copy = deep_copy(&original);
        fn map(v: &Value) -> &crate::template::Dict {
            match v {
                Value::Map(m) => m,
                _ => panic!("not a map"),
            }
        }
        let a = map(&copy).get("a").unwrap();
        map(&a).insert("b".into(), Value::str("changed")).unwrap();
        let Some(Value::List(items)) = map(&a).get("l") else {
            panic!("not a list")
        };
        let first = items.iter().next().unwrap().clone();
        map(&first)
            .insert("m".into(), Value::str("changed"))
            .unwrap();
        map(&copy)
            .insert("c".into(), Value::str("changed"))
            .unwrap();
        assert_eq!(original, crate::template::helm_values(text).unwrap());
        assert_ne!(copy, original);
    }

    #[test]
    fn merge_keeps_nulls_coalesce_deletes_them() {
        let src = t("a: 1\nb: {c: 2}\n");
        let dst = t("a: null\nb: {c: null, d: 3}\n");
        let coalesced = coalesce_tables(dst.clone(), &src, false);
        assert_eq!(
            crate::template::sprint(&[Value::map(coalesced)]),
            "map[b:map[d:3]]"
        );
        let merged = merge_tables_shared(dst, &src);
        assert_eq!(
            crate::template::sprint(&[Value::map(merged)]),
            "map[a:<nil> b:map[c:<nil> d:3]]"
        );
    }

    #[test]
    fn paths_become_nested_tables() {
        let m = path_to_map("a.b", t("x: 1\n"));
        assert_eq!(
            crate::template::sprint(&[Value::map(m)]),
            "map[a:map[b:map[x:1]]]"
        );
    }
}
