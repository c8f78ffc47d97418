//! The terminal writer: errors and subcharts switched on or off first, the Applications that
//! appear or disappear, image changes one line per image, a change that is the same in several
//! targets once, then the changes target by target (field changes as `path:
//! old → new`), findings with `file:line:col`, and a summary line. Colors only when asked.

use super::overview::Overview;
use super::textdiff::{self, Run};
use super::{
    view, Change, ChangeKind, FieldChange, Finding, Report, Severity, TargetReport, TargetStatus,
};
use crate::redact::is_marker;
use owo_colors::OwoColorize;
use serde_json::Value;
use std::fmt::Write;

/// Writer settings.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOptions {
    pub color: bool,
    /// `--stat`: one line per changed target with its counts, instead of every change.
    pub stat: bool,
}

pub(super) struct Painter {
    pub(super) color: bool,
}

impl Painter {
    fn red(&self, s: &str) -> String {
        if self.color {
            s.red().to_string()
        } else {
            s.to_string()
        }
    }
    fn green(&self, s: &str) -> String {
        if self.color {
            s.green().to_string()
        } else {
            s.to_string()
        }
    }
    fn yellow(&self, s: &str) -> String {
        if self.color {
            s.yellow().to_string()
        } else {
            s.to_string()
        }
    }
    fn cyan(&self, s: &str) -> String {
        if self.color {
            s.cyan().to_string()
        } else {
            s.to_string()
        }
    }
    pub(super) fn bold(&self, s: &str) -> String {
        if self.color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
    fn dim(&self, s: &str) -> String {
        if self.color {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    }
}

/// Targets in the order a reader needs them: those that failed, then those removed, added,
/// and modified; the report's order within each.
pub fn by_importance(report: &Report) -> Vec<&TargetReport> {
    let mut shown: Vec<&TargetReport> = report
        .targets
        .iter()
        .filter(|t| view::is_shown(t))
        .collect();
    shown.sort_by_key(|t| match t.status {
        TargetStatus::Error => 0,
        TargetStatus::Removed => 1,
        TargetStatus::Added => 2,
        TargetStatus::Modified => 3,
        TargetStatus::Unchanged => 4,
    });
    shown
}

/// How many targets a group names before "and N more".
const GROUP_TARGETS_SHOWN: usize = 3;

/// Renders the whole report for a terminal: errors first, then the image changes, the
/// changes found in several targets (once each), every changed target (a grouped change as
/// one line pointing up), the other findings, and the summary.
pub fn to_string(report: &Report, opts: TextOptions) -> String {
    let p = Painter { color: opts.color };
    let mut out = String::new();
    // Errors, then subcharts switched on or off, come first; the other findings last.
    let (first, others): (Vec<&Finding>, Vec<&Finding>) = report.findings.iter().partition(|f| {
        (f.severity == Severity::Error && f.revision != Some(super::Side::Base))
            || view::is_toggle(f)
    });
    let mut first = first;
    first.sort_by_key(|f| f.severity);
    if !first.is_empty() {
        for f in &first {
            write_finding(&mut out, f, &p);
        }
        out.push('\n');
    }
    let apps = view::applications(report);
    if !apps.is_empty() && !opts.stat {
        let _ = writeln!(out, "{}", p.bold("applications added or removed"));
        for (target, c) in &apps {
            let (sign, word) = match c.change {
                ChangeKind::Added => (p.green("+"), "in"),
                _ => (p.red("-"), "from"),
            };
            let why = c
                .reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {sign} {} {}",
                c.resource,
                p.dim(&format!("({word} {target}{why})"))
            );
        }
        out.push('\n');
    }
    let shown = by_importance(report);
    if opts.stat {
        write_stat(&mut out, &shown, &p);
    } else {
        let overview = Overview::of(report);
        write_overview(&mut out, &overview, &p);
        for t in &shown {
            write_target(&mut out, t, &overview, &p);
        }
    }
    if !others.is_empty() {
        for f in &others {
            write_finding(&mut out, f, &p);
        }
        out.push('\n');
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} targets: {} modified, {} added, {} removed, {} unchanged; {} rendered, {} from cache; {} error{}",
        s.targets,
        s.modified,
        s.added,
        s.removed,
        s.targets - s.modified - s.added - s.removed - report.targets.iter().filter(|t| t.status == TargetStatus::Error).count(),
        s.rendered,
        s.cached,
        s.errors,
        if s.errors == 1 { "" } else { "s" }
    );
    if s.incomplete > 0 {
        // Said apart from the counts line, which scripts may parse.
        let _ = writeln!(
            out,
            "{} incomplete: something they need was not fetched or is not rendered yet (see the notices)",
            view::plural(s.incomplete, "target")
        );
    }
    if let Some(apps) = &s.applications {
        let _ = writeln!(out, "Argo CD Applications: {}", apps.line());
    }
    if let Some(flux) = &s.flux {
        let _ = writeln!(out, "Flux Kustomizations and HelmReleases: {}", flux.line());
    }
    out
}

