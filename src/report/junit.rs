//! JUnit XML (`--junit FILE`): a testsuite per target, a testcase per changed resource and per
//! finding; error findings are failures. Secret values never reach it (the report is redacted).

use super::{Report, Severity, TargetStatus};
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use std::collections::BTreeMap;

/// Options that decide what counts as a failure.
#[derive(Clone, Copy, Debug, Default)]
pub struct JunitOptions {
    /// A changed resource is a failure (`--fail-on-diff`).
    pub fail_on_diff: bool,
}

/// The report as JUnit XML.
pub fn to_string(report: &Report, opts: JunitOptions) -> String {
    let mut junit = quick_junit::Report::new("kdelta");
    let mut by_target: BTreeMap<&str, Vec<&super::Finding>> = BTreeMap::new();
    let mut loose = Vec::new();
    for f in &report.findings {
        match &f.target {
            Some(t) => by_target.entry(t.as_str()).or_default().push(f),
            None => loose.push(f),
        }
    }
    for t in &report.targets {
        let mut suite = TestSuite::new(t.id.as_str());
        let mut render = TestCase::new(
            "render",
            if t.status == TargetStatus::Error {
                failure("the target could not be rendered", "render")
            } else {
                TestCaseStatus::success()
            },
        );
        render.set_classname(t.id.as_str());
        if t.incomplete {
            render.set_system_out(
                "the output is incomplete: something it needs was not fetched or is not rendered yet (see the notices)",
            );
        }
        suite.add_test_case(render);
        for c in &t.changes {
            let mut detail = String::new();
            if let Some(reason) = &c.reason {
                detail.push_str(reason);
                detail.push('\n');
            }
            for f in &c.fields {
                detail.push_str(&f.path);
                detail.push('\n');
            }
            let status = if opts.fail_on_diff {
                failure(&format!("{:?}", c.change).to_lowercase(), "diff")
            } else {
                TestCaseStatus::success()
            };
            let mut case = TestCase::new(c.resource.as_str(), status);
            case.set_classname(t.id.as_str());
            case.set_system_out(format!(
                "{}\n{detail}",
                format!("{:?}", c.change).to_lowercase()
            ));
            suite.add_test_case(case);
        }
        for f in by_target.remove(t.id.as_str()).unwrap_or_default() {
            suite.add_test_case(finding_case(f, &t.id));
        }
        junit.add_test_suite(suite);
    }
    let leftovers: Vec<_> = by_target.into_values().flatten().chain(loose).collect();
    if !leftovers.is_empty() {
        let mut suite = TestSuite::new("kdelta");
        for f in leftovers {
            suite.add_test_case(finding_case(f, "kdelta"));
        }
        junit.add_test_suite(suite);
    }
    junit
        .to_string()
        .expect("serialising JUnit XML into a string cannot fail")
}

fn failure(message: &str, ty: &str) -> TestCaseStatus {
    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
    s.set_message(message);
    s.set_type(ty);
    s
}

fn finding_case(f: &super::Finding, classname: &str) -> TestCase {
    let name = match f.location() {
        Some(loc) => format!("{} {loc}", f.rule),
        None => f.rule.to_string(),
    };
    let status = match f.severity {
        // A validation error the base revision has too is not the change's failure.
        Severity::Error if f.baseline != Some(super::Baseline::Existing) => {
            let mut s = failure(&f.message, f.rule.id);
            let notes: Vec<String> = f.context.iter().map(|c| format!("note: {c}")).collect();
            let help = f.help.iter().map(|h| format!("help: {h}"));
            let description: Vec<String> = notes.into_iter().chain(help).collect();
            if !description.is_empty() {
                s.set_description(description.join("\n"));
            }
            s
        }
        Severity::Error | Severity::Warning | Severity::Notice => TestCaseStatus::success(),
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(classname);
    if f.severity != Severity::Error || f.baseline == Some(super::Baseline::Existing) {
        case.set_system_out(format!(
            "{}{}: {}",
            f.severity.as_str(),
            f.baseline_label(),
            f.message
        ));
    }
    case
}
