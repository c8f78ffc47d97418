#!/usr/bin/env bash
# Names the actions/cache entry that keeps kdelta's cache of fetched charts between runs: writes
# `hash`, a digest of what decides which charts a run fetches, to GITHUB_OUTPUT. It covers, at
# both revisions compared, the files that name charts (Chart.yaml, Chart.lock, requirements.yaml,
# requirements.lock and kustomizations, by their blob ids) and the lines of YAML files that
# name a chart in an Argo CD Application (`chart:`, `repoURL:`, `targetRevision:`), and the
# inputs that choose the targets (working-directory, paths, config, args).
#
# When one of them changes, the key changes and what the run fetched is saved as a new entry;
# the newest earlier entry is restored first (by the key's prefix), so only what is new is
# downloaded. A cache is a convenience: when the digest cannot be computed this warns, writes
# nothing (the action then neither restores nor saves) and exits 0.
#
# Inputs (environment): BASE, HEAD (the commits compared), WORKING_DIRECTORY, PATHS, CONFIG,
# ARGS.
set -uo pipefail

# The file names whose content decides what is fetched, at the end of a path in `git ls-tree`'s
# output (a quoted path ends with a quote).
named='	(.*/)?(Chart\.(yaml|lock)|requirements\.(yaml|lock)|kustomization\.ya?ml|Kustomization)"?$'
# The keys of an Argo CD Application's Helm source (also in ApplicationSet templates).
keys='^[[:space:]-]*(chart|repoURL|targetRevision):'

describe() {
    local rev top
    top=$(git rev-parse --show-toplevel) && cd "$top" || return 1
    for rev in "$BASE" "$HEAD"; do
        echo "revision"
        git ls-tree -r --full-tree "$rev" | { grep -E "$named" || true; } || return 1
        # 1: no line matched.
        git grep -h -I -E -e "$keys" "$rev" -- '*.yaml' '*.yml' || [ $? -eq 1 ] || return 1
    done
    printf 'input %s\n' "working-directory=${WORKING_DIRECTORY:-.}" "paths=${PATHS:-}" \
        "config=${CONFIG:-}" "args=${ARGS:-}"
}

if ! text=$(describe) || [ -z "${BASE:-}" ] || [ -z "${HEAD:-}" ]; then
    echo "::warning title=kdelta::cannot name the cache of fetched charts; it is not restored or saved in this run"
    exit 0
fi
hash=$(printf '%s\n' "$text" | sha256sum | cut -c1-32)
echo "hash=$hash" >>"$GITHUB_OUTPUT"
echo "kdelta: the cache of fetched charts is keyed by $hash"
