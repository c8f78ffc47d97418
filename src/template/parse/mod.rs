//! The parser of Go's text/template (`text/template/parse/parse.go`): a tree of nodes per
//! template, `define`d templates collected beside it, and Go's parse errors
//! (`template: NAME:LINE: message`).
//!
//! Nodes borrow nothing and own little: text, names and literals as written are
//! [`Span`](nodes::Span)s of the tree's shared text, and every list is allocated once at its
//! final size (built on a stack the parser reuses), since parsing a big chart is mostly
//! allocating its nodes.
//!
//! `nodes.rs` holds the tree, `parser.rs` the parser, `literals.rs` how it reads string and
//! number constants.

mod literals;
mod nodes;
mod parser;

pub use nodes::{
    arg_string, command_string, pipe_string, Arg, Branch, Command, Names, Node, Pipe, Tree,
};
pub use parser::{parse, Parsed};
