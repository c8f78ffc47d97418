#!/bin/sh
# Re-runs each case's `reference` commands (from case.yaml) in a copy of its repo/ ($WORK)
# to rewrite its expected.yaml.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for case in "$here"/[0-9]*/; do
    [ -f "$case/expected-error.txt" ] && continue
    cd "$case"
    WORK=$(mktemp -d)
    cp -R repo/. "$WORK"
    export WORK
    sed -n '/^reference: |/,$p' case.yaml | tail -n +2 | sed 's/^  //' > "$WORK/.reference.sh"
    PATH="$HOME/.local/helm-oracle/bin:$PATH" sh -e "$WORK/.reference.sh" > expected.yaml
    rm -rf "$WORK"
done
