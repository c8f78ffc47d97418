//! The block-subset YAML reader (`src/yaml/fast.rs`) against libyaml: on every YAML file of
//! `testdata/`, on mutations of them and on hand-written corner cases, reading with the subset
//! reader first (the default) gives the same nodes, positions and errors as libyaml alone, and
//! the subset reader takes most of the real files by itself.

mod yaml_corpus;

use kdelta::yaml::{
    parse_first, parse_stream, parse_stream_subset, DuplicateKeys, ParseOptions, Reader,
};
use std::path::Path;
use yaml_corpus::{yaml_files, Rng};

fn options(reader: Reader, duplicate_keys: DuplicateKeys) -> ParseOptions {
    ParseOptions {
        duplicate_keys,
        reader,
        ..ParseOptions::default()
    }
}

/// Both readers agree on `input` (whole stream and first document, two duplicate-key modes).
/// Returns whether the subset reader took the input by itself.
fn agree(input: &[u8], what: &str) -> bool {
    for (keys, v3) in [
        (DuplicateKeys::Error, false),
        (DuplicateKeys::LastWins, false),
        (DuplicateKeys::Keep, true),
    ] {
        let opts = |reader| ParseOptions {
            go_yaml_v3_comments: v3,
            ..options(reader, keys)
        };
        let fast = parse_stream(input, &opts(Reader::Fast));
        let libyaml = parse_stream(input, &opts(Reader::Libyaml));
        assert_eq!(
            fast, libyaml,
            "{what}: the readers differ ({keys:?}, v3 comments {v3})"
        );
    }
    let first = parse_first(input, &options(Reader::Fast, DuplicateKeys::Error));
    let first_libyaml = parse_first(input, &options(Reader::Libyaml, DuplicateKeys::Error));
    assert_eq!(first, first_libyaml, "{what}: the first documents differ");
    // Helm's values from the subset reader's events, where it takes them, are those made
    // through the nodes.
    if let Ok(text) = std::str::from_utf8(input) {
        if let Some(by_events) = kdelta::template::helm_values_by_events(text) {
            assert_eq!(
                Ok(by_events),
                kdelta::template::helm_values_by_nodes(text),
                "{what}: Helm's values differ"
            );
        }
    }
    // A rendered document's head as the reader's events give it, where they decide it, is
    // the one read from its node tree (Helm's `SortManifests`).
    if let Ok(text) = std::str::from_utf8(input) {
        if let Some(head) = kdelta::helm::head::streamed(text) {
            assert_eq!(
                Ok(head),
                kdelta::helm::head::read(text).map(|(kind, hook, _)| (kind, hook)),
                "{what}: the document's head differs"
            );
        }
    }
    match parse_stream_subset(input, &options(Reader::Fast, DuplicateKeys::Error)) {
        Some(subset) => {
            let libyaml = parse_stream(input, &options(Reader::Libyaml, DuplicateKeys::Error));
            assert_eq!(subset, libyaml, "{what}: the subset reader differs");
            true
        }
        None => false,
    }
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut paths = Vec::new();
    yaml_files(&root, &mut paths);
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let name = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
            Some((name, bytes))
        })
        .collect()
}

#[test]
fn every_yaml_file_of_the_testdata_reads_the_same() {
    let corpus = corpus();
    assert!(
        corpus.len() > 1000,
        "only {} YAML files found",
        corpus.len()
    );
    let mut taken = 0;
    for (name, bytes) in &corpus {
        if agree(bytes, name) {
            taken += 1;
        }
    }
    eprintln!("COUNT {taken} of {}", corpus.len());
    // Most real files are in the subset: a reader that gave up on everything would agree too.
    assert!(
        taken * 10 > corpus.len() * 7,
        "the subset reader took only {taken} of {} files",
        corpus.len()
    );
}

