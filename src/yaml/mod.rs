//! YAML: a node tree with positions (parse), typing by dialect (resolve, value), and the
//! byte-exact go-yaml v2 output format (emit). Knows nothing of Kubernetes.

pub mod de;
pub mod emit;
mod emitter;
mod fast;
mod frozen;
mod node;
mod parse;
mod resolve;
pub mod roundtrip;
pub mod to_json;
mod value;

pub use crate::go::float::{format_g, format_json};
pub use frozen::Frozen;
pub use node::{FileId, Node, NodeKind, Scalar, ScalarStyle, Span};
pub use parse::{
    parse_first, parse_one, parse_stream, parse_stream_subset, read_subset, DuplicateKey,
    DuplicateKeys, Limits, Otherwise, ParseOptions, Reader, SubsetEvent, YamlError, YamlErrorKind,
};
pub use resolve::{
    plain_is_surely_string, plain_tag, resolve_plain, resolve_scalar, Dialect, Resolved,
    TagMismatch,
};
pub use to_json::{yaml_to_json, YamlToJsonError};
pub use value::{
    from_go_json, from_json_text, key_text, non_string_key, number_text, to_value, to_value_lossy,
    typing_error, ValueError,
};
