//! Where a value of a render's coalesced values was set: the values file and line that won, in
//! Helm's precedence. For a path of the top chart's values (a subchart's own values are under
//! its name, as Helm coalesces them): `--set` flags first (no file: the value stays at its
//! template), then the user's values files, last first, then each chart's `values.yaml` from
//! the top chart down to the chart whose scope the path is in; a `global` value from the
//! outermost scope in, as `coalesceGlobals` copies a parent's globals over its subcharts'.
//! Coalescing itself is not repeated: each source is asked, in that order, whether it sets the
//! path. A value a template or `import-values` made is in no file that sets it, or in one that
//! sets it only as a default.

use super::chart::Chart;
use super::values::Table;
use crate::template::{Dict, Read, Value};
use crate::yaml::{FileId, Span};
use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};

/// A key of a values file and its value, their spans naming the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub key: Span,
    pub value: Span,
}

/// The values files of a render as the caller reads them, with positions: the render knows
/// their values, not their text.
pub trait ValuesFiles: Sync {
    /// Where the user's values file `index` (of [`super::render::RenderOptions::values`]) sets
    /// `path`; None when it is no file (inline values) or does not say where.
    fn user(&self, index: usize, path: &[&str]) -> Option<Placed>;
    /// Where the `values.yaml` of the chart loaded from `source` ([`Chart::source`]: empty
    /// for the top chart, `charts/sub` for a subchart) sets `path`; None when it cannot say
    /// (a packed subchart).
    fn chart(&self, source: &str, path: &[&str]) -> Option<Placed>;
}

/// Where a value was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// At a values file's line.
    File(Placed),
    /// By a `--set` flag: no file.
    Flag,
    /// By no source that says where: a value the template or `import-values` made, or inline
    /// values.
    Nowhere,
}

impl Found {
    /// Where the file that set it is.
    pub(super) fn placed(self) -> Option<Placed> {
        match self {
            Found::File(p) => Some(p),
            Found::Flag | Found::Nowhere => None,
        }
    }
}

/// The sources of one render's values, asked in precedence order, with what was found
/// remembered (a `toYaml` block asks for each of its keys).
pub(super) struct Origins<'a> {
    files: &'a dyn ValuesFiles,
    /// The chart as rendered: dependencies processed, subcharts under the names their values
    /// have.
    chart: &'a Chart,
    /// The user's values files, as read.
    user: &'a [Value],
    /// What the `--set` family of flags set.
    flags: Table,
    /// The top chart's `.Values`, whose maps and lists [`Read`]s name.
    root: Dict,
    /// The path of every map and list under `root`, by identity; made when first asked.
    index: OnceCell<HashMap<usize, Vec<String>>>,
    memo: RefCell<HashMap<Vec<String>, Found>>,
    /// The files of the spans given.
    named: RefCell<BTreeSet<FileId>>,
}

