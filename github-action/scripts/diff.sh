#!/usr/bin/env bash
# Runs `kdelta report BASE HEAD` once and writes every report the action publishes: the
# annotations and the step summary (`--format github`), the PR comment's Markdown, the JSON and
# JUnit reports and the HTML audit report, all in OUT_DIR. Writes their paths and kdelta's exit
# code to GITHUB_OUTPUT and exits 0: the action's last step fails the job, after the comment
# and the artifacts are out.
#
# Inputs (environment): BASE, HEAD, OUT_DIR, PATHS (whitespace-separated), CONFIG,
# FAIL_ON_DIFF, SHOW_SECRETS ("true"/"false"), ARGS (extra arguments, whitespace-separated),
# ARTIFACT (the artifacts' name, which a cut comment points to), COMMENT_LIMIT (characters).
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
} >>"$GITHUB_OUTPUT"
if [ "$code" -ge 2 ]; then
    echo "::error title=kdelta::kdelta could not run (exit code $code); see the messages above"
fi
exit 0
