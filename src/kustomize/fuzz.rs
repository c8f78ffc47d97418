//! Entry points for the `patches` fuzz target (see `crate::fuzzing`): the patch transformers'
//! own functions applied to one resource, without a kustomization around them.

use super::res::Res;
use super::schema::BuildSchema;
use super::smp;
use super::transform::patch::{self, PatchBody};
use crate::yaml::{self, Dialect, ParseOptions};

/// Parses `resource` as one object and applies `patch_text` to it the ways kustomize can: as
/// `patches:` text (strategic merge or JSON 6902), and as each kind on its own. `Ok` holds the
/// patched objects written as kustomize prints them; `Err` says why the input was refused.
#[doc(hidden)]
pub fn apply_patch_text(resource: &[u8], patch_text: &str) -> Result<Vec<String>, String> {
    let node = yaml::parse_one(resource, &ParseOptions::default()).map_err(|e| e.to_string())?;
    if !node.is_map() {
        return Err("the resource is not a mapping".into());
    }
    let schema = BuildSchema::new();
    let res = Res::new(node, Default::default(), schema.clone());
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut keep = |r: Result<Option<Res>, String>| match r {
        Ok(Some(r)) => match yaml::to_value(&r.node, Dialect::Yaml12) {
            Ok(v) => out.push(yaml::emit::to_string(&v)),
            Err(e) => errors.push(e.to_string()),
        },
        Ok(None) => {}
        Err(e) => errors.push(e),
    };
    match patch::parse_patch(patch_text, "fuzz", &schema) {
        Ok(PatchBody::Smp(patches)) => keep(apply_smps(&res, &patches).map_err(|e| e.to_string())),
        Ok(PatchBody::Json(ops)) => keep(apply_json(&res, &ops).map_err(|e| e.to_string())),
        Err(e) => keep(Err(e.to_string())),
    }
    if let Ok(patches) = patch::parse_smp(patch_text, &schema) {
        // The merge engine on its own, with the builtin schema.
        for p in &patches {
            let mut dest = res.node.clone();
            keep(
                smp::merge(&mut dest, &p.node, super::openapi::Schema::builtin())
                    .map(|_| Some(Res::new(dest, Default::default(), schema.clone())))
                    .map_err(|e| e.to_string()),
            );
        }
    }
    if let Ok(ops) = patch::parse_json_patch(patch_text) {
        keep(apply_json(&res, &ops).map_err(|e| e.to_string()));
    }
    if out.is_empty() {
        Err(errors.join("; "))
    } else {
        Ok(out)
    }
}

fn apply_smps(res: &Res, patches: &[Res]) -> Result<Option<Res>, patch::PatchError> {
    let mut r = res.clone();
    for p in patches {
        if !patch::apply_smp(&mut r, p)? {
            return Ok(None);
        }
    }
    Ok(Some(r))
}

fn apply_json(
    res: &Res,
    ops: &[super::transform::json6902::Op],
) -> Result<Option<Res>, patch::PatchError> {
    let mut r = res.clone();
    patch::apply_json(&mut r, ops)?;
    Ok(Some(r))
}
