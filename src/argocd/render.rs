//! Rendering an ApplicationSet's template with one parameter set, as Argo CD's
//! `utils.RenderTemplateParams` does (reference/argocd.md §3): every string of the template,
//! map keys included, rendered on its own, in fasttemplate mode (`{{name}}` replaced by a
//! string parameter, anything else left as written) or with Go templates (Argo CD's function
//! set, `goTemplateOptions`).

use crate::template::{Funcs, MissingKey, TemplateSet, Value};
use serde_json::{Map, Value as Json};

/// One parameter set (flat strings in fasttemplate mode, nested values with Go templates).
pub type Params = Map<String, Json>;

/// How strings are rendered.
#[derive(Clone, Debug, Default)]
pub struct Mode {
    /// `goTemplate: true`.
    pub go_template: bool,
    /// `goTemplateOptions: ["missingkey=error"]`.
    pub missing_key_error: bool,
}

/// A template string Argo CD cannot render, in its words, with the string as a field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// fasttemplate: `{{` with no `}}` after it on a line that has one.
    #[error("invalid template: Cannot find end tag=\"}}}}\" in the template=\"{template}\" starting from \"{after}\"")]
    NoEndTag {
        template: String,
        /// The text after the unterminated `{{`.
        after: String,
    },
    /// A Go template that does not parse.
    #[error("failed to parse template {template}: {error}")]
    Parse {
        template: String,
        error: crate::template::Error,
    },
    /// A Go template that fails.
    #[error("failed to execute go template {template}: {error}")]
    Execute {
        template: String,
        error: crate::template::Error,
    },
}

/// Renders every string of `value` (and every map key) with `params`.
pub fn render_value(value: &Json, params: &Params, mode: &Mode) -> Result<Json, RenderError> {
    Ok(match value {
        Json::String(s) => Json::String(render_string(s, params, mode)?),
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|i| render_value(i, params, mode))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(
                    render_string(k, params, mode)?,
                    render_value(v, params, mode)?,
                );
            }
            Json::Object(out)
        }
        other => other.clone(),
    })
}

/// Renders one string.
pub fn render_string(s: &str, params: &Params, mode: &Mode) -> Result<String, RenderError> {
    if mode.go_template {
        go_template(s, params, mode)
    } else {
        fasttemplate(s, params)
    }
}

/// Argo CD's `Replace` without Go templates: only a string with `{{…}}` on one line is
/// looked at; then each `{{tag}}` whose trimmed tag names a string parameter is replaced,
/// and every other tag is written back as it was.
pub fn fasttemplate(s: &str, params: &Params) -> Result<String, RenderError> {
    let gated = s
        .lines()
        .any(|l| l.find("{{").is_some_and(|i| l[i + 2..].contains("}}")));
    if !gated {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(RenderError::NoEndTag {
                template: s.to_string(),
                after: after.to_string(),
            });
        };
        let tag = &after[..end];
        let trimmed = tag.trim();
        match params.get(trimmed) {
            Some(Json::String(v)) if !trimmed.is_empty() => out.push_str(v),
            _ => {
                out.push_str("{{");
                out.push_str(tag);
                out.push_str("}}");
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One string as a Go template over the parameters.
fn go_template(s: &str, params: &Params, mode: &Mode) -> Result<String, RenderError> {
    let set = parsed(s, mode.missing_key_error)?;
    set.execute("base", &to_template_value(&Json::Object(params.clone())))
        .map_err(|error| RenderError::Execute {
            template: s.to_string(),
            error,
        })
}

/// Parsed templates kept per thread: an ApplicationSet renders each string of its template
/// once per parameter set, and making the function table and parsing again for each was most
/// of its cost (the cost grew faster than the number of Applications).
type Parsed = Result<std::rc::Rc<TemplateSet>, RenderError>;

thread_local! {
    static PARSED: std::cell::RefCell<std::collections::HashMap<(String, bool), Parsed>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Most templates kept per thread before the cache starts over.
const MAX_PARSED: usize = 4096;

/// The template `s`, parsed as Argo CD parses it (named `base`, its errors say so).
fn parsed(s: &str, missing_key_error: bool) -> Parsed {
    let key = (s.to_string(), missing_key_error);
    if let Some(hit) = PARSED.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let mut set = TemplateSet::new(
        Funcs::argo(),
        crate::template::Options {
            missing_key: if missing_key_error {
                MissingKey::Error
            } else {
                MissingKey::Default
            },
            ..crate::template::Options::default()
        },
    );
    let result = set
        .parse("base", s)
        .map(|()| std::rc::Rc::new(set))
        .map_err(|error| RenderError::Parse {
            template: s.to_string(),
            error,
        });
    PARSED.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= MAX_PARSED {
            cache.clear();
        }
        cache.insert(key, result.clone());
    });
    result
}

/// JSON as Go's `json.Unmarshal` into `interface{}` gives it to a template (numbers are
/// float64).
pub fn to_template_value(v: &Json) -> Value {
    match v {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Value::Float(n.as_f64().unwrap_or_default()),
        Json::String(s) => Value::str(s.as_str()),
        Json::Array(items) => Value::list(items.iter().map(to_template_value).collect()),
        Json::Object(m) => Value::map(
            m.iter()
                .map(|(k, v)| (k.clone(), to_template_value(v)))
                .collect(),
        ),
    }
}

/// Go's `%v` of a JSON value, as `fmt.Sprintf("%v")` prints what `json.Unmarshal` gave.
pub fn go_sprint(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => crate::template::sprint(&[to_template_value(other)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Json) -> Params {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn fasttemplate_replaces_string_params_and_keeps_every_other_tag() {
        let p = params(json!({"one": "two", "n": 3}));
        let r = |s| fasttemplate(s, &p).unwrap();
        assert_eq!(r("{{one}}-{{ one }}"), "two-two");
        assert_eq!(
            r("x-{{ nope }}-y {{ }} {{n}}"),
            "x-{{ nope }}-y {{ }} {{n}}"
        );
        assert_eq!(r("}} {{"), "}} {{");
        assert_eq!(r("{{ONE}}"), "{{ONE}}");
        let err = fasttemplate("a {{one}}\n{{ b", &p).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid template: Cannot find end tag=\"}}\" in the template=\"a {{one}}\n{{ b\" starting from \" b\""
        );
    }

    #[test]
    fn go_templates_see_nested_params() {
        let p = params(json!({"path": {"segments": ["a", "b"]}, "n": 1000000}));
        let mode = Mode {
            go_template: true,
            missing_key_error: false,
        };
        assert_eq!(
            render_string("{{index .path.segments 1}}", &p, &mode).unwrap(),
            "b"
        );
        assert_eq!(render_string("{{.n}}", &p, &mode).unwrap(), "1e+06");
        assert_eq!(render_string("{{.x}}", &p, &mode).unwrap(), "<no value>");
        let strict = Mode {
            missing_key_error: true,
            ..mode
        };
        assert!(render_string("{{.x}}", &p, &strict).is_err());
    }
}
