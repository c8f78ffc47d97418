//! Name references (kustomize's nameReferenceTransformer + filters/nameref): after renames
//! (prefixes, suffixes, hash suffixes, namespace changes), every field that refers to a renamed
//! object by its old name is updated to the new name (and namespace, for `{name, namespace}`
//! references such as RoleBinding subjects and webhook services).

use super::super::fieldspec::{apply, CreateKind, FieldSpec, FieldSpecError};
use super::super::kid::{Gvk, KId};
use super::super::res::{Affixes, Res};
use super::super::resmap::ResMap;
use super::super::tconfig::NameBackRefs;
use super::{set_scalar, WrongKind};
use crate::yaml::{Node, NodeKind, Span};

/// Why a name reference cannot be updated, in kustomize's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NameRefError {
    /// A referrer's field failed: the field spec's path, the referrer and the cause.
    #[error("updating name reference in '{path}' field of '{referrer}': {cause}")]
    Field {
        path: String,
        referrer: KId,
        cause: Box<FieldSpecError<ReferenceError>>,
    },
    /// A RoleBinding's ServiceAccount subject with a namespace that is no string.
    #[error("Invalid Input: namespace is blank for resource \"{0}\"")]
    BlankSubjectNamespace(KId),
    /// A RoleBinding's subject that is no mapping, or whose `kind` (beside a `namespace`) is
    /// no string: kustomize's type assertion panics (the build crashes).
    #[error("kustomize panics on a subject of {referrer}: interface conversion: interface {{}} is {found}, not {wanted}")]
    SubjectPanic {
        referrer: KId,
        found: &'static str,
        wanted: &'static str,
    },
}

/// Why one reference field cannot be updated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    /// A list of references holds a list.
    #[error("sequence item is expected to be either a string or a map of string")]
    NestedSequence { span: Span },
    /// A reference that is a mapping without `name`.
    #[error("path config error; no 'name' field in node")]
    NoName { span: Span },
    /// The old name fits several renamed objects.
    #[error("found multiple possible referrals: {}", .candidates.iter().map(KId::to_string).collect::<Vec<_>>().join(", "))]
    Ambiguous { candidates: Vec<KId>, span: Span },
    #[error(transparent)]
    WrongKind(#[from] WrongKind),
}

/// What a referral candidate looks like (names are not changed by this transformer, so a
/// snapshot taken up front stays valid while referrers are edited). Only what selecting a
/// referral reads, not the object: cloning every object was a tenth of kustomize builds.
struct Candidate {
    cur: KId,
    prev: Vec<KId>,
    org: KId,
    name: String,
    namespace: String,
    is_service_account: bool,
    affixes: Affixes,
}

/// Updates every name reference.
pub fn fix_name_references(rm: &mut ResMap, backrefs: &[NameBackRefs]) -> Result<(), NameRefError> {
    let cands: Vec<Candidate> = rm
        .list
        .iter()
        .map(|r| Candidate {
            cur: r.cur_id(),
            prev: r.prev_ids(),
            org: r.org_id(),
            name: r.name().to_string(),
            namespace: r.namespace().to_string(),
            is_service_account: r.kind() == "ServiceAccount",
            affixes: r.affixes(),
        })
        .collect();
    for i in 0..rm.list.len() {
        let org = cands[i].org.clone();
        let mut filters: Vec<(&FieldSpec, &Gvk)> = Vec::new();
        for br in backrefs {
            for spec in &br.referrers {
                if org.gvk.is_selected(&spec.gvk) {
                    filters.push((spec, &br.gvk));
                }
            }
        }
        if filters.is_empty() {
            continue;
        }
        let subset = could_be_referenced_by(&cands, i, &rm.list[i])?;
        // The roleRef is read before the referrer's fields are edited.
        let role_ref_gvk = role_ref_gvk(&rm.list[i]);
        let referrer_gvk = rm.list[i].gvk();
        for (spec, target) in filters {
            // The spec is matched against the referrer's own gvk (upstream overwrites it).
            let spec = FieldSpec {
                gvk: referrer_gvk.clone(),
                ..spec.clone()
            };
            let ctx = Ctx {
                referrer: &cands[i],
                role_ref_gvk: role_ref_gvk.as_ref(),
                target,
                path: &spec.path,
                cands: &cands,
                subset: &subset,
            };
            apply(&mut rm.list[i].node, &spec, CreateKind::Nothing, &mut |n| {
                ctx.set(n)
            })
            .map_err(|cause| NameRefError::Field {
                path: spec.path.clone(),
                referrer: cands[i].cur.clone(),
                cause: Box::new(cause),
            })?;
        }
    }
    Ok(())
}

