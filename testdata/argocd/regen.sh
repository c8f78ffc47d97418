#!/bin/sh
# Re-runs each case's `reference` commands (from case.yaml) to rewrite its expected.yaml.
# A case with argo-edit/ is built from a copy of repo/ with those files laid over it, in
# $WORK (the reference commands name it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for case in "$here"/[0-9]*/; do
    [ -f "$case/expected-error.txt" ] && continue
    cd "$case"
    WORK=$(mktemp -d)
    cp -R repo/. "$WORK"
    if [ -d argo-edit ]; then cp -R argo-edit/. "$WORK"; fi
    export WORK
    sed -n '/^reference: |/,$p' case.yaml | tail -n +2 | sed 's/^  //' > "$WORK/.reference.sh"
    sh -e "$WORK/.reference.sh" > expected.yaml
    rm -rf "$WORK"
done
