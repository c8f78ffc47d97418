//! The writers' output in the programs that will show it: GitHub's Markdown renderer
//! (cmark-gfm) and headless Chromium. Without them the tests say that they skipped and pass,
//! except under `CI=true`, where a missing program fails them: CI installs both (`.ci/run`),
//! so a skip there would mean a broken setup passing unseen.

use super::structure::check_html_static;
use super::*;
use std::path::Path;

/// The program at `path` when it is installed. Otherwise `None`, after saying that `what`
/// skipped; under `CI=true` the test fails instead.
fn installed(path: &'static str, what: &str) -> Option<&'static Path> {
    let program = Path::new(path);
    if program.exists() {
        return Some(program);
    }
    missing(path, what, std::env::var("CI").is_ok_and(|v| v == "true"));
    None
}

fn missing(path: &str, what: &str, ci: bool) {
    assert!(
        !ci,
        "{path} is not installed, and CI=true needs it: `bash .ci/run --tools-only` installs it"
    );
    eprintln!("skipped{what}: {path} is not installed");
}

#[test]
#[should_panic(expected = "CI=true needs it")]
fn a_missing_program_fails_under_ci() {
    missing("/nonexistent/tool", "", true);
}

/// The Markdown through cmark-gfm, the renderer github.com uses, with GitHub's extensions, when
/// it is installed (Debian package `cmark-gfm`): every `<details>` block stays HTML with the
/// Markdown inside it rendered, every fence becomes a code block, and the summary is a table.
#[test]
fn markdown_renders_with_githubs_cmark_gfm() {
    let Some(cmark) = installed("/usr/bin/cmark-gfm", "") else {
        return;
    };
    let huge = huge_report();
    let docs = [
        markdown::to_string(&fixture(), &markdown::MarkdownOptions::default()),
        markdown::to_string(&huge, &markdown::MarkdownOptions::default()),
        markdown::to_string(
            &huge,
            &markdown::MarkdownOptions {
                max_len: 5_000,
                ..Default::default()
            },
        ),
    ];
    let code_re = regex::Regex::new(r"(?s)<pre.*?</pre>|<code>.*?</code>").expect("valid");
    for md in &docs {
        let html = render_gfm(cmark, md);
        let details = md.lines().filter(|l| *l == "<details>").count();
        assert_eq!(html.matches("<details>").count(), details, "{html}");
        assert_eq!(html.matches("</details>").count(), details, "{html}");
        // The Markdown right after each summary was rendered, not left as text.
        for after in html.split("</summary>\n").skip(1) {
            assert!(
                after.starts_with("<ul>") || after.starts_with("<p>"),
                "not rendered: {}",
                &after[..after.len().min(200)]
            );
        }
        let fences = md
            .lines()
            .filter(|l| l.trim_start().starts_with("```") && l.ends_with("diff"))
            .count();
        assert_eq!(html.matches("<pre lang=\"diff\">").count(), fences);
        let outside_code = code_re.replace_all(&html, "");
        assert!(!outside_code.contains("```"), "a fence was not parsed");
        assert!(
            html.contains("<th align=\"right\">Targets</th>"),
            "no summary table"
        );
    }
}

fn render_gfm(cmark: &Path, md: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(cmark)
        .args(["--unsafe", "--github-pre-lang"])
        .args([
            "-e",
            "table",
            "-e",
            "autolink",
            "-e",
            "strikethrough",
            "-e",
            "tagfilter",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start cmark-gfm");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = md.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("cmark-gfm runs");
    writer
        .join()
        .expect("the writer thread")
        .expect("write to cmark-gfm");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("cmark-gfm writes UTF-8")
}

/// The page in headless Chromium: the script runs, the DOM has the summary counts and the
/// target anchors, and the network log shows no request made by the page. The negative
/// control (a page that loads an image from a closed local port) proves the log check works.
#[test]
fn html_renders_in_headless_chromium() {
    let page = html::to_string(&fixture());
    check_html_static(&page);
    let Some(chromium) = installed("/usr/bin/chromium", " the browser part") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("report.html");
    std::fs::write(&file, &page).expect("write the page");
    let (dom, requests) = load_in_chromium(chromium, dir.path(), &file);
    assert!(
        dom.contains("data-script=\"ready\""),
        "the inline script did not run"
    );
    for (key, n) in [
        ("targets", 6),
        ("modified", 1),
        ("added", 1),
        ("removed", 1),
        ("unchanged", 2),
        ("failed", 1),
        ("errors", 2),
    ] {
        let cell = format!("<td data-count=\"{key}\">{n}</td>");
        assert!(dom.contains(&cell), "rendered DOM lacks {cell}");
    }
    assert!(dom.contains("id=\"target-kustomize-apps-web-overlays-prod\""));
    assert!(dom.contains("<code>kustomize:apps/web/overlays/prod</code>"));
    assert!(dom.contains("<h2>Pruned subcharts</h2>"));
    assert_no_secret("html (rendered)", &dom);
    assert_eq!(requests, Vec::<String>::new(), "the page made requests");

    let control = dir.path().join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><html><body><img src=\"http://127.0.0.1:9/x.png\"></body></html>",
    )
    .expect("write the control page");
    let (_, requests) = load_in_chromium(chromium, dir.path(), &control);
    assert!(
        requests
            .iter()
            .any(|u| u.starts_with("http://127.0.0.1:9/")),
        "the network log check saw nothing: {requests:?}"
    );
}

/// Loads a file in headless Chromium; returns the DOM after scripts ran and the URLs the page
/// itself requested (Chromium's own background requests are told apart by their isolation
/// key, which is `file://` only for the page's).
fn load_in_chromium(chromium: &Path, dir: &Path, file: &Path) -> (String, Vec<String>) {
    load_url_in_chromium(chromium, dir, &format!("file://{}", file.display()), false)
}

/// Like [`load_in_chromium`] for a URL (a fragment selects the page's self-check); with
/// `settle`, Chromium runs the page's timers and promises (virtual time) before the dump.
fn load_url_in_chromium(
    chromium: &Path,
    dir: &Path,
    url: &str,
    settle: bool,
) -> (String, Vec<String>) {
    let profile = tempfile::tempdir_in(dir).expect("a profile dir");
    let netlog = profile.path().join("netlog.json");
    let mut child = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--log-net-log={}", netlog.display()))
        .args(settle.then_some("--virtual-time-budget=30000"))
        .arg("--dump-dom")
        .arg(url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish in 90 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(status.success(), "chromium failed: {status}");
    let dom = reader
        .join()
        .expect("the reader thread")
        .expect("chromium's output is UTF-8");
    let log: Value = serde_json::from_str(
        &std::fs::read_to_string(&netlog).expect("chromium wrote the network log"),
    )
    .expect("the network log is JSON");
    let mut urls = Vec::new();
    for e in log["events"].as_array().expect("network log events") {
        let p = &e["params"];
        let from_page = p["network_isolation_key"]
            .as_str()
            .is_some_and(|k| k.starts_with("file://"));
        if let (true, Some(url)) = (from_page, p["url"].as_str()) {
            if !url.starts_with("file:") && !urls.iter().any(|u| u == url) {
                urls.push(url.to_string());
            }
        }
    }
    (dom, urls)
}

/// What the page's self-check (`#selftest`) recorded: it picks the first kind in the filter,
/// opens the first target left, and waits for its details to be turned into DOM.
fn selftest(dom: &str) -> Value {
    let tag = "<pre id=\"selftest\">";
    let start = dom.find(tag).expect("the self-check ran") + tag.len();
    let end = start + dom[start..].find("</pre>").expect("its end");
    let text = dom[start..end]
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    serde_json::from_str(&text).expect("the self-check's JSON")
}

/// A release audit far larger than a pull request (400 targets of 40 changes, each with a
/// multi-line field): the page stays small, its summary and filter are usable within 2 s of
/// navigation in a real browser, and a target's details are turned into DOM when it opens.
#[test]
fn a_big_html_report_opens_at_once_and_fills_details_on_demand() {
    let Some(chromium) = installed("/usr/bin/chromium", " the browser part") else {
        return;
    };
    let report = huge_report();
    let page = html::to_string(&report);
    check_html_static(&page);
    assert!(page.len() < 5_000_000, "{} bytes", page.len());
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("big.html");
    std::fs::write(&file, &page).expect("write the page");
    let url = format!("file://{}", file.display());
    let (dom, requests) = load_url_in_chromium(chromium, dir.path(), &url, false);
    assert_eq!(requests, Vec::<String>::new(), "the page made requests");
    let ready: u64 = regex::Regex::new(r#"data-ready-ms="(\d+)""#)
        .expect("valid")
        .captures(&dom)
        .and_then(|c| c[1].parse().ok())
        .expect("the script recorded when it was ready");
    assert!(ready < 2_000, "usable after {ready} ms");
    assert!(dom.contains("<td data-count=\"targets\">406</td>"));
    let (dom, _) = load_url_in_chromium(chromium, dir.path(), &format!("{url}#selftest"), true);
    assert!(
        dom.contains("data-details=\"ready\""),
        "the details were not decoded"
    );
    let check = selftest(&dom);
    assert_eq!(check["kind"], "ConfigMap", "{check}");
    // The 400 generated targets, the removed ConfigMap's and the renamed one's.
    assert_eq!(check["shown"], "402 of 404 targets", "{check}");
    assert_eq!(check["opened"], "target-app-argocd-legacy", "{check}");
    assert_eq!(check["filled"], true, "{check}");
    assert!(check["detail"].as_u64().unwrap_or(0) > 100, "{check}");
    assert_no_secret("html (rendered)", &dom);
}
