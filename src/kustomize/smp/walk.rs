//! kyaml's `walk.Walker` driving merge2's `Merger` (kyaml/yaml/walk/*.go,
//! kyaml/yaml/merge2/merge2.go and smpdirective.go), on the arena. Sources are always the pair
//! (dest, origin): the resource side and the patch side.

use std::collections::BTreeSet;

use super::arena::{Arena, Id, KindName};
use super::filters::KindError;
use super::{SmpError, MAX_DEPTH};
use crate::kustomize::openapi::{Schema, SchemaRef};

/// The key of the strategic-merge directive.
pub(super) const DIRECTIVE: &str = "$patch";

/// A `$patch` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Directive {
    Merge,
    Replace,
    Delete,
}

/// The state of one merge.
pub(super) struct Merger<'s> {
    pub arena: Arena,
    pub schema: &'s Schema,
    /// Field path of the node being walked, for error messages.
    pub path: Vec<String>,
    depth: usize,
}

impl<'s> Merger<'s> {
    /// A merge using `schema`.
    pub fn new(schema: &'s Schema) -> Merger<'s> {
        Merger {
            arena: Arena::default(),
            schema,
            path: Vec::new(),
            depth: 0,
        }
    }

    /// kyaml `Walker.Walk`: merges `origin` into `dest` and returns the merged node, `None`
    /// when the field or item is to be removed.
    pub fn walk(
        &mut self,
        dest: Option<Id>,
        origin: Option<Id>,
        schema: Option<SchemaRef<'s>>,
    ) -> Result<Option<Id>, SmpError> {
        if self.depth >= MAX_DEPTH {
            return Err(SmpError::TooDeep {
                path: self.path_text(),
                limit: MAX_DEPTH,
            });
        }
        self.depth += 1;
        let result = self.walk_kind(dest, origin, schema);
        self.depth -= 1;
        result
    }

    fn walk_kind(
        &mut self,
        dest: Option<Id>,
        origin: Option<Id>,
        schema: Option<SchemaRef<'s>>,
    ) -> Result<Option<Id>, SmpError> {
        let schema = schema.or_else(|| self.schema_from_meta(dest, origin));
        let first = [dest, origin]
            .into_iter()
            .flatten()
            .find(|i| !self.arena.is_null(*i))
            .map(|i| self.arena.kind_name(i));
        let Some(kind) = first else {
            return self.walk_map(dest, origin, schema);
        };
        for source in [dest, origin] {
            self.arena
                .check_kind(source, kind)
                .map_err(|e| self.kind_error(e))?;
        }
        match kind {
            KindName::Map => self.walk_map(dest, origin, schema),
            KindName::Seq => match schema.filter(|s| s.is_associative()) {
                Some(schema) => self.walk_associative(dest, origin, schema),
                // Replaced as written, directives and all.
                None => Ok(origin.or(dest)),
            },
            KindName::Scalar => Ok(origin.or(dest)),
        }
    }

    /// kyaml `Walker.GetSchema` without a schema in hand: the schema of the type named by the
    /// first source with both `apiVersion` and `kind`.
    fn schema_from_meta(&self, dest: Option<Id>, origin: Option<Id>) -> Option<SchemaRef<'s>> {
        let schema: &'s Schema = self.schema;
        [dest, origin].into_iter().flatten().find_map(|src| {
            if self.arena.is_null(src) {
                return None;
            }
            let text = |name: &str| {
                self.arena
                    .field(src, name)
                    .filter(|v| !self.arena.is_nil_or_empty(*v))
                    .map(|v| self.arena.value(v))
                    .filter(|t| !t.is_empty())
            };
            schema.for_type(text("apiVersion")?, text("kind")?)
        })
    }

    /// kyaml `walkMap`: decides the map's fate, then merges every field of either side, in
    /// sorted order, setting the results on the merged map.
    fn walk_map(
        &mut self,
        dest: Option<Id>,
        origin: Option<Id>,
        schema: Option<SchemaRef<'s>>,
    ) -> Result<Option<Id>, SmpError> {
        let Some(dest) = self.visit_map(dest, origin)? else {
            return Ok(None);
        };
        // Each field's value, looked up once: the walk of one field changes neither side's
        // entry for another, so the first entry of each name stays where it was.
        let dest_fields = self.arena.first_fields(dest);
        let origin_fields = origin
            .map(|o| self.arena.first_fields(o))
            .unwrap_or_default();
        let mut names: BTreeSet<&str> = dest_fields.keys().map(String::as_str).collect();
        names.extend(origin_fields.keys().map(String::as_str));
        for name in names {
            let field_schema = schema.and_then(|s| s.field(name));
            let d = dest_fields.get(name).copied().flatten();
            let o = origin_fields.get(name).copied().flatten();
            self.path.push(name.to_string());
            let merged = self.walk(d, o, field_schema);
            let merged = merged.and_then(|v| {
                self.arena
                    .set_field_found(dest, name, v, Some(d))
                    .map_err(|e| self.kind_error(e))
            });
            self.path.pop();
            merged?;
        }
        Ok(Some(dest))
    }