impl<'a> Origins<'a> {
    pub(super) fn new(
        files: &'a dyn ValuesFiles,
        chart: &'a Chart,
        user: &'a [Value],
        flags: Table,
        root: Dict,
    ) -> Origins<'a> {
        Origins {
            files,
            chart,
            user,
            flags,
            root,
            index: OnceCell::new(),
            memo: RefCell::default(),
            named: RefCell::default(),
        }
    }

    /// The values path an action read, when it read the chart's values.
    pub(super) fn path_of(&self, read: &Read) -> Option<Vec<String>> {
        let index = self.index.get_or_init(|| index(&self.root));
        let mut path = index.get(&read.container)?.clone();
        path.extend(read.key.as_deref().map(str::to_string));
        Some(path)
    }

    /// Where the value at `path` was set.
    pub(super) fn found(&self, path: &[String]) -> Found {
        if let Some(found) = self.memo.borrow().get(path) {
            return *found;
        }
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        let found = self.find(&keys);
        if let Found::File(p) = found {
            let mut named = self.named.borrow_mut();
            named.insert(p.key.file);
            named.insert(p.value.file);
        }
        self.memo.borrow_mut().insert(path.to_vec(), found);
        found
    }

    /// The files the spans [`Self::placed`] gave name.
    pub(super) fn files_named(&self) -> BTreeSet<FileId> {
        self.named.borrow().clone()
    }

    fn find(&self, path: &[&str]) -> Found {
        // The charts whose scopes the path goes through: the top chart, then each subchart
        // whose name the next key is.
        let mut chain = vec![self.chart];
        while let Some(sub) = path.get(chain.len() - 1).and_then(|key| {
            let last = chain.last().expect("the chain starts with the top chart");
            last.dependencies.iter().find(|d| d.name == *key)
        }) {
            chain.push(sub);
        }
        let depth = chain.len() - 1;
        let rest = &path[depth..];
        if rest.first() == Some(&"global") {
            // A parent's globals win over its subcharts': the outermost scope first.
            for scope in 0..=depth {
                let at: Vec<&str> = path[..scope].iter().chain(rest).copied().collect();
                if let Some(found) = self.set_by_user(&at) {
                    return found;
                }
                for (m, chart) in chain.iter().enumerate().take(scope + 1) {
                    let own: Vec<&str> = path[m..scope].iter().chain(rest).copied().collect();
                    if value_at(&chart.values, &own).is_some() {
                        return answer(self.files.chart(&chart.source, &own));
                    }
                }
            }
            return Found::Nowhere;
        }
        if let Some(found) = self.set_by_user(path) {
            return found;
        }
        for (m, chart) in chain.iter().enumerate() {
            if value_at(&chart.values, &path[m..]).is_some() {
                return answer(self.files.chart(&chart.source, &path[m..]));
            }
        }
        Found::Nowhere
    }

    /// Some when the flags or a user's values file set `path`.
    fn set_by_user(&self, path: &[&str]) -> Option<Found> {
        if flag_sets(&self.flags, path) {
            return Some(Found::Flag);
        }
        let (index, _) = self
            .user
            .iter()
            .enumerate()
            .rev()
            .find(|(_, v)| value_at(v, path).is_some())?;
        Some(answer(self.files.user(index, path)))
    }
}

/// A file's answer: where, or (a packed subchart, inline values) nowhere it can say.
fn answer(placed: Option<Placed>) -> Found {
    placed.map_or(Found::Nowhere, Found::File)
}

/// The path of every map and list under `root`, by identity (the first path found for one
/// reached twice; a map a template made hold itself is walked once).
fn index(root: &Dict) -> HashMap<usize, Vec<String>> {
    let mut out = HashMap::new();
    let mut stack = vec![(Value::Map(root.clone()), Vec::new())];
    while let Some((v, path)) = stack.pop() {
        match &v {
            Value::Map(m) => {
                if out.contains_key(&m.id()) {
                    continue;
                }
                out.insert(m.id(), path.clone());
                for (k, x) in m.entries() {
                    let mut p = path.clone();
                    p.push(k);
                    stack.push((x, p));
                }
            }
            Value::List(l) => {
                if out.contains_key(&l.id()) {
                    continue;
                }
                out.insert(l.id(), path.clone());
                for (i, x) in l.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(i.to_string());
                    stack.push((x.clone(), p));
                }
            }
            _ => {}
        }
    }
    out
}

/// The value at `path` of `v` (a list's items by index).
fn value_at(v: &Value, path: &[&str]) -> Option<Value> {
    let mut v = v.clone();
    for key in path {
        v = match &v {
            Value::Map(m) => m.get(key)?,
            Value::List(l) => l.get(key.parse::<usize>().ok()?)?.clone(),
            _ => return None,
        };
    }
    Some(v)
}

