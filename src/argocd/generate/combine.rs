//! The generators made of generators (`generators/matrix.go`, `generators/merge.go`): a
//! matrix's product of two children's parameter sets, a merge's sets joined by key.

use super::*;

/// The matrix generator (`generators/matrix.go`).
pub(super) fn matrix(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<Gap>,
) -> Result<Vec<Params>, GenerateError> {
    let children = body["generators"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if children.len() < 2 {
        return Err(GenerateError::MatrixTooFew);
    }
    if children.len() > 2 {
        return Err(GenerateError::MatrixTooMany);
    }
    let first = child_params(&children[0], ctx, mode, notices)?;
    let mut out = Vec::new();
    for a in &first {
        let second = interpolate(&children[1], a, mode)?;
        for b in child_params(&second, ctx, mode, notices)? {
            out.push(combine(a, &b, mode)?);
        }
    }
    Ok(out)
}

/// A matrix's second child rendered with the first's parameters (its post selector is not).
pub(super) fn interpolate(
    child: &Json,
    params: &Params,
    mode: &Mode,
) -> Result<Json, GenerateError> {
    let Json::Object(m) = child else {
        return Ok(child.clone());
    };
    let mut out = Map::new();
    for (k, v) in m {
        if k == "selector" {
            out.insert(k.clone(), v.clone());
            continue;
        }
        out.insert(k.clone(), render::render_value(v, params, mode)?);
    }
    Ok(Json::Object(out))
}

/// One parameter set of each matrix child combined: with Go templates a deep merge where
/// the first wins; in fasttemplate mode an equal key with another value is an error.
pub(super) fn combine(a: &Params, b: &Params, mode: &Mode) -> Result<Params, GenerateError> {
    if mode.go_template {
        return Ok(deep_merge_params(b, a));
    }
    let mut out = a.clone();
    for (k, v) in b {
        match a.get(k) {
            Some(existing) if existing != v => {
                return Err(GenerateError::DuplicateKey {
                    key: k.clone(),
                    a: existing.clone(),
                    b: v.clone(),
                })
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(out)
}

/// [`deep_merge`] of two parameter sets.
pub(super) fn deep_merge_params(base: &Params, over: &Params) -> Params {
    match deep_merge(&Json::Object(base.clone()), &Json::Object(over.clone())) {
        Json::Object(m) => m,
        _ => Params::new(),
    }
}

/// mergo.Merge with override: `over`'s values win, maps merge deeply.
pub(super) fn deep_merge(base: &Json, over: &Json) -> Json {
    match (base, over) {
        (Json::Object(b), Json::Object(o)) => {
            let mut out = b.clone();
            for (k, v) in o {
                let merged = match b.get(k) {
                    Some(bv) => deep_merge(bv, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Json::Object(out)
        }
        (b, o) if is_empty(o) && !o.is_boolean() => b.clone(),
        (_, o) => o.clone(),
    }
}

/// A child of a matrix or merge: its generator (one key), then its post selector.
pub(super) fn child_params(
    child: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<Gap>,
) -> Result<Vec<Params>, GenerateError> {
    let kinds = generator_kinds(child);
    if kinds.len() > 1 {
        return Err(GenerateError::ManyInner);
    }
    let Some((kind, body)) = kinds.first() else {
        return Err(GenerateError::NoInner);
    };
    let sets = params_of(kind, body, ctx, mode, notices)?;
    select(sets, child.get("selector"))
}

/// The merge generator (`generators/merge.go`).
pub(super) fn merge(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<Gap>,
) -> Result<Vec<Params>, GenerateError> {
    let children = body["generators"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if children.len() < 2 {
        return Err(GenerateError::MergeTooFew);
    }
    let keys = strings(&body["mergeKeys"]);
    if keys.is_empty() {
        return Err(GenerateError::NoMergeKeys);
    }
    let key_of = |p: &Params| -> String {
        let m: Map<String, Json> = keys
            .iter()
            .map(|k| (k.to_string(), p.get(*k).cloned().unwrap_or(Json::Null)))
            .collect();
        Json::Object(m).to_string()
    };
    let mut sets: Vec<Vec<Params>> = Vec::new();
    for c in children {
        let params = child_params(c, ctx, mode, notices)?;
        let mut seen = std::collections::HashSet::new();
        for p in &params {
            if !seen.insert(key_of(p)) {
                return Err(GenerateError::NotUniqueByMergeKeys {
                    keys: keys.iter().map(|k| k.to_string()).collect(),
                });
            }
        }
        sets.push(params);
    }
    let mut base = sets.remove(0);
    for later in sets {
        for b in &mut base {
            if let Some(o) = later.iter().find(|o| key_of(o) == key_of(b)) {
                *b = if mode.go_template {
                    deep_merge_params(b, o)
                } else {
                    let mut m = b.clone();
                    for (k, v) in o {
                        m.insert(k.clone(), v.clone());
                    }
                    m
                };
            }
        }
    }
    Ok(base)
}
