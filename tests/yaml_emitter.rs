//! kdelta's emitter (`src/yaml/emitter.rs`) against libyaml-safer's, which it reimplements for
//! the documents `emit.rs` writes: the same text for every document of every YAML file of
//! `testdata/` and for generated values whose strings hold what decides a scalar's style and
//! its folding (indicators, blanks, line breaks, non-printable and astral characters, long
//! lines), with go-yaml v2's and v3's sequence indentation.

mod yaml_corpus;

use kdelta::yaml::emit::{to_string, to_string_libyaml, to_string_v3};
use kdelta::yaml::{parse_stream, yaml_to_json, ParseOptions};
use serde_json::{json, Map, Value};
use std::path::Path;
use yaml_corpus::{yaml_files, Rng};

fn same(value: &Value, what: &str) {
    assert_eq!(
        to_string(value),
        to_string_libyaml(value, true),
        "{what}: go-yaml v2 layout"
    );
    assert_eq!(
        to_string_v3(value),
        to_string_libyaml(value, false),
        "{what}: go-yaml v3 layout"
    );
}

#[test]
fn every_document_of_the_testdata_is_written_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut paths = Vec::new();
    yaml_files(&root, &mut paths);
    let mut documents = 0;
    for path in &paths {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(docs) = parse_stream(&bytes, &ParseOptions::default()) else {
            continue;
        };
        for doc in docs {
            if let Ok(value) = yaml_to_json(&doc) {
                same(&value, &path.display().to_string());
                documents += 1;
            }
        }
    }
    assert!(documents > 1000, "only {documents} documents compared");
}

/// Pieces of strings that decide how a scalar is written.
const PIECES: &[&str] = &[
    "a",
    "word",
    "longerwordthanmost",
    "0",
    "1.5",
    "true",
    "null",
    "~",
    " ",
    "  ",
    "\n",
    "\n\n",
    ":",
    ": ",
    " #",
    "#",
    "-",
    "- ",
    "? ",
    "'",
    "\"",
    "\\",
    "\t",
    "\r",
    "é",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}",
    "\u{1}",
    "\u{7f}",
    "𝄞",
    "---",
    "...",
    "[",
    "{",
    ",",
    "&",
    "*",
    "!",
    "|",
    ">",
    "%",
    "@",
    "`",
    "0x1F",
    "1:20",
    "<<",
    "=",
];

fn string(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(12) {
        s.push_str(PIECES[rng.below(PIECES.len())]);
    }
    // Sometimes long enough to fold at 80 columns.
    if rng.below(4) == 0 {
        for _ in 0..rng.below(30) {
            s.push_str(["lorem", " ", "ipsum dolor", "  ", "sit", "\n"][rng.below(6)]);
        }
    }
    s
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.below(100_000) as f64 / 7.0),
        3 | 4 => Value::String(string(rng)),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                map.insert(string(rng), value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

#[test]
fn generated_values_are_written_the_same() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..4000 {
        let v = value(&mut rng, 0);
        same(&v, &format!("round {round}: {v}"));
    }
}
