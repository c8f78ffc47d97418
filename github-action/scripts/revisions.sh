#!/usr/bin/env bash
# Works out the two revisions to compare and the pull request to comment on, from the event
# that started the workflow (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH) and the action's inputs, and
# checks that the clone holds both. Writes `base`, `head` and `pr` to GITHUB_OUTPUT; exits 2
# with an explanation when a revision is missing.
#
# Inputs (environment): BASE, HEAD (empty: from the event), MERGE_BASE ("true"/"false").
set -euo pipefail

fail() {
    echo "::error title=kdelta::$1"
    echo "exit-code=2" >>"$GITHUB_OUTPUT"
    exit 2
}

event() {
    jq -r "$1 // empty" "${GITHUB_EVENT_PATH:-/dev/null}" 2>/dev/null || true
}

zeros=0000000000000000000000000000000000000000
base=${BASE:-}
head=${HEAD:-}
pr=""
case "${GITHUB_EVENT_NAME:-}" in
    pull_request | pull_request_target)
        pr=$(event .pull_request.number)
        [ -n "$base" ] || base=$(event .pull_request.base.sha)
        [ -n "$head" ] || head=$(event .pull_request.head.sha)
        ;;
    push)
        [ -n "$base" ] || base=$(event .before)
        [ -n "$head" ] || head=$(event .after)
        ;;
esac
[ -n "$head" ] && [ "$head" != "$zeros" ] || head=${GITHUB_SHA:-HEAD}

shallow=false
if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = "true" ]; then
    shallow=true
    echo "::warning title=kdelta::this is a shallow clone; kdelta needs the history of both revisions. Check out with actions/checkout and fetch-depth: 0."
fi

# Explains a revision that is not in the clone: the usual cause is a shallow checkout, and on
# pull_request_target the pull request's head, which is never fetched by default.
missing() {
    local what=$1 rev=$2 why="check out with actions/checkout and fetch-depth: 0"
    if [ "$what" = head ] && [ "${GITHUB_EVENT_NAME:-}" = pull_request_target ]; then
        why="on pull_request_target, check out the pull request with actions/checkout (ref: \${{ github.event.pull_request.head.sha }}, fetch-depth: 0)"
    fi
    [ "$shallow" = true ] && why="this is a shallow clone; $why"
    fail "the $what revision $rev is not in this clone: $why"
}

git rev-parse --quiet --verify "$head^{commit}" >/dev/null || missing head "$head"

if [ -z "$base" ] || [ "$base" = "$zeros" ]; then
    # No base (the first push of a branch, a manual run): what the branch adds to the default
    # branch.
    default=$(event .repository.default_branch)
    [ -n "$default" ] || fail "no base revision: set the action's base input"
    base="origin/$default"
    MERGE_BASE=true
fi
git rev-parse --quiet --verify "$base^{commit}" >/dev/null || missing base "$base"

if [ "${MERGE_BASE:-true}" = "true" ]; then
    mb=$(git merge-base "$base" "$head") ||
        fail "no merge base between $base and $head: the history that joins them is missing; check out with actions/checkout and fetch-depth: 0"
    base=$mb
fi

{
    echo "base=$base"
    echo "head=$head"
    echo "pr=$pr"
} >>"$GITHUB_OUTPUT"
echo "kdelta: comparing $base → $head${pr:+ (pull request #$pr)}"
