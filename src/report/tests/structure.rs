//! Structural checks of writer output against the rules of its consumer: GitHub's Markdown,
//! the common JUnit XSD, and a self-contained HTML page.

/// GitHub's rules this writer relies on: `<details>` blocks balanced and never inside a fence,
/// a blank line after each `<summary>` line, fences closed by a fence at least as long, and
/// every table row with as many cells as the header.
pub fn check_markdown_structure(md: &str) {
    let mut fence: Option<usize> = None;
    let mut depth = 0i32;
    let lines: Vec<&str> = md.lines().collect();
    let mut table_cells: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let run = t.chars().take_while(|c| *c == '`').count();
        if let Some(open) = fence {
            if run >= open && t[run..].trim().is_empty() {
                fence = None;
            }
            assert!(
                !t.starts_with("<details>") && !t.starts_with("</details>"),
                "details tag inside a fence at line {}",
                i + 1
            );
            continue;
        }
        if run >= 3 {
            fence = Some(run);
            continue;
        }
        if t.starts_with("<details>") {
            depth += 1;
        }
        if t.starts_with("</details>") {
            depth -= 1;
            assert!(depth >= 0, "unbalanced </details> at line {}", i + 1);
            assert_eq!(lines[i - 1], "", "no blank line before </details>");
        }
        if t.starts_with("<summary>") {
            assert!(t.ends_with("</summary>"), "summary spans lines: {t}");
            assert_eq!(
                lines.get(i + 1).copied(),
                Some(""),
                "no blank line after <summary> at line {}",
                i + 1
            );
        }
        if t.starts_with('|') {
            let cells = t.replace("\\|", "").matches('|').count();
            match table_cells {
                None => table_cells = Some(cells),
                Some(n) => assert_eq!(n, cells, "table row with another cell count: {t}"),
            }
        } else {
            table_cells = None;
        }
    }
    assert_eq!(fence, None, "a fence is left open");
    assert_eq!(depth, 0, "a <details> block is left open");
}

/// An element of the XML: name, attributes, children, in document order.
#[derive(Debug)]
pub struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Element>,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A minimal XML reader, enough for JUnit files: elements, attributes, text, the XML
/// declaration, comments and CDATA. Panics on malformed input (this is a test).
pub fn parse_xml(xml: &str) -> Element {
    let attr_re = regex::Regex::new(r#"([A-Za-z_][\w.:-]*)\s*=\s*"([^"<]*)""#).expect("valid");
    let mut stack: Vec<Element> = vec![Element {
        name: "#document".into(),
        attrs: Vec::new(),
        children: Vec::new(),
    }];
    let mut rest = xml;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        assert!(!text.contains('>') || stack.len() > 1, "stray text: {text}");
        rest = &rest[start..];
        if let Some(r) = rest.strip_prefix("<?") {
            rest = &r[r.find("?>").expect("closed declaration") + 2..];
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = &r[r.find("-->").expect("closed comment") + 3..];
        } else if let Some(r) = rest.strip_prefix("<![CDATA[") {
            rest = &r[r.find("]]>").expect("closed CDATA") + 3..];
        } else if let Some(r) = rest.strip_prefix("</") {
            let end = r.find('>').expect("closed end tag");
            let name = r[..end].trim();
            let done = stack.pop().expect("an open element");
            assert_eq!(done.name, name, "mismatched end tag");
            stack.last_mut().expect("a parent").children.push(done);
            rest = &r[end + 1..];
        } else {
            let end = rest.find('>').expect("closed tag");
            let tag = &rest[1..end];
            let (tag, empty) = match tag.strip_suffix('/') {
                Some(t) => (t, true),
                None => (tag, false),
            };
            let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
            let el = Element {
                name: tag[..name_end].to_string(),
                attrs: attr_re
                    .captures_iter(&tag[name_end..])
                    .map(|c| (c[1].to_string(), c[2].to_string()))
                    .collect(),
                children: Vec::new(),
            };
            if empty {
                stack.last_mut().expect("a parent").children.push(el);
            } else {
                stack.push(el);
            }
            rest = &rest[end + 1..];
        }
    }
    assert_eq!(
        stack.len(),
        1,
        "unclosed elements: {:?}",
        stack.last().map(|e| &e.name)
    );
    let mut doc = stack.pop().expect("the document");
    assert_eq!(doc.children.len(), 1, "one root element");
    doc.children.remove(0)
}

pub fn count_attr(el: &Element, name: &str) -> usize {
    el.attr(name)
        .unwrap_or_else(|| panic!("<{}> has no {name} attribute", el.name))
        .parse()
        .unwrap_or_else(|e| panic!("<{}> {name}: {e}", el.name))
}