/// `bytes` with one edit a person or a template might make: a character of YAML's syntax
/// inserted, a byte deleted, a line's indentation changed, a line repeated.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    const INSERTS: &[&[u8]] = &[
        b" ",
        b"  ",
        b"\n",
        b":",
        b": ",
        b"- ",
        b"-",
        b"#",
        b" #",
        b"\"",
        b"'",
        b"|",
        b">-",
        b"|+",
        b"[]",
        b"{}",
        b"\\",
        b"\\n",
        b"a",
        b"---\n",
        b"\xc3\xa9",
        b"\t",
        b"&a ",
        b"*a",
        b"!!str ",
        b"? ",
        b"%",
        b"...",
    ];
    let mut out = bytes.to_vec();
    let at = rng.below(out.len() + 1);
    match rng.below(4) {
        0 => {
            let ins = INSERTS[rng.below(INSERTS.len())];
            out.splice(at..at, ins.iter().copied());
        }
        1 if !out.is_empty() => {
            out.remove(at.min(out.len() - 1));
        }
        2 => {
            let start = out[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            if rng.below(2) == 0 {
                out.splice(start..start, *b"  ");
            } else if out.get(start) == Some(&b' ') {
                out.remove(start);
            }
        }
        _ => {
            let start = out[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let end = out[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(out.len(), |i| at + i + 1);
            let line = out[start..end].to_vec();
            out.splice(start..start, line);
        }
    }
    out
}

#[test]
fn mutated_yaml_reads_the_same() {
    let corpus: Vec<_> = corpus()
        .into_iter()
        .filter(|(_, b)| b.len() <= 4096)
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut taken = 0;
    let mut tried = 0;
    for (name, bytes) in &corpus {
        let mut current = bytes.clone();
        for round in 0..6 {
            // Chains of up to three edits, each starting from the file.
            if round % 3 == 0 {
                current.clone_from(bytes);
            }
            current = mutate(&current, &mut rng);
            tried += 1;
            let what = format!(
                "{name}, mutation {round}: {:?}",
                String::from_utf8_lossy(&current)
            );
            if agree(&current, &what) {
                taken += 1;
            }
        }
    }
    eprintln!("COUNT {taken} of {tried}");
    // The mutants the subset reader takes are what this test checks: enough of them.
    assert!(
        taken * 4 > tried,
        "the subset reader took only {taken} of {tried} mutants"
    );
}

/// Inputs in the subset: the subset reader must read each by itself.
const IN_THE_SUBSET: &[&str] = &[
    "a: b\n",
    "a: b",
    "a:\n",
    "a:",
    "a:\nb: c\n",
    "a:   \n  # c\nb:\n",
    "a: b # c\nd: e#f\n",
    "a: multi\n  line\n\n   plain\n\n\n  text\nb: c\n",
    "a:\n  scalar on its own line\n  and more\nb: c\n",
    "- a\n- b: c\n  d: e\n-\n- - x\n  - y\n-   z: 1\n",
    "a:\n- b\n- c\nd: e\n",
    "a:\n  - b\n  -\n  - c: d\n    e: f\nz: 1\n",
    "- a:\n  - b\n- c\n",
    "- a:\n- b\n",
    "  a: b\n  c: d\n",
    "a: 'single ''quoted'' text'\nb: \"double \\\"quoted\\\" \\u00e9 \\x41 \\U0001F600 \\t \\\\ \\_ \\N\"\n",
    "a: \"multi\n  line\n\n  quoted\"\nb: 'also\n\n\n  single'\n",
    "a: \"escaped \\\n  break\"\n",
    "\"quoted key\": 1\n'single key' : 2\n",
    "a: |\n  literal\n   more\n\n  text\n\n\nb: >\n  folded\n  text\n\n   indented\n  back\n\nc: |-\n  strip\nd: |+\n  keep\n\n\ne: x\n",
    "a: >-\n\n  leading blank lines\n  folded\n",
    "a: |2\n   two more\n  base\n",
    "a: |1-\n  x\n",
    "a: | # comment\n  x\n",
    "a: |\n  x\n # less indented comment\nb: c\n",
    "- |\n  item\n- >\n  folded\n   item\n",
    "a: |\n",
    "a: |",
    "a: []\nb: {}\n",
    "- []\n- {}\n",
    "---\na: 1\n---\nb: 2\n",
    "--- # comment\na: 1\n",
    "<<: {}\na: 1\n",
    "a: 1\na: 2\n",
    "ключ: значение\n\"é\": [] \nx: é y\n",
    "a: -1\nb: --x\nc: -- y\n",
    "a: b#c\nd: e #f\ng: 'h'#i\n",
    "a: x\n  # comment\nb: y\n",
    "a:\n# comment\n  b: c\n",
    "- \n-\n",
    "a:\n  -\n    b\n",
    "a:\n  |\n   block on its own line\n",
    "{}\n",
    "[]",
    "null\n",
    "plain root\nscalar\n",
    "\"quoted root\"\n",
    "|\n  block root\n",
    "---\n",
    "---\n---\na: 1\n",
    "a: 1\n---\n",
    "a: 1\n---\n---",
    "",
    "# only a comment\n",
    "a: [b, \"c\", 'd', [e], {f: g}]\n",
    "a: {\"k\": v, k2: [1, 2,], k3: {}, \"k4\":w}\n",
    "a: [x,\n  y, # comment\n  z]\nb: 1\n",
    "- {key: app, operator: In, values: [prometheus]}\n",
    "c: [ ]\nd: [a]\ne: [a b, c:d, \"e\"]\n",
    "a:\n  b: [x,\ny]\n",
];

/// Inputs outside the subset (or not YAML): libyaml reads them, whatever the subset reader
/// does first.
const OUTSIDE: &[&str] = &[
    "a: b\n  : c\n",
    "a: b\n  c: d\n",
    "a: b: c\n",
    "a: - b\n",
    "a:\n    b: 1\n  c: 2\n",
    "  a: b\nc: d\n",
    "a: \"\\/\"\n",
    "a: \"\\q\"\n",
    "a: \"\\ud800\"\n",
    "a: \"unterminated\n",
    "\"multi\n line\": 3\n",
    "\"a\" b: c\n",
    "a: |0\n  x\n",
    "a: |x\n  x\n",
    "a: |\n      \n  short after long blank\n",
    "a: [] x\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "? a\n: b\n",
    "a: 1\n...\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\n--- x\n",
    "k: ключ: x\n",
    "a: b\n\tc: d\n",
    "a: b\r\nc: d\r\n",
    "\u{feff}a: b\n",
    "b: -\n",
    "a: ?x\nb: :y\n",
    "a: x\n# comment\n  b\n",
    "a: [b: c]\n",
    "a: {b}\n",
    "a: {b: }\n",
    "a: [a,,b]\n",
    "a: [,]\n",
    "a: {[a]: b}\n",
    "a: [\n---\n]\n",
    "a: [x]: y\n",
    "a: {a: b, c}\n",
    "a: [x:, y]\n",
    "a: [-x, - y]\n",
    "a: [?x]\n",
    "a: {? x: y}\n",
    "a: {x\n: y}\n",
    "[a\n",
    "--- a\n",
    "--- {}\n",
    "- a\nb: c\n",
    "a: 1\n- b\n",
];

#[test]
fn corner_cases_read_the_same() {
    for case in IN_THE_SUBSET {
        assert!(
            agree(case.as_bytes(), &format!("{case:?}")),
            "not read by the subset reader: {case:?}"
        );
    }
    for case in OUTSIDE {
        agree(case.as_bytes(), &format!("{case:?}"));
    }
}

/// What Helm's values make of keys and scalars in the subset: the values built from the
/// subset reader's events are those built through the nodes; what could differ (or fail)
/// is left to the nodes.
#[test]
fn helm_values_from_events_are_those_from_nodes() {
    // Built from the events.
    const TAKEN: &[&str] = &[
        "a: 1\nb: 1.5\nc: 0x1F\nd: 0o17\ne: 1_000\n",
        "a: ~\nb: null\nc:\nd: true\ne: yes\nf: off\ng: 2001-12-14\n",
        "1: a\n1.20: b\n0x1F: c\ntrue: d\n2001-12-14: e\n'x': f\n",
        "9223372036854775807: a\n",
        "1e400: a\n",
        "'<<': 1\n",
        "a: |\n  text\n  more\nb: >-\n  folded\n",
        "a: \"quoted: \\u00e9\"\n",
        "- a\n- 1\n- {b: c}\n",
        "just a scalar\n",
        "",
        "---\n",
        "# only a comment\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\n---\nb: 1\nb: 2\n",
        "a: [1, 2, {c: d}]\nb: {}\nc: []\n",
        "a: 12345678901234567890\n",
        "a: +12\nb: -0\nc: 0b101\nd: 1:30\n",
        // Only the first document is read: what follows it need not be YAML.
        "a: 1\n---\nb: [\n",
    ];
    // Left to the nodes: an infinite float, a null or uint64 key, a key given twice, a
    // merge key.
    const LEFT: &[&str] = &[
        "a: .inf\n",
        "a: -.inf\n",
        "a: .nan\n",
        "a: [.inf]\n",
        "~: a\n",
        "null: a\n",
        "18446744073709551615: a\n",
        "a: 1\na: 2\n",
        "1: x\n'1': y\n1: z\n",
        "a:\n  b: 1\n  b:\n    c: 2\n",
        "<<: {a: 1}\nb: 2\n",
        "a:\n  <<:\n    b: 1\n",
    ];
    for case in TAKEN {
        let by_events = kdelta::template::helm_values_by_events(case)
            .unwrap_or_else(|| panic!("{case:?} is not built from the events"));
        assert_eq!(
            Ok(by_events),
            kdelta::template::helm_values_by_nodes(case),
            "{case:?}"
        );
    }
    for case in LEFT {
        assert_eq!(
            kdelta::template::helm_values_by_events(case),
            None,
            "{case:?}"
        );
        // And the way Helm's values are read gives the nodes' answer.
        assert_eq!(
            kdelta::template::helm_values(case),
            kdelta::template::helm_values_by_nodes(case),
            "{case:?}"
        );
    }
}

#[test]
fn a_long_key_and_deep_nesting_read_the_same() {
    let long_key = format!("{}: 1\n", "k".repeat(1500));
    agree(long_key.as_bytes(), "a 1,500-character key");
    let mut deep = String::new();
    for depth in 0..80 {
        deep.push_str(&" ".repeat(depth));
        deep.push_str("k:\n");
    }
    agree(deep.as_bytes(), "80 levels of mappings");
    let mut limits = kdelta::yaml::Limits::DEFAULT;
    limits.max_depth = 10;
    let opts = |reader| ParseOptions {
        limits,
        reader,
        ..ParseOptions::default()
    };
    assert_eq!(
        parse_stream(deep.as_bytes(), &opts(Reader::Fast)),
        parse_stream(deep.as_bytes(), &opts(Reader::Libyaml)),
        "the depth limit"
    );
}
