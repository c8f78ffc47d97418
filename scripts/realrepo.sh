#!/usr/bin/env bash
# Compare `kdelta render` with `kubectl kustomize` on every kustomization directory of a real repository.
#
#   scripts/realrepo.sh [-o OUTDIR] [-t TIMEOUT] [-j JOBS] [-f FILTER] [-r REV] REPO KDELTA
#
# REPO is a clone with a work tree; KDELTA a kdelta binary. Every directory under REPO holding a
# kustomization.yaml, kustomization.yml or Kustomization (outside .git) is rendered twice, both
# from the repository root with the directory's path relative to it:
#     kubectl kustomize DIR                (reference; kustomize v5.5.0 as built into kubectl)
#     kdelta render --show-secrets DIR
# each under `timeout TIMEOUT` (default 120 s). JOBS directories are processed at once (default 1;
# the machine is shared, keep it at 1 or 2). FILTER, an extended regex, keeps only the directories
# whose relative path matches it. With -r REV, kdelta reads the files from git revision REV
# (`kdelta render --rev REV`) instead of the work tree; kubectl always reads the work tree, so
# check out REV first (e.g. -r HEAD on a clean clone) — this exercises kdelta's git reader.
#
# Each directory gets one class:
#     SAME          both succeed, outputs byte-identical
#     DIFF          both succeed, outputs differ (diffs/<slug>.diff, a `diff -u kubectl kdelta`)
#     KDELTA-FAIL   kubectl succeeds, kdelta exits non-zero (not 101)
#     PANIC         kdelta exits 101 (a Rust panic), whatever kubectl did
#     TIMEOUT       either tool exceeded TIMEOUT (kdelta timing out is listed even if kubectl failed)
#     REMOTE        kubectl fails and the overlay uses a remote base/resource (kubectl cannot fetch
#                   without network, or kdelta printed its kustomize.remote-resource notice):
#                   skipped, counted
#     KUBECTL-FAIL  kubectl fails for another reason: skipped, counted (kdelta's exit is recorded;
#                   the note says so when kdelta succeeded, e.g. helmCharts without --enable-helm)
#
# Output, in OUTDIR (default ./realrepo-out/<basename of REPO>):
#     results.tsv   dir, class, kubectl exit, kdelta exit, kubectl ms, kdelta ms, note
#                   (note: kubectl's error on one line, kdelta's first stderr line, or its
#                   remote-resource notice on REMOTE; changed-line count on DIFF)
#     diffs/        one unified diff per DIFF directory
#     logs/         stdout/stderr of both tools for every directory that is not SAME
#     summary.txt   the summary line, also printed on stdout
# Exit status: 0 if every compared directory is SAME (skips allowed), 1 otherwise, 2 on usage error.
set -euo pipefail

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

OUT= TIMEOUT=120 JOBS=1 FILTER= REV=
while getopts "o:t:j:f:r:h" opt; do
  case $opt in
    o) OUT=$OPTARG ;;
    t) TIMEOUT=$OPTARG ;;
    j) JOBS=$OPTARG ;;
    f) FILTER=$OPTARG ;;
    r) REV=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