/// The shape of the common JUnit XSD (Jenkins' junit-10.xsd, which CI systems accept):
/// `testsuites` > `testsuite` (name, tests, failures, errors) > `testcase` (name, classname) >
/// `failure`/`error` (message, type), `skipped`, `system-out`, `system-err`; the counts agree
/// with the elements. Also deserialises with quick-junit as a second opinion.
pub fn check_junit_structure(xml: &str) {
    let root = parse_xml(xml);
    assert_eq!(root.name, "testsuites");
    let (mut tests, mut failures) = (0, 0);
    for suite in &root.children {
        assert_eq!(
            suite.name, "testsuite",
            "unexpected <{}> in <testsuites>",
            suite.name
        );
        assert!(suite.attr("name").is_some_and(|n| !n.is_empty()));
        let cases: Vec<&Element> = suite
            .children
            .iter()
            .filter(|c| c.name == "testcase")
            .collect();
        for c in &suite.children {
            assert!(
                ["testcase", "properties", "system-out", "system-err"].contains(&c.name.as_str()),
                "unexpected <{}> in <testsuite>",
                c.name
            );
        }
        let mut suite_failures = 0;
        let mut suite_errors = 0;
        for case in &cases {
            assert!(case.attr("name").is_some_and(|n| !n.is_empty()));
            assert!(
                case.attr("classname").is_some(),
                "testcase without classname"
            );
            let mut outcomes = 0;
            for c in &case.children {
                match c.name.as_str() {
                    "failure" | "error" => {
                        outcomes += 1;
                        assert!(c.attr("message").is_some(), "<{}> without message", c.name);
                        assert!(c.attr("type").is_some(), "<{}> without type", c.name);
                        if c.name == "failure" {
                            suite_failures += 1;
                        } else {
                            suite_errors += 1;
                        }
                    }
                    "skipped" => outcomes += 1,
                    "system-out" | "system-err" => {}
                    other => panic!("unexpected <{other}> in <testcase>"),
                }
            }
            assert!(outcomes <= 1, "a testcase with several outcomes");
        }
        assert_eq!(count_attr(suite, "tests"), cases.len());
        assert_eq!(count_attr(suite, "failures"), suite_failures);
        assert_eq!(count_attr(suite, "errors"), suite_errors);
        tests += cases.len();
        failures += suite_failures;
    }
    assert_eq!(count_attr(&root, "tests"), tests);
    assert_eq!(count_attr(&root, "failures"), failures);
    let parsed = quick_junit::Report::deserialize_from_str(xml).expect("quick-junit reads it");
    assert_eq!(parsed.tests, tests);
    assert_eq!(parsed.test_suites.len(), root.children.len());
}

/// What the page must be without a browser: one document, nothing loaded from elsewhere,
/// every section that has data, the target anchors, and escaped text.
pub fn check_html_static(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>\n"));
    assert!(page.trim_end().ends_with("</html>"));
    let external = regex::Regex::new(r#"(?i)(src|href|action|srcset)\s*=\s*["']?\s*(https?:|//)"#)
        .expect("valid");
    assert!(
        !external.is_match(page),
        "the page references an external resource"
    );
    assert!(
        !page.to_lowercase().contains("url(http"),
        "CSS loads a remote url"
    );
    assert!(!page.contains("@import"), "CSS imports something");
    assert!(page.contains("default-src 'none'"), "no CSP");
    assert!(!page.contains("<script>alert"), "unescaped value");
    // The frame, and each chunk of details (plain JSON) on its own, are balanced.
    let tag = "<script type=\"application/json\" id=\"kdelta-data\">";
    let (frame, chunks) = match page.find(tag) {
        Some(start) => {
            let end = start
                + page[start..]
                    .find("</script>")
                    .expect("the data block ends");
            let json = &page[start + tag.len()..end];
            let chunks: Vec<String> = serde_json::from_str(json).expect("the details are JSON");
            (format!("{}{}", &page[..start], &page[end..]), chunks)
        }
        None => (page.to_string(), Vec::new()),
    };
    for part in std::iter::once(&frame).chain(&chunks) {
        assert!(!part.contains("<script>alert"), "unescaped value");
        for (open, close) in [
            ("<details", "</details>"),
            ("<table", "</table>"),
            ("<tr", "</tr>"),
        ] {
            assert_eq!(
                part.matches(open).count(),
                part.matches(close).count(),
                "{open} unbalanced in {}",
                &part[..part.len().min(300)]
            );
        }
    }
}
