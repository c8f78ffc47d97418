#!/bin/sh
# Rewrites each case's expected.yaml with the reference tool: `kubectl kustomize` (kustomize
# v5.5.0) of the case's local/ tree (its inputs without what kdelta cannot fetch), twice, and
# checks that both runs agree. The command goes into case.yaml's `reference:` line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for case in "$here"/[0-9]*/; do
    cd "$case"
    build_dir=$(sed -n 's/^build_dir: *//p' case.yaml)
    dir=local
    [ "$build_dir" = "." ] || dir="local/$build_dir"
    kubectl kustomize "$dir" > expected.yaml
    kubectl kustomize "$dir" | cmp -s - expected.yaml || {
        echo "$(basename "$case"): the reference tool is not deterministic here" >&2
        exit 1
    }
    sed -i '/^reference:/d' case.yaml
    echo "reference: kubectl kustomize $dir" >> case.yaml
    echo "$(basename "$case"): ok"
done