fn status(t: &TargetReport, p: &Painter) -> String {
    let mut status = match t.status {
        TargetStatus::Added => p.green("added"),
        TargetStatus::Removed => p.red("removed"),
        TargetStatus::Modified => p.yellow("modified"),
        TargetStatus::Error => p.red("error"),
        TargetStatus::Unchanged => "unchanged".to_string(),
    };
    if t.incomplete {
        status.push_str(&format!(", {}", p.yellow("incomplete")));
    }
    status
}

/// `--stat`: `ID | counts`, the ids padded to one column.
fn write_stat(out: &mut String, shown: &[&TargetReport], p: &Painter) {
    let width = shown
        .iter()
        .map(|t| t.id.chars().count())
        .max()
        .unwrap_or(0);
    for t in shown {
        let counts = match view::change_counts(&t.changes) {
            c if c.is_empty() => status(t, p),
            c => format!("{c} ({})", status(t, p)),
        };
        let pad = width - t.id.chars().count();
        let _ = writeln!(out, " {}{} | {counts}", t.id, " ".repeat(pad));
    }
    if !shown.is_empty() {
        out.push('\n');
    }
}

/// The image changes and the changes found in several targets.
fn write_overview(out: &mut String, overview: &Overview, p: &Painter) {
    if !overview.images.is_empty() {
        let _ = writeln!(out, "{}", p.bold("image changes"));
        let width = overview
            .images
            .iter()
            .map(|i| i.image.chars().count())
            .max()
            .unwrap_or(0);
        for i in &overview.images {
            let pad = width - i.image.chars().count();
            let _ = writeln!(
                out,
                "  {}{}  {}  {}",
                i.image,
                " ".repeat(pad),
                i.transition(),
                p.dim(&format!("({})", view::plural(i.targets.len(), "target")))
            );
        }
        out.push('\n');
    }
    if !overview.groups.is_empty() {
        let _ = writeln!(out, "{}", p.bold("changes in several targets"));
        for g in &overview.groups {
            let targets = g.targets();
            let names: Vec<&str> = targets.iter().take(GROUP_TARGETS_SHOWN).copied().collect();
            let more = targets.len().saturating_sub(GROUP_TARGETS_SHOWN);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let mut block = String::new();
            write_change(&mut block, &g.change(), p);
            let mut lines = block.lines();
            if let Some(first) = lines.next() {
                let _ = writeln!(
                    out,
                    "{first}  {}",
                    p.dim(&format!(
                        "in {}: {}{more}",
                        view::plural(targets.len(), "target"),
                        names.join(", ")
                    ))
                );
            }
            for l in lines {
                let _ = writeln!(out, "{l}");
            }
        }
        out.push('\n');
    }
}

fn write_target(out: &mut String, t: &TargetReport, overview: &Overview, p: &Painter) {
    let _ = writeln!(out, "{} ({})", p.bold(&t.id), status(t, p));
    // A remote source that resolved differently: a chart bump, or a moving constraint.
    for (source, base, head) in t.sources.changed() {
        let _ = writeln!(
            out,
            "  {} {source}: {} → {}",
            p.yellow("@"),
            base.unwrap_or("none"),
            head.unwrap_or("none")
        );
    }
    for c in &t.changes {
        match overview.group_of(&t.id, c) {
            Some(g) => {
                let sign = match c.change {
                    ChangeKind::Added => p.green("+"),
                    ChangeKind::Removed => p.red("-"),
                    _ => p.yellow("~"),
                };
                let _ = writeln!(
                    out,
                    "  {sign} {}  {}",
                    c.resource,
                    p.dim(&format!(
                        "(as in {}, above)",
                        view::plural(g.targets().len(), "target")
                    ))
                );
            }
            None => write_change(out, c, p),
        }
    }
    out.push('\n');
}