/// kustomize `SubsetThatCouldBeReferencedByResource`.
fn could_be_referenced_by(
    cands: &[Candidate],
    i: usize,
    res: &Res,
) -> Result<Vec<usize>, NameRefError> {
    let referrer = &cands[i];
    if referrer.cur.gvk.cluster_scoped {
        return Ok((0..cands.len()).collect());
    }
    let rb_namespaces = role_binding_namespaces(res)?;
    Ok(cands
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.cur.gvk.cluster_scoped
                || c.cur.is_ns_equals(&referrer.cur)
                || rb_namespaces.contains(&c.namespace)
        })
        .map(|(j, _)| j)
        .collect())
}

fn role_binding_namespaces(r: &Res) -> Result<Vec<String>, NameRefError> {
    let mut out = Vec::new();
    if r.kind() != "RoleBinding" {
        return Ok(out);
    }
    let panic = |node: &Node, wanted| NameRefError::SubjectPanic {
        referrer: r.cur_id(),
        found: go_type_name(node),
        wanted,
    };
    if let Some(subjects) = r.node.get("subjects").and_then(Node::as_seq) {
        for s in subjects {
            if s.as_map().is_none() {
                return Err(panic(s, "map[string]interface {}"));
            }
            if let (Some(ns), Some(kind)) = (s.get("namespace"), s.get("kind")) {
                let kind = kind.as_text().ok_or_else(|| panic(kind, "string"))?;
                if kind == "ServiceAccount" {
                    match ns.as_text() {
                        Some(n) => out.push(n.to_string()),
                        None => return Err(NameRefError::BlankSubjectNamespace(r.cur_id())),
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The Go type go-yaml v3 decodes `node` to in an `interface{}`, as a failed type assertion
/// names it.
fn go_type_name(node: &Node) -> &'static str {
    use crate::yaml::{resolve_scalar, Dialect, Resolved};
    match &node.kind {
        NodeKind::Seq(_) => "[]interface {}",
        NodeKind::Map(_) => "map[string]interface {}",
        NodeKind::Scalar(s) => match resolve_scalar(s, Dialect::Yaml12) {
            Ok(Resolved::Null) => "nil",
            Ok(Resolved::Bool(_)) => "bool",
            Ok(Resolved::Int(_)) => "int",
            Ok(Resolved::Uint(_)) => "uint64",
            Ok(Resolved::Float(_)) => "float64",
            Ok(Resolved::Str(_) | Resolved::Timestamp(_)) | Err(_) => "string",
        },
    }
}

struct Ctx<'a> {
    referrer: &'a Candidate,
    role_ref_gvk: Option<&'a Gvk>,
    target: &'a Gvk,
    path: &'a str,
    cands: &'a [Candidate],
    subset: &'a [usize],
}

impl Ctx<'_> {
    fn set(&self, n: &mut Node) -> Result<(), ReferenceError> {
        if n.is_null() {
            return Ok(());
        }
        match &n.kind {
            NodeKind::Scalar(_) => self.set_scalar(n),
            NodeKind::Map(_) => self.set_mapping(n),
            NodeKind::Seq(_) => {
                let items = n.as_seq_mut().expect("checked to be a sequence");
                for item in items {
                    if item.is_null() {
                        continue;
                    }
                    match item.kind {
                        NodeKind::Scalar(_) => self.set_scalar(item)?,
                        NodeKind::Map(_) => self.set_mapping(item)?,
                        NodeKind::Seq(_) => {
                            return Err(ReferenceError::NestedSequence { span: item.span })
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn set_scalar(&self, n: &mut Node) -> Result<(), ReferenceError> {
        let old = n.as_str().unwrap_or("").to_string();
        let Some(j) = self.select(&old, self.subset.to_vec(), false, n.span)? else {
            return Ok(());
        };
        let name = &self.cands[j].name;
        if *name != old {
            set_scalar(n, name, None)?;
        }
        Ok(())
    }

    fn set_mapping(&self, n: &mut Node) -> Result<(), ReferenceError> {
        let Some(old) = n.get("name").map(|v| v.as_str().unwrap_or("").to_string()) else {
            return Err(ReferenceError::NoName { span: n.span });
        };
        let candidates: Vec<usize> = match n.get("namespace") {
            None => self.subset.to_vec(),
            Some(ns) => {
                let ns = ns.as_str().unwrap_or("");
                let by_org: Vec<usize> = self
                    .subset
                    .iter()
                    .copied()
                    .filter(|&j| {
                        let e = self.cands[j].org.effective_namespace();
                        e == ns && e != super::super::kid::NOT_A_NAMESPACE
                    })
                    .collect();
                if by_org.is_empty() {
                    self.subset
                        .iter()
                        .copied()
                        .filter(|&j| {
                            let e = self.cands[j].cur.effective_namespace();
                            e == ns && e != super::super::kid::NOT_A_NAMESPACE
                        })
                        .collect()
                } else {
                    by_org
                }
            }
        };
        let Some(j) = self.select(&old, candidates, true, n.span)? else {
            return Ok(());
        };
        let Candidate {
            name, namespace, ..
        } = &self.cands[j];
        if *name == old && namespace.is_empty() {
            return Ok(());
        }
        set_field(n, "name", name)?;
        if !namespace.is_empty() {
            set_field(n, "namespace", namespace)?;
        }
        Ok(())
    }

    /// kustomize `selectReferral`.
    fn select(
        &self,
        old: &str,
        cands: Vec<usize>,
        with_namespace: bool,
        span: Span,
    ) -> Result<Option<usize>, ReferenceError> {
        let c = &self.cands;
        let mut list: Vec<usize> = cands
            .into_iter()
            .filter(|&j| c[j].prev.iter().any(|id| id.name == old))
            .filter(|&j| c[j].prev.iter().any(|id| id.gvk.is_selected(self.target)))
            .collect();
        if self.path.ends_with("roleRef/name") {
            if let Some(role_gvk) = self.role_ref_gvk {
                list.retain(|&j| c[j].prev.iter().any(|id| id.gvk.is_selected(role_gvk)));
            }
        }
        let referrer_cur = &self.referrer.cur;
        if !referrer_cur.gvk.cluster_scoped {
            list.retain(|&j| {
                c[j].cur.gvk.cluster_scoped
                    || c[j].is_service_account
                    || referrer_cur.is_ns_equals(&c[j].cur)
            });
        }
        if list.len() == 1 {
            return Ok(Some(list[0]));
        }
        let affixes = &self.referrer.affixes;
        list.retain(|&j| c[j].affixes.equal(affixes, true));
        if list.len() > 1 {
            list.retain(|&j| c[j].affixes.equal(affixes, false));
        }
        match list.len() {
            0 => Ok(None),
            1 => Ok(Some(list[0])),
            _ => {
                let first = &c[list[0]];
                let identical = list.iter().all(|&j| {
                    c[j].name == first.name
                        && (!with_namespace || c[j].namespace == first.namespace)
                });
                if identical {
                    Ok(Some(list[0]))
                } else {
                    Err(ReferenceError::Ambiguous {
                        candidates: list.iter().map(|&j| c[j].cur.clone()).collect(),
                        span,
                    })
                }
            }
        }
    }
}

fn role_ref_gvk(r: &Res) -> Option<Gvk> {
    let rr = r.node.get("roleRef")?;
    Some(Gvk {
        group: rr.get("apiGroup")?.as_str()?.to_string(),
        kind: rr.get("kind")?.as_str()?.to_string(),
        ..Gvk::default()
    })
}

/// kyaml `FieldSetter{Name, StringValue}`: replace keeping the style, or append.
fn set_field(n: &mut Node, key: &str, value: &str) -> Result<(), WrongKind> {
    super::set_entry(n, key, value, None, 0).map(|_| ())
}
