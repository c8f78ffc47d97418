//! kyaml's small node filters on the arena, quirks included: `FieldMatcher` (`Get`,
//! `MatchField`), `ElementMatcher` (`ElementList`), `ElementSetter` and `FieldSetter`. The
//! associative-list merge is built from these, and its corner cases (items without a merge key,
//! several merge keys, duplicates) come from their exact behaviour.

use super::arena::{Arena, Id, Kind, KindName};
use crate::yaml::{plain_tag, Dialect, Scalar, ScalarStyle};

/// kyaml's `ErrorIfInvalid` failure: a node of the wrong kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindError {
    pub expected: KindName,
    pub found: KindName,
}

impl Arena {
    /// kyaml `ErrorIfInvalid`: missing and null nodes pass.
    pub fn check_kind(&self, id: Option<Id>, expected: KindName) -> Result<(), KindError> {
        match id {
            Some(i) if !self.is_null(i) && self.kind_name(i) != expected => Err(KindError {
                expected,
                found: self.kind_name(i),
            }),
            _ => Ok(()),
        }
    }

    /// kyaml `FieldMatcher{Name, Value}`: the value of field `name` of a mapping (when
    /// `value` is given, only if it has that text); with an empty `name`, the scalar itself
    /// when its text is `value` (or empty).
    pub fn match_field(
        &self,
        rn: Option<Id>,
        name: &str,
        value: Option<&str>,
    ) -> Result<Option<Id>, KindError> {
        let Some(rn) = rn.filter(|i| !self.is_null(*i)) else {
            return Ok(None);
        };
        if name.is_empty() {
            self.check_kind(Some(rn), KindName::Scalar)?;
            return Ok((self.value(rn) == value.unwrap_or_default()).then_some(rn));
        }
        self.check_kind(Some(rn), KindName::Map)?;
        let Some(v) = self.field(rn, name) else {
            return Ok(None);
        };
        Ok(match value {
            Some(want) if self.value(v) != want => None,
            _ => Some(v),
        })
    }

    /// kyaml `ElementList(keys, values)` (`ElementMatcher`): the first item of a sequence
    /// whose fields `keys` have exactly the texts `values`; with an empty first key, the first
    /// item whose own text is `values[0]`. Errors count as no match, as in kyaml.
    pub fn element_match(&self, seq: Id, keys: &[String], values: &[String]) -> Option<Id> {
        if self.kind_name(seq) != KindName::Seq {
            return None;
        }
        let first_key = keys.first().map_or("", String::as_str);
        let first_value = values.first().map_or("", String::as_str);
        let items = self.items(seq);
        if first_key.is_empty() {
            return items.into_iter().find(|i| self.value(*i) == first_value);
        }
        for item in items {
            if self.check_kind(Some(item), KindName::Map).is_err() {
                continue;
            }
            if keys.len() != values.len() {
                return None;
            }
            let matches = keys.iter().zip(values).all(|(k, v)| {
                self.match_field(Some(item), k, Some(v))
                    .map_or(true, |f| f.is_some())
            });
            if matches {
                return Some(item);
            }
        }
        None
    }

    /// kyaml `ElementSetter`: in sequence `seq`, replaces the items matching `keys`/`values`
    /// with `element` (deletes them when `element` is `None`), appending `element` when none
    /// matched. Side effects kept from kyaml: null and empty-map items are dropped; with no
    /// values at all, every item that does not match is dropped too; an empty value matches
    /// any value of its key.
    pub fn element_set(
        &mut self,
        seq: Id,
        element: Option<Id>,
        keys: &[String],
        values: &[String],
    ) -> Result<Option<Id>, KindError> {
        let empty_key = [String::new()];
        let keys = if keys.is_empty() {
            &empty_key[..]
        } else {
            keys
        };
        self.check_kind(Some(seq), KindName::Seq)?;
        let mapping_setter = !keys[0].is_empty() && values.first().is_some_and(|v| !v.is_empty());
        let mut kept = Vec::new();
        let mut matched = false;
        for item in self.items(seq) {
            if self.is_empty_map(Some(item)) {
                continue;
            }
            if self.kind_name(item) != KindName::Map && mapping_setter {
                kept.push(item);
                continue;
            }
            let mut found = true;
            let mut val = None;
            for (j, key) in keys.iter().enumerate() {
                if let Some(v) = values.get(j) {
                    let want = (!v.is_empty()).then_some(v.as_str());
                    val = self.match_field(Some(item), key, want)?;
                }
                if val.is_none() {
                    found = false;
                    break;
                }
            }
            if !found {
                if !values.is_empty() {
                    kept.push(item);
                }
                continue;
            }
            matched = true;
            if let Some(e) = element {
                kept.push(e);
            }
        }
        self.set_items(seq, kept);
        let Some(element) = element.filter(|e| !self.is_null(*e)) else {
            return Ok(None);
        };
        if !matched {
            self.push_item(seq, element);
        }
        Ok(Some(element))
    }

