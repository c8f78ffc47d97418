#!/usr/bin/env bash
# Times kdelta against the reference tool on a real repository, side by side, at two revisions:
#   (a) `kubectl kustomize` on every kustomization of BASE and of HEAD (each revision exported
#       with `git archive`, so both tools read the same files), one after another;
#   (b) `kdelta diff BASE HEAD` (default jobs, and -j 1);
#   (c) `kdelta diff BASE HEAD --changed-only`;
# and prints wall times, their ratios to (a), and kdelta's peak memory (GNU time's max RSS).
# Correctness on the same repository is scripts/realrepo.sh's job.
#
# Usage: scripts/bench-repo.sh [--runs N] REPO BASE HEAD   (BENCH_NAME=... names REPO in the output)
#   e.g. scripts/bench-repo.sh /tmp/kubeflow v1.10.2 26.03
set -euo pipefail

runs=3
if [ "${1:-}" = "--runs" ]; then
  runs="$2"
  shift 2
fi
[ $# -eq 3 ] || { echo "usage: scripts/bench-repo.sh [--runs N] REPO BASE HEAD" >&2; exit 2; }
repo="$(cd "$1" && pwd)" base="$2" head="$3"
command -v kubectl >/dev/null || { echo "bench-repo.sh: kubectl is needed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-repo.sh: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
echo "building kdelta (release)..." >&2
(cd "$root" && cargo build --release --quiet --bin kdelta)
kdelta="${CARGO_TARGET_DIR:-$root/target}/release/kdelta"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The kustomizations of each revision, exported to disk for kubectl.
for side in base head; do
  rev=${!side}
  mkdir -p "$work/$side"
  git -C "$repo" archive "$rev" | tar -x -C "$work/$side"
  (cd "$work/$side" && find . -name .git -prune -o \
    \( -name kustomization.yaml -o -name kustomization.yml -o -name Kustomization \) -print |
    xargs -r -n1 dirname | sed 's|^\./||' | sort -u) >"$work/$side.dirs"
done
count=$(cat "$work/base.dirs" "$work/head.dirs" | wc -l)

# seconds NAME COMMAND: the mean wall time of COMMAND over $runs runs (after one warm-up), with
# the peak RSS of the last run in $work/NAME.rss (KB).
seconds() {
  local name="$1" cmd="$2" total=0 i t
  bash -c "$cmd" >/dev/null 2>&1 || true
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$work/$name.time" bash -c "$cmd" >/dev/null 2>&1 || true
    # GNU time writes "Command exited with non-zero status N" first when it does.
    read -r t rss < <(tail -n 1 "$work/$name.time")
    total=$(python3 -c "print($total + $t)")
    echo "$rss" >"$work/$name.rss"
  done
  python3 -c "print('%.2f' % ($total / $runs))"
}

{
  echo 'cd "$1"'
  echo 'while read -r d; do kubectl kustomize "$d" >/dev/null 2>&1 || true; done <"$2"'
} >"$work/kubectl.sh"
echo "timing (a) kubectl kustomize on $count kustomizations..." >&2
t_base=$(runs=1 seconds kubectl-base "bash '$work/kubectl.sh' '$work/base' '$work/base.dirs'")
t_head=$(runs=1 seconds kubectl-head "bash '$work/kubectl.sh' '$work/head' '$work/head.dirs'")
t_kubectl=$(python3 -c "print('%.1f' % ($t_base + $t_head))")

echo "timing (b) kdelta diff..." >&2
t_diff=$(seconds diff "cd '$repo' && '$kdelta' diff '$base' '$head' --format json")
t_diff1=$(seconds diff-j1 "cd '$repo' && '$kdelta' diff '$base' '$head' -j 1 --format json")
echo "timing (c) kdelta diff --changed-only..." >&2
t_only=$(seconds only "cd '$repo' && '$kdelta' diff '$base' '$head' --changed-only --format json")
summary=$(cd "$repo" && "$kdelta" diff "$base" "$head" --format json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
print(" ".join(f"{k}={v}" for k, v in s.items()))' || true)

ratio() { python3 -c "print('%.0f' % ($1 / $2))"; }
mb() { python3 -c "print('%.0f MB' % ($(cat "$work/$1.rss") / 1024))"; }
cat <<EOF

${BENCH_NAME:-$(basename "$repo")} $base → $head, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)
  (a) kubectl kustomize, $count kustomizations of both revisions   ${t_kubectl} s
  (b) kdelta diff                   ${t_diff} s   $(ratio "$t_kubectl" "$t_diff")x   peak $(mb diff)
      kdelta diff -j 1              ${t_diff1} s   $(ratio "$t_kubectl" "$t_diff1")x   peak $(mb diff-j1)
  (c) kdelta diff --changed-only    ${t_only} s   $(ratio "$t_kubectl" "$t_only")x   peak $(mb only)
      $summary
EOF