REPO=$(cd "$1" && pwd) || usage
KDELTA=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
[ -x "$KDELTA" ] || { echo "realrepo.sh: $2 is not an executable" >&2; exit 2; }
command -v kubectl >/dev/null || { echo "realrepo.sh: kubectl not found" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$PWD/realrepo-out/$(basename "$REPO")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/diffs" "$OUT/logs" "$OUT/rows"
mkdir -p "$OUT/diffs" "$OUT/logs" "$OUT/rows"

export REPO KDELTA OUT TIMEOUT REV

# One directory: run both tools, classify, write rows/<slug>.tsv (a single line).
one() {
  local rel=$1 slug t0 t1 t2 krc drc kms dms class note
  slug=$(printf '%s' "$rel" | sed 's#/#__#g')
  [ "$slug" = . ] && slug=ROOT
  local w; w=$(mktemp -d)
  cd "$REPO"
  t0=$(date +%s%N)
  krc=0; timeout "$TIMEOUT" kubectl kustomize "$rel" >"$w/kubectl.out" 2>"$w/kubectl.err" || krc=$?
  t1=$(date +%s%N)
  drc=0; RUST_BACKTRACE=1 timeout "$TIMEOUT" "$KDELTA" render --show-secrets ${REV:+--rev "$REV"} "$rel" \
    >"$w/kdelta.out" 2>"$w/kdelta.err" || drc=$?
  t2=$(date +%s%N)
  kms=$(( (t1 - t0) / 1000000 )); dms=$(( (t2 - t1) / 1000000 ))
  firstline() { grep -m1 -v '^[[:space:]]*$' "$1" 2>/dev/null | tr '\t' ' ' | cut -c1-300 || true; }
  # kubectl's error, on one line, without its klog prefix and `err=<` wrapping
  # (deprecation warnings and klog info lines dropped)
  kerr() { grep -v -e '^# Warning' -e '^I[0-9]\{4\} ' "$1" \
             | sed 's/^E[0-9]\{4\} [0-9:.]* *[0-9]* run.go:[0-9]*\] "command failed" err=//' \
             | grep -v '^[[:space:]]*[<>]\{0,1\}[[:space:]]*$' | tr '\n\t' '  ' | tr -s ' ' | cut -c1-300 || true; }
  note=
  if [ "$drc" = 101 ]; then
    class=PANIC; note=$(grep -m1 'panicked at' -A1 "$w/kdelta.err" | tr '\n\t' '  ' | cut -c1-300 || true)
  elif [ "$krc" = 124 ] || [ "$drc" = 124 ]; then
    class=TIMEOUT; note="kubectl=$krc kdelta=$drc"
  elif [ "$krc" = 0 ] && [ "$drc" = 0 ]; then
    if cmp -s "$w/kubectl.out" "$w/kdelta.out"; then class=SAME
    else
      class=DIFF
      diff -u --label "kubectl kustomize $rel" --label "kdelta render $rel" \
        "$w/kubectl.out" "$w/kdelta.out" >"$OUT/diffs/$slug.diff" || true
      note="$(grep -c '^[-+][^-+]' "$OUT/diffs/$slug.diff" || true) changed lines"
    fi
  elif [ "$krc" = 0 ]; then
    class=KDELTA-FAIL; note=$(firstline "$w/kdelta.err")
  elif grep -qE 'no such host|dial tcp|Could not resolve host|failed to run .*git (fetch|clone)|network is unreachable' "$w/kubectl.err" \
       || grep -q 'kustomize\.remote-resource' "$w/kdelta.err"; then
    class=REMOTE; note=$( (grep -m1 'remote-resource' "$w/kdelta.err" || firstline "$w/kubectl.err") | tr '\t' ' ' | cut -c1-300)
  else
    class=KUBECTL-FAIL; note="kubectl: $(kerr "$w/kubectl.err")"
    grep -q '^panic: ' "$w/kubectl.err" && note="kubectl panicked (Go): $(grep -m1 '^panic: ' "$w/kubectl.err" | cut -c1-200)"
    [ "$drc" = 0 ] && note="kdelta succeeded where kubectl failed; $note"
  fi
  if [ "$class" != SAME ]; then
    for f in kubectl.out kubectl.err kdelta.out kdelta.err; do cp "$w/$f" "$OUT/logs/$slug.$f"; done
  fi
  rm -rf "$w"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rel" "$class" "$krc" "$drc" "$kms" "$dms" "$note" >"$OUT/rows/$slug.tsv"
}
export -f one

cd "$REPO"
find . -name .git -prune -o -type f \( -name kustomization.yaml -o -name kustomization.yml -o -name Kustomization \) -print \
  | sed 's#^\./##; s#/[^/]*$##; s#^kustomization\.ya\{0,1\}ml$#.#; s#^Kustomization$#.#' \
  | LC_ALL=C sort -u | { if [ -n "$FILTER" ]; then grep -E -- "$FILTER" || true; else cat; fi; } >"$OUT/dirs.txt"
N=$(wc -l <"$OUT/dirs.txt")
echo "realrepo.sh: $N kustomization directories in $REPO (timeout ${TIMEOUT}s, $JOBS at once${REV:+, kdelta --rev $REV})" >&2
START=$(date +%s)
tr '\n' '\0' <"$OUT/dirs.txt" | xargs -0 -r -P "$JOBS" -I{} bash -c 'one "$1"' _ {}

{ printf 'dir\tclass\tkubectl_rc\tkdelta_rc\tkubectl_ms\tkdelta_ms\tnote\n'
  find "$OUT/rows" -name '*.tsv' -print0 | xargs -0 -r cat | LC_ALL=C sort; } >"$OUT/results.tsv"
rm -rf "$OUT/rows"
count() { awk -F'\t' -v c="$1" 'NR > 1 && $2 == c' "$OUT/results.tsv" | wc -l; }
SUMMARY="$(basename "$REPO") @ $(git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null || echo '?')${REV:+ (kdelta --rev $REV)}: $N overlays;"
SUMMARY+=" same $(count SAME), different $(count DIFF), kdelta-failed $(count KDELTA-FAIL), panics $(count PANIC),"
SUMMARY+=" timeouts $(count TIMEOUT), kubectl-failed $(count KUBECTL-FAIL), remote $(count REMOTE)"
SUMMARY+=" ($(( $(date +%s) - START ))s) -> $OUT"
echo "$SUMMARY" | tee "$OUT/summary.txt"
bad=$(( $(count DIFF) + $(count KDELTA-FAIL) + $(count PANIC) + $(count TIMEOUT) ))
[ "$bad" -eq 0 ]
