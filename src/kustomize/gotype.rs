//! What Go's `encoding/json` says when a decoded document does not fit the Go type kustomize
//! reads it into (`configurations:` files into `builtinconfig.TransformerConfig`, `crds:` files
//! into `accumulator.nameToApiMap`): the first `UnmarshalTypeError` or unknown field, in the
//! order Go meets them, with the value that caused it.
//!
//! Through `sigs.k8s.io/yaml` (a YAML file) the document is first turned into JSON with its
//! keys sorted, and a number or bool read into a string field becomes a string; through
//! `json.Unmarshal` (a file starting with `{`) keys keep their order and a number is no string.

use crate::yaml::{Dialect, Node, NodeKind, Span};

/// The shape of a Go type, as far as decoding checks it.
pub enum GoType {
    String,
    Bool,
    /// A slice: its Go type name (`types.FsSlice`) and element type.
    Slice(&'static str, &'static GoType),
    /// A map with string keys: its Go type name and value type.
    Map(&'static str, &'static GoType),
    /// A struct: its Go type name (`types.FieldSpec`) and JSON fields (embedded structs' fields
    /// promoted, as Go promotes them).
    Struct(&'static str, &'static [(&'static str, &'static GoType)]),
    /// A type with its own `UnmarshalJSON`, not checked here.
    Opaque,
}

/// How the document reaches `encoding/json`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Decoder {
    /// `sigs.k8s.io/yaml`: sorted keys, scalars converted to strings for string fields.
    SigsYaml { strict: bool },
    /// `json.Unmarshal`.
    Json,
}

/// A value that does not fit: Go's message (`json: cannot unmarshal …`) and where the value is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub message: String,
    pub span: Span,
}

/// The first error Go's decoder reports for `node` read as `ty`, if any.
pub fn check(node: &Node, ty: &GoType, decoder: Decoder) -> Option<Mismatch> {
    let mut ctx = Context {
        decoder,
        strct: None,
        fields: Vec::new(),
    };
    ctx.value(node, ty)
}

struct Context {
    decoder: Decoder,
    /// The innermost struct being decoded (Go's `errorContext.Struct`).
    strct: Option<&'static str>,
    /// The JSON field names from the top (Go's `errorContext.FieldStack`).
    fields: Vec<String>,
}

/// The JSON kind Go names in an `UnmarshalTypeError` (`None`: null, which decodes into anything).
fn json_kind(node: &Node) -> Option<&'static str> {
    match &node.kind {
        NodeKind::Map(_) => Some("object"),
        NodeKind::Seq(_) => Some("array"),
        NodeKind::Scalar(s) => {
            let tag = match (&s.tag, s.style) {
                (Some(t), _) => &**t,
                (None, crate::yaml::ScalarStyle::Plain) => {
                    crate::yaml::plain_tag(&s.text, Dialect::Yaml11)
                }
                (None, _) => "!!str",
            };
            match tag {
                "!!null" => None,
                "!!bool" => Some("bool"),
                "!!int" | "!!float" => Some("number"),
                _ => Some("string"),
            }
        }
    }
}

fn type_name(ty: &GoType) -> &'static str {
    match ty {
        GoType::String => "string",
        GoType::Bool => "bool",
        GoType::Slice(name, _) | GoType::Map(name, _) | GoType::Struct(name, _) => name,
        GoType::Opaque => "",
    }
}

impl Context {
    fn mismatch(&self, kind: &str, ty: &GoType, span: Span) -> Mismatch {
        let into = match self.strct {
            Some(s) => format!(
                "Go struct field {}.{}",
                s.rsplit('.').next().unwrap_or(s),
                self.fields.join(".")
            ),
            None if !self.fields.is_empty() => {
                format!("Go struct field .{}", self.fields.join("."))
            }
            None => "Go value".to_string(),
        };
        Mismatch {
            message: format!(
                "json: cannot unmarshal {kind} into {into} of type {}",
                type_name(ty)
            ),
            span,
        }
    }

