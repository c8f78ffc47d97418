#!/usr/bin/env python3
"""Copies a chart with its dependencies vendored, as `helm dependency build` would leave it,
from local clones of chart repositories (no network): for the Helm section of
scripts/bench.sh.

    scripts/vendor-chart.py OUT CHART SEARCH...

CHART is a chart directory; each SEARCH is a directory of charts (`bitnami/charts/bitnami`,
`prometheus-community/helm-charts/charts`). Every dependency of Chart.yaml or
requirements.yaml missing from charts/ is copied there from the first SEARCH directory that
holds a chart of its name, then its own dependencies, recursively (`file://` ones are left to
the chart). The versions are whatever the clones hold: helm and kdelta render them the same.
"""
import os
import shutil
import sys

import yaml


def find(name, search):
    for s in search:
        p = os.path.join(s, name)
        if os.path.isfile(os.path.join(p, "Chart.yaml")):
            return p
    sys.exit(f"vendor-chart.py: no chart named {name} in {' '.join(search)}")


def dependencies(chart):
    out = []
    for f in ("Chart.yaml", "requirements.yaml"):
        p = os.path.join(chart, f)
        if os.path.isfile(p):
            with open(p) as fh:
                out += (yaml.safe_load(fh) or {}).get("dependencies") or []
    return out


def vendor(chart, search):
    for dep in dependencies(chart):
        target = os.path.join(chart, "charts", dep["name"])
        if os.path.exists(target) or (dep.get("repository") or "").startswith("file://"):
            continue
        shutil.copytree(find(dep["name"], search), target, symlinks=True)
    charts = os.path.join(chart, "charts")
    if os.path.isdir(charts):
        for sub in sorted(os.listdir(charts)):
            if os.path.isdir(os.path.join(charts, sub)):
                vendor(os.path.join(charts, sub), search)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, chart, search = sys.argv[1], sys.argv[2], sys.argv[3:]
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(chart, out, symlinks=True)
    vendor(out, search)


if __name__ == "__main__":
    main()
