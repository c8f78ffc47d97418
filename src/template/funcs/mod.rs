//! Function sets: text/template's builtins (sprig and Helm's functions come on top).

pub mod builtin;