    /// merge2 `Merger.VisitMap`.
    fn visit_map(&mut self, dest: Option<Id>, origin: Option<Id>) -> Result<Option<Id>, SmpError> {
        if self.arena.missing_or_null(dest) {
            // kyaml ignores a bad directive here (but still strips a good one).
            if self.directive(origin).ok() == Some(Directive::Delete) {
                return Ok(None);
            }
            if let (None, Some(d)) = (origin, dest) {
                // An explicit null in the resource survives when the patch does not mention it.
                if !self.arena.value(d).is_empty() {
                    let text = self.arena.value(d).to_string();
                    let span = self.arena.get(d).span;
                    return Ok(Some(self.arena.new_kept_null(&text, span)));
                }
            }
            return Ok(origin);
        }
        if origin.is_some_and(|o| self.arena.is_null(o)) {
            return Ok(None);
        }
        Ok(match self.directive(origin)? {
            Directive::Delete => None,
            Directive::Replace => origin,
            Directive::Merge => dest,
        })
    }

    /// merge2 `Merger.VisitList` for a list that merges.
    pub(super) fn visit_associative_list(
        &mut self,
        dest: Option<Id>,
        origin: Option<Id>,
    ) -> Result<Option<Id>, SmpError> {
        if self.arena.missing_or_null(dest) {
            return Ok(origin);
        }
        if origin.is_some_and(|o| self.arena.is_null(o)) {
            return Ok(None);
        }
        Ok(match self.directive(origin)? {
            Directive::Delete => None,
            Directive::Replace => origin,
            Directive::Merge => dest,
        })
    }

    /// merge2 `determineSmpDirective`: reads the `$patch` directive of a patch node and removes
    /// it from the node.
    fn directive(&mut self, patch: Option<Id>) -> Result<Directive, SmpError> {
        let Some(patch) = patch else {
            return Ok(Directive::Merge);
        };
        match self.arena.kind_name(patch) {
            KindName::Map => self.map_directive(patch),
            KindName::Seq => self.seq_directive(patch),
            KindName::Scalar => Err(SmpError::ScalarDirective {
                path: self.path_text(),
                tag: self.arena.short_tag(patch),
                value: self.arena.value(patch).to_string(),
            }),
        }
    }

    /// `$patch: …` as a field of a map.
    fn map_directive(&mut self, patch: Id) -> Result<Directive, SmpError> {
        let Some(v) = self.arena.field(patch, DIRECTIVE) else {
            return Ok(Directive::Merge);
        };
        let directive = self.parse_directive(v)?;
        self.arena.remove_field(patch, DIRECTIVE);
        Ok(directive)
    }

    /// `- $patch: …` as an item of a list: the first mapping item with a `$patch` field,
    /// when that is its only field.
    fn seq_directive(&mut self, patch: Id) -> Result<Directive, SmpError> {
        let item = self.arena.items(patch).into_iter().find(|i| {
            self.arena.kind_name(*i) == KindName::Map && self.arena.field(*i, DIRECTIVE).is_some()
        });
        let Some(item) = item else {
            return Ok(Directive::Merge);
        };
        if self.arena.field_names(item).len() > 1 {
            return Ok(Directive::Merge);
        }
        let Some(v) = self.arena.field(item, DIRECTIVE) else {
            return Ok(Directive::Merge);
        };
        let directive = self.parse_directive(v)?;
        let text = self.arena.value(v).to_string();
        self.arena
            .element_set(patch, None, &[DIRECTIVE.to_string()], &[text])
            .map_err(|e| self.kind_error(e))?;
        Ok(directive)
    }

    fn parse_directive(&self, v: Id) -> Result<Directive, SmpError> {
        match self.arena.value(v) {
            "delete" => Ok(Directive::Delete),
            "replace" => Ok(Directive::Replace),
            "merge" => Ok(Directive::Merge),
            other => Err(SmpError::UnknownDirective {
                path: self.path_text(),
                value: other.to_string(),
            }),
        }
    }

    /// A kyaml node-kind error at the current path.
    pub(super) fn kind_error(&self, e: KindError) -> SmpError {
        SmpError::wrong_kind(self.path_text(), e.expected, e.found)
    }

    /// The current field path, dotted.
    pub(super) fn path_text(&self) -> String {
        self.path.join(".")
    }
}
