//! Function sets: text/template's builtins and sprig's (Helm's and Argo CD's come on top).

pub mod argo;
pub mod builtin;
pub mod crypto;
pub mod dates;
pub mod durations;
pub mod helm;
pub mod json;
pub mod json_scan;
pub mod paths;
pub mod random;
pub mod rsa_keygen;
pub mod semver;
pub mod sprig;
pub mod toml;
pub mod toml_lex;