    fn value(&mut self, node: &Node, ty: &GoType) -> Option<Mismatch> {
        let kind = json_kind(node)?;
        let sigs = matches!(self.decoder, Decoder::SigsYaml { .. });
        match ty {
            GoType::Opaque => None,
            GoType::String => match kind {
                "string" => None,
                "number" | "bool" if sigs => None,
                _ => Some(self.mismatch(kind, ty, node.span)),
            },
            GoType::Bool => (kind != "bool").then(|| self.mismatch(kind, ty, node.span)),
            GoType::Slice(_, elem) => match &node.kind {
                NodeKind::Seq(items) => items.iter().find_map(|i| self.value(i, elem)),
                _ => Some(self.mismatch(kind, ty, node.span)),
            },
            GoType::Map(_, elem) => match &node.kind {
                NodeKind::Map(entries) => self
                    .ordered(entries)
                    .into_iter()
                    .find_map(|(_, v)| self.value(v, elem)),
                _ => Some(self.mismatch(kind, ty, node.span)),
            },
            GoType::Struct(name, fields) => match &node.kind {
                NodeKind::Map(entries) => {
                    let mut first = None;
                    for (key, v) in self.ordered(entries) {
                        // Go matches a key to a field exactly, else ignoring case.
                        let field = fields
                            .iter()
                            .find(|(f, _)| *f == key)
                            .or_else(|| fields.iter().find(|(f, _)| f.eq_ignore_ascii_case(&key)));
                        let found = match field {
                            Some((f, fty)) => {
                                let saved = (self.strct, self.fields.len());
                                self.strct = Some(name);
                                self.fields.push(f.to_string());
                                let found = self.value(v, fty);
                                self.strct = saved.0;
                                self.fields.truncate(saved.1);
                                found
                            }
                            None if self.decoder == (Decoder::SigsYaml { strict: true }) => {
                                Some(Mismatch {
                                    message: format!(
                                        "json: unknown field {}",
                                        crate::go::strconv::quote(&key)
                                    ),
                                    span: v.span,
                                })
                            }
                            None => None,
                        };
                        if first.is_none() {
                            first = found;
                        }
                    }
                    first
                }
                _ => Some(self.mismatch(kind, ty, node.span)),
            },
        }
    }

    /// A mapping's entries in the order the decoder meets them, keyed by their text.
    fn ordered<'n>(&self, entries: &'n [(Node, Node)]) -> Vec<(String, &'n Node)> {
        let mut out: Vec<(String, &Node)> = entries
            .iter()
            .map(|(k, v)| {
                let key = match &k.kind {
                    NodeKind::Scalar(s) => s.text.clone(),
                    _ => String::new(),
                };
                (key, v)
            })
            .collect();
        if matches!(self.decoder, Decoder::SigsYaml { .. }) {
            out.sort_by(|a, b| a.0.cmp(&b.0));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static FIELD_SPEC: GoType = GoType::Struct(
        "types.FieldSpec",
        &[
            ("group", &GoType::String),
            ("kind", &GoType::String),
            ("path", &GoType::String),
            ("create", &GoType::Bool),
        ],
    );
    static FS_SLICE: GoType = GoType::Slice("types.FsSlice", &FIELD_SPEC);
    static CONFIG: GoType = GoType::Struct(
        "builtinconfig.TransformerConfig",
        &[("namePrefix", &FS_SLICE), ("images", &FS_SLICE)],
    );

    fn check_yaml(text: &str, decoder: Decoder) -> Option<String> {
        let node = crate::yaml::parse_one(text.as_bytes(), &Default::default()).expect("yaml");
        check(&node, &CONFIG, decoder).map(|m| m.message)
    }

    const STRICT: Decoder = Decoder::SigsYaml { strict: true };

    #[test]
    fn messages_as_go_prints_them() {
        // Each as kubectl kustomize v5.5.0 prints it for a configurations: file.
        assert_eq!(
            check_yaml("[1]\n", STRICT).as_deref(),
            Some("json: cannot unmarshal array into Go value of type builtinconfig.TransformerConfig")
        );
        assert_eq!(
            check_yaml("namePrefix: \"x\"\n", STRICT).as_deref(),
            Some("json: cannot unmarshal string into Go struct field TransformerConfig.namePrefix of type types.FsSlice")
        );
        assert_eq!(
            check_yaml("namePrefix:\n- path: 3\n  kind: [a]\n", STRICT).as_deref(),
            Some("json: cannot unmarshal array into Go struct field FieldSpec.namePrefix.kind of type string")
        );
        assert_eq!(
            check_yaml("foo: bar\n", STRICT).as_deref(),
            Some("json: unknown field \"foo\"")
        );
    }

    #[test]
    fn keys_in_the_order_the_decoder_meets_them() {
        // Sorted through sigs.k8s.io/yaml: `images` comes before `namePrefix`.
        let text = "{\"namePrefix\": 1, \"images\": true}\n";
        assert_eq!(
            check_yaml(text, STRICT).as_deref(),
            Some("json: cannot unmarshal bool into Go struct field TransformerConfig.images of type types.FsSlice")
        );
        assert_eq!(
            check_yaml(text, Decoder::Json).as_deref(),
            Some("json: cannot unmarshal number into Go struct field TransformerConfig.namePrefix of type types.FsSlice")
        );
        // A number is a string only through sigs.k8s.io/yaml; null fits anything.
        let text = "{\"namePrefix\": [{\"path\": 3, \"kind\": null}]}\n";
        assert_eq!(check_yaml(text, STRICT), None);
        assert_eq!(
            check_yaml(text, Decoder::Json).as_deref(),
            Some("json: cannot unmarshal number into Go struct field FieldSpec.namePrefix.path of type string")
        );
    }
}