/// True when the flags set `path` (not only keys below it), or a value above it (which
/// replaced what was below).
fn flag_sets(flags: &Table, path: &[&str]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    let Some(mut v) = flags.get(*first).cloned() else {
        return false;
    };
    for key in rest {
        v = match &v {
            Value::Map(m) => match m.get(key) {
                Some(x) => x,
                None => return false,
            },
            Value::List(l) => match key.parse::<usize>().ok().and_then(|i| l.get(i)) {
                Some(x) => x.clone(),
                None => return false,
            },
            _ => return true,
        };
    }
    !matches!(v, Value::Map(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::helm_values;

    /// Values files that say where by naming the source and the path.
    struct Named;

    fn span(source: &str, path: &[&str]) -> Span {
        Span::new(path.len() as u32, 1).in_file(source)
    }

    impl ValuesFiles for Named {
        fn user(&self, index: usize, path: &[&str]) -> Option<Placed> {
            let s = span(&format!("user{index}"), path);
            Some(Placed { key: s, value: s })
        }
        fn chart(&self, source: &str, path: &[&str]) -> Option<Placed> {
            let s = span(&format!("chart:{source}"), path);
            Some(Placed { key: s, value: s })
        }
    }

    fn chart(name: &str, values: &str, source: &str, deps: Vec<Chart>) -> Chart {
        let mut c = Chart::from_files([(
            "Chart.yaml".to_string(),
            format!("apiVersion: v2\nname: {name}\nversion: 1.0.0\n").into_bytes(),
        )])
        .expect("a chart");
        c.values = helm_values(values).expect("values");
        c.source = source.into();
        c.dependencies = deps;
        c
    }

    fn from(o: &Origins, path: &[&str]) -> Option<String> {
        let path: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        match o.found(&path) {
            Found::File(p) => Some(p.value.file.name().unwrap_or_default().to_string()),
            Found::Flag => Some("flag".into()),
            Found::Nowhere => None,
        }
    }

    #[test]
    fn the_source_that_won_says_where() {
        let sub = chart(
            "sub",
            "cpu: 1\nown: x\nglobal: {region: sub}\n",
            "charts/sub",
            vec![],
        );
        let top = chart(
            "top",
            "image: {tag: a}\nsub: {cpu: 2}\nglobal: {region: top}\n",
            "",
            vec![sub],
        );
        let user = [
            helm_values("image: {tag: b}\nsub: {own: y}\n").unwrap(),
            helm_values("image: {tag: c}\n").unwrap(),
        ];
        let flags =
            super::super::values::table(&helm_values("set: {x: 1}\nimage: {a: 1}\n").unwrap())
                .unwrap();
        let o = Origins::new(&Named, &top, &user, flags, Dict::default());
        // The last user file wins, then the earlier ones, then the chart's own values.
        assert_eq!(from(&o, &["image", "tag"]).as_deref(), Some("user1"));
        assert_eq!(from(&o, &["sub", "own"]).as_deref(), Some("user0"));
        // A parent's values win over a subchart's; the subchart's own say the rest.
        assert_eq!(from(&o, &["sub", "cpu"]).as_deref(), Some("chart:"));
        assert_eq!(
            from(&o, &["sub", "global", "region"]).as_deref(),
            Some("chart:")
        );
        // A flag is no file (a flag setting a key below leaves the rest to the files); a value
        // no source sets is nowhere.
        assert_eq!(from(&o, &["set", "x"]).as_deref(), Some("flag"));
        assert_eq!(from(&o, &["image"]).as_deref(), Some("user1"));
        assert_eq!(from(&o, &["made"]), None);
        let sub_only = chart("sub", "global: {region: sub}\n", "charts/sub", vec![]);
        let top = chart("top", "", "", vec![sub_only]);
        let o = Origins::new(&Named, &top, &[], Table::new(), Dict::default());
        assert_eq!(
            from(&o, &["sub", "global", "region"]).as_deref(),
            Some("chart:charts/sub")
        );
    }

    #[test]
    fn reads_are_paths_of_the_values_by_identity() {
        let values = helm_values("a: {b: [{c: 1}]}\n").unwrap();
        let Value::Map(root) = values else {
            panic!("a map")
        };
        let top = chart("top", "", "", vec![]);
        let o = Origins::new(&Named, &top, &[], Table::new(), root.clone());
        let Some(Value::Map(a)) = root.get("a") else {
            panic!("a map")
        };
        let Some(Value::List(b)) = a.get("b") else {
            panic!("a list")
        };
        let read = |container, key: Option<&str>| Read {
            container,
            key: key.map(Into::into),
        };
        assert_eq!(
            o.path_of(&read(a.id(), Some("b"))),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            o.path_of(&read(b.id(), Some("0"))),
            Some(vec!["a".into(), "b".into(), "0".into()])
        );
        assert_eq!(o.path_of(&read(1, None)), None);
    }
}