    /// kyaml `FieldSetter{Name: name, Value: value}` on mapping `rn`: deletes the field for a
    /// missing or (not kept) null value; otherwise overwrites the existing value node in place
    /// (taking the old scalar's style, which can change the new value's type) or appends the
    /// field. With an empty `name`, `rn` is a scalar that takes the value's content.
    pub fn set_field(&mut self, rn: Id, name: &str, value: Option<Id>) -> Result<(), KindError> {
        self.set_field_found(rn, name, value, None)
    }

    /// [`Arena::set_field`] where the caller already knows the field's current value node
    /// (`Some(Some(id))`) or that there is none (`Some(None)`), sparing the search of a wide
    /// mapping for every field set.
    pub fn set_field_found(
        &mut self,
        rn: Id,
        name: &str,
        value: Option<Id>,
        found: Option<Option<Id>>,
    ) -> Result<(), KindError> {
        if let Some(v) = value {
            self.quote_yaml11_non_string(v);
        }
        if name.is_empty() {
            self.check_kind(Some(rn), KindName::Scalar)?;
            let Some(value) = value.filter(|v| !self.is_null(*v)) else {
                return Ok(());
            };
            self.restyle(value, rn);
            self.overwrite(rn, value);
            return Ok(());
        }
        let Some(value) = value.filter(|v| !self.is_null(*v) || self.get(*v).keep) else {
            self.check_kind(Some(rn), KindName::Map)?;
            self.remove_field(rn, name);
            return Ok(());
        };
        let existing = match found {
            Some(existing) if !self.is_null(rn) => {
                self.check_kind(Some(rn), KindName::Map)?;
                existing
            }
            _ => self.match_field(Some(rn), name, None)?,
        };
        match existing {
            Some(field) => {
                self.restyle(value, field);
                self.overwrite(field, value);
            }
            None => self.push_field(rn, name, value),
        }
        Ok(())
    }

    /// kyaml's FieldSetter first double-quotes a plain string value (tag `!!str`, or none at all
    /// as on nodes kustomize makes) whose text YAML 1.1 would read as something else: an untagged
    /// `2` that a replacement created becomes the string "2" once a patch walks over it.
    fn quote_yaml11_non_string(&mut self, value: Id) {
        let node = self.get_mut(value);
        let untagged = node.untagged;
        let Kind::Scalar(s) = &mut node.kind else {
            return;
        };
        if yaml11_quote_needed(s, untagged) {
            s.style = ScalarStyle::DoubleQuoted;
        }
    }

    /// kyaml copies the style of the node being replaced onto the new value. For scalars that
    /// decides the value's type in the output, by go-yaml v3's encoding rules: the new text
    /// keeps its tag when the old node's tag was written out, or when the tag is not what the
    /// text would resolve to anyway; otherwise the copied style alone decides (a quoted style
    /// makes it a string).
    fn restyle(&mut self, value: Id, old: Id) {
        if value == old {
            return;
        }
        let old_node = self.get(old);
        // A collection takes the old node's flow style: a list a patch replaces stays `[...]`
        // when it was written so (and an empty item in it then reads back as "").
        let old_flow = old_node.flow;
        if !matches!(self.get(value).kind, Kind::Scalar(_)) {
            self.get_mut(value).flow = old_flow;
            return;
        }
        let Kind::Scalar(old) = &old_node.kind else {
            return;
        };
        let style = old.style;
        // go-yaml's TaggedStyle: a tag written in the source is copied as part of the style
        // and keeps the new value's tag in the output.
        let tagged = old.tag.is_some() && !old_node.untagged;
        let untagged = self.get(value).untagged;
        let Kind::Scalar(s) = &mut self.get_mut(value).kind else {
            return;
        };
        if untagged {
            s.style = style;
            return;
        }
        let tag = go_tag(s);
        s.style = style;
        s.tag = if tagged || tag == "!!str" || plain_tag(&s.text, Dialect::Yaml12) != tag {
            Some(tag.into())
        } else {
            None
        };
    }
}

/// True when kyaml's field setter double-quotes this scalar (see
/// `Arena::quote_yaml11_non_string`); `untagged` as the arena marks scalars kdelta made.
pub(super) fn yaml11_quote_needed(s: &Scalar, untagged: bool) -> bool {
    // Cheap tests first: this runs for every scalar a merge could set aside.
    if s.style != ScalarStyle::Plain || s.text.is_empty() || s.text.contains('\n') {
        return false;
    }
    // `go_tag(s) == "!!str"` for a plain scalar, without building the tag.
    let string_tag = untagged
        || match &s.tag {
            Some(t) => &**t == "!!str",
            None => plain_tag(&s.text, Dialect::Yaml12) == "!!str",
        };
    string_tag && !matches!(plain_tag(&s.text, Dialect::Yaml11), "!!str" | "!!timestamp")
}

/// The tag go-yaml v3 gives a parsed scalar: the explicit one, `!!str` when quoted or a block
/// scalar, else the tag its plain text resolves to.
fn go_tag(s: &Scalar) -> String {
    match (&s.tag, s.style) {
        (Some(t), _) => t.to_string(),
        (None, ScalarStyle::Plain) => plain_tag(&s.text, Dialect::Yaml12).to_string(),
        (None, _) => "!!str".to_string(),
    }
}