fn write_change(out: &mut String, c: &Change, p: &Painter) {
    match c.change {
        ChangeKind::Added => {
            let size = view::large_object(c).unwrap_or_default();
            let _ = writeln!(out, "  {} {}{}", p.green("+"), c.resource, p.dim(&size));
        }
        ChangeKind::Removed => {
            let size = view::large_object(c).unwrap_or_default();
            let _ = writeln!(out, "  {} {}{}", p.red("-"), c.resource, p.dim(&size));
        }
        ChangeKind::Modified => {
            let _ = writeln!(out, "  {} {}", p.yellow("~"), c.resource);
        }
        ChangeKind::Renamed => {
            let _ = writeln!(
                out,
                "  {} {} {} {}",
                p.yellow("~"),
                c.origin().unwrap_or_else(|| "?".to_string()),
                p.dim("→"),
                c.resource
            );
        }
    }
    if let Some(reason) = &c.reason {
        let _ = writeln!(out, "      {}", p.dim(&format!("({reason})")));
    }
    for f in &c.fields {
        write_field(out, f, p);
    }
}

pub(super) fn write_field(out: &mut String, f: &FieldChange, p: &Painter) {
    let path = p.cyan(&f.path);
    let secret = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).is_some_and(is_marker);
    match (&f.old, &f.new) {
        (Some(_), Some(_)) if secret(&f.old) && secret(&f.new) => {
            let _ = writeln!(out, "      {path}: changed (sha256 digest prefix differs)");
        }
        (Some(o), Some(n)) => {
            let (o, n) = match (show(o), show(n)) {
                // The same text in another type (`50` and `"50"`): shown as JSON.
                (a, b) if a == b && o != n => (o.to_string(), n.to_string()),
                pair => pair,
            };
            if o.contains('\n') || n.contains('\n') {
                let _ = writeln!(out, "      {path}:");
                write_text_diff(out, &o, &n, p);
            } else {
                let _ = writeln!(out, "      {path}: {} → {}", p.red(&o), p.green(&n));
            }
        }
        (None, Some(n)) => {
            let _ = writeln!(
                out,
                "      {path}: {} {}",
                p.green("added"),
                p.green(&short(n))
            );
        }
        (Some(o), None) => {
            let _ = writeln!(
                out,
                "      {path}: {} (was {})",
                p.red("removed"),
                p.red(&short(o))
            );
        }
        (None, None) => {}
    }
}

fn write_text_diff(out: &mut String, old: &str, new: &str, p: &Painter) {
    let diff = textdiff::line_diff(old, new);
    for run in diff.runs() {
        match run {
            Run::Same { lines, .. } => {
                for line in lines {
                    let _ = writeln!(out, "          {line}");
                }
            }
            Run::Changed { removed, added, .. } => {
                for line in removed {
                    let _ = writeln!(out, "        {}", p.red(&format!("- {line}")));
                }
                for line in added {
                    let _ = writeln!(out, "        {}", p.green(&format!("+ {line}")));
                }
            }
        }
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) if !s.contains('\n') => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

/// One finding as `severity[rule] file:line:col: message`.
fn write_finding(out: &mut String, f: &Finding, p: &Painter) {
    let sev = match f.severity {
        Severity::Error => p.red("error"),
        Severity::Warning => p.yellow("warning"),
        Severity::Notice => p.cyan("notice"),
    };
    let loc = f.location().map(|l| format!("{l}: ")).unwrap_or_default();
    // A fixed validation finding is of the base revision; its label says so.
    let side = match (f.revision, f.baseline) {
        (Some(super::Side::Base), None) => " (base)",
        _ => "",
    };
    let _ = writeln!(
        out,
        "{sev}[{}]{side}{} {loc}{}",
        f.rule,
        f.baseline_label(),
        f.message
    );
    // What it was found under, innermost first (the reference tool's chain).
    for c in &f.context {
        let _ = writeln!(out, "  {} {c}", p.dim("note:"));
    }
    if let Some(h) = &f.help {
        let _ = writeln!(out, "  {} {h}", p.dim("help:"));
    }
}

/// Findings alone (for `check` and `render`), one per line.
pub fn findings_to_string(findings: &[Finding], opts: TextOptions) -> String {
    let p = Painter { color: opts.color };
    let mut out = String::new();
    for f in findings {
        write_finding(&mut out, f, &p);
    }
    out
}
