//! The `helmCharts:` seam: entries are validated; until the Helm engine inflates charts each is
//! a notice naming what is missing.

use super::{Builder, Kt};
use crate::finding::rules;
use crate::kustomize::error::KError;

impl Builder {
    /// `helmCharts:` entries are validated; until the Helm engine inflates them, each one is a
    /// notice naming the chart whose resources are missing.
    pub(super) fn note_helm_charts(&mut self, kt: &Kt) -> Result<(), KError> {
        for (i, chart) in kt.k.helm_charts.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "helmCharts", Some(i));
            if chart.name.is_empty() {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    "helmCharts entry needs a name",
                )));
            }
            if !["", "merge", "override", "replace"].contains(&chart.values_merge.as_str()) {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    format!(
                        "valuesMerge must be one of 'override', 'replace', or 'merge', not '{}'",
                        chart.values_merge
                    ),
                )));
            }
            let version = if chart.version.is_empty() {
                String::new()
            } else {
                format!(" {}", chart.version)
            };
            let span = kt.span("helmCharts", Some(i));
            self.findings.push(
                crate::finding::Finding::notice(
                    rules::KUSTOMIZE_HELM_NOT_RENDERED_YET,
                    format!(
                        "helm chart '{}'{version} is not inflated by this kdelta version yet; its resources are missing from the output",
                        chart.name
                    ),
                )
                .at(kt.file.to_string(), span.line, span.column)
                .incomplete(),
            );
        }
        Ok(())
    }
}
