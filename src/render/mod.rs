//! Rendering: one target from a snapshot (inside a safety net), the expand phase, and running
//! many in parallel with the content-addressed cache.

mod parallel;

pub use crate::source::{Files, ParseCache, ReadSet};
pub use crate::target::{Details, RenderOptions, Target};
pub use parallel::{expand, render_all, render_pair, Expansion, PairOutcome};

use crate::finding::{rules, Finding, Severity};
use crate::resource::Resource;
use crate::source::{RepoPath, Snapshot};

/// The outcome of rendering one target at one revision.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub resources: Vec<Resource>,
    pub findings: Vec<Finding>,
    pub read_set: ReadSet,
    /// False when an error stopped the render (resources are then incomplete).
    pub ok: bool,
    /// False when the output lacks something kdelta did not fetch or cannot render yet (a
    /// remote base, a Helm chart not inflated): a finding marked `incomplete` says what.
    pub complete: bool,
    /// The file that defines the target (kustomization, Chart.yaml, the Argo CD manifest),
    /// where reports anchor the target's annotations.
    pub file: RepoPath,
    /// What the engine reported beyond resources; `None` when the render crashed.
    pub details: Option<Details>,
    /// The reference tool's own stdout, when the engine keeps it (`helm template`'s).
    pub printed: Option<String>,
}

impl Rendered {
    /// The rendered output as the reference tool prints it.
    pub fn to_yaml(&self) -> Result<String, Finding> {
        match &self.printed {
            Some(text) => Ok(text.clone()),
            None => self.emit(false).map(|(s, _)| s),
        }
    }

    /// The rendered output, with Secret values replaced by keyed digests when `redact` is set;
    /// also returns how many values were replaced. The reference tool's own output is moved,
    /// not copied: a chart's can be megabytes.
    pub fn into_yaml_redacted(self, redact: bool) -> Result<(String, usize), Finding> {
        match &self.printed {
            Some(text) if redact && self.resources.iter().any(|r| r.kind() == "Secret") => {
                let documents = match &self.details {
                    Some(d) => d.printed_documents(text),
                    None => vec![text.as_str()],
                };
                Ok(redact_printed(documents))
            }
            Some(_) => Ok((self.printed.unwrap_or_default(), 0)),
            None => self.emit(redact),
        }
    }

    /// The resources printed by kdelta's writer.
    fn emit(&self, redact: bool) -> Result<(String, usize), Finding> {
        let mut values = Vec::with_capacity(self.resources.len());
        let mut redacted = 0;
        for r in &self.resources {
            let mut v =
                crate::yaml::to_value(&r.node, crate::yaml::Dialect::Yaml12).map_err(|e| {
                    Finding::error(rules::RENDER_OUTPUT, e.to_string()).at(
                        r.origin.file.to_string(),
                        r.origin.span.line,
                        0,
                    )
                })?;
            if redact {
                redacted += crate::redact::redact_secret(&mut v);
            }
            values.push(v);
        }
        Ok((crate::yaml::emit::to_stream(values.iter()), redacted))
    }
}

/// The tool's printed output (`helm template`'s), split into its `documents`, with each
/// Secret's values replaced by keyed digests: a Secret document is printed again by kdelta's
/// writer (after its `# Source:` line), every other one as it was.
fn redact_printed(documents: Vec<&str>) -> (String, usize) {
    let mut out = String::new();
    let mut redacted = 0;
    for doc in documents {
        let (source, body) = match doc.strip_prefix("# Source: ") {
            Some(rest) => {
                let (line, body) = rest.split_once('\n').unwrap_or((rest, ""));
                (Some(line), body)
            }
            None => (None, doc),
        };
        // A document whose kind is Secret holds the word, or writes it with an escape (a
        // backslash): the others, most of a chart, are not parsed.
        let maybe_secret = body.contains("Secret") || body.contains('\\');
        let parsed = maybe_secret
            .then(|| crate::yaml::parse_one(body.as_bytes(), &Default::default()).ok())
            .flatten()
            .filter(|n| n.str_at(&["kind"]) == Some("Secret"))
            .and_then(|n| crate::yaml::to_value(&n, crate::yaml::Dialect::Yaml12).ok());
        out.push_str("---\n");
        match parsed {
            Some(mut v) => {
                redacted += crate::redact::redact_secret(&mut v);
                if let Some(s) = source {
                    out.push_str(&format!("# Source: {s}\n"));
                }
                out.push_str(&crate::yaml::emit::to_string(&v));
            }
            None => {
                out.push_str(doc);
                out.push('\n');
            }
        }
    }
    (out, redacted)
}

