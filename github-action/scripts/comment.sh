#!/usr/bin/env bash
# Keeps one sticky comment on the pull request: the first comment that starts with this job's
# marker is edited in place, or a new one is posted; a pull request without changes or findings
# gets no new comment (an existing one is updated to say so). Uses `gh api` with GH_TOKEN.
# A comment that cannot be written (a fork's read-only token) is a warning, not a failure.
#
# Inputs (environment): PR (the pull request's number; empty: nothing to do), MARKDOWN (the
# comment's body), JSON (the JSON report), KEY (tells several kdelta jobs' comments apart),
# GITHUB_REPOSITORY.
set -uo pipefail

if [ -z "${PR:-}" ]; then
    echo "kdelta: not a pull request; no comment"
    exit 0
fi
if [ ! -s "${MARKDOWN:-}" ]; then
    echo "::warning title=kdelta::no Markdown report to comment with (kdelta did not run?)"
    exit 0
fi
# The key goes into a jq string below: keep it to characters that need no quoting.
key=$(printf '%s' "${KEY:-default}" | tr -c 'A-Za-z0-9._/-' '-')
marker="<!-- kdelta:comment $key -->"
repo=${GITHUB_REPOSITORY:?}

existing=$(gh api --paginate "repos/$repo/issues/$PR/comments" \
    --jq ".[] | select(.body | startswith(\"$marker\")) | .id" 2>&1) || {
    echo "::warning title=kdelta::cannot read the pull request's comments: $existing"
    exit 0
}
existing=$(printf '%s\n' "$existing" | sed -n 1p)

quiet=$(jq -r '(.summary.modified + .summary.added + .summary.removed == 0)
    and (.summary.errors == 0) and ((.findings // []) | length == 0)' "${JSON:-/dev/null}" \
    2>/dev/null || echo false)
if [ -z "$existing" ] && [ "$quiet" = true ]; then
    echo "kdelta: nothing changes and nothing was found; no comment"
    exit 0
fi

body=$(mktemp)
trap 'rm -f "$body"' EXIT
{
    echo "$marker"
    cat -- "$MARKDOWN"
} >"$body"

if [ -n "$existing" ]; then
    method=PATCH endpoint="repos/$repo/issues/comments/$existing" did=updated
else
    method=POST endpoint="repos/$repo/issues/$PR/comments" did=posted
fi
if ! result=$(gh api -X "$method" "$endpoint" -F "body=@$body" --jq .html_url 2>&1); then
    echo "::warning title=kdelta::cannot write the pull request comment (a pull request from a fork gets a read-only token on pull_request; see the action's README): $result"
    exit 0
fi
echo "comment-url=$result" >>"${GITHUB_OUTPUT:-/dev/null}"
echo "kdelta: $did the pull request comment $result"
