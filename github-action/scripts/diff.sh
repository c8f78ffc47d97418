#!/usr/bin/env bash
# Runs `kdelta report BASE HEAD` once and writes every report the action publishes: the
# annotations and the step summary (`--format github`), the PR comment's Markdown, the JSON and
# JUnit reports and the HTML audit report, all in OUT_DIR. Writes their paths and kdelta's exit
# code to GITHUB_OUTPUT and exits 0: the action's last step fails the job, after the comment
# and the artifacts are out.
#
# With FETCH "true" kdelta first downloads the charts the targets name into its cache
# (`--fetch`); with "false" it renders offline, from what the cache holds. The cache is
# KDELTA_CACHE_DIR (the action points it at the directory it keeps with actions/cache); when it
# is worth saving afterwards (not empty, and nothing failed to fetch), its path is the output
# `cache-dir`.
#
# Inputs (environment): BASE, HEAD, OUT_DIR, PATHS (whitespace-separated), CONFIG,
# FAIL_ON_DIFF, SHOW_SECRETS, FETCH ("true"/"false"), ARGS (extra arguments,
# whitespace-separated), ARTIFACT (the artifacts' name, which a cut comment points to),
# COMMENT_LIMIT (characters), KDELTA_CACHE_DIR (read by kdelta itself).
set -uo pipefail

out=$(realpath -m -- "${OUT_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kdelta-report}")
mkdir -p -- "$out"
args=(report "$BASE" "$HEAD"
    --format github
    --html "$out/kdelta-report.html"
    --json "$out/kdelta-report.json"
    --junit "$out/kdelta-junit.xml"
    --markdown "$out/kdelta-comment.md"
    --markdown-limit "${COMMENT_LIMIT:-65000}"
    --color never)
[ -z "${ARTIFACT:-}" ] || args+=(--full-report "$ARTIFACT")
[ -z "${CONFIG:-}" ] || args+=(--config "$CONFIG")
[ "${FAIL_ON_DIFF:-false}" != "true" ] || args+=(--fail-on-diff)
[ "${SHOW_SECRETS:-false}" != "true" ] || args+=(--show-secrets)
[ "${FETCH:-true}" != "true" ] || args+=(--fetch)
read -r -a extra <<<"${ARGS:-}"
args+=("${extra[@]}")
read -r -a paths <<<"${PATHS:-}"
[ ${#paths[@]} -eq 0 ] || args+=(-- "${paths[@]}")

kdelta "${args[@]}"
code=$?
{
    echo "dir=$out"
    echo "json=$out/kdelta-report.json"
    echo "junit=$out/kdelta-junit.xml"
    echo "html=$out/kdelta-report.html"
    echo "markdown=$out/kdelta-comment.md"
    echo "exit-code=$code"
    # The cache, for the action to save. Not when it is empty, nor after a run that could not
    # fetch everything: an entry is never replaced, so one saved without a chart that failed
    # for a moment would make every later run with the same key download that chart again.
    cache=${KDELTA_CACHE_DIR:-}
    if [ -n "$cache" ] && [ "$code" -lt 2 ] &&
        [ -n "$(find "$cache" -type f -print -quit 2>/dev/null)" ] &&
        jq -e '[.findings[]? | select(.rule == "fetch.failed")] | length == 0' \
            "$out/kdelta-report.json" >/dev/null 2>&1; then
        echo "cache-dir=$cache"
    fi
} >>"$GITHUB_OUTPUT"
if [ "$code" -ge 2 ]; then
    echo "::error title=kdelta::kdelta could not run (exit code $code); see the messages above"
fi
exit 0