/// Renders one target from a snapshot.
pub fn render_target(
    snapshot: &dyn Snapshot,
    target: &Target,
    opts: &RenderOptions,
    cache: &ParseCache,
) -> Rendered {
    let files = Files::new(snapshot, cache);
    let id = target.id();
    let outcome = crate::panic::catch(|| {
        crate::panic::inject(&id);
        target.render(&files, opts)
    });
    let crashed = outcome.is_err();
    let output = match outcome {
        Ok(output) => output.map_details(Some),
        Err(caught) => crate::engine::EngineOutput {
            resources: Vec::new(),
            findings: vec![panic_finding(&id, &caught, files.last_read())],
            ok: false,
            complete: true,
            details: None,
            printed: None,
        },
    };
    let mut findings = output.findings;
    let complete = output.complete;
    for f in &mut findings {
        if f.target.is_none() {
            f.target = Some(id.clone());
        }
    }
    Rendered {
        resources: output.resources,
        findings,
        read_set: ReadSet {
            partial: crashed,
            ..files.into_read_set()
        },
        ok: output.ok,
        complete,
        file: target.defining_file(snapshot),
        details: output.details,
        printed: output.printed,
    }
}

impl Rendered {
    /// `--strict`: findings that leave the output incomplete become errors, and the target
    /// fails; so does a chart whose published digest does not match.
    pub fn escalate_incomplete(&mut self) {
        for f in self.findings.iter_mut().filter(|f| f.is_incomplete()) {
            f.severity = Severity::Error;
            self.ok = false;
        }
        // A published digest that does not match what was rendered is a doubt about the
        // input itself.
        for f in self
            .findings
            .iter_mut()
            .filter(|f| f.rule == rules::FETCH_DIGEST_MISMATCH)
        {
            f.severity = Severity::Error;
        }
    }
}

/// The `internal.panic` finding for a crash while rendering `id`.
fn panic_finding(id: &str, caught: &crate::panic::Caught, last_read: Option<RepoPath>) -> Finding {
    let reading = match &last_read {
        Some(p) => format!(" while reading {p} (the last file read)"),
        None => String::new(),
    };
    let finding = Finding::error(
        rules::INTERNAL_PANIC,
        format!("kdelta crashed rendering {id}{reading}: {caught}"),
    )
    .with_help(
        "this is a bug in kdelta, not in your repository; please report it with this message \
         and, if you can, the file named here. The other targets were rendered.",
    );
    match last_read {
        Some(p) => finding.in_file(p.to_string()),
        None => finding,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_of_writing_a_secret_is_redacted_and_nothing_else() {
        let docs = [
            "# Source: c/templates/plain.yaml\nkind: Secret\ndata:\n  a: c2VjcmV0\n",
            "kind: \"\\x53ecret\"\nstringData:\n  b: hunter2\n",
            "kind: \"S\\u0065cret\"\nstringData:\n  c: hunter3\n",
            "x: &k Secret\nkind: *k\nstringData:\n  d: hunter4\n",
            "{kind: Secret, stringData: {e: hunter5}}\n",
            "kind: ConfigMap\ndata:\n  f: not-a-secret\n",
        ];
        let (out, redacted) = redact_printed(docs.to_vec());
        assert_eq!(redacted, 5, "{out}");
        for hidden in ["c2VjcmV0", "hunter2", "hunter3", "hunter4", "hunter5"] {
            assert!(!out.contains(hidden), "{hidden} printed:\n{out}");
        }
        assert!(out.contains("f: not-a-secret"), "{out}");
        assert!(out.contains("# Source: c/templates/plain.yaml"), "{out}");
    }

    #[test]
    fn an_object_no_engine_typed_is_a_finding_of_the_writer_at_its_file() {
        let doc = crate::yaml::parse_one(
            b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  v: !!int three\n",
            &crate::yaml::ParseOptions::default(),
        )
        .unwrap();
        let file = RepoPath::new("web/cm.yaml").unwrap();
        let rendered = Rendered {
            resources: vec![Resource::new(doc, file.clone())],
            findings: Vec::new(),
            read_set: ReadSet::default(),
            ok: true,
            complete: true,
            file,
            details: None,
            printed: None,
        };
        let f = rendered.to_yaml().unwrap_err();
        assert_eq!(f.rule, rules::RENDER_OUTPUT);
        assert_eq!(f.file.as_deref(), Some("web/cm.yaml"));
        assert!(
            f.message.contains("cannot decode !!str `three` as a !!int"),
            "{}",
            f.message
        );
    }
}
