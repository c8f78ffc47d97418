//! `kdelta explain`'s answer: where a rendered object comes from (computed by
//! `pipeline::provenance`), as text and as JSON.

use super::text::{write_field, Painter};
use crate::diff::FieldChange;
use serde::Serialize;
use std::fmt::Write;

/// Where one rendered object comes from.
#[derive(Clone, Debug, Serialize)]
pub struct Provenance {
    /// The target that renders it.
    pub target: String,
    /// Its id, as reports name it (`apps/v1/Deployment/prod/web`).
    pub resource: String,
    /// The file it was read from (a template, a manifest, a generator's kustomization).
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The kustomizations it passed through, innermost first (`base/kustomization.yaml`, then
    /// the overlays that include it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kustomizations: Vec<String>,
    /// The steps that changed it, in the order they ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepChange>,
    /// What else the engine knows: the chart and values that rendered it, the generator behind
    /// an Application.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One build step that changed the object.
#[derive(Clone, Debug, Serialize)]
pub struct StepChange {
    /// The kustomization that configured the step, and its entry's line.
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// `patches[0]`, `images[1] (ImageTagTransformer)`…
    pub step: String,
    /// The files the step wrote fields from, other than the kustomization (a patch file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<String>,
    pub fields: Vec<FieldChange>,
}

/// The text `kdelta explain` prints: per object, where it was read from, the kustomizations
/// it passed through, each step that changed it with the fields, and the engine's notes.
pub fn to_string(found: &[Provenance], color: bool) -> String {
    let p = Painter { color };
    let mut out = String::new();
    for (i, o) in found.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}  ({})", p.bold(&o.resource), o.target);
        let line = o.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(out, "  read from  {}{line}", o.file);
        if !o.kustomizations.is_empty() {
            let _ = writeln!(out, "  through    {}", o.kustomizations.join(" → "));
        }
        if o.steps.is_empty() && !o.kustomizations.is_empty() {
            let _ = writeln!(out, "  unchanged by the build");
        }
        for s in &o.steps {
            let line = s.line.map(|l| format!(":{l}")).unwrap_or_default();
            let from = if s.from.is_empty() {
                String::new()
            } else {
                format!(" from {}", s.from.join(", "))
            };
            let _ = writeln!(
                out,
                "  changed by {} at {}{line}{from}",
                p.bold(&s.step),
                s.file
            );
            for f in &s.fields {
                write_field(&mut out, f, &p);
            }
        }
        for n in &o.notes {
            let _ = writeln!(out, "  note       {n}");
        }
    }
    out
}
